"""Issue 5 end to end: the kiosk runs headless under Xvfb and its screen is read back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules import FACES, Card
from companion.synth.faces import render_face
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.video import synth_video

ROOT = Path(__file__).resolve().parent.parent
needs_x = pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb is installed by .ci/run")


def run_app(tmp: Path, *args: str, seconds: float,
            size: str = "1280x800") -> tuple[dict, np.ndarray]:  # type: ignore[type-arg]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp / "kivy")}
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m", "companion.cli",
           "--windowed", "--size", size, "--mute", "--journal", str(tmp / "j.db"),
           "--exit-after", str(seconds), "--screenshot", str(tmp / "shot.png"), "--dump", str(tmp / "dump.json"),
           *args]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    shot = cv2.imread(str(tmp / "shot.png"))
    assert shot is not None, out.stderr[-2000:]
    return json.loads((tmp / "dump.json").read_text()), shot


def crop(shot: np.ndarray, rect: list[float], window: list[float]) -> np.ndarray:
    """A widget's rectangle (Kivy window coordinates, origin bottom-left) from the screenshot."""
    sx, sy = shot.shape[1] / window[0], shot.shape[0] / window[1]
    x, y, w, h = rect
    top = shot.shape[0] - (y + h) * sy
    return shot[int(top): int(top + h * sy), int(x * sx): int((x + w) * sx)]


def ocr(img: np.ndarray, tmp: Path) -> str:
    p = tmp / "ocr.png"
    big = cv2.resize(img, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(p), 255 - cv2.cvtColor(big, cv2.COLOR_BGR2GRAY))  # dark text on light for tesseract
    return subprocess.run(["tesseract", str(p), "stdout", "--psm", "7"], capture_output=True, text=True).stdout


def best_face(img: np.ndarray) -> Card:
    img = cv2.resize(img, (124, 173)).astype(np.float32)

    def corr(face: np.ndarray) -> float:
        a, b = img - img.mean(), face[:, :, :3].astype(np.float32) - face[:, :, :3].mean()
        return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))

    return max(FACES, key=lambda c: corr(render_face(c, 124, 173)))


