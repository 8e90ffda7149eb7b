"""Issue 51: learn any deck from photos in seconds, on the runtime install.

Enrolment locates each card by the table's own finder box, makes prototypes from the
shipped classifier's embedding (no training, no torch), and the reader reads the
deck's faces by them first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.cards import Card
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.styles import render_styled_face, sample_style
from companion.training.deck_prototypes import VIEWS, write_profile
from companion.training.enrol import SOFT, enrol
from companion.vision.deck import load_profile
from companion.vision.prototypes import Mix, PrototypeError, Prototypes, mixed
from companion.vision.runtime import table_reader

ROOT = Path(__file__).resolve().parents[1]
CODES = ("R7", "B+2", "GSTOP", "Y3", "KING", "BREAKER")


def _deck_photos(folder: Path, codes: tuple[str, ...] = CODES, seed: int = 11, blur: float = 0.0) -> dict:
    """One photo per face of a deck in a held-out style, one card flat on a table."""
    style = sample_style(np.random.default_rng(seed), held_out=True)
    faces = {Card.from_code(c): render_styled_face(Card.from_code(c), style, 300, 420) for c in codes}
    cfg = replace(SceneConfig.varied(640, "classic"), under_cards=(0, 0), hand_p=0.0, card_height=(0.45, 0.6))
    comp = Compositor(faces, cfg)
    folder.mkdir(parents=True, exist_ok=True)
    for card in faces:
        image = comp.scene(np.random.default_rng([seed, 1, card.index]), top=card).image
        if blur:
            image = cv2.GaussianBlur(image, (0, 0), blur)
        cv2.imwrite(str(folder / f"{card.code.replace('+', 'plus')}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return faces


def test_prototype_profile_round_trip_and_the_deck_is_read_by_its_own_pictures(tmp_path: Path) -> None:
    faces = _deck_photos(tmp_path / "photos")
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert set(report.enrolled) == set(CODES), report.failed
    write_profile(tmp_path / "deck", report.shots or {}, name="kitchen")
    profile = load_profile(tmp_path / "deck")
    assert profile.prototypes_path is not None and profile.name == "kitchen"
    assert set(profile.enrolled) == set(CODES) and len(profile.missing) == 57 - len(CODES)
    protos = Prototypes.load(profile.prototypes_path)
    assert protos.vectors.shape == (len(CODES) * len(VIEWS), 1280)
    again = Prototypes.load(protos.save(tmp_path / "copy.npz"))
    assert np.array_equal(again.vectors, protos.vectors) and again.faces == protos.faces and again.mix == protos.mix
    # other photos of the same cards (new tables, turns and light) are read right with the profile
    reader = table_reader(deck=tmp_path / "deck")
    assert "prototypes" in reader.classifier.backend
    piles = Compositor(faces, SceneConfig.varied(416, "classic"))
    right = 0
    for i in range(24):
        card = list(faces)[i % len(faces)]
        dets = reader.detect(piles.scene(np.random.default_rng([5, i]), top=card).image)
        right += bool(dets) and dets[0].card == card
    assert right >= 23


def test_a_damaged_prototypes_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    bad = tmp_path / "prototypes.npz"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(PrototypeError, match="damaged"):
        Prototypes.load(bad)
    np.savez(bad, vectors=np.zeros((2, 4), np.float16), faces=np.array(["R7", "NOPE"]), centre=np.zeros(4),
             mix=np.array([0.04, 0.5]))
    with pytest.raises(PrototypeError, match="no TAKI faces"):
        Prototypes.load(bad)


def test_a_card_like_none_of_the_decks_is_read_by_the_shipped_classifier() -> None:
    """The mix: close to an enrolled face -> that face; like none -> the classifier's face."""
    probs = np.zeros((2, 3))
    probs[:, 2] = 1.0  # the classifier says the third face
    likeness = np.array([[0.9, 0.2, -1.0], [0.1, 0.05, -1.0]])  # the third face has no prototypes
    p = mixed(probs, likeness, Mix(0.04, 0.55))
    assert p[0].argmax() == 0 and p[1].argmax() == 2
    assert np.allclose(p.sum(axis=1), 1.0)


