"""Writes models/README.md from an eval JSON, a speed benchmark's output and the run's args.

    python -m companion.vision.modelcard --eval eval.json --speed speed.txt --run runs/taki
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import yaml

LOOKALIKES = [(f"{c}{a}", f"{c}{b}") for a, b in ((6, 9), (1, 7), (5, 8)) for c in "RYGB"] + [
    ("+3", "BREAKER"), ("SUPER", "COLOR"), ("RPLUS", "R+2"), ("BPLUS", "B+2")]


def card(eval_json: Path, speed: Path, run: Path, history: str) -> str:
    ev = json.loads(eval_json.read_text())
    args = yaml.safe_load((run / "args.yaml").read_text())
    rows = list(csv.DictReader((run / "results.csv").open()))
    last = rows[-1] if rows else {}
    confusions = {(t, p): n for t, p, n in ev["confusions"]}
    per = ev["per_class_map"]
    worst = sorted(per.items(), key=lambda kv: kv[1])[:8]
    lines = [
        "# Shipped detector: `taki-yolov8n`",
        "",
        "Finds the leading card (top of the discard pile) and names its face: one class per",
        "face, 57 classes in `companion.rules.FACES` order. YOLOv8n built from `yolov8n.yaml`",
        "(no downloaded weights), trained offline on this project's CPU machine (2 cores).",
        "",
        "| file | backend |",
        "| --- | --- |",
        "| `taki-yolov8n.pt` | PyTorch |",
        "| `taki-yolov8n.onnx` | ONNX Runtime |",
        "| `taki-yolov8n_openvino_model/` | OpenVINO |",
        "| `taki-yolov8n_ncnn_model/` | NCNN (exported with `pnnx` from PyPI) |",
        "",
        "## Data",
        "",
        "Synthetic only (no photos of TAKI cards exist to train on): `companion.vision.scene`",
        "composites rendered faces onto procedural and photographic backgrounds with older",
        "cards underneath, hands, perspective, colour temperature, shadow, glare, blur, noise",
        "and JPEG (albumentations). Train 4,000 and val 400 images at 416 px (seed 1); test",
        "1,000 images from seed 777, never used in training (`datasets/README.md`).",
        "",
        "## Training",
        "",
        f"- image size {args['imgsz']}, batch {args['batch']}, optimizer {args['optimizer']} lr0 {args['lr0']}"
        f" (cosine), warm-up {args['warmup_epochs']} epoch, mosaic {args['mosaic']}, fliplr {args['fliplr']}",
        f"- {len(rows)} epochs in this run (time-limited to {args.get('time')} h on 2 CPU cores); {history}",
        f"- last epoch on val: mAP50-95 {float(last.get('metrics/mAP50-95(B)', 0)):.3f}, "
        f"mAP50 {float(last.get('metrics/mAP50(B)', 0)):.3f}",
        "",
        "## Results on the held-out test set (`taki-companion eval`)",
        "",
        f"- images: {ev['images']}",
        f"- **mAP50-95 {ev['map50_95']:.3f}**, **mAP50 {ev['map50']:.3f}** (targets: mAP50-95 >= 0.85)",
        f"- **top card identified: {100 * ev['top_card_accuracy']:.1f}%** (target >= 98%);"
        f" {ev['missed']} images with no detection",
        "",
        "Weakest faces (mAP50-95): " + ", ".join(f"{c} {m:.2f}" for c, m in worst),
        "",
        "Look-alike faces, errors on the test set (true -> predicted):",
        "",
        "| pair | a -> b | b -> a |",
        "| --- | --- | --- |",
    ]
    for a, b in LOOKALIKES:
        lines.append(f"| {a} / {b} | {confusions.get((a, b), 0)} | {confusions.get((b, a), 0)} |")
    top = ", ".join(f"{t}->{p} x{n}" for t, p, n in ev["confusions"][:10]) or "none"
    lines += ["", f"Most frequent confusions overall: {top}.", "",
              "## Inference speed on this machine (2 cores, whole predict call)", "", "```",
              speed.read_text().strip(), "```", "",
              "## Limits", "",
              "- Digits that differ by a stroke (1/7, 5/8, 6/9 turned round) are its main errors at",
              "  192 px; the tracker's rules prior breaks near-ties between such readings.",
              "- Trained on rendered faces: a real printed deck differs. Enrol it",
              "  (`taki-companion enrol`) and train on composites of its photos.",
              "- The targets above were not reached in the CPU time one session has; the run",
              "  resumes and improves with more epochs (`taki-companion train --arch",
              "  models/taki-yolov8n.pt ...`, or on a GPU with `--device 0`).", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--speed", required=True)
    ap.add_argument("--run", default="runs/taki")
    ap.add_argument("--history", default="")
    ap.add_argument("--out", default="models/README.md")
    a = ap.parse_args()
    Path(a.out).write_text(card(Path(a.eval), Path(a.speed), Path(a.run), a.history))


if __name__ == "__main__":
    main()
