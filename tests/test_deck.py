"""Issue 11: deck profiles (write, list, load, read), refusal of broken ones,
and the few-shot learner."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.cards import FACES, Card, file_stem
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.styles import render_styled_face, sample_style
from companion.vision.classifier import TwoStageDetector, load_reader
from companion.vision.deck import DeckError, list_profiles, load_profile
from companion.vision.detector import MODELS_DIR

SHIPPED = (MODELS_DIR / "taki-cls-yolov8n.pt").exists()


def _held_out_faces(folder: Path, seed: int = 3, codes: list[str] | None = None) -> dict[Card, np.ndarray]:
    """One deck in a held-out-family style, as enrolment writes faces."""
    style = sample_style(np.random.default_rng(seed), held_out=True)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for card in FACES:
        if codes is None or card.code in codes:
            img = render_styled_face(card, style, 248, 346)
            cv2.imwrite(str(folder / f"{file_stem(card)}.png"), img)
            out[card] = img
    return out


@pytest.fixture(scope="module")
def tiny_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A deck profile learnt in a hurry (one short round): enough to test the plumbing."""
    from companion.training.fewshot import LearnSpec, learn_deck

    root = tmp_path_factory.mktemp("deck")
    _held_out_faces(root / "enrolled", codes=["R7", "B1", "GSTOP", "KING"])
    steps: list[tuple[str, float]] = []
    learn_deck(root / "enrolled", root / "kitchen", "Kitchen deck",
               LearnSpec(scenes_per_face=2, val_per_face=1, epochs=1), lambda w, s: steps.append((w, s)),
               retake={"B1": "its photo is a little blurred"})
    assert steps[-1] == ("ready", 1.0) and all(0 <= s <= 1 for _, s in steps)
    return root / "kitchen"


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_the_learner_says_its_progress_in_the_language_it_is_given(tmp_path: Path) -> None:
    """The kiosk's Learn a deck screen shows the learner's progress as it comes: in
    Serbian, its rounds and its end are said in Serbian, not in English."""
    from companion.training.fewshot import LearnSpec, learn_deck
    from companion.voice.catalog import words
    from companion.voice.language import Language

    _held_out_faces(tmp_path / "enrolled", codes=["R7", "B1"])
    steps: list[str] = []
    learn_deck(tmp_path / "enrolled", tmp_path / "deck", "Serbian deck",
               LearnSpec(scenes_per_face=2, val_per_face=1, epochs=1, export_onnx=False),
               lambda what, share: steps.append(what), words=words(Language.SERBIAN))
    # a run with a time limit re-plans how many rounds it has: "(round 1 of N)"
    assert any(step.startswith("учим карте шпила (круг 1 од ") for step in steps), steps
    assert steps[-1] == "спремно"


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_profile_round_trip(tiny_profile: Path) -> None:
    profile = load_profile(tiny_profile)
    assert profile.name == "Kitchen deck" and set(profile.enrolled) == {"R7", "B1", "GSTOP", "KING"}
    assert len(profile.missing) == 53 and profile.created
    assert profile.retake == {"B1": "its photo is a little blurred"}  # what to photograph again, kept
    assert [p.name for p in list_profiles(tiny_profile.parent)] == ["Kitchen deck"]
    for backend, suffix in (("pytorch", "pt"), ("onnx", "onnx"), ("ncnn", "onnx")):
        assert profile.classifier_for(backend).name == f"classifier.{suffix}"
    for model in ("taki-yolov8n.pt", "taki-yolov8n.onnx"):
        reader = load_reader(MODELS_DIR / model, deck=tiny_profile)
        assert isinstance(reader, TwoStageDetector)
        assert reader.classifier.path.parent == tiny_profile
        scene = Compositor(config=SceneConfig.varied(320)).scene(4, top=Card.from_code("R7"))
        dets = reader.detect(scene.image)
        assert dets and isinstance(dets[0].card, Card)


