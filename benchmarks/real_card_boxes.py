"""Benchmark: does the card finder box the whole card on real photos?

The real photos of ``../shared/real-photos/cardcounterml-playing-cards`` ("Card
Detection" dataset by Roboflow user cadyzedevelopmenthub, CC BY 4.0) outline 42
whole face-down cards (black-and-gold backs, class ``BACK``) as polygons. For each,
the finder's box (confidence >= 0.25) that overlaps it most is compared with the
polygon's own box: IoU, and whether the box is the card (IoU >= 0.7), too loose
(the box holds the card and more: the desk around a dark card) or elsewhere. Also
prints, over all 662 photos, how many cards whose two corner indices are labelled
are boxed whole (both inside one box that holds no other card's index).

Run: python benchmarks/real_card_boxes.py [--model taki-yolov8n.onnx]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import yaml

from companion.vision.runtime import RuntimeFinder
from companion.vision.tracker import iou

HERE = Path(__file__).resolve().parents[1]
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", default=str(HERE.parent / "shared" / "real-photos" / "cardcounterml-playing-cards"))
    ap.add_argument("--model", default=None)
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('real_card_boxes', "Card finder on real photos of playing cards")
    root = Path(args.photos)
    names = yaml.safe_load((root / "data.yaml").read_text())["names"]
    finder = RuntimeFinder(args.model, conf=0.05, max_det=12)
    ious, loose, whole, indexed = [], 0, 0, 0
    for image in sorted(root.glob("datasets/*/images/*.jpg")):
        picture = cv2.imread(str(image))
        h, w = picture.shape[:2]
        boxes = [d.box for d in finder.detect(picture) if d.confidence >= 0.25]
        rows = (image.parent.parent / "labels" / (image.stem + ".txt")).read_text().splitlines()
        marks: dict[str, list[tuple[float, float]]] = {}
        for line in rows:
            v = line.split()
            xy = np.array(v[1:], float).reshape(-1, 2) * (w, h)
            name = names[int(v[0])]
            if name == "BACK" and len(xy) > 2:
                card = (xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max())
                best = max(boxes, key=lambda b: iou(b, card), default=None)
                ious.append(iou(best, card) if best else 0.0)
                if best and iou(best, card) < 0.7 and best[0] <= card[0] + 2 and best[1] <= card[1] + 2 \
                        and best[2] >= card[2] - 2 and best[3] >= card[3] - 2:
                    loose += 1
            elif name != "BACK":
                marks.setdefault(name, []).append(tuple(xy[0] if len(v) == 5 else xy.mean(axis=0)))
        for name, points in marks.items():
            if len(points) < 2:
                continue
            indexed += 1
            for b in boxes:
                inside = [n for n, ps in marks.items() for x, y in ps if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
                if inside.count(name) >= 2 and set(inside) == {name}:
                    whole += 1
                    break
    ious_a = np.array(ious)
    print(f"whole face-down cards outlined: {len(ious_a)}; the finder's box IoU median {np.median(ious_a):.2f}, "
          f"mean {ious_a.mean():.2f}; boxed (IoU >= 0.7) {(ious_a >= 0.7).sum()}, too loose {loose}, "
          f"missed (IoU < 0.3) {(ious_a < 0.3).sum()}")
    print(f"face-up cards with both corner indices labelled: {indexed}; boxed whole and alone: {whole} "
          f"({100 * whole / max(1, indexed):.1f}%)")
    rep.add("face-up cards boxed whole and alone", round(100 * whole / max(1, indexed), 1), f"% of {indexed}")
    rep.add("face-down cards, box IoU median", round(float(np.median(ious_a)), 2))
    rep.note('Photos: "Card Detection" dataset by Roboflow user cadyzedevelopmenthub, CC BY 4.0.')
    rep.write(args.json)


if __name__ == "__main__":
    main()
