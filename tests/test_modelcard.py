"""The model card is written from the runs and eval JSONs; what a run no longer on
disk said is kept from the card before, never lost or replaced by a default."""

from __future__ import annotations

import json
from pathlib import Path

from companion.training.modelcard import card


def _eval(path: Path, accuracy: float) -> Path:
    path.write_text(json.dumps({"images": 600, "top_card_accuracy": accuracy, "map50_95": 0.8, "missed": 0,
                                "confusions": [["R6", "R9", 2]], "per_face_accuracy": {"R6": 0.9, "R9": 1.0}}))
    return path


def test_model_card_keeps_the_classifier_section_of_a_run_that_is_gone(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import companion.vision.detector as detector

    models = tmp_path / "models" / "taki-cls-yolov8n_openvino_model"
    models.mkdir(parents=True)
    (models / "metadata.yaml").write_text("task: classify\nimgsz:\n- 112\n- 112\n")
    monkeypatch.setattr(detector, "MODELS_DIR", tmp_path / "models")  # the shipped export says 112
    previous = tmp_path / "README.md"
    previous.write_text("# card\n\n## Training the face classifier\n\n- two runs on 2 CPU cores, by hand\n\n"
                        "## Results (`taki-companion eval`)\n\nold numbers\n")
    run = tmp_path / "finder"
    run.mkdir()
    (run / "args.yaml").write_text("imgsz: 192\nbatch: 16\noptimizer: AdamW\nlr0: 0.0005\nwarmup_epochs: 0.3\n"
                                   "mosaic: 0.0\nfliplr: 0.0\ntime: 0.55\n")
    (run / "results.csv").write_text("epoch,metrics/mAP50-95(B),metrics/mAP50(B)\n1,0.70,0.99\n2,0.815,0.995\n")
    speed = tmp_path / "speed.txt"
    speed.write_text("onnx + classifier median 9.7 ms/frame")
    text = card(_eval(tmp_path / "h.json", 0.988), _eval(tmp_path / "t.json", 0.987), speed, run, "fine-tuned",
                cls_run=tmp_path / "gone", previous=previous, framing_json=_eval(tmp_path / "f.json", 0.978))
    assert "- two runs on 2 CPU cores, by hand" in text  # kept from the card before
    assert "mAP50-95 0.815" in text and "2 epochs" in text  # the finder's own run
    assert "112 px classifier" in text  # what the shipped export says it reads, not a default of 64
    framing = [line for line in text.splitlines() if "small to large cards" in line]
    assert len(framing) == 1 and "**97.8%**" in framing[0]  # the framing test set's row
    assert "old numbers" not in text


def test_model_card_says_how_often_each_backend_reads_what_pytorch_reads(tmp_path: Path) -> None:
    def reads(path: Path, accuracy: float, predictions: list[str]) -> Path:
        _eval(path, accuracy)
        path.write_text(json.dumps({**json.loads(path.read_text()), "predictions": predictions}))
        return path

    speed = tmp_path / "speed.txt"
    speed.write_text("onnx + classifier median 9.7 ms/frame")
    held = reads(tmp_path / "h.json", 0.75, ["R6", "G5", "B1", "Y9"])
    onnx = reads(tmp_path / "o.json", 0.75, ["R6", "G6", "B1", "Y9"])
    text = card(held, _eval(tmp_path / "t.json", 0.9), speed, tmp_path / "gone", "", cls_run=tmp_path / "gone",
                previous=tmp_path / "none.md", backend_jsons={"onnx": onnx, "ncnn": _eval(tmp_path / "n.json", 0.7)})
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    assert "| 75.0% | 75.0% |" in rows["onnx"]  # same accuracy, yet one picture read otherwise
    assert "| 70.0% | n/a |" in rows["ncnn"]  # no per-picture reads: not made up
