"""``taki-companion eval`` on a dataset somebody else labelled: their class
names and order, a labelling tool's folder layout, no test split. The same
pictures must score the same as when the set is written our way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from companion.rules.cards import FACES, file_stem
from companion.synth.dataset import DatasetSpec, make_dataset
from companion.training import yolo_data
from companion.training.evaluate import evaluate
from companion.training.yolo_data import face_from_name

from .test_vision_model import no_network  # noqa: F401  (fixture)


@pytest.mark.parametrize("name, code", [
    ("R7", "R7"), ("red_7", "R7"), ("Red 7", "R7"), ("y_one", "Y1"), ("yellow-nine", "Y9"), ("b7", "B7"),
    ("Blue +2", "B+2"), ("Bplus2", "B+2"), ("red draw two", "R+2"), ("RPLUS", "RPLUS"), ("red plus", "RPLUS"),
    ("green change direction", "GDIR"), ("gdir", "GDIR"), ("red reverse", "RDIR"), ("blue stop", "BSTOP"),
    ("yellow_taki", "YTAKI"), ("super taki", "SUPER"), ("SuperTaki", "SUPER"), ("King", "KING"),
    ("+3", "+3"), ("plus3", "+3"), ("+3 breaker", "BREAKER"), ("breaker", "BREAKER"),
    ("change colour", "COLOR"), ("Change-Color", "COLOR"),
])
def test_class_names_in_words_or_codes_are_read_as_faces(name: str, code: str) -> None:
    card = face_from_name(name)
    assert card is not None and card.code == code


@pytest.mark.parametrize("name", ["taki", "7", "red king", "g2", "stop", "card", "", "blue super taki"])
def test_names_that_are_no_face_or_lack_their_colour_are_not_guessed(name: str) -> None:
    assert face_from_name(name) is None


def test_every_face_is_read_back_from_its_code_and_its_file_name() -> None:
    for card in FACES:
        assert face_from_name(card.code) == card
        assert face_from_name(file_stem(card)) == card


def test_names_not_all_faces_fall_back_to_our_order_and_are_kept_to_be_said() -> None:
    names = yolo_data.class_names({"names": ["R1", "card", "R4"]})
    assert names.unknown == ("card",)
    assert names.face(2) == 2  # our order: id 2 is R4 there too
    assert yolo_data.class_names({}).ours and yolo_data.class_names({"names": [c.code for c in FACES]}).ours


def _foreign_copy(ours: Path, out: Path) -> Path:
    """Our test set written as a labelling tool exports one: folders ``valid/images``
    and ``valid/labels`` beside a data.yaml with relative ``../`` paths, no test
    split, the classes named in words and in reverse order (ids rewritten to
    match), one picture with no label and one with a class id that has no name."""
    names = {i: (c.color.name.lower() + " " if c.color else "")
             + (str(c.number) if c.number else c.kind.name.lower().replace("_", " "))
             for i, c in enumerate(reversed(FACES))}
    (out / "valid/images").mkdir(parents=True)
    (out / "valid/labels").mkdir()
    pictures = sorted((ours / "images/test").iterdir())
    for k, img in enumerate(pictures):
        shutil.copy(img, out / "valid/images" / img.name)
        lines = (ours / "labels/test" / f"{img.stem}.txt").read_text().split("\n")
        cls, *rest = lines[0].split()
        new_id = len(FACES) - 1 - int(cls) if k != 1 else len(FACES) + 3  # picture 1: an id with no name
        if k != 0:  # picture 0: no label
            (out / "valid/labels" / f"{img.stem}.txt").write_text(" ".join([str(new_id), *rest]) + "\n")
    data = out / "data.yaml"
    data.write_text(yaml.safe_dump({"train": "../train/images", "val": "../valid/images",
                                    "nc": len(names), "names": list(names.values())}))
    return data


def test_a_foreign_dataset_scores_its_pictures_as_ours_would(tmp_path: Path, no_network) -> None:  # noqa: F811
    ours = make_dataset(DatasetSpec(tmp_path / "ours", {"test": 8}, seed=778, size=320, styles="held-out"),
                        workers=1)
    theirs = _foreign_copy(tmp_path / "ours", tmp_path / "export")
    mine = evaluate(None, ours)
    got = evaluate(None, theirs)
    assert got.split == "val"  # no test split: the val split, said in the report
    assert got.images == 6  # the unlabelled picture and the one with an unnamed id are not scored
    assert got.predictions == mine.predictions[2:]
    assert got.top_card_accuracy == pytest.approx(
        sum(p == FACES[int((tmp_path / "ours/labels/test" / f"{img.stem}.txt").read_text().split()[0])].code
            for p, img in zip(mine.predictions[2:], sorted((tmp_path / "ours/images/test").iterdir())[2:])) / 6)
    report = got.report()
    assert "top card correct" in report and "their ids translated to ours" in report
    assert "2 of 8 images not scored" in report
    assert got.map50 == got.map50  # the finder's mAP was measured (not NaN) on the relative paths


def test_eval_says_when_the_validator_fails_and_still_scores_the_top_card(tmp_path: Path, no_network,  # noqa: F811
                                                                        monkeypatch) -> None:
    from companion.vision.yolo_env import ultralytics

    ultralytics()  # offline, our config folder: before ultralytics is first imported
    from ultralytics.engine.model import Model

    data = make_dataset(DatasetSpec(tmp_path / "ours", {"test": 3}, seed=778, size=320, styles="held-out"),
                        workers=1)

    def broken(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("labels cache not writable")

    monkeypatch.setattr(Model, "val", broken)
    got = evaluate(None, data)
    assert got.images == 3 and len(got.predictions) == 3
    assert got.map50 != got.map50  # NaN: not measured
    assert "mAP not measured" in got.report() and "labels cache not writable" in got.report()


def test_eval_cli_names_a_split_that_is_not_there(tmp_path: Path) -> None:
    data = tmp_path / "data.yaml"
    data.write_text(yaml.safe_dump({"train": "train/images", "names": ["R1"]}))
    done = subprocess.run([sys.executable, "-m", "companion.cli", "eval", "--data", str(data)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "neither a 'test' nor a 'val' split" in done.stderr