def _lead_image(shot: np.ndarray, dump: dict) -> np.ndarray:  # type: ignore[type-arg]
    region = crop(shot, dump["lead_rect"], dump["window"])
    g = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(g > 40)  # the card inside its 'contain' box, against the dark screen
    return region[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


@needs_x
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr is installed by .ci/run")
def test_table_screen_shows_turn_direction_and_leading_card(tmp_path: Path) -> None:
    cards = [Card.from_code(c) for c in ("R5", "R7", "B7")]
    comp = Compositor(config=SceneConfig(size=320, photometric=False))
    video = synth_video(4, plays=3, size=320, compositor=comp, first=cards, hover_p=0, idle=(6, 7))
    clip = video.write(tmp_path / "clip.mp4")
    dump, shot = run_app(tmp_path, "--video", str(clip), "--model", "truth", "--players", "Dana,Omer,Noa",
                         "--teaching", seconds=len(video.frames) / video.fps + 4)
    assert dump["turn"] == "Noa's turn", dump
    assert dump["lead"] == "Leading: blue 7"
    assert "Noa" in ocr(crop(shot, dump["turn_rect"], dump["window"]), tmp_path)
    assert "Clockwise" in ocr(crop(shot, dump["direction_rect"], dump["window"]), tmp_path)
    assert best_face(_lead_image(shot, dump)) == Card.from_code("B7")
    ring = crop(shot, dump["ring_rect"], dump["window"])
    assert (ring.reshape(-1, 3) != ring.reshape(-1, 3)[0]).any(axis=1).mean() > 0.05  # the seats are drawn
    assert dump["hint_faces"] >= 5  # teaching mode pictures what Noa can play on the blue 7


SHIPPED = ROOT / "models" / "taki-yolov8n.pt"


@needs_x
@pytest.mark.slow
@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped model yet")
def test_bundled_demo_is_refereed_live_with_the_shipped_model(tmp_path: Path) -> None:
    """No camera: the app plays its bundled demo video through the real detector and tracker."""
    from companion.rules import Phase
    from companion.rules.notation import from_text

    dump, shot = run_app(tmp_path, "--demo", seconds=22)
    state = from_text(dump["state"])
    assert state.phase is Phase.PLAYING, dump["history"]  # the first cards were read from the video
    assert len(state.discard) >= 3
    assert dump["turn"] == f"{state.names[state.to_move]}'s turn"
    assert dump["direction"] in ("Clockwise (left)", "Anticlockwise (right)")
    assert state.top is not None and dump["lead"] == f"Leading: {state.top.spoken}"
    assert best_face(_lead_image(shot, dump)) == state.top


@needs_x
def test_a_corrupt_journal_is_reported_on_screen_and_left_alone(tmp_path: Path) -> None:
    comp = Compositor(config=SceneConfig(size=240, photometric=False))
    clip = synth_video(9, plays=2, size=240, compositor=comp, first=[Card.from_code("G3"), Card.from_code("G8")],
                       hover_p=0, idle=(5, 6)).write(tmp_path / "clip.mp4")
    junk = b"my shopping list\n" * 50
    (tmp_path / "j.db").write_bytes(junk)
    dump, _ = run_app(tmp_path, "--video", str(clip), "--model", "truth", "--players", "Dana,Omer", seconds=5)
    assert "not a TAKI journal" in dump["status"] and "not being saved" in dump["status"]
    assert (tmp_path / "j.db").read_bytes() == junk
    assert dump["turn"] in ("Dana's turn", "Omer's turn")  # the game goes on regardless


def _enrolment_camera(tmp_path: Path) -> Path:
    """An image folder standing in for the camera: an empty table, then the red 1 and the
    red 3 each held still for five frames."""
    from dataclasses import replace

    from companion.synth.styles import PUBLISHED, render_styled_face

    cam = tmp_path / "camera"
    cam.mkdir()
    cfg = replace(SceneConfig.varied(480, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.5, 0.6),
                  tilt=10.0, hard_shadow_p=0.0, photometric=False)
    faces = {Card.from_code(c): render_styled_face(Card.from_code(c), PUBLISHED, 300, 420) for c in ("R1", "R3")}
    comp = Compositor(faces, cfg)
    frames = [np.full((480, 480, 3), 120, np.uint8)]
    for code, seed in (("R1", 1), ("R3", 2)):
        frames += [comp.scene(np.random.default_rng(seed), top=Card.from_code(code)).image] * 5
    for i, f in enumerate(frames):
        cv2.imwrite(str(cam / f"{i:03d}.png"), f)
    return cam


@needs_x
@pytest.mark.skipif(not (ROOT / "models" / "taki-yolov8n.pt").exists(), reason="no shipped finder")
def test_learn_a_deck_screen_takes_cards_by_itself(tmp_path: Path) -> None:
    """Issue 11: 'Learn a deck' driven headless with an image folder for a camera:
    it asks for the first face, takes each steady card without a tap, and moves on."""
    cam = _enrolment_camera(tmp_path)
    dump, shot = run_app(tmp_path, "--enrol", "--enrol-from", str(cam), "--decks", str(tmp_path / "decks"),
                         seconds=14)
    assert dump["screen"] == "enrol"
    assert dump["taken"] == ["R1", "R3"], dump
    assert dump["prompt"] == "Show the red 4" and "2 of 57 faces" in dump["counts"]
    assert 0.03 < dump["progress"] < 0.04
    out = Path(dump["out"])
    assert sorted(p.name for p in (out / "faces").iterdir()) == ["R1.png", "R3.png"]
    assert ocr(shot[: shot.shape[0] // 8], tmp_path).strip().startswith("Show the red")


@needs_x
def test_learn_the_deck_on_the_kiosk_makes_the_profile_in_seconds(tmp_path: Path) -> None:
    """Issue 51: after two faces are taken, "Learn the deck" makes the deck's prototypes
    on the kiosk itself (no torch, seconds) and the screen says where it was saved."""
    from companion.vision.deck import load_profile

    cam = _enrolment_camera(tmp_path)
    script = _script(tmp_path, [[9.0, "learn_deck"]])
    dump, _ = run_app(tmp_path, "--enrol", "--enrol-from", str(cam), "--decks", str(tmp_path / "decks"),
                      "--ui-script", script, seconds=16)
    assert dump["taken"] == ["R1", "R3"], dump
    profile = load_profile(Path(dump["out"]))
    assert profile.prototypes_path is not None and set(profile.enrolled) == {"R1", "R3"}
    assert str(profile.path.name) in dump["message"].replace("\n", ""), dump["message"]


def _script(tmp: Path, steps: list[list[object]]) -> str:
    p = tmp / "script.json"
    p.write_text(json.dumps(steps))
    return str(p)


@needs_x
def test_no_camera_game_is_refereed_with_the_card_picker_and_a_misread_is_fixed(tmp_path: Path) -> None:
    """Issue 12 (4, 5): no camera and no model; cards entered by picture, a misread fixed,
    and a bad count ("-") answered on screen with the app still up."""
    from companion.rules.notation import from_text
    from companion.store.journal import Journal, replay

    script = _script(tmp_path, [[1.0, "enter_card"], [1.4, "pick", "R5"], [1.8, "enter_card"],
                                [2.2, "pick", "R1"], [2.6, "fix_card"], [3.0, "pick", "R7"],
                                [3.4, "fix_count"], [3.8, "type_count", 1, "-"], [4.2, "close"]])
    dump, shot = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--ui-script", script,
                         seconds=5)
    state = from_text(dump["state"])
    assert [c.code for c in state.discard] == ["R5", "R7"]  # the misread R1 is gone
    assert state.counts == (7, 8, 8) and dump["turn"] == "Omer's turn"
    assert dump["lead"] == "Leading: red 7"
    assert best_face(_lead_image(shot, dump)) == Card.from_code("R7")  # the screen shows the fixed card
    assert "Corrected: it was the red 7, not the red 1." in dump["history"]
    assert "'-' is not a count" in dump["status"]  # typed "-" and Set: answered, not a crash
    with Journal(tmp_path / "j.db") as j:
        gid = j.games()[-1].id
        texts = [r["text"] for e in j.entries(gid) for r in e.rulings]
        assert "Corrected: it was the red 7, not the red 1." in texts
        assert replay(j, gid).state == state  # the replay follows the real card


@needs_x
@pytest.mark.parametrize("size", ["1280x800", "800x480"])
def test_card_picker_keeps_every_face_in_its_place_and_brightens_the_playable_ones(tmp_path: Path, size: str) -> None:
    """Issue 47 (2): the picker reordered itself every turn (playable first), so a tap
    where the blue 3 had been gave the yellow 8, and at 800x480 only 14 faces showed.
    Now a row per colour and one of the colourless cards, the same places every turn,
    all 57 on the screen; the playable ones bright."""
    from companion.rules import legal_faces
    from companion.rules.notation import from_text

    shown = []
    for i, steps in enumerate(([[1.0, "enter_card"], [1.4, "pick", "G5"], [1.8, "enter_card"]],
                               [[1.0, "enter_card"], [1.4, "pick", "R9"], [1.8, "enter_card"]])):
        run_dir = tmp_path / str(i)
        run_dir.mkdir()
        script = _script(run_dir, steps)
        dump, shot = run_app(run_dir, "--no-camera", "--players", "Dana,Omer", "--ui-script", script,
                             seconds=3.5, size=size)
        picker = dump["picker"]
        assert picker is not None and picker["title"] == "Which card was put down?"
        assert sorted(picker["faces"]) == sorted(c.code for c in FACES)
        legal = {c.code for c in legal_faces(from_text(dump["state"]))}
        assert set(picker["bright"]) == legal
        w, h = dump["window"]
        for code, (x, y, fw, fh) in picker["rects"].items():  # every face whole on the screen
            assert 0 <= x and x + fw <= w + 1 and 0 <= y and y + fh <= h + 1, (code, x, y, fw, fh)
        shown.append((picker["rects"], legal, dump, shot))
    (rects_a, legal_a, _, _), (rects_b, legal_b, dump, shot) = shown
    assert legal_a != legal_b and rects_a == rects_b  # another state, the same places
    rows = sorted({round(r[1]) for r in rects_a.values()}, reverse=True)
    assert len(rows) == 5  # red, yellow, green, blue, colourless
    red = [c for c, r in rects_a.items() if round(r[1]) == rows[0]]
    assert all(c.startswith("R") for c in red) and len(red) == 13
    first = crop(shot, rects_b["B3"], dump["window"])
    g = cv2.cvtColor(first, cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(g > 60)
    assert best_face(first[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]) == Card.from_code("B3")


@needs_x
def test_a_journal_that_turns_read_only_mid_game_warns_and_is_saved_elsewhere(tmp_path: Path) -> None:
    from companion.rules.notation import from_text
    from companion.store.journal import Journal, replay

    other = tmp_path / "saved" / "game.db"
    script = _script(tmp_path, [[1.0, "enter_card"], [1.3, "pick", "Y5"], [1.6, "jam_journal"],
                                [1.9, "enter_card"], [2.2, "pick", "Y8"], [3.0, "save_as", str(other)],
                                [3.4, "enter_card"], [3.7, "pick", "G8"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer", "--ui-script", script, seconds=4.5)
    state = from_text(dump["state"])
    assert [c.code for c in state.discard] == ["Y5", "Y8", "G8"]  # nothing lost while unsaved
    assert dump["status"].startswith("Saved: game") and "not being saved" not in dump["status"]
    with Journal(other) as j:
        assert replay(j, j.games()[-1].id).state == state  # the new file has the whole game
    with Journal(tmp_path / "j.db") as j:
        assert len(list(j.entries(j.games()[-1].id))) == 1  # the jammed journal: only the first card


@needs_x
def test_a_journal_with_damaged_pages_is_reported_and_left_alone(tmp_path: Path) -> None:
    """Issue 12: 'database disk image is malformed' on resume used to close the kiosk."""
    import random

    from companion.referee import Referee
    from companion.store.journal import Journal

    with Journal(tmp_path / "j.db") as j:
        ref = Referee.start(["Dana", "Omer", "Noa"], journal=j)
        ref.card_seen(Card.from_code("R5"))
        for _ in range(40):
            ref.drew()
    from companion.store.journal import JournalError

    clean = (tmp_path / "j.db").read_bytes()
    for page in range(len(clean) // 4096 - 1, 0, -1):  # the last page whose damage stops a resume
        data = bytearray(clean)
        rng = random.Random(page)
        for k in range(4096 * page, 4096 * page + 4096):  # the whole page, cells and all
            data[k] = rng.randrange(256)
        (tmp_path / "j.db").write_bytes(bytes(data))
        try:
            with Journal(tmp_path / "j.db") as j:
                Referee.resume(j)
        except JournalError as e:
            assert "damaged pages" in str(e)
            break
    else:
        pytest.fail("no damaged page stopped a resume")
    dump, _ = run_app(tmp_path, "--no-camera", seconds=3)  # no --players: it resumes the unfinished game
    assert dump["screen"] == "setup" and "damaged pages" in dump["message"], dump
    assert "cannot be resumed" in dump["message"]
    assert (tmp_path / "j.db").read_bytes() == bytes(data)


@needs_x
def test_the_kiosk_referees_the_demo_with_torch_and_ultralytics_unavailable(tmp_path: Path) -> None:
    """Issue 15: the runtime install has no torch. Here torch, ultralytics and the other
    training packages cannot be imported at all, and the demo is still read live."""
    from companion.rules import Phase
    from companion.rules.notation import from_text

    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(
        "import sys\n"
        "for name in ('torch', 'torchvision', 'ultralytics', 'openvino', 'skimage', 'onnx', 'pnnx'):\n"
        "    sys.modules[name] = None  # import raises ImportError, as on a runtime install\n")
    env = {**os.environ, "PYTHONPATH": f"{block}:{ROOT}", "KIVY_HOME": str(tmp_path / "kivy")}
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m", "companion.cli",
           "--windowed", "--mute", "--demo", "--journal", str(tmp_path / "j.db"), "--exit-after", "16",
           "--dump", str(tmp_path / "dump.json"), "--startup-log", str(tmp_path / "start.json")]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    start = json.loads((tmp_path / "start.json").read_text())
    assert not start["torch_loaded"] and not start["ultralytics_loaded"]
    assert start["window"] <= start["reader_ready"] <= start["first_frame"]  # the window first, then the reader
    state = from_text(json.loads((tmp_path / "dump.json").read_text())["state"])
    assert state.phase is Phase.PLAYING and len(state.discard) >= 2  # cards were read from the video


@needs_x
def test_a_kiosk_in_event_mode_keeps_refereeing_with_the_board_unreachable(tmp_path: Path) -> None:
    from companion.rules.notation import from_text

    script = _script(tmp_path, [[1.0, "enter_card"], [1.3, "pick", "B4"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer", "--ui-script", script,
                      "--board", "http://127.0.0.1:9", "--event-key", "event-key-1", "--table", "2", seconds=4)
    assert "Board offline since" in dump["status"] and "sent later" in dump["status"]
    assert [c.code for c in from_text(dump["state"]).discard] == ["B4"]  # the game went on
    assert (tmp_path / "j.db.board").exists()  # the outbox keeps its acknowledgements beside the journal


def _ocr_lang(img: np.ndarray, tmp: Path, lang: str) -> str:
    p = tmp / "ocr.png"
    big = cv2.resize(img, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(p), 255 - cv2.cvtColor(big, cv2.COLOR_BGR2GRAY))
    return subprocess.run(["tesseract", str(p), "stdout", "--psm", "7", "-l", lang],
                          capture_output=True, text=True).stdout.strip()


def _has_ocr(lang: str) -> bool:
    if shutil.which("tesseract") is None:
        return False
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True).stdout.split()
    return lang in out


@needs_x
@pytest.mark.parametrize("lang, ocr_lang, names, turn", [
    ("he", "heb", "דנה,עומר,נועה", "התור של עומר"),
    ("ur", "urd", "دانا,عمر,نوا", "عمر کی باری"),
])
def test_the_kiosk_reads_right_to_left_with_every_letter_drawn(tmp_path: Path, lang: str, ocr_lang: str,
                                                                names: str, turn: str) -> None:
    """Issue 13: in Hebrew and in Urdu the table screen's words are translated, in
    right-to-left order, Urdu's letters joined, and no letter a box: OCR in the
    language reads back the very words (text drawn backwards or as boxes would not)."""
    if not _has_ocr(ocr_lang):
        pytest.skip(f"tesseract-ocr-{ocr_lang} is installed by .ci/run")
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "enter_card"],
                                [2.5, "pick", "R7"]])
    dump, shot = run_app(tmp_path, "--no-camera", "--players", names, "--language", lang, "--ui-script", script,
                         seconds=4)
    read = _ocr_lang(crop(shot, dump["turn_rect"], dump["window"]), tmp_path, ocr_lang)
    assert read == turn, (read, dump["turn"])
    direction = _ocr_lang(crop(shot, dump["direction_rect"], dump["window"]), tmp_path, ocr_lang)
    assert direction.strip("() ") in ("עם כיוון השעון (שמאלה", "گھڑی کی سمت (بائیں"), direction
    assert "Omer" not in dump["history"] and dump["history"], dump["history"]  # the rulings are translated


@needs_x
def test_popups_speak_the_kiosks_language(tmp_path: Path) -> None:
    """Issue 13: the count popup and the card picker are in Serbian with the Serbian
    card names, not English, once the kiosk is set to Serbian."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "fix_card"], [2.5, "close"],
                                [3.0, "fix_count"], [3.5, "type_count", 0, 5]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--language", "sr",
                      "--ui-script", script, seconds=4.5)
    (popup,) = dump["popups"]
    assert popup["title"] == "Исправи број карата у руци"
    assert "Постави" in popup["texts"] and "Готово" in popup["texts"]
    assert "Dana now holds 5 cards" not in " ".join(popup["texts"])
    assert any(t.startswith("Dana") and "5" in t for t in popup["texts"]), popup["texts"]  # the count set
    assert not any(t in ("Set", "Done", "Close") for t in popup["texts"])


@needs_x
def test_seats_are_placed_on_the_ring_shown_where_they_sit_and_kept_with_the_game(tmp_path: Path) -> None:
    """Issue 14: 'Seats', then a tap on the ring for each player in turn; the names are
    drawn where they sit, the camera path uses the seats, and a resumed game has them."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "place_seats"],
                                [2.3, "tap_ring", 90], [2.6, "tap_ring", 210], [2.9, "tap_ring", 330]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--ui-script", script, seconds=3.5)
    assert dump["seats"] == [90.0, 210.0, 330.0]
    assert dump["status"].startswith("Seats placed")
    cx, cy = dump["ring_center"]
    where = {name: (x - cx, y - cy) for name, x, y in dump["ring_names"]}
    assert where["Dana"][1] < -20 and abs(where["Dana"][0]) < 5  # 90: the bottom of the camera's picture
    assert where["Omer"][0] < -20 and where["Omer"][1] > 10  # 210: upper left (screen y points up)
    assert where["Noa"][0] > 20 and where["Noa"][1] > 10
    again, _ = run_app(tmp_path, "--no-camera", seconds=2)  # the unfinished game resumed from the journal
    assert again["seats"] == [90.0, 210.0, 330.0]


@needs_x
def test_placing_seats_asks_for_each_player_in_turn(tmp_path: Path) -> None:
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "place_seats"],
                                [2.3, "tap_ring", 90]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--ui-script", script, seconds=3)
    assert dump["seats"] is None  # not used until every player has a seat
    assert "Omer sits" in dump["status"]


@needs_x
def test_a_kiosk_joins_an_event_from_the_setup_screen(tmp_path: Path) -> None:
    """Issue 16: the board's address, the key and the table typed on the setup screen
    start the outbox as --board/--event-key/--table do; a wrong address is said there."""
    bad = _script(tmp_path, [[1.0, "setup", "board_url", "laptop:8080"], [1.3, "start_setup"]])
    dump, _ = run_app(tmp_path, "--new-game", "--no-camera", "--ui-script", bad, seconds=2.5)
    assert dump["screen"] == "setup" and "http://" in dump["message"]
    from companion import __version__

    assert dump["version"] == __version__  # issue 49: the release, on the setup screen
    good = _script(tmp_path, [[1.0, "setup", "board_url", "http://127.0.0.1:9"],
                              [1.1, "setup", "event_key", "event-key-1"], [1.2, "setup", "table_no", "3"],
                              [1.5, "start_setup"], [2.0, "enter_card"], [2.4, "pick", "B4"]])
    dump, _ = run_app(tmp_path, "--new-game", "--no-camera", "--ui-script", good, seconds=4.5)
    assert "Board offline since" in dump["status"]
    assert (tmp_path / "j.db.board").exists()


@needs_x
@pytest.mark.parametrize("screen,lang", [("table", "en"), ("setup", "gd"), ("enrol", "en")])
def test_every_text_fits_its_box_on_the_pis_800x480_screen(tmp_path: Path, screen: str, lang: str) -> None:
    """The Raspberry Pi's own touchscreen is 800x480: no label or button text spills out
    of its box or breaks a word ("Everyo / ne drew" did), in English or in Gaelic's longer
    words; the setup form scrolls instead of piling the house rules on one another."""
    args = {"table": ("--demo",), "setup": ("--new-game", "--no-camera"),
            "enrol": ("--enrol", "--no-camera")}[screen]
    dump, shot = run_app(tmp_path, *args, "--language", lang, seconds=8 if screen == "table" else 3,
                         size="800x480")
    assert dump.get("screen", "table") == screen and dump["window"] == [800, 480]
    assert dump["overflowing"] == [], dump["overflowing"]
    if screen == "setup":
        rows = sorted(dump["rule_rows"], key=lambda r: (r[0], -r[1]))
        assert len(rows) == 11 and all(r[3] >= 30 for r in rows)
        for a, b in zip(rows, rows[1:]):  # rows of one column lie apart
            assert a[0] != b[0] or a[1] >= b[1] + b[3], (a, b)
        x, y, w, h = dump["start_rect"]
        assert 0 <= x and x + w <= 800 and 0 <= y and y + h <= 480  # "Start the game" stays in view
    if screen == "table":
        read = ocr(crop(shot, dump["turn_rect"], dump["window"]), tmp_path)  # the turn, whole, on screen
        assert dump["turn"].split("'")[0] in read and read.strip().endswith("turn"), read


@needs_x
def test_who_played_that_shows_the_card_in_question_and_every_player(tmp_path: Path) -> None:
    """A card the camera saw laid from the wrong seat is refused; "Who played that?"
    shows that card (by name, not the title again) and a button per player."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "seen_from_next", "R7"],
                                [2.5, "ask_who"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--ui-script", script, seconds=3.5,
                      size="800x480")
    (popup,) = dump["popups"]
    assert popup["title"] == "Who played that?"
    assert "Red 7" in popup["texts"] and "Who played that?" not in popup["texts"], popup["texts"]
    assert {"Dana", "Omer", "Noa"} <= set(popup["texts"])
    assert dump["overflowing"] == [], dump["overflowing"]


@needs_x
def test_in_telugu_letters_are_joined_and_names_typed_in_latin_letters_are_drawn(tmp_path: Path) -> None:
    """In Telugu the turn line is "<name> వంతు": a name typed in Latin letters must be
    drawn, not boxes (the Telugu font had no Latin letters): OCR in English reads it.
    Telugu's conjuncts and vowel signs must be shaped ("సవ్యదిశ", not its letters side
    by side with a virama showing): OCR in Telugu reads the direction back whole."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"]])
    dump, shot = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--language", "te",
                         "--ui-script", script, seconds=2.5)
    name = dump["turn"].split()[0]
    assert name in ("Dana", "Omer", "Noa") and dump["turn"] != name  # the rest is Telugu
    assert name in ocr(crop(shot, dump["turn_rect"], dump["window"]), tmp_path)
    if not _has_ocr("tel"):
        pytest.skip("tesseract-ocr-tel is installed by .ci/run")
    assert dump["direction"] == "సవ్యదిశ (ఎడమ)"
    read = _ocr_lang(crop(shot, dump["direction_rect"], dump["window"]), tmp_path, "tel")
    assert read.replace(" ", "") == dump["direction"].replace(" ", ""), read


