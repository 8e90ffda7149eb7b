"""Trains the card masker (:mod:`companion.vision.cardmask`) on generated photos.

Why a net of its own and not a YOLO segmentation model: the finder already says
where the card is, so the masker only has to say which pixels of that region are
card. A U-Net of 0.1 M weights learns that in 25 minutes on 2 CPU cores; a YOLOv8n-seg
had a 10% median corner error after 20 minutes (session 8).

Data: single-card photos in random styles (never the held-out glyph family) on
every kind of table, tilted up to 35 degrees, hard shadows, warm light, a hand now
and then; the region around each card is cut from a box jittered as the finder's
are, and the card's true outline is the target (drawn at 4x and shrunk: soft
edges, so the boundary is learnt below a pixel).

Run: python -m companion.training.cardmask [--scenes 8000] [--epochs 12] [--out models/taki-cardmask.onnx]
The photos are cached under --work (resumable: the cache is kept).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from ..vision.cardmask import DEFAULT_MASKER, SIZE, padded_region, to_input
from .train import every_core

#: How far the finder's box is off the card, as a share of its size, in training
#: (a normal spread, clipped): the finder's boxes are within a few percent.
BOX_JITTER, BOX_JITTER_MAX = 0.04, 0.12


def _scene_config():  # type: ignore[no-untyped-def]
    from ..synth.scene import SceneConfig

    return replace(SceneConfig.varied(480, "random"), under_cards=(0, 0), hand_p=0.15, card_height=(0.35, 0.8))


def sample_from(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator,
                size: int = SIZE) -> tuple[np.ndarray, np.ndarray]:
    """One training pair: the net's input region (size x size BGR) around a jittered box
    and the card's outline in it (size x size, 0-255, soft at the edge)."""
    h, w = image.shape[:2]
    xs, ys = corners[:, 0], corners[:, 1]
    box = np.array([xs.min(), ys.min(), xs.max(), ys.max()], np.float64)
    bw, bh = box[2] - box[0], box[3] - box[1]
    jit = np.clip(rng.normal(0, BOX_JITTER, 4), -BOX_JITTER_MAX, BOX_JITTER_MAX) * np.array([bw, bh, bw, bh])
    box = box + jit
    box = (max(0.0, box[0]), max(0.0, box[1]), min(w - 1.0, box[2]), min(h - 1.0, box[3]))
    x1, y1, x2, y2 = padded_region(box, image.shape)
    roi = image[y1:y2, x1:x2]
    small = cv2.resize(roi, (size, size), interpolation=cv2.INTER_AREA)
    scale = np.array([4 * size / max(1, x2 - x1), 4 * size / max(1, y2 - y1)])
    poly = ((corners - np.array([x1, y1])) * scale).round().astype(np.int32)
    big = np.zeros((4 * size, 4 * size), np.uint8)
    cv2.fillPoly(big, [poly.reshape(-1, 1, 2)], 255)
    return small, cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)


