"""Issue 46 (4, 11, 12): enrolment's bad input gives one clear sentence and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.training import enrol as enrol_module
from companion.training.enrol import PhotoTooLarge, enrol, read_photo


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion.cli", "enrol", *args], capture_output=True, text=True,
                          timeout=300)


def test_enrol_into_a_file_or_from_an_empty_folder_says_why(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "taken").write_text("a file")
    done = _cli("--src", str(tmp_path / "photos"), "--out", str(tmp_path / "taken"))
    assert done.returncode == 2 and "is a file, not a folder" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "taken").read_text() == "a file"
    done = _cli("--src", str(tmp_path / "photos"), "--out", str(tmp_path / "taken" / "deck"))
    assert done.returncode == 2 and "cannot write the deck profile" in done.stderr and "Traceback" not in done.stderr
    done = _cli("--src", str(tmp_path / "photos"), "--out", str(tmp_path / "deck"))
    assert done.returncode == 1 and "holds no photos or clips named by face" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_file_enrolment_cannot_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "photos" / "R3").mkdir(parents=True)
    (tmp_path / "photos" / "R7.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "photos" / "R3" / "1.jpg").write_bytes(b"not a jpeg")
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert not report.enrolled
    assert "not a photo or clip" in report.failed["R7.pdf"]
    assert "1.jpg: could not be read" in report.failed["R3"]


def test_a_huge_photo_is_decoded_reduced_or_refused_with_the_reason(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "R7.png"
    cv2.imwrite(str(path), np.full((400, 400, 3), 200, np.uint8))
    monkeypatch.setattr(enrol_module, "MAX_PIXELS", 30_000)  # 160,000 pixels: a quarter of the side decoded
    assert read_photo(path).shape == (100, 100, 3)
    monkeypatch.setattr(enrol_module, "MAX_PIXELS", 1_000)  # past eight times smaller: refused
    with pytest.raises(PhotoTooLarge, match="too large to read"):
        read_photo(path)
    (tmp_path / "photos").mkdir()
    path.rename(tmp_path / "photos" / "R7.png")
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert "too large to read" in report.failed["R7"]


def test_a_deck_json_whose_quality_holds_text_still_loads(tmp_path: Path) -> None:
    from companion.rules.cards import Card
    from companion.training.deck_prototypes import Shot, write_profile
    from companion.vision.deck import load_profile
    from companion.synth.styles import PUBLISHED, render_styled_face

    face = render_styled_face(Card.from_code("R7"), PUBLISHED, 150, 210)[:, :, :3]
    table = np.full((400, 400, 3), 90, np.uint8)
    table[95:305, 125:275] = face
    (tmp_path / "deck" / "faces").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "deck" / "faces" / "R7.png"), face)
    write_profile(tmp_path / "deck", {"R7": [Shot(table, (125.0, 95.0, 275.0, 305.0))]})
    meta = json.loads((tmp_path / "deck" / "deck.json").read_text())
    (tmp_path / "deck" / "deck.json").write_text(json.dumps({**meta, "quality": {"R7": "sharp"}}))
    assert load_profile(tmp_path / "deck").quality == {}


def test_a_classifier_whose_output_does_not_fit_its_names_is_refused(tmp_path: Path) -> None:
    """Issue 46 (5): 57 faces declared, 10 scores given: refused at load, not misread."""
    import onnx
    from onnx import TensorProto, helper

    from companion.vision.detector import MODELS_DIR, ModelError
    from companion.vision.runtime import RuntimeClassifier

    model = onnx.load(str(MODELS_DIR / "taki-cls-yolov8n.onnx"))
    graph = model.graph
    out = graph.output[0].name
    graph.node.append(helper.make_node("Slice", [out, "s0", "s1", "ax"], ["ten"]))
    graph.initializer.extend([helper.make_tensor("s0", TensorProto.INT64, [1], [0]),
                              helper.make_tensor("s1", TensorProto.INT64, [1], [10]),
                              helper.make_tensor("ax", TensorProto.INT64, [1], [1])])
    keep = [o for o in graph.output if o.name != out]
    del graph.output[:]
    graph.output.extend([helper.make_tensor_value_info("ten", TensorProto.FLOAT, [1, 10]), *keep])
    onnx.save(model, str(tmp_path / "bad.onnx"))
    with pytest.raises(ModelError, match="gives 10 scores"):
        RuntimeClassifier(tmp_path / "bad.onnx")


def test_a_photos_size_is_read_from_its_header_even_with_ultralytics_loaded(tmp_path: Path) -> None:
    """ultralytics patches Pillow's open to install a HEIF plug-in when a file fails:
    the size of a PNG or JPEG is read without it, and a damaged photo is just named."""
    from companion.vision.yolo_env import ultralytics

    ultralytics()  # its patches in place, as in the full install
    from companion.training.enrol import _pixels

    for ext in ("png", "jpg"):
        cv2.imwrite(str(tmp_path / f"a.{ext}"), np.zeros((123, 457, 3), np.uint8))
        assert _pixels(tmp_path / f"a.{ext}") == 123 * 457
    (tmp_path / "photos" / "R3").mkdir(parents=True)
    (tmp_path / "photos" / "R3" / "1.jpg").write_bytes(b"not a jpeg")
    report = enrol(tmp_path / "photos", tmp_path / "deck" / "faces")
    assert "1.jpg: could not be read" in report.failed["R3"]