def _busy(seconds: float) -> subprocess.Popen:
    """Another process keeping every core busy."""
    code = f"import time, multiprocessing as m\ndef f():\n t=time.time()\n while time.time()-t<{seconds}: pass\n" \
           f"ps=[m.Process(target=f) for _ in range({os.cpu_count() or 2})]\n[p.start() for p in ps]\n" \
           f"[p.join() for p in ps]"
    return subprocess.Popen([sys.executable, "-c", code])


def test_the_same_photos_give_the_same_prototypes_bit_for_bit_even_on_a_busy_cpu(tmp_path: Path) -> None:
    _deck_photos(tmp_path / "photos", CODES[:3])
    idle = enrol(tmp_path / "photos", tmp_path / "a" / "faces")
    write_profile(tmp_path / "a", idle.shots or {})
    busy = _busy(60)
    try:
        t0 = time.monotonic()
        loaded = enrol(tmp_path / "photos", tmp_path / "b" / "faces")
        write_profile(tmp_path / "b", loaded.shots or {})
        assert busy.poll() is None, "the load ended before the enrolment did"
    finally:
        busy.kill()
    a, b = Prototypes.load(tmp_path / "a" / "prototypes.npz"), Prototypes.load(tmp_path / "b" / "prototypes.npz")
    assert a.faces == b.faces and np.array_equal(a.vectors, b.vectors) and np.array_equal(a.centre, b.centre)
    assert time.monotonic() - t0 < 60


BLOCK_TORCH = (
    "import sys, importlib.abc\n"
    "class Block(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('torch', 'torchvision', 'ultralytics'):\n"
    "            raise ImportError(f'{name} is not installed (runtime install)')\n"
    "sys.meta_path.insert(0, Block())\n"
)


def test_enrol_runs_on_the_runtime_install_without_torch(tmp_path: Path) -> None:
    _deck_photos(tmp_path / "photos", CODES[:3])
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCK_TORCH)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'site'}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-m", "companion.cli", "enrol", "--src", str(tmp_path / "photos"),
                          "--out", str(tmp_path / "deck")], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "3 faces enrolled" in out.stdout and "deck profile ready" in out.stdout
    meta = json.loads((tmp_path / "deck" / "deck.json").read_text())
    assert meta["reader"] == "prototypes" and meta["enrolled"] == ["R7", "B+2", "GSTOP"][::1] or \
        set(meta["enrolled"]) == {"R7", "B+2", "GSTOP"}
    check = subprocess.run([sys.executable, "-c", "import sys, numpy as np\n"
                            "from companion.vision.runtime import table_reader\n"
                            f"table_reader(deck={str(tmp_path / 'deck')!r}).detect(np.zeros((320, 320, 3), np.uint8))\n"
                            "print('torch' in sys.modules)"], capture_output=True, text=True, env=env, timeout=120)
    assert check.returncode == 0 and check.stdout.strip() == "False", check.stderr[-2000:]


