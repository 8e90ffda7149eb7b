"""Synthetic videos of a discard pile being played on, with their ground truth.

Hands come in and out, the light drifts, the camera shakes. Every play is logged
with the frame where the card has *landed* (in place, and no hand over it), and
every frame with whether a hand is over the pile and what lies on top, so the
tracker can be scored (``track_eval``) and tested without a trained model.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card
from .faces import CARD_H, CARD_W
from ..vision.seats import SeatMap
from .scene import Compositor, SceneConfig, _hand, background

SKINS = ((60, 90, 160), (80, 120, 200), (100, 150, 225), (45, 70, 120), (150, 180, 230))  # BGR
SLEEVES = ((40, 40, 40), (150, 60, 30), (30, 30, 150), (200, 200, 200), (40, 120, 40), (20, 120, 200))


@dataclass(frozen=True, slots=True)
class TruePlay:
    card: str  # face code
    land_frame: int
    land_t: float
    same_as_previous: bool
    seat: int | None = None  # whose arm put it down (videos made with seats)


@dataclass(frozen=True, slots=True)
class TrueFrame:
    top: str | None  # face code on top, None before the first card
    box: tuple[float, float, float, float] | None
    hand_over_pile: bool
    hand_over_top: bool


@dataclass
class SynthVideo:
    fps: float
    frames: list[np.ndarray]
    plays: list[TruePlay]
    truth: list[TrueFrame]
    pile_box: tuple[float, float, float, float] = (0, 0, 0, 0)
    seed: int = 0
    meta: dict[str, object] = field(default_factory=dict)

    def write(self, path: Path) -> Path:
        """An .mp4 (mp4v) and ``<name>.json`` beside it with the ground truth."""
        path.parent.mkdir(parents=True, exist_ok=True)
        h, w = self.frames[0].shape[:2]
        vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), self.fps, (w, h))
        for f in self.frames:
            vw.write(f)
        vw.release()
        path.with_suffix(".json").write_text(json.dumps({
            "fps": self.fps, "seed": self.seed, "pile_box": self.pile_box,
            "plays": [asdict(p) for p in self.plays], "frames": [asdict(f) for f in self.truth],
        }))
        return path


def load_truth(path: Path) -> dict[str, object]:
    return json.loads(path.with_suffix(".json").read_text())  # type: ignore[no-any-return]


def synth_video(seed: int, plays: int = 15, fps: float = 10.0, size: int = 480, same_p: float = 0.2,
                hover_p: float = 0.15, idle: tuple[int, int] = (4, 9), noise: float = 3.0,
                shake: float = 1.2, light: float = 0.15,
                compositor: Compositor | None = None, first: list[Card] | None = None,
                seats: int = 0, turns: list[int] | None = None, second_hand_p: float = 0.0,
                seat_jitter: float = 0.3) -> SynthVideo:
    """Render a video of ``plays`` cards landing on a pile (the first one starts the game).

    ``seats``: players sit round the table (seat 0 at the bottom of the picture, the
    others clockwise, as :meth:`SeatMap.evenly` has them); each card is put down by an
    arm in a sleeve reaching in from its player's side (``turns``: the seat of each
    play, round the table by default), up to ``seat_jitter`` of half the gap between
    seats off; ``second_hand_p``: another player's arm reaches in at the same time
    and stops short of the pile. Each play's seat is in its ground truth."""
    rng = np.random.default_rng(seed)
    shake_px = shake
    comp = compositor or Compositor(config=SceneConfig(size=size, photometric=False))
    n = size
    bg = background(rng, n)
    height = rng.uniform(0.32, 0.45) * n
    centre = np.array([n / 2, n / 2]) + rng.uniform(-0.08, 0.08, 2) * n
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, src + rng.uniform(-0.06, 0.06, (4, 2)).astype(np.float32) * n)
    half = height * 0.9
    pile_box = (float(centre[0] - half), float(centre[1] - half), float(centre[0] + half), float(centre[1] + half))

    pile = bg.copy()  # the settled pile, before perspective
    frames: list[np.ndarray] = []
    truth: list[TrueFrame] = []
    out_plays: list[TruePlay] = []
    top: Card | None = None
    top_corners: np.ndarray | None = None
    gain_phase, gain_speed = rng.uniform(0, 2 * np.pi), rng.uniform(0.05, 0.2)
    pile_mask = np.zeros((n, n), np.uint8)
    cv2.rectangle(pile_mask, (int(pile_box[0]), int(pile_box[1])), (int(pile_box[2]), int(pile_box[3])), 255, -1)

    def emit(hand: np.ndarray | None, layers: list[tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        img = pile.copy()
        over_pile = over_top = False
        if hand is not None and layers is None:
            layers = [(hand, skin)]
        for mask, colour in layers or []:
            a = cv2.GaussianBlur(mask, (5, 5), 0)[..., None].astype(np.float32) / 255
            img = np.clip(colour * a + img * (1 - a), 0, 255).astype(np.uint8)
        if layers:
            hand = np.maximum.reduce([m for m, _ in layers])
            over_pile = bool((hand & pile_mask).any())
            if top_corners is not None:
                m = np.zeros((n, n), np.uint8)
                cv2.fillPoly(m, [top_corners.astype(np.int32)], 255)
                over_top = bool((hand & m).any())
        img = cv2.warpPerspective(img, hmat, (n, n), borderMode=cv2.BORDER_REFLECT)
        i = len(frames)
        shake = rng.normal(0, shake_px, 2)
        img = cv2.warpAffine(img, np.float32([[1, 0, shake[0]], [0, 1, shake[1]]]), (n, n),
                             borderMode=cv2.BORDER_REFLECT)
        gain = 1 + light * np.sin(gain_phase + gain_speed * i)
        img = np.clip(img.astype(np.float32) * gain + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
        frames.append(img)
        box = None
        if top_corners is not None:
            c = cv2.perspectiveTransform(top_corners[None], hmat)[0] + shake
            box = (float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max()))
        truth.append(TrueFrame(top.code if top else None, box, over_pile, over_top))

    skin = np.array((80, 120, 200), np.float32)
    seat_angles = SeatMap.evenly(seats).angles if seats else ()
    for _ in range(int(rng.integers(3, 6))):
        emit(None)
    for k in range(plays):
        if first and k < len(first):
            card = first[k]
        elif top is not None and rng.random() < same_p:
            card = top
        else:
            card = FACES[int(rng.integers(len(FACES)))]
        skin = np.array(((60, 90, 160), (80, 120, 200), (100, 150, 225), (45, 70, 120))[int(rng.integers(4))],
                        np.float32)
        if seats:
            steps_in, steps_out = int(rng.integers(2, 4)), int(rng.integers(2, 4))
            pose_c = centre + rng.normal(0, 0.05, 2) * height
            seat = (turns[k] if turns is not None and k < len(turns) else k % seats) % seats
            arm = _Arm(rng, n, seat_angles[seat] + rng.uniform(-1, 1) * seat_jitter * 180 / seats, pose_c)
            other = None
            if second_hand_p and rng.random() < second_hand_p:
                o = (seat + int(rng.integers(1, seats))) % seats if seats > 1 else seat
                other = _Arm(rng, n, seat_angles[o] + rng.uniform(-1, 1) * seat_jitter * 180 / seats, pose_c,
                             stop=float(rng.uniform(0.35, 0.6)))
            # The arm reaches from its seat to the pile, puts the card down, and goes back.
            for j in range(steps_in + 1):
                emit(None, arm.layers(j / steps_in) + (other.layers(j / steps_in) if other else []))
            angle = rng.uniform(-40, 40) + (180 if rng.random() < 0.5 else 0)
            top_corners = comp._paste(pile, comp.faces[card], pose_c, height, angle, rng.uniform(0.9, 1.02), True)
            same = top is not None and card == top
            top = card
            for _ in range(int(rng.integers(1, 3))):
                emit(None, arm.layers(1.0) + (other.layers(1.0) if other else []))
            landed = None
            for j in range(1, steps_out + 1):
                emit(None, arm.layers(1 - j / steps_out))
                if landed is None and not truth[-1].hand_over_top:
                    landed = len(frames) - 1
            if landed is None:
                emit(None)
                landed = len(frames) - 1
            out_plays.append(TruePlay(card.code, landed, landed / fps, same, seat))
            for _ in range(int(rng.integers(idle[0], idle[1]))):
                emit(None)
            if rng.random() < hover_p:  # someone reaches over the pile and plays nothing
                hover = _Arm(rng, n, seat_angles[int(rng.integers(seats))], pose_c, stop=1.0)
                for j in list(range(steps_in + 1)) + list(range(steps_in, -1, -1)):
                    emit(None, hover.layers(j / steps_in))
                for _ in range(int(rng.integers(3, 6))):
                    emit(None)
            continue
        hand_shape = _hand(rng, n)
        ys, xs = np.nonzero(hand_shape)
        tip = np.array([xs.mean(), ys.mean()]) if len(xs) else np.array([n / 2, n / 2])
        edge_dir = tip - np.array([n / 2, n / 2])
        edge_dir = edge_dir / (np.linalg.norm(edge_dir) + 1e-6)
        steps_in, steps_out = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        # The hand moves from off-screen to over the pile, places the card, and leaves.
        for j in range(steps_in + 1):
            emit(_shift(hand_shape, centre + edge_dir * n * 0.9 * (1 - j / steps_in) - tip))
        pose_c = centre + rng.normal(0, 0.05, 2) * height
        angle = rng.uniform(-40, 40) + (180 if rng.random() < 0.5 else 0)
        top_corners = comp._paste(pile, comp.faces[card], pose_c, height, angle, rng.uniform(0.9, 1.02), True)
        same = top is not None and card == top
        top = card
        for _ in range(int(rng.integers(1, 3))):
            emit(_shift(hand_shape, centre - tip))
        landed = None
        for j in range(1, steps_out + 1):
            emit(_shift(hand_shape, centre + edge_dir * n * 0.9 * j / steps_out - tip))
            if landed is None and not truth[-1].hand_over_top:
                landed = len(frames) - 1
        if landed is None:
            emit(None)
            landed = len(frames) - 1
        out_plays.append(TruePlay(card.code, landed, landed / fps, same))
        for _ in range(int(rng.integers(idle[0], idle[1]))):
            emit(None)
        if rng.random() < hover_p:  # a hand reaches over the pile and plays nothing
            hover = _hand(rng, n)
            for j in list(range(steps_in + 1)) + list(range(steps_in, -1, -1)):
                emit(_shift(hover, centre + edge_dir * n * 0.9 * (1 - j / steps_in) - tip))
            for _ in range(int(rng.integers(3, 6))):
                emit(None)
    pb = cv2.perspectiveTransform(np.array([[[pile_box[0], pile_box[1]], [pile_box[2], pile_box[3]]]], np.float32), hmat)[0]
    return SynthVideo(fps, frames, out_plays, truth,
                      (float(pb[:, 0].min()), float(pb[:, 1].min()), float(pb[:, 0].max()), float(pb[:, 1].max())),
                      seed, {"card_height": float(height), "card_w": CARD_W, "card_h": CARD_H})


def _shift(mask: np.ndarray, d: np.ndarray) -> np.ndarray:
    n = mask.shape[0]
    return cv2.warpAffine(mask, np.float32([[1, 0, d[0]], [0, 1, d[1]]]), (n, n))


class _Arm:
    """A player's arm in a sleeve, reaching from the edge of the picture (in the seat's
    direction, seen from the pile) towards the pile; ``stop`` < 1 stops short of it."""

    def __init__(self, rng: np.random.Generator, n: int, angle: float, target: np.ndarray, stop: float = 1.0):
        self.n, self.stop = n, stop
        d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        # where the ray from the pile leaves the picture, then a little beyond
        ts = [t for t in ((0 - target[0]) / d[0] if d[0] < -1e-9 else np.inf,
                          (n - target[0]) / d[0] if d[0] > 1e-9 else np.inf,
                          (0 - target[1]) / d[1] if d[1] < -1e-9 else np.inf,
                          (n - target[1]) / d[1] if d[1] > 1e-9 else np.inf)]
        self.entry = target + d * (min(ts) + 0.08 * n)
        self.target = target
        self.width = float(rng.uniform(0.07, 0.11)) * n
        self.skin = np.array(SKINS[int(rng.integers(len(SKINS)))], np.float32)
        self.sleeve = np.array(SLEEVES[int(rng.integers(len(SLEEVES)))], np.float32)
        self.bare = float(rng.uniform(0.15, 0.45))  # the bare forearm, a share of the reach
        self.fingers = int(rng.integers(2, 5))

    def layers(self, progress: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """The sleeve and the hand when the reach is ``progress`` (0: out of sight) done."""
        n, w = self.n, self.width
        palm = self.entry + (self.target - self.entry) * min(progress, 1.0) * self.stop
        d = self.target - self.entry
        d = d / (np.linalg.norm(d) + 1e-9)
        length = float(np.linalg.norm(palm - self.entry))
        wrist = palm - d * min(length, w * 0.9)
        cuff = wrist - d * min(length, max(0.0, length - w * 0.9) * self.bare)
        sleeve, hand = np.zeros((n, n), np.uint8), np.zeros((n, n), np.uint8)
        if progress <= 0:
            return []
        pt = lambda p: (int(p[0]), int(p[1]))  # noqa: E731
        cv2.line(sleeve, pt(self.entry), pt(cuff), 255, int(w * 1.3))
        cv2.line(hand, pt(cuff), pt(wrist), 255, int(w * 0.9))
        ang = math.degrees(math.atan2(d[1], d[0]))
        cv2.ellipse(hand, pt(palm), (int(w * 0.75), int(w * 0.6)), ang, 0, 360, 255, -1)
        normal = np.array([-d[1], d[0]])
        for k in range(self.fingers):
            base = palm + normal * w * (k - (self.fingers - 1) / 2) * 0.4
            cv2.line(hand, pt(base), pt(base + d * w * 1.1), 255, max(3, int(w * 0.25)))
        hand[sleeve > 0] = 0
        return [(sleeve, self.sleeve), (hand, self.skin)]
