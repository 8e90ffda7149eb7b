"""The card masker: which pixels around a found card are the card, learnt.

Why: the card finder's box says where a card is, and its corners came from the
picture's edges alone (GrabCut, edge maps). Those go wrong where the card and the
table look alike (a pale card on pale or white-checked cloth) or where a shadow or
the table's pattern draws a straighter line than the card's border: 34 of the 37
failures of ``benchmarks/card_finder.py``. A small net that has seen cards on
thousands of generated tables (``companion/training/cardmask.py``) says which
pixels are card; its mask is one more candidate outline, judged like the others.

It runs on ONNX Runtime (no torch): enrolment runs in the kiosk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from .detector import MODELS_DIR, ModelError

DEFAULT_MASKER = MODELS_DIR / "taki-cardmask.onnx"
#: The net's input side: the region around the card, squeezed square (the shipped
#: net's; an export says its own, and the net is fully convolutional).
SIZE = 96
#: The region is the finder's box grown by this share of its size on each side
#: (the same slack :func:`~companion.vision.cardfinder.refine_corners` searches).
PAD = 0.12
#: The region is read at this many quarter turns and the masks averaged. Why: the
#: net learnt with turns and mirrors, so each turn is as fair a look, and where a
#: hard shadow's edge or a glare line crosses the card one look may follow it while
#: the others keep to the card. On the tuning photos (seeds 4242 0-499, 6161 0-299;
#: ``benchmarks/card_finder.py``) cut out right: one look 783 of 800, a look and its
#: mirror 784, four turns 789, four turns and their mirrors 788. Four looks cost
#: about 25 ms a photo (median 200 -> 225 ms).
TURNS = 4


class Masker(Protocol):
    def roi_mask(self, roi: np.ndarray) -> np.ndarray:
        """P(card) for every pixel of ``roi`` (BGR), the same height and width."""
        ...


def to_input(roi: np.ndarray, size: int = SIZE) -> np.ndarray:
    """The net's input: RGB in [0, 1], (1, 3, size, size) float32. Training uses it too."""
    small = cv2.resize(roi, (size, size), interpolation=cv2.INTER_AREA) if roi.shape[:2] != (size, size) else roi
    return np.ascontiguousarray(small[:, :, ::-1].transpose(2, 0, 1)[None], np.float32) / 255.0


def padded_region(box: tuple[float, float, float, float], shape: tuple[int, ...],
                  pad: float = PAD) -> tuple[int, int, int, int]:
    """The box grown by ``pad`` of its size each way, inside the picture: x1, y1, x2, y2."""
    h, w = shape[:2]
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    return (int(max(0, x1 - pad * bw)), int(max(0, y1 - pad * bh)),
            int(min(w, x2 + pad * bw)), int(min(h, y2 + pad * bh)))


class OnnxMasker:
    """The shipped masker on ONNX Runtime, set up as the runtime reader's nets are (one
    thread, no spin-waiting, no arena): it runs once per enrolment photo, beside the UI."""

    def __init__(self, path: str | Path = DEFAULT_MASKER, turns: int = TURNS) -> None:
        from .runtime import OnnxEngine

        if not 1 <= turns <= 4:
            raise ValueError(f"turns is 1 to 4 quarter turns, not {turns}")
        self.path, self.turns = Path(path), turns
        if not self.path.exists():
            raise ModelError(f"no card masker at {self.path} (python -m companion.training.cardmask)")
        self.engine = OnnxEngine(self.path, threads=1)
        side = self.engine.session.get_inputs()[0].shape[-1]
        self.size = side if isinstance(side, int) else SIZE

    def roi_mask(self, roi: np.ndarray) -> np.ndarray:
        """P(card) per pixel of ``roi``: the net's reads at :data:`TURNS` quarter turns of
        the squeezed region, each turned back, averaged."""
        x = to_input(roi, self.size)
        reads = []
        for k in range(self.turns):
            logits = self.engine.run(np.ascontiguousarray(np.rot90(x, k, axes=(2, 3))))[0, 0]
            reads.append(np.rot90(1.0 / (1.0 + np.exp(-logits.astype(np.float32))), -k))
        prob = np.ascontiguousarray(np.mean(reads, axis=0), np.float32)
        return cv2.resize(prob, (roi.shape[1], roi.shape[0]), interpolation=cv2.INTER_LINEAR)


def shipped_masker() -> OnnxMasker | None:
    """The shipped masker, or None where none is shipped (the edges alone then)."""
    try:
        return OnnxMasker()
    except (ModelError, ImportError):
        return None
