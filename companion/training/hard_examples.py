"""Hard examples for a classifier fine-tune: crops the shipped classifier reads unsure
or wrong are repeated in the training folder.

Why: of 48,000 fresh training crops the shipped classifier read 96% at 0.9 or more on
their own face; an epoch spent mostly on what it already knows teaches little. The
crops it reads below 0.9 (1,994 in session 22, 755 of them wrong) are linked in again
``extra`` times, so the fine-tune sees them as often as that. Hard links: no copies.

    python -m companion.training.hard_examples CROPS [--classifier models/taki-cls-yolov8n.onnx]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import Card, file_stem

HARD_BELOW = 0.9  # a crop read below this on its own face is hard
MARK = "_hard"  # the repeats' name mark, so a second run neither reads nor repeats them again


def repeat_hard(train_dir: Path, probabilities: Callable[[list[np.ndarray]], np.ndarray], cards: Sequence[Card],
                below: float = HARD_BELOW, extra: int = 2) -> tuple[int, int, int]:
    """Link every crop under ``train_dir/<face stem>/`` read below ``below`` on its own
    face ``extra`` more times beside itself. Returns (crops read, hard, read wrong)."""
    index = {file_stem(c): i for i, c in enumerate(cards)}
    read = hard = wrong = 0
    for folder in sorted(p for p in train_dir.iterdir() if p.is_dir() and p.name in index):
        k = index[folder.name]
        for crop in sorted(folder.glob("*.jpg")):
            if MARK in crop.stem:
                continue
            image = cv2.imread(str(crop))
            if image is None:
                continue
            read += 1
            p = probabilities([image])[0]
            if p[k] >= below:
                continue
            hard += 1
            wrong += int(int(np.argmax(p)) != k)
            for j in range(extra):
                link = crop.with_name(f"{crop.stem}{MARK}{j}{crop.suffix}")
                if not link.exists():
                    os.link(crop, link)
    return read, hard, wrong


def main() -> None:
    from ..vision.runtime import RuntimeClassifier

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("crops", help="a crops folder (taki-companion crops --out); its train/ split is read")
    ap.add_argument("--classifier", default="models/taki-cls-yolov8n.onnx", help="an .onnx or *_ncnn_model export")
    ap.add_argument("--below", type=float, default=HARD_BELOW)
    ap.add_argument("--extra", type=int, default=2, help="more times each hard crop is seen")
    a = ap.parse_args()
    cls = RuntimeClassifier(a.classifier, threads=2)
    read, hard, wrong = repeat_hard(Path(a.crops) / "train", cls.probabilities, cls.faces, a.below, a.extra)
    print(f"{read} crops read, {hard} hard (below {a.below} on their own face, {wrong} read wrong), "
          f"each {a.extra} more times")


if __name__ == "__main__":
    main()
