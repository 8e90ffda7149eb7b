"""Benchmark: the reader against how the picture is framed.

A phone or a kiosk camera does not frame the pile as the training squares did: the
card may be small (a camera high above the table), large (a close-up), and the
picture 4:3, 16:9 or tall. A finder that had only seen big cards in squares boxed the
whole pile instead of the top card. Each line is the top card read right on piles
of the held-out glyph family (the published block style in a family no training
picture used), framed one way; the piles are the same for every model.

Run: python benchmarks/reader_framing.py [--piles 150] [--model models/taki-yolov8n.pt]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.classifier import load_reader

#: name: (scene side, the top card's height as a share of it, picture shape or None: square)
FRAMINGS: dict[str, tuple[int, tuple[float, float], tuple[int, int] | None]] = {
    "usual: card 0.35-0.72 of a square": (640, (0.35, 0.72), None),
    "small: card 0.15-0.30 of a square": (640, (0.15, 0.30), None),
    "tiny: card 0.08-0.15 of a square": (640, (0.08, 0.15), None),
    "large: card 0.75-0.95 of a square": (640, (0.75, 0.95), None),
    "16:9, card 0.2-0.5 of its height": (1024, (0.11, 0.28), (16, 9)),
    "9:16, card 0.2-0.5 of its width": (1024, (0.11, 0.28), (9, 16)),
}
from report import Report, add_json_argument


def framed(image: np.ndarray, box: tuple[float, float, float, float], shape: tuple[int, int]) -> np.ndarray:
    """The widest picture of ``shape`` (w, h) inside the square, centred on the card."""
    side_h, side_w = image.shape[:2]
    w, h = (side_w, side_w * shape[1] // shape[0]) if shape[0] > shape[1] else (side_h * shape[0] // shape[1], side_h)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x0 = int(np.clip(cx - w / 2, 0, side_w - w))
    y0 = int(np.clip(cy - h / 2, 0, side_h - h))
    return np.ascontiguousarray(image[y0:y0 + h, x0:x0 + w])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--piles", type=int, default=150, help="piles per framing")
    ap.add_argument("--model", default=None, help="card finder (default: the shipped one)")
    ap.add_argument("--seed", type=int, default=880)
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('reader_framing', f"Card reader by framing ({args.piles} piles each)")
    reader = load_reader(args.model)
    for name, (side, height, shape) in FRAMINGS.items():
        comp = Compositor(config=SceneConfig.varied(side, "held-out", card_height=height))
        right, t0 = 0, time.monotonic()
        for i in range(args.piles):
            scene = comp.scene(np.random.default_rng([args.seed, i]))
            image = scene.image if shape is None else framed(scene.image, scene.box, shape)
            found = reader.detect(image)
            right += bool(found) and found[0].card == scene.top.card
        print(f"{name:36s} top card {right:4d}/{args.piles} = {right / args.piles:6.1%}"
              f"  ({time.monotonic() - t0:.0f} s)", flush=True)
        rep.add(f"{name.strip()}: top card", round(100 * right / args.piles, 1), f"% of {args.piles} piles")
    rep.write(args.json)


if __name__ == "__main__":
    main()
