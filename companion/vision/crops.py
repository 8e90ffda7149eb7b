"""Card crops for the face classifier, the detector's second stage.

The detector finds the top card well (mAP50-95 about 0.87) but mixes up
look-alike faces (1/7, 5/8, 6/9) because its class head sees the card at the
detector's small input size. The classifier looks again at the card alone, cut
from the full-resolution frame and scaled to a square, so the symbol fills the
picture. :func:`card_crop` is the one cut used both to make training data and
at run time; the training crops jitter the box as the detector's own boxes do.
"""

from __future__ import annotations

import cv2
import numpy as np


CROP_SIZE = 96  # pixels a side stored on disk; the classifier's input may be smaller
MARGIN = 0.06  # fraction of the box added on each side at run time


def crop_side(imgsz: int) -> int:
    """The side to cut a card at for a classifier that reads ``imgsz`` pixels: never
    less than it (a smaller cut blown up would lose the card's own pixels: the corner
    indices that tell a 6 from a 9), nor less than :data:`CROP_SIZE`."""
    return max(CROP_SIZE, imgsz)


def card_crop(image: np.ndarray, box: tuple[float, float, float, float], margin: float = MARGIN,
              size: int = CROP_SIZE, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The box, widened by ``margin`` per side (and moved by ``shift`` box-widths),
    cut out with edge padding where it leaves the frame, resized to size x size."""
    x1, y1, x2, y2 = box
    w, h = max(1.0, x2 - x1), max(1.0, y2 - y1)
    cx, cy = (x1 + x2) / 2 + shift[0] * w, (y1 + y2) / 2 + shift[1] * h
    half_w, half_h = w * (0.5 + margin), h * (0.5 + margin)
    # An affine map from the (widened) box to the square; out-of-frame pixels replicate the edge.
    src = np.float32([[cx - half_w, cy - half_h], [cx + half_w, cy - half_h], [cx - half_w, cy + half_h]])
    dst = np.float32([[0, 0], [size, 0], [0, size]])
    m = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_AREA if w > size else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