def _uno_like(colour: tuple[int, int, int], digit: str) -> np.ndarray:
    """A card with a coloured field inside a white border and a white oval in the middle
    (the look whose oval the old card mask took for the card)."""
    w, h = 300, 450
    card = np.full((h, w, 3), 250, np.uint8)
    cv2.rectangle(card, (18, 18), (w - 19, h - 19), colour, -1)
    cv2.ellipse(card, (w // 2, h // 2), (95, 170), 30, 0, 360, (250, 250, 250), -1)
    cv2.putText(card, digit, (w // 2 - 55, h // 2 + 55), cv2.FONT_HERSHEY_DUPLEX, 5, colour, 12)
    cv2.putText(card, digit, (28, 70), cv2.FONT_HERSHEY_DUPLEX, 1.5, (250, 250, 250), 3)
    return card


def _lay(card: np.ndarray, table: np.ndarray, angle: float, scale: float, at: tuple[int, int]) -> np.ndarray:
    h, w = card.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += np.array(at) - np.array([w / 2, h / 2])
    out = table.copy()
    warped = cv2.warpAffine(card, m, table.shape[1::-1])
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, table.shape[1::-1]) > 0
    out[inside] = warped[inside]
    return out


def _wood(seed: int, size: int = 640) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.array([60, 100, 150], np.float32)
    grain = np.sin(np.linspace(0, 40, size))[None, :, None] * 12 + rng.normal(0, 6, (size, size, 1))
    return np.clip(base + grain, 0, 255).astype(np.uint8)


def test_a_card_with_a_coloured_field_and_a_white_oval_is_enrolled_and_read(tmp_path: Path) -> None:
    cards = {"R7": _uno_like((40, 40, 210), "7"), "B3": _uno_like((200, 90, 20), "3"),
             "G5": _uno_like((60, 160, 40), "5"), "Y9": _uno_like((30, 200, 230), "9")}
    (tmp_path / "photos").mkdir()
    for i, (code, card) in enumerate(cards.items()):
        cv2.imwrite(str(tmp_path / "photos" / f"{code}.jpg"), _lay(card, _wood(i), 8.0 * i, 0.9, (320, 320)))
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert set(report.enrolled) == set(cards), report.failed
    write_profile(tmp_path / "deck", report.shots or {})
    reader = table_reader(deck=tmp_path / "deck")
    right = 0
    for i, (code, card) in enumerate(list(cards.items()) * 2):
        image = _lay(card, _wood(10 + i), 40.0 + 35 * i, 0.55, (300 + 7 * i, 330 - 5 * i))
        dets = reader.detect(image)
        right += bool(dets) and dets[0].card.code == code
    assert right >= 7


def test_a_soft_photo_is_learnt_with_its_retake_hint(tmp_path: Path) -> None:
    _deck_photos(tmp_path / "photos", ("R7", "KING"), blur=3.0)
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert set(report.enrolled) == {"R7", "KING"}, report.failed
    assert all(SOFT in (report.warnings or {}).get(c, "") for c in ("R7", "KING")), report.warnings
    write_profile(tmp_path / "deck", report.shots or {}, retake=report.warnings)
    assert SOFT in load_profile(tmp_path / "deck").retake["R7"]


@pytest.fixture(scope="module")
def small_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small-deck")
    _deck_photos(root / "photos", CODES[:2])
    report = enrol(root / "photos", root / "deck" / "faces")
    return write_profile(root / "deck", report.shots or {}, name="small")


def test_eval_reads_with_a_prototype_deck(small_deck: Path, tmp_path: Path) -> None:
    from companion.synth.dataset import DatasetSpec, make_dataset

    data = make_dataset(DatasetSpec(tmp_path / "d", {"test": 3}, seed=9, size=160), workers=1)
    done = subprocess.run([sys.executable, "-m", "companion.cli", "eval", "--data", str(data), "--deck",
                           str(small_deck), "--runtime"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "top" in done.stdout.lower() and "Traceback" not in done.stderr


def test_the_kiosk_reads_with_a_prototype_deck_given_with_deck(small_deck: Path) -> None:
    import argparse

    from companion.ui.main import Controller, needs_torch
    from companion.vision.prototypes import PrototypeClassifier

    args = argparse.Namespace(model=None, classifier="auto", deck=str(small_deck), video=None)
    assert not needs_torch(args, None)  # the runtime install reads it
    ctl = Controller(args)
    ctl.load_detector()
    assert isinstance(ctl.detector.classifier, PrototypeClassifier) and ctl.deck_problem is None


def test_a_deck_learnt_with_another_classifier_is_refused_with_the_reason(small_deck: Path, tmp_path: Path) -> None:
    import shutil

    from companion.vision.deck import DeckError

    copy = Path(shutil.copytree(small_deck, tmp_path / "old"))
    meta = json.loads((copy / "deck.json").read_text())
    (copy / "deck.json").write_text(json.dumps({**meta, "embedding": "0123456789abcdef"}))
    with pytest.raises(DeckError, match="another face classifier"):
        table_reader(deck=copy)
