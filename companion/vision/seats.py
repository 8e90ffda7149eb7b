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
consistent the frames were and how deep the arm reached). What fooled it before,
each now handled: a shaking camera over a checked cloth (the table is followed by
phase correlation), the last player's arm still going back when the next card
lands, a hand that reaches over the pile and changes nothing (its visit is
compared with the pile before and after, and again from after a visit just before
it), another hand that stops short, the card just put down bending the arm's
outline for a frame or two, the same player drawing back and reaching in again for
a second card, a sleeve the colour of the table (the texture it hides, or a
fainter colour difference joined to the hand it carries), and the light or the
camera's exposure changing while an arm rests over the pile.

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
SEAT_SURE = 0.6  # chosen on tuning videos (seeds 1000-1019, 4 and 8 seats): no wrong seat named there
NEAR_PILE = 0.45  # an arm's depth (1: over the pile's centre) that counts as reaching the pile
AWAY = 0.2  # an arm this far from the pile (depth) has gone back to its seat
STALE_S = 1.2  # seconds between an arm leaving the pile and its card first read, at most
PATCH_BLUR = 2.0  # pixels of the 96-px picture: the pile compared at the scale of a card, not its print
HOVER_MOVED = 0.06  # a visit that changed the pile's picture less than this only hovered (pile_moved)
SHORT_OF = 0.2  # a run of frames whose arm came this much less deep than the deepest one stopped short
JUMP_DEG = 60.0  # an arm's direction changing more than this from one frame to the next: another arm
AGREE_DEG = 30.0  # frames of one reach whose angles are this close agree on its direction
MAX_SHAKE = 0.04  # the largest camera shift between frames taken for a shake (fraction of the picture)
#: An arm the colour of the table is found by the table's texture it hides: where the
#: learnt table has at least this much texture (mean gradient, grey levels per pixel of
#: the 96-px picture) and the frame keeps under TEXTURE_LOST of it, something flat lies
#: there. Chosen on tuning videos (seeds 1000-1119): a dark red sleeve on red wood and
#: a tan forearm on a photo of fur, each invisible to the colour difference.
TEXTURE_MIN = 20.0
TEXTURE_LOST = 0.4
#: A frame with no arm by the colour difference (and texture) looks again at a fainter
#: difference, this share of the threshold, kept only where it joins what was clearly
#: seen (:func:`_grown`): an orange sleeve on an orange table, a dark one on a starfield,
#: with the hand plain over the pile. Chosen on tuning videos (seeds 1000-1119): plays
#: with no arm seen, 4 seats 6 -> 2, 8 seats 5 -> 4. Faint frames name a seat only where
#: no clearly seen arm came to the pile: grown faintly, two arms with the pile between
#: them became one region pointing between them (a wrong seat on video 1068).
FAINT = 0.6
#: The learnt table follows the light (:meth:`ArmWatcher._gain`) by at most this ratio a
#: frame. Tuning videos (seeds 1000-1119) with STILL_FRAMES: 4 seats named wrong 0.23%
#: (STILL_FRAMES alone: 0.34%), 8 seats 0.57% (0.80%).
GAIN_MAX = 1.25
#: What has lain still this many frames is learnt as table, even inside an arm's region
#: (the card just put down joined to it, a stale patch). 4 learnt a sleeve resting at the
#: picture's edge while its hand laid a card: it came back as a ghost arm when it left,
#: taken for the next player's (open TAKI video 90015). Tuning videos (seeds 1000-1119),
#: with GAIN following the light: 8 seats 97.59% -> 97.72% named right, wrong unchanged.
STILL_FRAMES = 8


@dataclass(frozen=True, slots=True)
class Reach:
    angle: float  # degrees, image coordinates (0: right, 90: down), from the pile to the arm's entry
    confidence: float  # 0..1
    depth: float  # how close the arm came to the pile (1: over its centre)


