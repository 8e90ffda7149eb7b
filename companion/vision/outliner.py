"""The card outliner: a learnt outline of each card, for cutting a card out flat.

Why: the card finder's box says where a card is, not where its corners are; the
corners found from edges inside the box go wrong on checked cloth, a pale table or
a shadow across a side (the enrolment benchmark's failures). A YOLO segmentation
net trained on the same generated scenes (``dataset --outline``, ``train
--segment``) outlines the card whatever the table; its polygon gives the four
corners, which :func:`~companion.vision.cardfinder.snap_to_edges` then puts on
the card's border at full resolution.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_OUTLINER = "taki-outline-yolov8n.pt"


@dataclass(frozen=True)
class Outline:
    confidence: float
    polygon: np.ndarray  # (N, 2) float32, image pixels


class Outliner(Protocol):
    def outline(self, image: np.ndarray) -> list[Outline]: ...


class YoloOutliner:
    """An ultralytics segmentation model (``train --segment``); outlines best first."""

    def __init__(self, model: str | Path | None = None, imgsz: int = 256, conf: float = 0.25) -> None:
        from .detector import find_model
        from .yolo_env import YOLO

        self.path = find_model(model, "card outliner", DEFAULT_OUTLINER, "train --segment")
        self.model = YOLO(str(self.path), task="segment")
        self.imgsz, self.conf = imgsz, conf

    def outline(self, image: np.ndarray) -> list[Outline]:
        res = self.model.predict(image, imgsz=self.imgsz, conf=self.conf, verbose=False)[0]
        if res.masks is None or res.boxes is None:
            return []
        confs = res.boxes.conf.cpu().numpy()
        out = [Outline(float(c), np.asarray(poly, np.float32)) for c, poly in zip(confs, res.masks.xy)
               if len(poly) >= 4]
        return sorted(out, key=lambda o: -o.confidence)