@needs_x
def test_standings_and_their_export_are_in_the_kiosks_language(tmp_path: Path) -> None:
    """The Standings screen said "8 cards", "stage" and "Standings: saved ..." in English
    whatever the language; in Serbian it says them in Serbian, and the exported file
    lists the same lines."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "standings", "csv"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--language", "sr",
                      "--export-dir", str(tmp_path / "out"), "--ui-script", script, seconds=3, size="800x480")
    assert dump["screen"] == "standings"
    lines = dump["table"].split("\n")
    assert len(lines) == 3 and all(line.endswith("8 карата") for line in lines), lines
    assert "cards" not in dump["table"]
    assert dump["title"].startswith("Сачувано: ") and dump["title"].endswith(".csv")
    saved = Path(dump["title"].split(": ", 1)[1])
    assert saved.is_absolute() and saved.parent == (tmp_path / "out").resolve()  # the full path is shown
    import csv

    rows = list(csv.DictReader(saved.read_text().splitlines()))  # a real CSV, not the screen's lines
    assert [r["name"] for r in rows] == ["Dana", "Noa", "Omer"] and {r["cards"] for r in rows} == {"8"}
    assert dump["overflowing"] == [], dump["overflowing"]


@needs_x
def test_standings_of_a_game_that_is_no_tournament_export_as_json_that_loads(tmp_path: Path) -> None:
    """Issue 47 (6): Export JSON outside a tournament wrote the screen's text lines."""
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "standings", "json"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer", "--export-dir", str(tmp_path / "out"),
                      "--ui-script", script, seconds=3)
    saved = Path(dump["title"].split(": ", 1)[1])
    data = json.loads(saved.read_text())
    assert [(r["name"], r["cards"], r["stage"]) for r in data] == [("Dana", 8, None), ("Omer", 8, None)]


