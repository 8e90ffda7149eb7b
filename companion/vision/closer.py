"""A second, closer look at a small card.

The card finder reads the whole picture at 192 pixels, so a card a tenth of the
picture's side is some 20 pixels there: too few to tell the top card from the
cards under it, and the finder then boxes a stretch of the pile. When the best box
is small, the finder looks again at the region around it only, where the card is
as big as the cards it learnt on, and its boxes from there are the answer.
Measured on held-out-family piles (``benchmarks/reader_framing.py``): a card
0.08-0.15 of a square 82.0% -> 91.3% top card, 16:9 pictures 97.3% -> 99.3%,
9:16 96.0% -> 97.3%; big cards never take the second look.

Two overlapping cards read close get a second look too (:func:`contested_region`):
the region of the two alone, where the finder sees which one lies whole on top.
Chosen on tuning piles only (in-distribution ``tune-790``/``tune-791`` and two
held-out-style decks, style seeds 13 and 17, 570 piles each): errors 5 -> 4,
6 -> 6, 21 -> 20 and 8 -> 7, none made; about one frame in 25 is looked at twice.
"""

from __future__ import annotations

import numpy as np

from .detector import Detection, Detector, detect_in
from .tracker import overlap_of_smaller

#: A best box whose long side is under this share of the picture's long side is looked at again.
CLOSER_BELOW = 0.25
#: The region looked at: this many times the box's long side, centred on it (the cards
#: under the top one lie within about half a card of it).
CLOSER_REGION = 2.5


def closer_look(detector: Detector, image: np.ndarray, below: float = CLOSER_BELOW,
                region: float = CLOSER_REGION) -> list[Detection]:
    """The finder's boxes for ``image``, from a second look at the region around the
    best box when that box is small (the first look's boxes when the second finds none)."""
    found = detector.detect(image)
    if not found:
        return found
    h, w = image.shape[:2]
    x1, y1, x2, y2 = found[0].box
    side = max(x2 - x1, y2 - y1)
    if side >= below * max(h, w):
        return found
    rw, rh = min(float(w), region * side), min(float(h), region * side)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left = int(max(0.0, min(cx - rw / 2, w - rw)))
    top = int(max(0.0, min(cy - rh / 2, h - rh)))
    return detect_in(detector, image, (left, top, left + int(rw), top + int(rh))) or found


#: Two reads contest the top when their boxes share more than this share of the smaller
#: box and the second scores at least ``CONTEST_RATIO`` of the first.
CONTEST_OVERLAP = 0.05
CONTEST_RATIO = 0.5
#: The contested region: the two boxes' union grown by this share of its long side.
CONTEST_MARGIN = 0.1
#: A region narrower than this many pixels is not looked at (nothing there to read).
MIN_REGION = 8


def contested_region(reads: list[Detection], shape: tuple[int, ...], overlap: float = CONTEST_OVERLAP,
                     ratio: float = CONTEST_RATIO,
                     margin: float = CONTEST_MARGIN) -> tuple[int, int, int, int] | None:
    """Where to look again when the two best reads (sorted, best first) lie on
    overlapping cards and score close: which of two overlapping cards is on top is
    the finder's hardest call when it sees the pile small (on one held-out-style
    deck, 7 of the reader's 20 misses boxed a card other than the top one). The
    region is the two boxes' union with a margin, so the finder sees both cards
    bigger and whole. None when nothing is contested, or the region is too small to
    look at (a few pixels: degenerate boxes)."""
    if len(reads) < 2 or reads[1].confidence < ratio * reads[0].confidence:
        return None
    a, b = reads[0].box, reads[1].box
    if overlap_of_smaller(a, b) <= overlap:
        return None
    x1, y1, x2, y2 = min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
    grow = margin * max(x2 - x1, y2 - y1)
    h, w = shape[:2]
    region = (int(max(0.0, x1 - grow)), int(max(0.0, y1 - grow)), int(min(float(w), x2 + grow)),
              int(min(float(h), y2 + grow)))
    if region[2] - region[0] < MIN_REGION or region[3] - region[1] < MIN_REGION:
        return None
    return region