def _copy(profile: Path, dest: Path) -> Path:
    shutil.copytree(profile, dest)
    return dest


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_broken_profiles_are_refused_with_a_reason(tiny_profile: Path, tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no deck profile"):
        load_profile(tmp_path / "nowhere")
    p = _copy(tiny_profile, tmp_path / "a")
    (p / "deck.json").unlink()
    with pytest.raises(DeckError, match="deck.json is missing"):
        load_profile(p)
    p = _copy(tiny_profile, tmp_path / "b")
    (p / "deck.json").write_text("{not json")
    with pytest.raises(DeckError, match="damaged"):
        load_profile(p)
    p = _copy(tiny_profile, tmp_path / "c")
    meta = json.loads((p / "deck.json").read_text())
    (p / "deck.json").write_text(json.dumps({**meta, "version": 99}))
    with pytest.raises(DeckError, match="another version"):
        load_profile(p)
    p = _copy(tiny_profile, tmp_path / "d")
    (p / "faces" / "KING.png").unlink()
    with pytest.raises(DeckError, match="missing the pictures of KING"):
        load_profile(p)
    p = _copy(tiny_profile, tmp_path / "e")
    (p / "classifier.pt").unlink()
    (p / "classifier.onnx").unlink()
    with pytest.raises(DeckError, match="neither prototypes nor a learnt classifier"):
        load_profile(p)
    p = _copy(tiny_profile, tmp_path / "f")
    (p / "deck.json").write_text(json.dumps({**meta, "enrolled": ["R7", "Q9"]}))
    with pytest.raises(DeckError, match="no TAKI faces"):
        load_profile(p)
    assert [x.path.name for x in list_profiles(tmp_path)] == []  # broken ones are not offered


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_eval_with_a_broken_deck_says_so_and_exits_2(tiny_profile: Path, tmp_path: Path) -> None:
    from companion.synth.dataset import DatasetSpec, make_dataset

    data = make_dataset(DatasetSpec(tmp_path / "d", {"test": 3}, seed=9, size=160), workers=1)
    broken = _copy(tiny_profile, tmp_path / "broken")
    (broken / "deck.json").write_text("[]")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "eval", "--data", str(data), "--deck",
                           str(broken)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "is not a TAKI deck profile" in done.stderr and "Traceback" not in done.stderr
    missing = subprocess.run([sys.executable, "-m", "companion.cli", "eval", "--data", str(tmp_path / "no.yaml")],
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "no dataset file" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_the_app_falls_back_to_the_default_reader_with_a_lasting_warning(tmp_path: Path) -> None:
    import argparse

    from companion.ui.main import Controller

    args = argparse.Namespace(model=None, classifier="auto", deck=str(tmp_path / "gone"), video=None)
    ctl = Controller(args)  # the kiosk's controller, without a window
    ctl.load_detector()
    assert isinstance(ctl.detector, TwoStageDetector) and ctl.detector_error is None
    assert "Deck profile not used" in ctl.deck_warning and "no deck profile" in ctl.deck_warning


@pytest.mark.slow
@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_few_shot_learning_beats_the_default_reader_on_a_held_out_deck(tmp_path: Path) -> None:
    """One picture per face of a deck drawn in the held-out glyph family (a look
    no training picture had), two faces skipped: the learnt profile reads its piles
    at least as well as the shipped reader (measured 54 against 53 of 55; the issue's
    99% is not reached), the skipped faces about as well as the shipped reader does
    (10 against 9 of 10 piles), and learning stays within the 5-minute budget."""
    import time

    from companion.training.fewshot import LearnSpec, learn_deck

    faces = _held_out_faces(tmp_path / "enrolled", seed=11)
    skipped = [Card.from_code("BREAKER"), Card.from_code("Y7")]  # a look-alike's partner, and a number
    for card in skipped:
        (tmp_path / "enrolled" / f"{file_stem(card)}.png").unlink()
    t0 = time.monotonic()
    learn_deck(tmp_path / "enrolled", tmp_path / "deck", "held-out deck", LearnSpec(epochs=4))
    assert time.monotonic() - t0 < 300

    comp = Compositor(faces, SceneConfig.varied(416))
    default, learnt = load_reader(), load_reader(deck=tmp_path / "deck")
    right = {"default": 0, "deck": 0}
    lacking = {"default": 0, "deck": 0}
    piles = [(i, card) for i, card in enumerate(FACES)] + [(100 + k, c) for k in range(4) for c in skipped]
    for i, card in piles:
        image = comp.scene(np.random.default_rng([4545, i]), top=card).image
        for name, reader in (("default", default), ("deck", learnt)):
            dets = reader.detect(image)
            ok = bool(dets) and dets[0].card == card
            if card in skipped:
                lacking[name] += ok
            else:
                right[name] += ok
    assert right["deck"] >= right["default"] and right["deck"] >= 44, right
    # a face the deck lacks is shown to the learner in many styles, so it is not lost
    # (one stand-in style read 3 to 8 of 10 Breakers as +3 in benchmarks/deck_learning.py)
    assert lacking["deck"] >= lacking["default"] - 1 and lacking["deck"] >= 8, lacking  # of 10 piles


@pytest.mark.skipif(not SHIPPED, reason="no shipped classifier")
def test_the_setup_screen_deck_choice_is_used_and_remembered(tiny_profile: Path, tmp_path: Path) -> None:
    import argparse

    from companion.ui.main import Controller

    decks = tmp_path / "decks"
    shutil.copytree(tiny_profile, decks / "kitchen")
    args = argparse.Namespace(model=None, classifier="auto", deck=None, video=None, decks=str(decks))
    ctl = Controller(args)
    ctl.load_detector()
    shipped = ctl.detector.classifier.path
    assert ctl.deck_names() == ["kitchen"] and ctl.current_deck_name() is None
    ctl.choose_deck("kitchen")
    # the kiosk reads with the torch-free runtime reader: the deck's ONNX classifier
    assert ctl.detector.classifier.path == decks / "kitchen" / "classifier.onnx" and not ctl.deck_warning
    again = Controller(args)  # the next start reads with the deck chosen last time
    again.load_detector()
    assert again.current_deck_name() == "kitchen"
    assert again.detector.classifier.path == decks / "kitchen" / "classifier.onnx"
    again.choose_deck("Default deck")
    assert again.detector.classifier.path == shipped and again.current_deck_name() is None
    (decks / "kitchen" / "deck.json").write_text("{}")
    again.choose_deck("kitchen")  # broken since: refused, the default reader stays, the warning says why
    assert again.detector.classifier.path == shipped and "not a TAKI deck profile" in again.deck_warning


def test_the_learnt_classifier_lies_between_the_shipped_and_the_fine_tuned_one(tmp_path: Path) -> None:
    """Weight-space blending (WiSE-FT): keep=0 is the shipped classifier, 1 the fine-tune,
    0.5 halfway, weight by weight; faces named differently cannot be blended."""
    import copy

    import torch

    from companion.training.fewshot import blend_weights
    from companion.vision.detector import MODELS_DIR

    base = MODELS_DIR / "taki-cls-yolov8n.pt"
    ckpt = torch.load(base, map_location="cpu", weights_only=False)
    tuned = copy.deepcopy(ckpt)
    with torch.no_grad():
        for p in tuned["model"].parameters():
            p.add_(0.5)
    torch.save(tuned, tmp_path / "tuned.pt")

    def first(path: Path) -> torch.Tensor:
        return next(torch.load(path, map_location="cpu", weights_only=False)["model"].float().parameters())

    w0, w1 = first(base), first(tmp_path / "tuned.pt")
    for keep in (0.0, 0.5, 1.0):
        out = blend_weights(base, tmp_path / "tuned.pt", tmp_path / f"blend{keep}.pt", keep)
        assert torch.allclose(first(out), w0 + keep * (w1 - w0), atol=2e-3), keep
    other = copy.deepcopy(tuned)
    other["model"].names = {**other["model"].names, 0: "not a face"}
    torch.save(other, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="different faces"):
        blend_weights(base, tmp_path / "other.pt", tmp_path / "x.pt", 0.5)


def test_a_version_1_profile_with_only_its_pytorch_classifier_reads_through_ultralytics(
        tiny_profile: Path, tmp_path: Path) -> None:
    """A fine-tuned profile with no prototypes and no ONNX classifier is still read (the
    full install's ultralytics path), not refused."""
    from companion.vision.classifier import FaceClassifier
    from companion.vision.runtime import table_reader

    p = _copy(tiny_profile, tmp_path / "pt-only")
    (p / "classifier.onnx").unlink()
    reader = table_reader(deck=p)
    assert isinstance(reader.classifier, FaceClassifier) and reader.classifier.path.name == "classifier.pt"