_View = tuple[float, bool, np.ndarray]  # (t, an arm over the pile, the pile's picture)


@dataclass(frozen=True, slots=True)
class _Seen:
    t: float
    angle: float
    depth: float
    strength: float
    faint: bool = False  # found only by the fainter colour difference (see FAINT)


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
        self.last_mask: np.ndarray | None = None  # the arm reaching nearest the pile in the last frame
        self.colour_mask: np.ndarray | None = None  # the same, by the colour difference alone
        self._prev: np.ndarray | None = None
        self._steady = np.zeros((size, size), np.int32)  # frames each pixel has not changed
        self._window: np.ndarray | None = None
        self._views: deque[_View] = deque()
        self._last_angle: float | None = None  # the direction of the last reach named

    def update(self, image: np.ndarray, t: float) -> Reach | None:
        small = cv2.resize(image, (self.size, self.size), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        if self.background is None or self.background.shape != small.shape:
            self.background, self._prev = small, small
            self._steady = np.zeros(small.shape[:2], np.int32)
            return None
        # a camera that shakes by a fraction of a pixel turns every sharp edge of the table
        # (a checked cloth, tiles) into "motion" reaching the picture's edge, like an arm:
        # follow the shake first, moving the learnt table with the camera
        dx, dy = self._shake(small)
        if dx or dy:
            shift = np.float32([[1, 0, dx], [0, 1, dy]])
            self.background = cv2.warpAffine(self.background, shift, (self.size, self.size),
                                             borderMode=cv2.BORDER_REPLICATE)
            self._prev = cv2.warpAffine(self._prev, shift, (self.size, self.size), borderMode=cv2.BORDER_REPLICATE)
        # the camera's exposure (or the room's light) drifts: scale the learnt table with it,
        # so that where the table is not learnt (under an arm, or next to one) the drift does
        # not add up to a difference that, joined to the arm, reaches the picture's edge
        self.background = self.background * self._gain(small)
        # how long each pixel has stayed the same: what lies still for a while is table
        # (the card just put down, an arm's ghost), whatever region it belongs to
        change = np.abs(small - self._prev).max(axis=2) if small.ndim == 3 else np.abs(small - self._prev)
        self._steady = np.where(change < self.threshold / 3, self._steady + 1, 0)
        self._prev = small
        diff = np.abs(small - self.background).max(axis=2) if small.ndim == 3 else np.abs(small - self.background)
        coloured = diff > self.threshold
        seen = coloured | self._texture_lost(small)
        arm, arms = self._arm(_cleaned(seen))
        # The hidden texture (and a faint arm, below) only names seats. Learning the table
        # and the tracker's "no arm in view" (a card laid unseen) go by the colour alone, as
        # before it: with the texture, the table was not learnt under a sleeve resting at the
        # picture's edge, and its outline, left in the learnt table as a band of texture the
        # frame no longer had, held an "arm" in view for half a second after the arm had gone
        # (3 same-face copies lost on the tuning videos, none with the colour alone).
        self.colour_mask, colour_arms = (None, None) if arm is None else self._arm(_cleaned(coloured))
        faint = False
        if arm is None:  # a sleeve a shade off the table's colour, joining the hand to the edge
            arm, arms = self._arm(_cleaned(_grown(seen, diff > self.threshold * FAINT)))
            faint = arm is not None
        self.last_mask = arm
        # learn the table wherever no arm is (a new card in the middle is table now, and
        # drifting light is followed); never under an arm, the playing one or another
        still = np.ones_like(coloured) if colour_arms is None else \
            (cv2.dilate(colour_arms, np.ones((5, 5), np.uint8)) == 0)
        still = still | (self._steady >= STILL_FRAMES)
        rate = np.where(still.astype(bool), 0.5, 0.0)[..., None] if small.ndim == 3 else np.where(still, 0.5, 0.0)
        self.background = self.background * (1 - rate) + small * rate
        while self.seen and t - self.seen[0].t > self.keep_s:
            self.seen.popleft()
        self._views.append((t, arms is not None and bool(self._pile_patch(arms.astype(np.float32)).any()),
                            self._pile_patch(small)))
        while self._views and t - self._views[0][0] > self.keep_s:
            self._views.popleft()
        if arm is None:
            return None
        reach = self._reach(arm)
        if reach is not None:
            self.seen.append(_Seen(t, reach.angle, reach.depth, reach.confidence, faint))
        return reach

    def _texture_lost(self, small: np.ndarray) -> np.ndarray:
        """Where the learnt table's texture is gone from the frame (see TEXTURE_MIN):
        a flat sleeve or forearm over a patterned table, whatever its colour. A change
        of light scales the texture, not its share, so it is not taken for an arm."""
        assert self.background is not None
        table = _texture(self.background)
        return (table > TEXTURE_MIN) & (_texture(small) < TEXTURE_LOST * table)

    def _gain(self, small: np.ndarray) -> float:
        """The light's change since the learnt table: the median ratio of the frame's
        brightness to the table's, an arm covering less than half the picture."""
        assert self.background is not None
        table = _grey(self.background[::2, ::2])  # every 4th pixel will do
        lit = table > 24  # dark pixels are mostly noise
        if lit.sum() < table.size // 4:
            return 1.0
        return float(np.clip(np.median(_grey(small[::2, ::2])[lit] / table[lit]), 1 / GAIN_MAX, GAIN_MAX))

    def _shake(self, small: np.ndarray) -> tuple[float, float]:
        """The camera's small shift since the learnt table (pixels), by phase correlation;
        nothing when the match is weak or the shift too large to be a shake."""
        assert self.background is not None
        if self._window is None:
            self._window = cv2.createHanningWindow((self.size, self.size), cv2.CV_64F)
        (dx, dy), response = cv2.phaseCorrelate(_grey(self.background).astype(np.float64),
                                                _grey(small).astype(np.float64), self._window)
        if response < 0.1 or math.hypot(dx, dy) > MAX_SHAKE * self.size or math.hypot(dx, dy) < 0.05:
            return 0.0, 0.0
        return float(dx), float(dy)

    def _pile_patch(self, small: np.ndarray) -> np.ndarray:
        n = self.size
        cx, cy = self._centre()
        r = int(n * 0.12)
        x0, y0 = int(min(max(cx - r, 0), n - 2 * r)), int(min(max(cy - r, 0), n - 2 * r))
        patch = small[y0:y0 + 2 * r, x0:x0 + 2 * r]
        patch = _grey(patch).astype(np.float32)
        return cv2.GaussianBlur(patch, (0, 0), PATCH_BLUR)  # the camera's shake moves sharp edges

    def pile_moved(self, t0: float, t1: float) -> float | None:
        """How much the pile changed across an arm's visit from ``t0`` to ``t1`` (0: the same
        picture, 1: unrelated), from the last arm-free view before to the first after;
        None when either is missing. A hand that only hovered leaves it as it was."""
        around = self._clear_around(t0, t1)
        return None if around is None else _change(around[0][2], around[1][2])

    def _clear_around(self, t0: float, t1: float) -> tuple[_View, _View] | None:
        """The last arm-free view of the pile before ``t0`` and the first after ``t1``."""
        # a frame apart from the visit either side: an arm coming or going blurs and shades
        # the pile's edge where its outline was not found
        # (when there is one: the card may be read before the second frame after)
        clear = [v for v in self._views if not v[1]]
        before = [v for v in clear if v[0] < t0 - 0.15] or [v for v in clear if v[0] < t0]
        after = [v for v in clear if v[0] > t1 + 0.15] or [v for v in clear if v[0] > t1]
        return (before[-1], after[0]) if before and after else None

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
        # never below 0: a region along most of the picture's edge is no arm, and a
        # negative weight would turn its direction round in reach_before's mean
        return Reach(angle, float(np.clip(1.2 - width, 0.0, 1.0)), depth)

    def reach_before(self, t: float, since: float | None = None, window_s: float = 3.0,
                     gap_s: float = 0.25, same_face: bool = False) -> Reach | None:
        """The arm that last reached the pile before ``t``: the last unbroken run of
        frames with an arm in it that came near the pile, the first frames of it where
        the arm came deepest, their mean angle, and how much they agree."""
        start = t - window_s if since is None else max(t - window_s, since)  # since the last card
        recent = [s for s in self.seen if start < s.t <= t + 0.05]
        # the last player's arm may still be going back when the next card's arm comes in:
        # frames that go on in the last reach's direction, before any other, are its
        # (an arm there all along since that card, in its direction); if it is the only arm
        # seen, the player's own arm was not seen and nobody is named
        if self._last_angle is not None and since is not None:
            lead, prev_t, low = 0, since, 0
            while (lead < len(recent) and recent[lead].t - prev_t <= gap_s and recent[lead].depth >= AWAY
                   and angle_gap(recent[lead].angle, self._last_angle) <= AGREE_DEG):
                if recent[lead].depth < recent[low].depth:
                    low = lead
                elif _reached_again(recent[low].depth, recent[lead].depth):
                    lead = low + 1  # the same player's arm went back and came in again: a new reach
                    break
                prev_t, lead = recent[lead].t, lead + 1
            recent = recent[lead:]
        # episodes: unbroken runs of frames with an arm in view (an arm that hovered and
        # withdrew, then the player's: two episodes); the last one that came near the pile
        episodes: list[list[_Seen]] = []
        for s in recent:
            if s.depth < AWAY:
                episodes.append([])  # the arm went back to the table's edge: the next reach is another
            elif episodes and episodes[-1] and s.t - episodes[-1][-1].t <= gap_s:
                episodes[-1].append(s)
            else:
                episodes.append([s])
        near = [[s for s in e if s.depth >= NEAR_PILE] for e in episodes if e]
        spans = [(e[0].t, e[-1].t) for e in episodes if e]
        visits = [(f, span) for f, span in zip(near, spans) if f]
        # a hand that reached over the pile and left it as it was played nothing (it only
        # delayed the card's reading): the player is the last arm that changed the pile
        played = [(f, span) for f, span in visits if _at_least(self.pile_moved(*span), HOVER_MOVED)]
        # a visit that came on the heels of another is judged from before that one too, so
        # the other's card counts as its change: judged again from after the other, a hand
        # that only hovered over the card just laid (a same-face copy, read late) is no player
        if len(played) >= 2:
            last, prev = self._clear_around(*played[-1][1]), self._clear_around(*played[-2][1])
            if last is not None and prev is not None and prev[1][0] > last[0][0] and \
                    not _at_least(_change(prev[1][2], last[1][2]), HOVER_MOVED):
                played = played[:-1]
        visits = played or visits
        # a reach that left the pile long before the card was first read put down another
        # card (one like the one before, missed), or none: nobody is named from it (a card
        # like the one before has no time it was first read: no age limit)
        if not visits or (not same_face and t - visits[-1][0][-1].t > STALE_S):
            return None
        frames = visits[-1][0]
        # an arm seen only faintly counts where no clearly seen arm came to the pile:
        # grown faintly, two arms and the pile between them can become one region
        frames = [f for f in frames if not f.faint] or frames
        runs = _arm_runs(frames)
        # the last arm to hold still over the pile put the card down (an arm still there from
        # the card before, or one that came and went, came first)
        # (another player's hand reaching in at the same time stops short of the pile)
        deepest = max(f.depth for r in runs for f in r)
        steady = [r for r in runs if len(r) >= 2 and max(f.depth for f in r) >= deepest - SHORT_OF]
        chosen = (steady or runs)[-1]
        # any other arm at the pile in the same visit, before the chosen one or after it, makes
        # it less sure: two hands at once, the player's seen only in a frame or two (a sleeve
        # the table's colour). Unsure, the referee goes by the turn order rather than name
        # the wrong player. Tuning videos (seeds 1000-1119), counting only the arms after
        # it: 4 seats 2 plays named wrong, now none (4 more unnamed); 8 seats 1 more unnamed.
        others = [f for r in runs if r is not chosen for f in r]
        weights = [f.strength * (0.5 + f.depth) for f in chosen]
        cluster = list(zip(chosen, weights))
        angle, tight = circular_mean([f.angle for f in chosen], weights)
        share = sum(weights) / (sum(weights) + sum(f.strength * (0.5 + f.depth) for f in others) or 1.0)
        count = min(1.0, 0.6 + 0.2 * len(chosen))  # one frame at the pile is less sure than two
        strength = float(np.mean([f.strength for f in chosen]))
        deepest = max(f.depth for f, _ in cluster)
        self._last_angle = angle
        return Reach(angle, float(share * tight * count * min(1.0, strength + 0.3)), deepest)


def _change(a: np.ndarray, b: np.ndarray) -> float | None:
    """How unlike two views of the pile are (0: the same picture, 1: unrelated); None
    for a view with nothing in it."""
    a, b = a - a.mean(), b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    if den < 1e-6:
        return None
    return float(max(0.0, 1.0 - (a * b).sum() / den))


def _reached_again(low: float, depth: float) -> bool:
    """An arm that had drawn back from the pile (its depth fell to ``low``, short of
    it) and now reaches over it again: the same player playing a second card, not
    the last card's arm on its way back (that one only goes away)."""
    return low < NEAR_PILE <= depth and depth - low >= SHORT_OF


def _grown(strong: np.ndarray, weak: np.ndarray) -> np.ndarray:
    """The regions of strong or weak pixels that hold a strong one (hysteresis): a
    faint sleeve is kept where it joins a clearly seen hand, a faint shadow alone is not."""
    count, labels = cv2.connectedComponents((strong | weak).astype(np.uint8), connectivity=8)
    keep = np.zeros(count, bool)
    keep[np.unique(labels[strong])] = True
    keep[0] = False
    return keep[labels]


def _cleaned(moving: np.ndarray) -> np.ndarray:
    """Specks dropped, and small gaps bridged (a hand over a card like it can part from
    its sleeve in the mask)."""
    m = cv2.morphologyEx(moving.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _grey(a: np.ndarray) -> np.ndarray:
    """A colour picture's mean over its channels (a grey one as it is)."""
    return a.mean(axis=2) if a.ndim == 3 else a


def _texture(small: np.ndarray) -> np.ndarray:
    """Local texture: the grey picture's gradient magnitude, averaged over a few pixels."""
    grey = _grey(small).astype(np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    return cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), 1.5)


def _at_least(value: float | None, least: float) -> bool:
    """Unknown counts as enough (a visit whose pile could not be compared was a play)."""
    return value is None or value >= least


def _arm_runs(frames: list[_Seen]) -> list[list[_Seen]]:
    """Frames split where the arm's direction jumps (another arm took over), with a brief
    jump between two runs of one direction dropped (the card just put down, joined to the
    arm for a frame or two, bends its outline) and those runs joined."""
    runs: list[list[_Seen]] = []
    for f in frames:
        if runs and angle_gap(f.angle, runs[-1][-1].angle) <= JUMP_DEG:
            runs[-1].append(f)
        else:
            runs.append([f])
    i = 1
    while i + 1 < len(runs):
        if len(runs[i]) <= 2 and angle_gap(runs[i - 1][-1].angle, runs[i + 1][0].angle) <= AGREE_DEG:
            runs[i - 1:i + 2] = [runs[i - 1] + runs[i + 1]]
        else:
            i += 1
    return runs


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
