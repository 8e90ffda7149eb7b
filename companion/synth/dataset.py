"""Writes a YOLO-format dataset of generated discard-pile scenes.

``images/<split>/*.jpg``, ``labels/<split>/*.txt`` and ``data.yaml`` with one
class per face (57, in FACES order). Every image is a pure function of
(seed, split, index), so a set can be made again bit for bit, in parallel.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card
from .scene import Compositor, Scene, SceneConfig

SPLITS = ("train", "val", "test")
_SPLIT_ID = {name: i for i, name in enumerate(SPLITS)}


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    out: Path
    counts: dict[str, int]
    seed: int = 0
    size: int = 416
    faces_dir: Path | None = None  # enrolled faces (PNG per face code) instead of rendered ones
    quality: int = 92
    styles: str = "classic"  # see SceneConfig.styles; anything but classic also varies the tables
    outline: bool = False  # label the top card's four corners (segmentation) instead of its box
    # Framing: the top card's height as a share of the scene's side (None: SceneConfig's
    # 0.35-0.72), and the pictures' shapes, width / height, one drawn per picture. A
    # phone or a kiosk camera sees the pile small and in a 4:3 or 16:9 picture; a
    # finder that only ever saw big cards in squares boxed the whole pile instead.
    card_height: tuple[float, float] | None = None
    aspects: tuple[float, ...] = (1.0,)

    def scene_config(self) -> SceneConfig:
        extra = {} if self.card_height is None else {"card_height": self.card_height}
        if self.styles == "classic":
            return SceneConfig(size=self.size, **extra)  # type: ignore[arg-type]
        return SceneConfig.varied(self.size, self.styles, **extra)


def framed(scene: Scene, aspect: float, rng: np.random.Generator) -> Scene:
    """The scene cut to a picture of ``aspect`` (width / height) that holds the whole
    top card, at a random place; the square scene as it was when the card does not fit."""
    size_h, size_w = scene.image.shape[:2]
    w, h = (size_w, round(size_w / aspect)) if aspect >= 1 else (round(size_h * aspect), size_h)
    x1, y1, x2, y2 = scene.box
    lo_x, hi_x = max(0.0, x2 + 1 - w), min(x1, float(size_w - w))
    lo_y, hi_y = max(0.0, y2 + 1 - h), min(y1, float(size_h - h))
    if (w, h) == (size_w, size_h) or hi_x < lo_x or hi_y < lo_y:
        return scene
    x0, y0 = int(rng.uniform(lo_x, hi_x)), int(rng.uniform(lo_y, hi_y))
    shift = np.array([x0, y0], np.float64)
    return replace(scene, image=np.ascontiguousarray(scene.image[y0:y0 + h, x0:x0 + w]),
                   top=replace(scene.top, corners=scene.top.corners - shift),
                   under=[replace(p, corners=p.corners - shift) for p in scene.under],
                   hand_mask=None if scene.hand_mask is None else scene.hand_mask[y0:y0 + h, x0:x0 + w])


def class_names() -> dict[int, str]:
    return {c.index: c.code for c in FACES}


def write_data_yaml(out: Path, splits: list[str]) -> Path:
    lines = [f"path: {out.resolve()}"]
    # ultralytics insists on train and val keys; a test-only set points them at its own images.
    for split in dict.fromkeys(["train", "val", *splits]):
        lines.append(f"{split}: images/{split if split in splits else splits[0]}")
    lines.append(f"nc: {len(FACES)}")
    lines.append("names:")
    lines += [f"  {i}: '{name}'" for i, name in class_names().items()]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def load_faces(folder: Path) -> dict[Card, np.ndarray]:
    """Faces from ``folder/<stem>.png`` (see faces.file_stem); missing faces are left out."""
    from ..rules.cards import file_stem

    out = {}
    for card in FACES:
        p = folder / f"{file_stem(card)}.png"
        if p.exists():
            img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
            if img is not None:
                out[card] = img
    if not out:
        raise FileNotFoundError(f"no face images (e.g. R5.png) in {folder}")
    return out


_worker: Compositor | None = None


def _init(spec: DatasetSpec) -> None:
    global _worker
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cv2.setNumThreads(1)
    faces = load_faces(spec.faces_dir) if spec.faces_dir else None
    _worker = Compositor(faces, spec.scene_config())


def _make(args: tuple[DatasetSpec, str, int, int]) -> None:
    spec, split, i, face_index = args
    assert _worker is not None
    rng = np.random.default_rng([spec.seed, _SPLIT_ID[split], i])
    cards = _worker.cards
    scene = _worker.scene(rng, top=cards[face_index % len(cards)])
    scene = framed(scene, float(rng.choice(spec.aspects)), rng)  # a square stays as it was drawn
    stem = f"{split}_{spec.seed}_{i:06d}"
    cv2.imwrite(str(spec.out / "images" / split / f"{stem}.jpg"), scene.image,
                [cv2.IMWRITE_JPEG_QUALITY, spec.quality])
    label = scene.outline_label() if spec.outline else scene.yolo_label()
    (spec.out / "labels" / split / f"{stem}.txt").write_text(label + "\n")


def make_dataset(spec: DatasetSpec, workers: int = 2) -> Path:
    """Generate every split named in ``spec.counts``; return the data.yaml path."""
    jobs = []
    for split, n in spec.counts.items():
        if split not in _SPLIT_ID:
            raise ValueError(f"unknown split {split!r}; use {', '.join(SPLITS)}")
        (spec.out / "images" / split).mkdir(parents=True, exist_ok=True)
        (spec.out / "labels" / split).mkdir(parents=True, exist_ok=True)
        # Balanced classes: each run of 57 images shows every face once, in a seeded order.
        rng = np.random.default_rng([spec.seed, _SPLIT_ID[split], 999_983])
        order = np.concatenate([rng.permutation(len(FACES)) for _ in range(n // len(FACES) + 1)])
        jobs += [(spec, split, i, int(order[i])) for i in range(n)]
    if workers <= 1:
        _init(spec)
        for job in jobs:
            _make(job)
    else:
        with ProcessPoolExecutor(workers, initializer=_init, initargs=(spec,)) as pool:
            list(pool.map(_make, jobs, chunksize=16))
    return write_data_yaml(spec.out, [s for s in SPLITS if s in spec.counts])
