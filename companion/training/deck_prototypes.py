"""Enrolment's learning without training: a deck's photos to prototypes in seconds.

Each photo of a face is a :class:`Shot` (the photo, the card finder's box around the
card, and its exact corners where the card finder agreed). It is turned into a
fixed list of *views*, each cut as the table cuts a card (``card_crop`` of the box
a turned card would have): turned every 30 degrees, seen small and soft as a far
camera sees it, and darker and warmer as a dim room does. The shipped classifier
reads every view once; its embeddings are the deck's prototypes
(``companion/vision/prototypes.py``).

Nothing here is random, timed or threaded: the same photos give the same profile,
bit for bit, on a busy machine as on an idle one (ONNX Runtime at one thread). No
torch: this runs on the runtime install (the Pi).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import cv2
import numpy as np

from ..vision.cardfinder import box_quad
from ..vision.crops import card_crop, crop_side
from ..vision.keypoints import FaceKeypoints, keypoints
from ..vision.prototypes import EmbeddingReader, Mix, Prototypes

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Shot:
    """One photo of one face and where the card lies in it."""

    image: np.ndarray  # BGR
    box: Box  # the card finder's box, as the table reads with
    corners: np.ndarray | None = None  # (4, 2) where the exact outline agreed with the box

    def outline(self) -> np.ndarray:
        """The card's four corners: the exact ones, else the box's."""
        return np.asarray(self.corners, np.float64) if self.corners is not None else box_quad(self.box)


@dataclass(frozen=True)
class View:
    angle: float  # degrees the card is turned
    card_px: float  # the card's longer side in the picture the crop is cut from, in crop sides
    gain: float = 1.0  # darker room
    warm: float = 0.0  # a bulb's tint left after white balance: warm (> 0) or cool (< 0)


#: Every photo is seen in these views (24): turned every 30 degrees as it may lie on
#: the table; small and soft at four turns (a far or low-resolution camera); in a
#: darker, warmer room at four more, and a cooler one at four more.
VIEWS: tuple[View, ...] = (
    *(View(a, 1.6) for a in range(0, 360, 30)),
    *(View(a, 0.45) for a in (15, 105, 195, 285)),
    *(View(a, 1.2, gain=0.6, warm=0.4) for a in (45, 135, 225, 315)),
    *(View(a, 1.2, gain=0.85, warm=-0.3) for a in (0, 90, 180, 270)),
)


def view_crops(shot: Shot, side: int, views: tuple[View, ...] = VIEWS) -> list[np.ndarray]:
    """The shot's views, each a ``side`` x ``side`` crop cut as the reader cuts a card."""
    pts = shot.outline()
    centre = pts.mean(axis=0)
    extent = float(np.ptp(pts, axis=0).max()) or 1.0
    out = []
    for v in views:
        scale = v.card_px * side / extent
        canvas = int(np.ceil(2.2 * v.card_px * side))
        m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), v.angle, scale)
        m[:, 2] += canvas / 2 - centre  # the card's centre to the canvas' centre
        turned = cv2.warpAffine(shot.image, m, (canvas, canvas), flags=cv2.INTER_AREA if scale < 1 else
                                cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        p = np.hstack([pts, np.ones((4, 1))]) @ m.T
        box = (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))
        crop = card_crop(turned, box, size=side)
        if v.gain != 1.0 or v.warm:
            tint = np.array([1.0 - 0.6 * v.warm, 1.0 - 0.05 * v.warm, 1.0 + 0.15 * v.warm]) * v.gain  # BGR
            crop = np.clip(crop.astype(np.float32) * tint, 0, 255).astype(np.uint8)
        out.append(crop)
    return out


Progress = Callable[[int, int], None]  # shots done, shots in all


def build_prototypes(shots: dict[str, list[Shot]], reader: EmbeddingReader, mix: Mix | None = None,
                     progress: Progress | None = None) -> Prototypes:
    """The deck's prototypes: every view of every shot read once by ``reader``; centred
    on the deck's own mean, so what all its cards share (the paper, the print) weighs
    less than what tells its faces apart."""
    side = crop_side(reader.imgsz)
    vectors, faces = [], []
    total, done = sum(len(s) for s in shots.values()), 0
    for code in sorted(shots):
        for shot in shots[code]:
            _, emb = reader.read(view_crops(shot, side))
            vectors.append(emb)
            faces.extend([code] * len(emb))
            done += 1
            if progress:
                progress(done, total)
    if not vectors:
        raise ValueError("no photos to learn from")
    emb = np.concatenate(vectors).astype(np.float32)
    centre = emb.mean(axis=0) if len(shots) > 1 else np.zeros(emb.shape[1], np.float32)
    protos = Prototypes(np.zeros((0, emb.shape[1]), np.float32), tuple(faces), centre.astype(np.float32),
                        mix or Mix())
    unit = protos.unit(emb)
    # stored as float16 (half the size); the stored values are the ones read back
    return Prototypes(unit.astype(np.float16).astype(np.float32), tuple(faces), protos.centre, protos.mix)


def face_keypoints(shots: dict[str, list[Shot]], side: int) -> FaceKeypoints:
    """Each photo's keypoints, taken from its upright view as the reader cuts it."""
    faces, pts, desc = [], [], []
    for code in sorted(shots):
        for shot in shots[code]:
            p, d = keypoints(view_crops(shot, side, (View(0, 1.6),))[0])
            faces.append(code)
            pts.append(p)
            desc.append(d)
    return FaceKeypoints(tuple(faces), tuple(pts), tuple(desc))


def write_profile(out: Path, shots: dict[str, list[Shot]], reader: EmbeddingReader | None = None,
                  name: str | None = None, quality: dict[str, float] | None = None,
                  retake: dict[str, str] | None = None, progress: Progress | None = None) -> Path:
    """The deck profile folder ``out`` (its ``faces/`` already written by enrolment):
    ``prototypes.npz`` and ``deck.json`` (version 2). ``reader``: the shipped ONNX
    classifier, loaded at one thread unless given."""
    from ..rules.cards import FACES
    from ..vision.deck import FORMAT, VERSION
    from ..vision.prototypes import KEYPOINTS, PROTOTYPES
    from ..vision.runtime import DEFAULT_CLASSIFIER, RuntimeClassifier, file_digest

    t0 = time.monotonic()
    reader = reader or RuntimeClassifier(DEFAULT_CLASSIFIER, threads=1)
    protos = build_prototypes(shots, reader, progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    protos.save(out / PROTOTYPES)
    face_keypoints(shots, crop_side(reader.imgsz)).save(out / KEYPOINTS)
    have = set(shots)
    meta = {
        "format": FORMAT, "version": VERSION, "name": name or out.name,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "enrolled": [c.code for c in FACES if c.code in have],
        "missing": [c.code for c in FACES if c.code not in have],
        "quality": quality or {}, "retake": retake or {}, "accuracy": None,
        "reader": "prototypes", "views": len(VIEWS), "photos": sum(len(s) for s in shots.values()),
        "embedding": file_digest(Path(reader.path)) if getattr(reader, "path", None) else "",
        "learn_seconds": round(time.monotonic() - t0, 1),
    }
    (out / "deck.json").write_text(json.dumps(meta, indent=1))
    return out