@needs_x
def test_an_export_folder_that_is_a_file_is_said_and_the_kiosk_stays_up(tmp_path: Path) -> None:
    """Issue 46 (13): --export-dir a file; Export said why it could not save, nothing died."""
    (tmp_path / "taken").write_text("a file")
    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "standings", "csv"]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer,Noa", "--export-dir",
                      str(tmp_path / "taken"), "--ui-script", script, seconds=3)
    assert dump["screen"] == "standings" and dump["title"].startswith("Could not save the standings"), dump
    assert (tmp_path / "taken").read_text() == "a file"


@needs_x
def test_a_deck_profile_refused_is_said_in_the_kiosks_language(tmp_path: Path) -> None:
    """The kiosk's own status lines (a deck profile not used, the demo, no camera, a
    resumed game) were English in every language; in Serbian they are Serbian."""
    clip = tmp_path / "table.mp4"
    out = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 10, (320, 320))
    for _ in range(40):
        out.write(np.full((320, 320, 3), 120, np.uint8))
    out.release()
    dump, _ = run_app(tmp_path, "--video", str(clip), "--deck", str(tmp_path / "no-such-deck"), "--players",
                      "Dana,Omer,Noa", "--language", "sr", seconds=6)
    assert "Профил шпила није коришћен" in dump["status"], dump["status"]
    assert "Deck profile not used" not in dump["status"]


