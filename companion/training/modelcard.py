"""Writes models/README.md from an eval JSON, a speed benchmark's output and the runs' args.

    python -m companion.training.modelcard --eval eval.json --speed speed.txt --run runs/taki \
        --cls-run runs/taki-cls
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import yaml

LOOKALIKES = [(f"{c}{a}", f"{c}{b}") for a, b in ((6, 9), (1, 7), (5, 8)) for c in "RYGB"] + [
    ("+3", "BREAKER"), ("SUPER", "COLOR"), ("RPLUS", "R+2"), ("BPLUS", "B+2")]


def card(eval_json: Path, speed: Path, run: Path, history: str, cls_run: Path | None = None,
         cls_data: str = "") -> str:
    ev = json.loads(eval_json.read_text())
    args = yaml.safe_load((run / "args.yaml").read_text())
    rows = list(csv.DictReader((run / "results.csv").open()))
    last = rows[-1] if rows else {}
    confusions = {(t, p): n for t, p, n in ev["confusions"]}
    per = ev["per_class_map"]
    worst = sorted(per.items(), key=lambda kv: kv[1])[:8]
    lines = [
        "# Shipped models: detector `taki-yolov8n`, face classifier `taki-cls-yolov8n`",
        "",
        "The reader of the leading card (top of the discard pile) has two stages. The",
        "detector finds the card and names its face: one class per face, 57 classes in",
        "`companion.rules.FACES` order. The face classifier then looks again at the card",
        "alone, cut from the full-resolution frame (`companion/vision/crops.py`), and its",
        "face is the one reported (`companion/vision/classifier.py`): the detector's class",
        "head mixes up faces that differ by a stroke. Both are YOLOv8n nets built from",
        "`yolov8n.yaml` / `yolov8n-cls.yaml` (no downloaded weights), trained offline on",
        "this project's CPU machine (2 cores). The app pairs each detector with the",
        "classifier of the same backend (`--classifier none` runs the detector alone).",
        "",
        "| detector | classifier | backend |",
        "| --- | --- | --- |",
        "| `taki-yolov8n.pt` | `taki-cls-yolov8n.pt` | PyTorch |",
        "| `taki-yolov8n.onnx` | `taki-cls-yolov8n.onnx` | ONNX Runtime |",
        "| `taki-yolov8n_openvino_model/` | `taki-cls-yolov8n_openvino_model/` | OpenVINO |",
        "| `taki-yolov8n_ncnn_model/` | `taki-cls-yolov8n_ncnn_model/` | NCNN (exported with `pnnx` from PyPI) |",
        "",
        "## Data",
        "",
        "Synthetic only (no photos of TAKI cards exist to train on): `companion.synth.scene`",
        "composites rendered faces onto procedural and photographic backgrounds with older",
        "cards underneath, hands, perspective, colour temperature, shadow, glare, blur, noise",
        "and JPEG (albumentations). Train 4,000 and val 400 images at 416 px (seed 1); test",
        "1,000 images from seed 777, never used in training (`datasets/README.md`).",
        "",
        "## Training the detector",
        "",
        f"- image size {args['imgsz']}, batch {args['batch']}, optimizer {args['optimizer']} lr0 {args['lr0']}"
        f" (cosine), warm-up {args['warmup_epochs']} epoch, mosaic {args['mosaic']}, fliplr {args['fliplr']}",
        f"- {len(rows)} epochs in this run (time-limited to {args.get('time')} h on 2 CPU cores); {history}",
        f"- last epoch on val: mAP50-95 {float(last.get('metrics/mAP50-95(B)', 0)):.3f}, "
        f"mAP50 {float(last.get('metrics/mAP50(B)', 0)):.3f}",
        "",
        *_classifier_lines(cls_run, cls_data),
        "## Results on the held-out test set (`taki-companion eval`)",
        "",
        f"- images: {ev['images']}",
        f"- **mAP50-95 {ev['map50_95']:.3f}**, **mAP50 {ev['map50']:.3f}** (targets: mAP50-95 >= 0.85)",
        "- mAP is the detector's own (boxes and its classes).",
        f"- **top card identified: {100 * ev['top_card_accuracy']:.1f}%** by the two-stage reader"
        f" (target >= 98%); {ev['missed']} images with no detection",
        f"- the detector alone: {100 * (ev.get('detector_top_card_accuracy') or ev['top_card_accuracy']):.1f}%",
        "",
        "Weakest faces (mAP50-95): " + ", ".join(f"{c} {m:.2f}" for c, m in worst),
        "",
        "Look-alike faces, the reader's errors on the test set (true -> predicted):",
        "",
        "| pair | a -> b | b -> a |",
        "| --- | --- | --- |",
    ]
    for a, b in LOOKALIKES:
        lines.append(f"| {a} / {b} | {confusions.get((a, b), 0)} | {confusions.get((b, a), 0)} |")
    top = ", ".join(f"{t}->{p} x{n}" for t, p, n in ev["confusions"][:10]) or "none"
    lines += ["", f"Most frequent confusions overall: {top}.", "",
              "## Inference speed on this machine (2 cores, whole predict calls; 192 px detector,",
              "64 px classifier)", "", "```",
              speed.read_text().strip(), "```", "",
              "## Limits", "",
              "- The detector alone confuses digits that differ by a stroke (1/7, 5/8, 6/9 turned",
              "  round): 85% top-card accuracy. The classifier exists for that; its remaining",
              "  errors are such pairs and a colour under strong colour-temperature shifts.",
              "- Trained on rendered faces: a real printed deck differs. Enrol it",
              "  (`taki-companion enrol`), make scenes and crops from its photos and train both",
              "  (`taki-companion train`, `crops`, `train-classifier`).",
              "- Both runs resume (`runs/.../weights/last.pt`) and improve with more epochs, or on",
              "  a GPU with `--device 0`.", ""]
    return "\n".join(lines)


def _classifier_lines(run: Path | None, data: str) -> list[str]:
    if run is None or not (run / "args.yaml").exists():
        return []
    args = yaml.safe_load((run / "args.yaml").read_text())
    rows = list(csv.DictReader((run / "results.csv").open()))
    last = {k.strip(): v for k, v in rows[-1].items()} if rows else {}
    return [
        "## Training the face classifier",
        "",
        f"- data: {data}" if data else "- data: top-card crops of generated scenes (`taki-companion crops`)",
        f"- image size {args['imgsz']}, batch {args['batch']}, optimizer {args['optimizer']} lr0 {args['lr0']}"
        f" (cosine), {len(rows)} epochs; no flips (a mirrored 7 is no card), little hue jitter",
        f"- last epoch on val crops: top-1 {float(last.get('metrics/accuracy_top1', 0)):.4f}, "
        f"top-5 {float(last.get('metrics/accuracy_top5', 0)):.4f}",
        "",
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--speed", required=True)
    ap.add_argument("--run", default="runs/taki")
    ap.add_argument("--history", default="")
    ap.add_argument("--cls-run", default="runs/taki-cls")
    ap.add_argument("--cls-data", default="")
    ap.add_argument("--out", default="models/README.md")
    a = ap.parse_args()
    Path(a.out).write_text(card(Path(a.eval), Path(a.speed), Path(a.run), a.history,
                                  Path(a.cls_run), a.cls_data))


if __name__ == "__main__":
    main()