def _make(args: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    from ..synth.scene import Compositor

    seed, start, n, size = args
    comp = Compositor(config=_scene_config())
    xs, ys = [], []
    for i in range(start, start + n):
        rng = np.random.default_rng([seed, i])
        scene = comp.scene(rng)
        for _ in range(2):
            x, y = sample_from(scene.image, scene.top.corners.astype(np.float64), rng, size)
            xs.append(x)
            ys.append(y)
    return np.stack(xs), np.stack(ys)


def make_samples(n_scenes: int, seed: int, cache: Path, workers: int = 2,
                 size: int = SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Two regions per generated photo, cached in ``cache`` (an .npz)."""
    if cache.exists():
        with np.load(cache) as z:
            return z["x"], z["y"]
    chunk = max(1, n_scenes // (workers * 4))
    jobs = [(seed, s, min(chunk, n_scenes - s), size) for s in range(0, n_scenes, chunk)]
    with Pool(workers) as pool:
        parts = pool.map(_make, jobs)
    x, y = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, x=x, y=y)
    return x, y


def build_net(folded: bool = False):  # type: ignore[no-untyped-def]
    """The masker's net; ``folded``: each convolution with a bias of its own and no
    BatchNorm, the shape of an exported net (:func:`from_onnx`)."""
    import torch
    from torch import nn

    def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        if folded:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.Identity(), nn.ReLU(inplace=True))
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class TinyUNet(nn.Module):
        """Down to 6x6 (the whole region in view: which side of an edge is card), back up
        with skips to full size (the border to a pixel)."""

        def __init__(self) -> None:
            super().__init__()
            self.full = conv(3, 8)
            self.d1 = nn.Sequential(conv(3, 16, 2), conv(16, 16))      # 48
            self.d2 = nn.Sequential(conv(16, 24, 2), conv(24, 24))     # 24
            self.d3 = nn.Sequential(conv(24, 32, 2), conv(32, 32))     # 12
            self.d4 = nn.Sequential(conv(32, 48, 2), conv(48, 48))     # 6
            self.u3, self.u2, self.u1 = conv(48 + 32, 32), conv(32 + 24, 24), conv(24 + 16, 16)
            self.u0 = conv(16 + 8, 8)
            self.head = nn.Conv2d(8, 1, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            up = nn.functional.interpolate
            f0 = self.full(x)
            f1 = self.d1(x)
            f2 = self.d2(f1)
            f3 = self.d3(f2)
            f4 = self.d4(f3)
            y = self.u3(torch.cat([up(f4, scale_factor=2.0, mode="bilinear"), f3], 1))
            y = self.u2(torch.cat([up(y, scale_factor=2.0, mode="bilinear"), f2], 1))
            y = self.u1(torch.cat([up(y, scale_factor=2.0, mode="bilinear"), f1], 1))
            y = self.u0(torch.cat([up(y, scale_factor=2.0, mode="bilinear"), f0], 1))
            return self.head(y)

    return TinyUNet()


def from_onnx(path: Path):  # type: ignore[no-untyped-def]
    """The net of an exported masker, to train on from: the export folded each BatchNorm
    into its convolution, so the net comes back with biased convolutions and no
    BatchNorm (:func:`build_net` ``folded``), giving the export's output exactly.

    Why: the shipped masker is all there is of its training (checkpoints are not
    shipped), and training it further must start from what it knows."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    net = build_net(folded=True)
    layers = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]  # in the order forward() runs them
    if len(convs) != len(layers):
        raise ValueError(f"{path} has {len(convs)} convolutions, the masker's net {len(layers)}")
    for node, layer in zip(convs, layers):
        w, b = weights[node.input[1]], weights[node.input[2]]
        if tuple(w.shape) != tuple(layer.weight.shape):
            raise ValueError(f"{path}: a convolution of shape {w.shape}, the masker's net has {tuple(layer.weight.shape)}")
        layer.weight.data = torch.from_numpy(w.copy())
        assert layer.bias is not None  # build_net(folded=True) gives every convolution one
        layer.bias.data = torch.from_numpy(b.copy())
    return net


def _batch(x: np.ndarray, y: np.ndarray, idx: np.ndarray, rng: np.random.Generator, augment: bool):  # type: ignore[no-untyped-def]
    import torch

    xb = np.concatenate([to_input(x[i], x.shape[1]) for i in idx])
    yb = (y[idx].astype(np.float32) / 255.0)[:, None]
    if augment:  # a card turned a quarter or mirrored is still a card
        k = int(rng.integers(4))
        xb, yb = np.rot90(xb, k, (2, 3)), np.rot90(yb, k, (2, 3))
        if rng.random() < 0.5:
            xb, yb = xb[..., ::-1], yb[..., ::-1]
    return torch.from_numpy(np.ascontiguousarray(xb)), torch.from_numpy(np.ascontiguousarray(yb))


def iou_of(logits, target) -> float:  # type: ignore[no-untyped-def]
    p, t = logits > 0, target > 0.5
    return float(((p & t).sum((1, 2, 3)).float() / (p | t).sum((1, 2, 3)).clamp(min=1).float()).mean())


def train(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, epochs: int, batch: int = 64,
          lr: float = 3e-3, seed: int = 0, work: Path | None = None, init: Path | None = None,
          log=print):  # type: ignore[no-untyped-def]
    """Trains the net (from ``init``'s weights when given: a checkpoint, or an exported
    ``.onnx``); resumes from ``work/last.pt`` when there is one (epoch by epoch)."""
    import torch

    torch.manual_seed(seed)
    if init is not None and init.suffix == ".onnx":
        net = from_onnx(init)
    else:
        net = build_net()
        if init is not None:
            net.load_state_dict(torch.load(init, weights_only=False)["net"])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps), pct_start=0.1)
    start = 0
    ckpt = work / "last.pt" if work else None
    if ckpt and ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start = state["epoch"] + 1
        log(f"resumed after epoch {start}")
    bce = torch.nn.BCEWithLogitsLoss()
    rng = np.random.default_rng(seed)
    for epoch in range(start, epochs):
        net.train()
        t0, total = time.time(), 0.0
        order = rng.permutation(len(x))
        for s in range(len(x) // batch):
            xb, yb = _batch(x, y, order[s * batch:(s + 1) * batch], rng, True)
            logits = net(xb)
            p = torch.sigmoid(logits)
            dice = 1 - (2 * (p * yb).sum((1, 2, 3)) + 1) / (p.sum((1, 2, 3)) + yb.sum((1, 2, 3)) + 1)
            loss = bce(logits, yb) + dice.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        net.eval()
        with torch.no_grad():
            ious = [iou_of(net(xb), yb) for xb, yb in
                    (_batch(xv, yv, np.arange(i, min(i + 256, len(xv))), rng, False) for i in range(0, len(xv), 256))]
        log(f"epoch {epoch + 1}/{epochs}  loss {total / max(1, len(x) // batch):.4f}  "
            f"val IoU {np.mean(ious):.4f}  {time.time() - t0:.0f} s")
        if ckpt:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "epoch": epoch}, ckpt)
    return net


def export(net, out: Path, size: int = SIZE) -> Path:  # type: ignore[no-untyped-def]
    """The net as ONNX (opset 17, batch 1, ``size`` px): what the runtime masker loads."""
    import torch

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, size, size), str(out), input_names=["image"], output_names=["logits"],
                      opset_version=17, dynamo=False)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=8000)
    ap.add_argument("--val-scenes", type=int, default=400)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=6100, help="photos' first seed (the validation set uses seed + 1)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--work", default="runs/cardmask")
    ap.add_argument("--out", default=str(DEFAULT_MASKER))
    ap.add_argument("--size", type=int, default=SIZE, help="the net's input side (a multiple of 16)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--init", default=None, help="start from these weights: a checkpoint (last.pt) or an exported .onnx")
    a = ap.parse_args(argv)
    every_core()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x, y = make_samples(a.scenes, a.seed, work / f"train-{a.seed}-{a.scenes}-{a.size}.npz", a.workers, a.size)
    xv, yv = make_samples(a.val_scenes, a.seed + 1, work / f"val-{a.seed + 1}-{a.val_scenes}-{a.size}.npz",
                          a.workers, a.size)
    print(f"{len(x)} training regions, {len(xv)} validation, made in {time.time() - t0:.0f} s", flush=True)
    net = train(x, y, xv, yv, a.epochs, lr=a.lr, work=work, init=Path(a.init) if a.init else None,
                log=lambda s: print(s, flush=True))
    print(f"exported {export(net, Path(a.out), a.size)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
