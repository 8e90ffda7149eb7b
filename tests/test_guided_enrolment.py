"""Issue 11: guided enrolment driven by an image-folder source (the kiosk's camera
stand-in): captures, skip, redo, progress, and the deck profile written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.cards import Card
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.styles import PUBLISHED, render_styled_face
from companion.vision.detector import MODELS_DIR
from companion.vision.sources import ImageFolderSource

pytestmark = pytest.mark.skipif(not (MODELS_DIR / "taki-yolov8n.pt").exists(), reason="no shipped finder")


def _photos(folder: Path) -> None:
    """What the camera sees: an empty table, the red 7 held still, the King held
    still twice (it is redone), numbered in time order."""
    folder.mkdir()
    faces = {c: render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in ("R7", "KING")}
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False)
    comp = Compositor({Card.from_code(k): v for k, v in faces.items()}, cfg)
    frames = [np.full((480, 480, 3), 120, np.uint8)]
    for code, seed in (("R7", 1), ("KING", 2), ("KING", 3)):
        image = comp.scene(np.random.default_rng(seed), top=Card.from_code(code)).image
        frames += [image] * 4
    for i, f in enumerate(frames):
        cv2.imwrite(str(folder / f"{i:03d}.png"), f)


def test_guided_enrolment_from_an_image_folder(tmp_path: Path) -> None:
    from companion.training.enrol import default_card_finder
    from companion.training.fewshot import LearnSpec
    from companion.training.guided import GuidedEnrolment
    from companion.vision.deck import load_profile

    _photos(tmp_path / "camera")
    source = ImageFolderSource(tmp_path / "camera")
    said: list[str] = []
    faces = tuple(Card.from_code(c) for c in ("R7", "B+2", "KING"))
    guide = GuidedEnrolment(default_card_finder(), tmp_path / "deck", faces, steady_frames=2, speak=said.append)
    view = guide.view()
    assert view.prompt == "Show the red 7" and view.progress == 0
    view = guide.feed(source.read().image)  # the empty table
    assert "no card in view" in view.message.lower() and not view.steady
    for _ in range(4):
        view = guide.feed(source.read().image)
    assert said == ["Got it."] and view.done == 1 and view.prompt == "Show the blue plus two"
    view = guide.skip()  # this deck has no blue +2
    assert view.prompt == "Show the King" and view.progress == pytest.approx(2 / 3)
    for _ in range(4):
        view = guide.feed(source.read().image)
    assert view.finished and len(said) == 2
    view = guide.redo()  # take the King again
    assert view.prompt == "Show the King" and not (tmp_path / "deck/faces/KING.png").exists()
    for _ in range(4):
        view = guide.feed(source.read().image)
    assert view.finished and len(said) == 3
    assert sorted(p.name for p in (tmp_path / "deck/faces").iterdir()) == ["KING.png", "R7.png"]
    done: list = []
    guide.learn("Test deck", LearnSpec(scenes_per_face=2, val_per_face=1, epochs=1), done.append).join(300)
    assert done and done[0].profile is not None and not done[0].error, done
    profile = load_profile(tmp_path / "deck")
    assert profile.name == "Test deck" and set(profile.enrolled) == {"R7", "KING"}
    assert "B+2" in profile.missing and set(profile.quality) == {"R7", "KING"}


def test_learning_with_no_face_taken_is_refused(tmp_path: Path) -> None:
    from companion.training.guided import GuidedEnrolment
    from companion.vision.cardfinder import CardFinder

    guide = GuidedEnrolment(CardFinder(lambda: None), tmp_path / "deck")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="No face was taken"):
        guide.learn()
    assert guide.view().error.startswith("No face was taken")


def test_a_camera_that_raises_is_said_on_the_enrolment_screen(tmp_path: Path) -> None:
    import time

    from companion.training.guided import GuidedEnrolment
    from companion.ui.main import EnrolWorker
    from companion.vision.cardfinder import CardFinder

    class Broken:
        def read(self):  # type: ignore[no-untyped-def]
            raise OSError("USB transfer failed")

        def close(self) -> None:
            pass

    worker = EnrolWorker(Broken(), GuidedEnrolment(CardFinder(lambda: None), tmp_path / "deck")).start()  # type: ignore[arg-type]
    deadline = time.monotonic() + 3
    while "Camera error" not in worker.view()[1].message and time.monotonic() < deadline:
        time.sleep(0.02)
    worker.stop()
    view = worker.view()[1]
    assert view.message == "Camera error (OSError): retrying." and view.prompt == "Show the red 1"


def test_a_face_photographed_under_a_deep_blue_lamp_is_kept_whitened_and_named(tmp_path: Path) -> None:
    """Enrolment from photos: a photo under a deep blue lamp keeps its face, brought
    back to white paper, and the face is named for a retake under white light."""
    from companion.cli import main
    from companion.training.enrol import enrol

    faces = {c: render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in ("R7", "Y3")}
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False, warm_p=0.0)
    comp = Compositor({Card.from_code(k): v for k, v in faces.items()}, cfg)
    for code, lamp in (("R7", (1.0, 0.55, 0.1)), ("Y3", (1.0, 1.0, 1.0))):  # BGR: deep blue, white
        image = comp.scene(np.random.default_rng(7), top=Card.from_code(code)).image
        (tmp_path / "photos" / code).mkdir(parents=True)
        cv2.imwrite(str(tmp_path / "photos" / code / "1.png"), np.clip(image * np.array(lamp), 0, 255).astype(np.uint8))
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert set(report.enrolled) == {"R7", "Y3"}
    assert set(report.warnings or {}) == {"R7"} and "white light" in report.warnings["R7"]
    red7 = cv2.imread(str(tmp_path / "deck" / "faces" / "R7.png"))
    corner = red7[60:120, 30:60].reshape(-1, 3)  # paper beside the symbol
    assert np.abs(np.median(corner, axis=0) - 235).max() < 25, np.median(corner, axis=0)
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["enrol", "--src", str(tmp_path / "photos"), "--out", str(tmp_path / "deck2"),
                     "--faces-only"]) == 0
    assert "R7 (kept): taken under strongly coloured or dim light" in err.getvalue()


def test_the_kiosk_says_when_a_face_was_taken_under_strongly_coloured_light(tmp_path: Path) -> None:
    from companion.training.enrol import default_card_finder
    from companion.training.guided import GuidedEnrolment

    faces = {c: render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in ("R7",)}
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False, warm_p=0.0)
    image = Compositor({Card.from_code("R7"): faces["R7"]}, cfg).scene(np.random.default_rng(1),
                                                                      top=Card.from_code("R7")).image
    messages = []
    for lamp in ((1.0, 1.0, 1.0), (1.0, 0.55, 0.1)):  # white, then a deep blue lamp
        guide = GuidedEnrolment(default_card_finder(), tmp_path / f"deck{lamp[2]}", (Card.from_code("R7"),),
                                steady_frames=2, speak=lambda _: None)
        lit = np.clip(image * np.array(lamp), 0, 255).astype(np.uint8)
        for _ in range(3):
            view = guide.feed(lit)
        assert view.finished
        messages.append(view.message)
    assert "coloured" not in messages[0] and "redo it under white light" in messages[1], messages


def test_learn_a_deck_speaks_the_kiosks_language(tmp_path: Path) -> None:
    """The enrolment screen asked "Show the red 7" and gave the card finder's reasons in
    English whatever the kiosk's language; in Serbian it asks, explains and confirms
    in Serbian (and says "got it" in Serbian)."""
    from companion.training.enrol import default_card_finder
    from companion.training.guided import GuidedEnrolment
    from companion.voice.catalog import words
    from companion.voice.language import Language

    said: list[str] = []
    faces = (Card.from_code("R7"), Card.from_code("KING"))
    guide = GuidedEnrolment(default_card_finder(), tmp_path / "deck", faces, speak=said.append,
                            words=words(Language.SERBIAN))
    assert guide.view().prompt == "Покажи црвена 7"
    view = guide.feed(np.full((480, 480, 3), 120, np.uint8))  # an empty table
    assert view.message.startswith("Нема карте у кадру"), view.message
    assert guide.skip().message == "Прескочено: црвена 7."
    assert guide.view().prompt == "Покажи Кинг"
    assert guide.redo().message == "Поново: црвена 7."
    with pytest.raises(ValueError, match="Ниједна карта"):
        guide.learn()


def test_a_slightly_blurred_photo_is_learnt_with_a_hint_and_the_camera_waits_for_a_crisp_one(
        tmp_path: Path) -> None:
    """A folder whose only photo of a face is a little out of focus (a Gaussian of
    1.5 px: the corners still right) keeps the face and names it for a retake,
    instead of leaving it out of the deck; beside a crisp photo the crisp one is
    kept; a blur of 2.5 px (a person still reads the card) is kept with the hint too,
    and only a blur no reader can use (8 px) is refused. The live camera never takes a
    soft frame: it says "too blurred" and takes the card once it is crisp."""
    from companion.training.enrol import default_card_finder, enrol
    from companion.training.guided import GuidedEnrolment
    from companion.vision.cardfinder import (CRISP, MIN_CRISPNESS, card_crispness, crispness, order_corners,
                                             warp_card)

    codes = ("R7", "Y3", "KING")
    faces = {Card.from_code(c): render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in codes}
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False, warm_p=0.0)
    scenes = {c: Compositor(faces, cfg).scene(np.random.default_rng(5), top=Card.from_code(c)) for c in codes}
    soft = cv2.GaussianBlur(scenes["R7"].image, (0, 0), 1.5)
    assert MIN_CRISPNESS <= card_crispness(soft, scenes["R7"].top.corners) < CRISP
    photos = {"R7": [soft], "Y3": [cv2.GaussianBlur(scenes["Y3"].image, (0, 0), 1.5), scenes["Y3"].image],
              "KING": [cv2.GaussianBlur(scenes["KING"].image, (0, 0), 2.5)],
              "BREAKER": [cv2.GaussianBlur(scenes["KING"].image, (0, 0), 8.0)]}
    for code, images in photos.items():
        (tmp_path / "photos" / code).mkdir(parents=True)
        for i, image in enumerate(images):
            cv2.imwrite(str(tmp_path / "photos" / code / f"{i}.png"), image)
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert set(report.enrolled) == {"R7", "Y3", "KING"}
    assert "a little blurred" in (report.warnings or {}).get("R7", "") and "Y3" not in (report.warnings or {})
    assert "a little blurred" in (report.warnings or {}).get("KING", "")
    assert "too blurred" in report.failed["BREAKER"]
    kept = cv2.imread(str(tmp_path / "deck" / "faces" / "Y3.png"))
    corners = order_corners(scenes["Y3"].top.corners)
    crisp_cut, soft_cut = (crispness(warp_card(p, corners, kept.shape[1], kept.shape[0]))
                           for p in photos["Y3"][::-1])
    assert abs(crispness(kept) - crisp_cut) < abs(crispness(kept) - soft_cut)  # the crisp photo was kept

    from companion import cli
    from companion.vision.deck import load_profile

    assert cli.main(["enrol", "--src", str(tmp_path / "photos"), "--out", str(tmp_path / "cli-deck")]) == 0
    assert set(load_profile(tmp_path / "cli-deck").retake) == {"R7", "KING"}  # kept in deck.json

    guide = GuidedEnrolment(default_card_finder(), tmp_path / "live", (Card.from_code("R7"),), steady_frames=2)
    for _ in range(4):
        view = guide.feed(soft)
        assert not view.finished and not view.steady and view.message.startswith("Too blurred"), view.message
    assert view.corners is not None  # the card is outlined, not green
    for _ in range(3):
        view = guide.feed(scenes["R7"].image)
    assert view.finished and view.message.startswith("Got the red 7")


def test_a_kiosk_stopped_halfway_through_learn_a_deck_goes_on_with_the_faces_taken(tmp_path: Path) -> None:
    """Issue 46 (14): the frames of the faces taken are kept; a new GuidedEnrolment in the
    same folder (the kiosk started again) asks for the next face, and learning uses all."""
    from companion.training.enrol import default_card_finder
    from companion.training.guided import GuidedEnrolment
    from companion.ui.main import unfinished_deck
    from companion.vision.deck import load_profile

    faces = {Card.from_code(c): render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in ("R1", "R3")}
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False)
    comp = Compositor(faces, cfg)
    decks = tmp_path / "decks"
    first = GuidedEnrolment(default_card_finder(), decks / "deck-1", tuple(faces), steady_frames=2)
    frame = comp.scene(np.random.default_rng(1), top=Card.from_code("R1")).image
    for _ in range(3):
        view = first.feed(frame)
    assert view.prompt == "Show the red 3"
    del first  # the power went
    assert unfinished_deck(decks) == decks / "deck-1"
    again = GuidedEnrolment(default_card_finder(), decks / "deck-1", tuple(faces), steady_frames=2)
    assert again.resumed == 1 and again.view().prompt == "Show the red 3"
    frame = comp.scene(np.random.default_rng(2), top=Card.from_code("R3")).image
    for _ in range(3):
        view = again.feed(frame)
    assert view.finished
    again.learn().join(timeout=120)
    assert set(load_profile(decks / "deck-1").enrolled) == {"R1", "R3"}
    assert unfinished_deck(decks) is None
