"""Synthetic videos of a discard pile being played on, with their ground truth.

Hands come in and out, the light drifts, the camera shakes. Every play is logged
with the frame where the card has *landed* (in place, and no hand over it), and
every frame with whether a hand is over the pile and what lies on top, so the
tracker can be scored (``track_eval``) and tested without a trained model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card
from .faces import CARD_H, CARD_W
from .scene import Compositor, SceneConfig, _hand, background


@dataclass(frozen=True, slots=True)
class TruePlay:
    card: str  # face code
    land_frame: int
    land_t: float
    same_as_previous: bool


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
                compositor: Compositor | None = None, first: list[Card] | None = None) -> SynthVideo:
    """Render a video of ``plays`` cards landing on a pile (the first one starts the game)."""
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

    def emit(hand: np.ndarray | None, new_land: TruePlay | None = None) -> None:
        img = pile.copy()
        over_pile = over_top = False
        if hand is not None:
            a = cv2.GaussianBlur(hand, (5, 5), 0)[..., None].astype(np.float32) / 255
            img = np.clip(skin * a + img * (1 - a), 0, 255).astype(np.uint8)
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