@needs_x
def test_the_kiosk_starts_quietly_without_optional_touch_and_clipboard_providers(tmp_path: Path) -> None:
    """Issue 47 (8): no tracebacks at start-up for mtdev, xclip or xsel, which a kiosk
    may well lack (they are optional providers; Kivy runs without them)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp_path / "kivy"),
           "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                   if not (Path(p) / "xclip").exists() and not (Path(p) / "xsel").exists())}
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m", "companion.cli",
           "--windowed", "--mute", "--no-camera", "--players", "Dana,Omer", "--journal", str(tmp_path / "j.db"),
           "--exit-after", "3"]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "xclip" not in out.stderr and "MTDev" not in out.stderr, out.stderr[-3000:]


@needs_x
def test_a_count_is_fixed_with_plus_and_minus_without_typing(tmp_path: Path) -> None:
    """Issue 47 (2): "Fix a count" needed typing into a text box; - and + set it at once."""
    from companion.rules.notation import from_text

    script = _script(tmp_path, [[1.0, "enter_card"], [1.5, "pick", "R5"], [2.0, "fix_count"],
                                [2.3, "count_step", 1, 1], [2.6, "count_step", 1, 1], [2.9, "count_step", 0, -1]])
    dump, _ = run_app(tmp_path, "--no-camera", "--players", "Dana,Omer", "--ui-script", script, seconds=3.6,
                      size="800x480")
    assert from_text(dump["state"]).counts == (7, 10)
    (popup,) = dump["popups"]
    assert "+" in popup["texts"] and "−" in popup["texts"]
    assert dump["overflowing"] == [], dump["overflowing"]
