"""The leading-card tracker: frames in, stable "card played" events out.

Three guards keep a flicker, a hand or a shaky camera from ever yielding a play:

* **occlusion**: frame-to-frame motion over the top card (its box grown by a
  margin; the region of interest while no card is known) above ``motion_on``
  suspends all decisions until it falls below ``motion_off`` for
  ``clear_frames`` frames (hysteresis);
* **debouncing**: a new top card must win ``frames_on`` of the last
  ``window`` readings, the latest included and two of them running, each at
  ``conf_on`` or better;
* **a second copy of the same face** counts as a play only after the pile was
  disturbed (a hand passed over it), and only when the card's box moved or
  turned (IoU below ``same_iou``) or its picture changed (``same_diff``); a
  hand that merely hovers leaves both as they were. With no hand seen (an arm
  the colour of the table), only a card that both lies elsewhere and looks
  changed (``unseen_diff``), in two readings running, is a new copy.

The rules core may be consulted as a prior (``prior()`` returns the faces that
would be legal): it breaks near-ties between two readings, never hides a card
that was clearly seen, so an illegal card is still reported as what it is.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass

import cv2
import numpy as np

from ..rules.cards import Card
from .detector import Detection
from .seats import ArmWatcher, Reach

Box = tuple[float, float, float, float]


class TrackKind(enum.Enum):
    PLAYED = "played"
    OCCLUDED = "occluded"
    CLEAR = "clear"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class TrackEvent:
    kind: TrackKind
    t: float
    card: Card | None = None
    confidence: float = 0.0
    box: Box | None = None
    reach: Reach | None = None  # PLAYED: the arm that put the card down (seats.py)


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    conf_on: float = 0.5
    frames_on: int = 3
    # 5, not 4: two misreads running (a glare, a sleeve's shadow) in a short still view
    # between two plays lost the card. Tuning videos 1060-1119 (8 seats): recall 0.9767 ->
    # 0.9800, precision unchanged; open TAKI videos 90000-90099: 98 -> 99 right.
    window: int = 5
    motion_on: float = 0.06
    motion_off: float = 0.02
    motion_pixel: int = 28  # grey-level change that counts a pixel as moving
    clear_frames: int = 1
    same_iou: float = 0.8
    same_diff: float = 0.17  # tuned on seeds 3000-3011: new copies >= 0.24, hovers <= 0.10
    # A copy laid with no hand seen over the pile (an arm the colour of the table) is a new
    # play when it lies elsewhere or turned (IoU below same_iou) and its picture changed
    # this much, seen so twice running. Seat videos 1000-1039 (4 seats, oracle reader):
    # same-face copies found 75/120 -> 110/120, no false play; new copies changed >= 0.25.
    unseen_diff: float = 0.2
    unseen_after_s: float = 1.0  # ... and only this long after the last play, with no arm in view
    unreadable_s: float = 3.0
    prior_margin: float = 0.15
    roi_grow: float = 1.7  # auto ROI: the first card's box grown by this factor


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def overlap_of_smaller(a: Box, b: Box) -> float:
    """How much of the smaller box lies inside the other (1: all of it): unlike IoU, a
    small box wholly inside a big one counts as fully overlapping."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / smaller if smaller > 0 else 0.0


def _twice_running(readings: Collection[Card | None], card: Card) -> bool:
    """Whether ``card`` was read in two frames running: a face read only every other frame
    is a flicker, however often (with 3 of 4 readings that held anyway; 3 of 5 need it)."""
    seq = list(readings)
    return any(a == card and b == card for a, b in zip(seq, seq[1:]))


def _patch(gray: np.ndarray, box: Box) -> np.ndarray | None:
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    h, w = gray.shape
    x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
    if x2 - x1 < 4 or y2 - y1 < 4:
        return None
    p = cv2.resize(gray[y1:y2, x1:x2], (24, 24), interpolation=cv2.INTER_AREA).astype(np.float32)
    p -= p.mean()
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-6 else None


@dataclass
class _Settled:
    card: Card
    box: Box
    patch: np.ndarray | None


