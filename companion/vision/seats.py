"""Who played it: the direction the arm came from, and the seat it points to.

Why: the turn order alone misattributes exactly the plays a referee must get
right (an open TAKI continued by the next player, a child playing too early, a
Breaker thrown from across the table). The camera looks down on the pile, and
every card is put there by an arm that reaches in from its player's side of the
table, so the point where that arm crosses the edge of the picture says the seat.

:class:`ArmWatcher` keeps a background of the table (learnt where nothing
touches the picture's edge: only arms do) and, on every frame, finds the moving
regions that touch the edge; the one reaching deepest towards the pile is the
arm that plays. The angle of its entry point, seen from the pile, is kept with
the time. When the tracker settles on a new card, :meth:`ArmWatcher.reach_before`
gives the angle of the arm that last reached the pile, and a confidence (how
consistent the frames were and how deep the arm reached).

:class:`SeatMap` turns an angle into a seat: seats are angles around the pile,
evenly spread by default or calibrated from each player's reach; a reach
between two seats, or a weak one, has a low confidence and the referee falls
back to the turn order.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np


#: The referee acts on a seat only this sure of it (else the turn order, or it asks).
SEAT_SURE = 0.9  # chosen on tuning videos (seeds 1000-1019): fewer wrong seats over more named ones
NEAR_PILE = 0.45  # an arm's depth (1: over the pile's centre) that counts as reaching the pile


@dataclass(frozen=True, slots=True)
class Reach:
    angle: float  # degrees, image coordinates (0: right, 90: down), from the pile to the arm's entry
    confidence: float  # 0..1
    depth: float  # how close the arm came to the pile (1: over its centre)


@dataclass(frozen=True, slots=True)
class _Seen:
    t: float
    angle: float
    depth: float
    strength: float


def circular_mean(angles: list[float], weights: list[float] | None = None) -> tuple[float, float]:
    """Mean angle (degrees) and the resultant length (0: spread all round, 1: all the same)."""
    w = np.ones(len(angles)) if weights is None else np.asarray(weights, float)
    a = np.radians(np.asarray(angles, float))
    x, y = float((w * np.cos(a)).sum()), float((w * np.sin(a)).sum())
    total = float(w.sum()) or 1.0
    return math.degrees(math.atan2(y, x)) % 360, math.hypot(x, y) / total


def angle_gap(a: float, b: float) -> float:
    """The smaller angle between two directions, in degrees."""
    d = abs(a - b) % 360
    return min(d, 360 - d)


class ArmWatcher:
    """Finds the arm reaching in over the pile in each frame (see the module's docstring)."""

    def __init__(self, size: int = 96, threshold: float = 28.0, keep_s: float = 4.0) -> None:
        self.size, self.threshold, self.keep_s = size, threshold, keep_s
        self.background: np.ndarray | None = None
        self.pile: tuple[float, float] | None = None  # the pile's centre, fractions of the frame
        self.seen: deque[_Seen] = deque()
        self.last_mask: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._steady = np.zeros((size, size), np.int32)  # frames each pixel has not changed

    def update(self, image: np.ndarray, t: float) -> Reach | None:
        small = cv2.resize(image, (self.size, self.size), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        if self.background is None or self.background.shape != small.shape:
            self.background, self._prev = small, small
            self._steady = np.zeros(small.shape[:2], np.int32)
            return None
        # how long each pixel has stayed the same: what lies still for a while is table
        # (the card just put down, an arm's ghost), whatever region it belongs to
        change = np.abs(small - self._prev).max(axis=2) if small.ndim == 3 else np.abs(small - self._prev)
        self._steady = np.where(change < self.threshold / 3, self._steady + 1, 0)
        self._prev = small
        diff = np.abs(small - self.background).max(axis=2) if small.ndim == 3 else np.abs(small - self.background)
        moving = (diff > self.threshold).astype(np.uint8)
        moving = cv2.morphologyEx(moving, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        # a hand over a card like it can part from its sleeve in the mask: bridge small gaps
        moving = cv2.morphologyEx(moving, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        arm, arms = self._arm(moving)
        self.last_mask = arm
        # learn the table wherever no arm is (a new card in the middle is table now, and
        # drifting light is followed); never under an arm, the playing one or another
        still = np.ones_like(moving) if arms is None else (cv2.dilate(arms, np.ones((5, 5), np.uint8)) == 0)
        still = still | (self._steady >= 4)
        rate = np.where(still.astype(bool), 0.5, 0.0)[..., None] if small.ndim == 3 else np.where(still, 0.5, 0.0)
        self.background = self.background * (1 - rate) + small * rate
        while self.seen and t - self.seen[0].t > self.keep_s:
            self.seen.popleft()
        if arm is None:
            return None
        reach = self._reach(arm)
        if reach is not None:
            self.seen.append(_Seen(t, reach.angle, reach.depth, reach.confidence))
        return reach

    def _centre(self) -> tuple[float, float]:
        n = self.size
        px, py = self.pile or (0.5, 0.5)
        return px * n, py * n

    def _arm(self, moving: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The moving region that touches the picture's edge and reaches nearest the pile
        (the playing arm), and all such regions (every arm in view)."""
        count, labels, stats, _ = cv2.connectedComponentsWithStats(moving, connectivity=8)
        if count <= 1:
            return None, None
        n = self.size
        cx, cy = self._centre()
        edge = np.zeros_like(moving, bool)
        edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
        ys, xs = np.mgrid[0:n, 0:n]
        dist = np.hypot(xs - cx, ys - cy)
        best, best_d = None, float("inf")
        arms = np.zeros_like(moving)
        for k in range(1, count):
            comp = labels == k
            if not (comp & edge).any():
                continue  # not an arm: nothing reaches in from off the table
            arms[comp] = 1
            if stats[k, cv2.CC_STAT_AREA] < n * n * 0.004:
                continue
            d = float(dist[comp].min())
            if d < best_d:
                best, best_d = comp, d
        return (None if best is None else best.astype(np.uint8)), (arms if arms.any() else None)

    def _reach(self, arm: np.ndarray) -> Reach | None:
        n = self.size
        cx, cy = self._centre()
        rows = [(0, x) for x in range(n)] + [(n - 1, x) for x in range(n)]
        cols = [(y, 0) for y in range(n)] + [(y, n - 1) for y in range(n)]
        border = [(y, x) for y, x in rows + cols if arm[y, x]]
        if not border:
            return None
        ey, ex = np.mean([b[0] for b in border]), np.mean([b[1] for b in border])
        ys, xs = np.nonzero(arm)
        dist = np.hypot(xs - cx, ys - cy)
        nearest = float(dist.min())
        # the arm's own direction, from its tip (nearest the pile) to where it enters: the
        # seat's direction even when the pile is not where it was thought to be
        tip = dist <= nearest + 0.06 * n
        tx, ty = float(xs[tip].mean()), float(ys[tip].mean())
        angle = math.degrees(math.atan2(ey - ty, ex - tx)) % 360
        depth = max(0.0, 1.0 - nearest / (n * 0.5))
        width = len(border) / (n * 0.5)  # a wide edge crossing: two arms side by side, or a blur
        return Reach(angle, float(min(1.0, 1.2 - width)), depth)

    def reach_before(self, t: float, since: float | None = None, window_s: float = 3.0,
                     gap_s: float = 0.25) -> Reach | None:
        """The arm that last reached the pile before ``t``: the last unbroken run of
        frames with an arm in it that came near the pile, the first frames of it where
        the arm came deepest, their mean angle, and how much they agree."""
        start = t - window_s if since is None else max(t - window_s, since)  # since the last card
        recent = [s for s in self.seen if start < s.t <= t + 0.05]
        # reaches: unbroken runs of frames with an arm near the pile, coming from one side
        # (an arm that hovered and withdrew, then the player's: two reaches)
        reaches: list[list[_Seen]] = []
        for s in recent:
            if s.depth < NEAR_PILE:
                continue
            if reaches and s.t - reaches[-1][-1].t <= gap_s and angle_gap(s.angle, reaches[-1][-1].angle) < 40:
                reaches[-1].append(s)
            else:
                reaches.append([s])
        if reaches:
            reach = reaches[-1]
            deepest = max(s.depth for s in reach)
            # the first frames where it got there: the arm arrives with the card; later the
            # card lying there can join another arm into one moving region
            first = next(i for i, s in enumerate(reach) if s.depth >= deepest - 0.15)
            close = [s for s in reach[first:first + 2] if s.depth >= deepest - 0.15]
            angle, agree = circular_mean([s.angle for s in close], [s.strength + 0.1 for s in close])
            support = min(1.0, 0.6 + 0.2 * len(close))  # one frame at the pile is less sure than two
            strength = float(np.mean([s.strength for s in close]))
            return Reach(angle, float(agree * support * min(1.0, strength + 0.3)), deepest)
        return None


@dataclass(frozen=True, slots=True)
class SeatMap:
    """Each seat's direction from the pile, in degrees (image coordinates), in seat order."""

    angles: tuple[float, ...]

    @classmethod
    def evenly(cls, n: int, first: float = 90.0, clockwise: bool = True) -> SeatMap:
        """``n`` seats spread round the table, seat 0 at ``first`` (90: the bottom of the
        picture), the next ones clockwise as seen from above (the way play passes)."""
        step = 360.0 / n * (1 if clockwise else -1)
        return cls(tuple((first + i * step) % 360 for i in range(n)))

    @classmethod
    def from_reaches(cls, reaches: list[Reach]) -> SeatMap:
        """Calibration: each player in turn reached to the pile."""
        return cls(tuple(r.angle for r in reaches))

    def seat_for(self, reach: Reach | None) -> tuple[int | None, float]:
        """The seat the arm came from and how sure (0..1): the reach's own confidence,
        lowered as its angle strays from the seat's towards a neighbour's."""
        if reach is None or not self.angles:
            return None, 0.0
        gaps = [angle_gap(reach.angle, a) for a in self.angles]
        seat = int(np.argmin(gaps))
        if len(self.angles) == 1:
            return seat, reach.confidence
        spacing = min(angle_gap(self.angles[seat], a) for i, a in enumerate(self.angles) if i != seat)
        closeness = max(0.0, 1.0 - gaps[seat] / (spacing / 2))
        return seat, float(reach.confidence * min(1.0, 0.35 + closeness))
