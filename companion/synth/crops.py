"""Training crops for the face classifier: jittered cuts of the labelled top
card of generated scenes, with the same cut the reader makes at run time
(:func:`companion.vision.crops.card_crop`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, file_stem
from ..vision.crops import CROP_SIZE, card_crop


def _yolo_boxes(label: Path, width: int, height: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    out = []
    for line in label.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        c, x, y, w, h = int(parts[0]), *map(float, parts[1:])
        out.append((c, ((x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height)))
    return out


def face_folders(out: Path, split: str) -> None:
    """One folder per face under ``out/split`` (ultralytics' classification layout)."""
    for card in FACES:
        (out / split / file_stem(card)).mkdir(parents=True, exist_ok=True)


def jittered_crop(image: np.ndarray, box: tuple[float, float, float, float], rng: np.random.Generator,
                  size: int = CROP_SIZE) -> np.ndarray:
    """The reader's cut of ``box``, with margin and centre jittered as a detector's
    boxes are off by a few per cent of the card."""
    margin = float(rng.uniform(-0.02, 0.14))
    shift = (float(rng.normal(0, 0.03)), float(rng.normal(0, 0.03)))
    return card_crop(image, box, margin, size, shift)


def make_crops(scenes: list[Path], out: Path, split: str, seed: int, per_image: int = 2,
               size: int = CROP_SIZE) -> int:
    """Write ``out/<split>/<face stem>/*.jpg`` (ultralytics' classification layout)
    from YOLO-labelled scene images: ``per_image`` jittered crops of each labelled
    top card. Returns the number written."""
    rng = np.random.default_rng(seed)
    face_folders(out, split)
    n = 0
    for img_path in scenes:
        label = Path(str(img_path).replace("/images/", "/labels/")).with_suffix(".txt")
        if not label.exists():
            continue
        image = cv2.imread(str(img_path))
        if image is None:
            continue
        for c, box in _yolo_boxes(label, image.shape[1], image.shape[0]):
            for k in range(per_image):
                crop = jittered_crop(image, box, rng, size)
                cv2.imwrite(str(out / split / file_stem(FACES[c]) / f"{img_path.stem}_{k}.jpg"), crop,
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
                n += 1
    return n


_scene_worker = None


def _scene_init(config: object) -> None:
    global _scene_worker
    import os

    from .scene import Compositor

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cv2.setNumThreads(1)
    _scene_worker = Compositor(config=config)  # type: ignore[arg-type]


def _scene_crops(args: tuple[Path, str, int, int, int, int, int]) -> int:
    out, split, seed, i, face_index, per_scene, size = args
    assert _scene_worker is not None
    rng = np.random.default_rng([seed, 7, i])
    card = FACES[face_index % len(FACES)]
    scene = _scene_worker.scene(rng, top=card)
    for k in range(per_scene):
        crop = jittered_crop(scene.image, scene.box, rng, size)
        cv2.imwrite(str(out / split / file_stem(card) / f"s{seed}_{i:06d}_{k}.jpg"), crop,
                    [cv2.IMWRITE_JPEG_QUALITY, 95])
    return per_scene


def make_scene_crops(out: Path, split: str, scenes: int, seed: int, config: object,
                     per_scene: int = 1, workers: int = 2, faces: list[int] | None = None,
                     size: int = CROP_SIZE) -> int:
    """Classifier crops straight from scenes made in memory (no scene files):
    ``scenes`` piles in the given SceneConfig, every face (or every face of
    ``faces``, indices into FACES: more examples of the look-alikes a reader
    confuses) equally often, each top card cut ``per_scene`` times with
    detector-like jitter, ``size`` pixels a side. Returns crops written."""
    from concurrent.futures import ProcessPoolExecutor

    face_folders(out, split)
    rng = np.random.default_rng([seed, 999_983])
    pool_ = np.arange(len(FACES)) if not faces else np.array(sorted(set(faces)))
    order = np.concatenate([rng.permutation(pool_) for _ in range(scenes // len(pool_) + 1)])
    jobs = [(out, split, seed, i, int(order[i]), per_scene, size) for i in range(scenes)]
    if workers <= 1:
        _scene_init(config)
        return sum(map(_scene_crops, jobs))
    with ProcessPoolExecutor(workers, initializer=_scene_init, initargs=(config,)) as pool:
        return sum(pool.map(_scene_crops, jobs, chunksize=16))