class LeadingCardTracker:
    def __init__(self, config: TrackerConfig | None = None, roi: Box | None = None,
                 prior: Callable[[], Collection[Card]] | None = None, arms: bool = True) -> None:
        self.config = config or TrackerConfig()
        #: watches where arms reach in from, so each play can name its seat
        self.arms: ArmWatcher | None = ArmWatcher() if arms else None
        self.roi = roi
        self.auto_roi = roi is None
        self.prior = prior
        self.settled: _Settled | None = None
        self.occluded = False
        self.disturbed = False
        self.last_reading: Detection | None = None
        self._readings: deque[Card | None] = deque(maxlen=self.config.window)
        self._boxes: deque[Detection] = deque(maxlen=self.config.window)
        self._prev: np.ndarray | None = None
        self._calm = 0
        self._last_read_t: float | None = None
        self._unreadable_said = False
        self._played_t: float | None = None  # when the last card was seen to land
        self._first_read: dict[Card, float] = {}  # when each face was first read since the last card
        self._last_seen: tuple[Card, float] | None = None  # the last face read, and when

    # ------------------------------------------------------------ pieces

    def _roi_px(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        h, w = shape[:2]
        if self.roi is None:
            return 0, 0, w, h
        x1, y1, x2, y2 = self.roi
        return max(0, int(x1)), max(0, int(y1)), min(w, int(x2)), min(h, int(y2))

    def _motion_map(self, gray: np.ndarray) -> np.ndarray | None:
        """Moving pixels between this frame and the last, at a quarter of the size.

        A pixel moves when it leaves the range its 3x3 neighbourhood had in the
        last frame, so a shaking camera (edges shifting by a pixel) is not a hand."""
        h, w = gray.shape
        small = cv2.GaussianBlur(cv2.resize(gray, (max(8, w // 4), max(8, h // 4)), interpolation=cv2.INTER_AREA),
                                 (3, 3), 0).astype(np.int16)
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            return None
        k = np.ones((3, 3), np.uint8)
        t = self.config.motion_pixel
        return (small < cv2.erode(prev, k) - t) | (small > cv2.dilate(prev, k) + t)

    def _motion(self, moving: np.ndarray | None, shape: tuple[int, ...], reading: Detection | None) -> float:
        """The moving share of where the top card is (its box, or the settled one,
        grown by a margin), else of the region of interest: a hand elsewhere on
        the table does not stop the referee reading the pile."""
        if moving is None:
            return 0.0
        boxes = [b for b in (reading.box if reading else None, self.settled.box if self.settled else None) if b]
        if boxes:
            x1 = min(b[0] for b in boxes); y1 = min(b[1] for b in boxes)
            x2 = max(b[2] for b in boxes); y2 = max(b[3] for b in boxes)
            gx, gy = (x2 - x1) * 0.15, (y2 - y1) * 0.15
            region = (x1 - gx, y1 - gy, x2 + gx, y2 + gy)
        else:
            h, w = shape[:2]
            region = self.roi or (0.0, 0.0, float(w), float(h))
        fy, fx = moving.shape[0] / shape[0], moving.shape[1] / shape[1]
        a = max(0, int(region[1] * fy)), max(0, int(region[0] * fx))
        b = min(moving.shape[0], int(region[3] * fy) + 1), min(moving.shape[1], int(region[2] * fx) + 1)
        patch = moving[a[0]:b[0], a[1]:b[1]]
        return float(patch.mean()) if patch.size else 0.0

    def _in_roi(self, d: Detection) -> bool:
        if self.roi is None:
            return True
        cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
        x1, y1, x2, y2 = self.roi
        return x1 <= cx <= x2 and y1 <= cy <= y2

    def _read(self, detections: list[Detection]) -> Detection | None:
        ds = [d for d in detections if self._in_roi(d)]
        if not ds:
            return None
        ds.sort(key=lambda d: -d.confidence)
        best = ds[0]
        if self.prior is not None and len(ds) > 1:
            legal = self.prior()
            second = ds[1]
            if (best.card not in legal and second.card in legal
                    and best.confidence - second.confidence < self.config.prior_margin):
                best = second
        return best if best.confidence >= self.config.conf_on else None

    def _set_roi(self, box: Box, shape: tuple[int, ...]) -> None:
        h, w = shape[:2]
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        half = max(box[2] - box[0], box[3] - box[1]) * self.config.roi_grow / 2
        self.roi = (max(0.0, cx - half), max(0.0, cy - half), min(float(w), cx + half), min(float(h), cy + half))

    # ------------------------------------------------------------ the frame

    def update(self, image: np.ndarray, t: float, detections: list[Detection]) -> list[TrackEvent]:
        cfg = self.config
        out: list[TrackEvent] = []
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        if self.arms is not None:
            self.arms.update(image, t)
        reading = self._read(detections)
        self.last_reading = reading
        motion = self._motion(self._motion_map(gray), image.shape, reading)
        if not self.occluded and motion > cfg.motion_on:
            self.occluded, self.disturbed = True, True
            self._readings.clear()
            self._boxes.clear()
            self._last_seen = None
            out.append(TrackEvent(TrackKind.OCCLUDED, t))
        elif self.occluded:
            self._calm = self._calm + 1 if motion < cfg.motion_off else 0
            if self._calm >= cfg.clear_frames:
                self.occluded, self._calm = False, 0
                out.append(TrackEvent(TrackKind.CLEAR, t))
        if self.occluded:
            return out
        self._readings.append(reading.card if reading else None)
        if reading is not None:
            # when each face was first read since the last card: twice running (one misread
            # frame while the last player's arm withdraws would date the card too early)
            if self._last_seen is not None and self._last_seen[0] == reading.card:
                self._first_read.setdefault(reading.card, self._last_seen[1])
            self._last_seen = (reading.card, t if self._last_seen is None or self._last_seen[0] != reading.card
                               else self._last_seen[1])
        else:
            self._last_seen = None
        if reading is not None:
            self._boxes.append(reading)
            self._last_read_t, self._unreadable_said = t, False
        elif self._last_read_t is not None and t - self._last_read_t > cfg.unreadable_s and not self._unreadable_said:
            self._unreadable_said = True
            out.append(TrackEvent(TrackKind.UNREADABLE, t))
        if reading is None or sum(c == reading.card for c in self._readings) < cfg.frames_on or \
                not _twice_running(self._readings, reading.card):
            return out
        before = self.settled.card if self.settled is not None else None
        played = self._decide(reading, gray, t)
        if played:
            # the arm that put it down left before the card could be read: a hand that
            # hovered over the pile after that (delaying this event) is not the player
            # (a card like the one before was lying there all along: its arm is the last one)
            seen_at = t if reading.card == before else self._first_read.get(reading.card, t)
            reach = self.arms.reach_before(seen_at, since=self._played_t, same_face=reading.card == before) \
                if self.arms is not None else None
            self._played_t = t
            self._first_read = {}
            out.append(TrackEvent(TrackKind.PLAYED, t, reading.card, reading.confidence, reading.box, reach))
            if self.auto_roi and self.roi is None:
                self._set_roi(reading.box, image.shape)
            if self.arms is not None:  # the pile is where the cards land: arms reach towards it
                h, w = image.shape[:2]
                b = reading.box
                self.arms.pile = ((b[0] + b[2]) / 2 / w, (b[1] + b[3]) / 2 / h)
        return out

    def _decide(self, reading: Detection, gray: np.ndarray, t: float) -> bool:
        """Settle on ``reading``; True when that is a new card on the pile."""
        cfg = self.config
        patch = _patch(gray, reading.box)
        s = self.settled
        new = False
        if s is None or reading.card != s.card:
            new = True
        else:
            overlap = iou(reading.box, s.box)
            diff = 1 - float((patch * s.patch).sum()) if patch is not None and s.patch is not None else 0.0
            if self.disturbed:
                new = overlap < cfg.same_iou or diff > cfg.same_diff
            else:
                # (the last player's arm going back shifts the box of the card just read, and
                # an arm still over the card changes its picture: neither is a new copy)
                prev = self._boxes[-2] if len(self._boxes) >= 2 else None
                steady = prev is not None and prev.card == reading.card and iou(prev.box, reading.box) >= 0.9
                quiet = (self.arms is None or self.arms.colour_mask is None) and \
                    (self._played_t is None or t - self._played_t >= cfg.unseen_after_s)
                new = steady and quiet and overlap < cfg.same_iou and diff > cfg.unseen_diff
        if new or s is None or self.disturbed:
            self.settled = _Settled(reading.card, reading.box, patch)
        self.disturbed = False
        return new
