"""Deck enrolment: learn any physical deck from photos or short videos of its faces.

Layout of the source folder: ``<CODE>/*.jpg`` (photos of one face, e.g.
``R7/``, ``KING/``; ``+`` may be spelt ``plus``), ``<CODE>.mp4`` (a short clip) or
``<CODE>.jpg`` (one photo; ``R7_1.jpg``, ``R7_2.jpg`` for more), the face named by its
code or in words (``red_7``, ``Blue +2``: ``face_names.py``). A phone's HEIC photos
(an iPhone's default) are read with pillow-heif (the ``train`` extra).
Each picture is searched for the card (the learnt card finder, corners refined
from the card's edges: ``companion/vision/cardfinder.py``), warped flat to the
print size, brought to white light (``paper_white``), and the sharpest crop per
face is written as ``<stem>.png``; the few-shot learner (``fewshot.py``) then
teaches the face classifier the deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import Card, file_stem
from ..synth.faces import CARD_H, CARD_W, card_mask
from ..vision.cardfinder import (CardFinder, CardNotFound, coloured_light, lamp_gains, order_corners, paper_white,
                                 sharpness, warp_card)
from ..vision.sources import IMAGE_SUFFIXES, VIDEO_SUFFIXES
from .face_names import face_from_file_name

__all__ = ["EnrolReport", "enrol", "find_card", "order_corners", "sharpness", "warp_card"]


def default_card_finder() -> CardFinder:
    """The shipped reader's first stage as the card finder (no classifier needed), with
    the shipped card masker."""
    from ..vision.cardmask import shipped_masker
    from ..vision.detector import YoloDetector

    return CardFinder(YoloDetector(None, conf=0.2), outliner=shipped_outliner(), masker=shipped_masker())


def shipped_outliner():  # type: ignore[no-untyped-def]
    """The shipped card outliner, or None where none is shipped (the box's edges then)."""
    from ..vision.detector import ModelError
    from ..vision.outliner import YoloOutliner

    try:
        return YoloOutliner()
    except (ModelError, ImportError, OSError):
        return None


def find_card(image: np.ndarray, finder: CardFinder | None = None) -> np.ndarray | None:
    """The four corners of the one card in the picture, or None (see :class:`CardFinder`
    for the reason)."""
    try:
        return (finder or default_card_finder()).find(image).corners
    except CardNotFound:
        return None


#: Photos OpenCV cannot open: an iPhone saves HEIC unless told otherwise.
HEIF_SUFFIXES = frozenset({".heic", ".heif"})
PHOTO_SUFFIXES = frozenset(IMAGE_SUFFIXES) | HEIF_SUFFIXES
NO_HEIF = "a HEIC photo, and pillow-heif is not installed (pip install pillow-heif), or save it as JPEG"


def heif_reader() -> bool:
    """True when HEIC photos can be read (pillow-heif is installed)."""
    try:
        import pillow_heif  # noqa: F401
    except ImportError:
        return False
    return True


def read_photo(path: Path) -> np.ndarray | None:
    """A photo as BGR, turned upright as the phone recorded it (EXIF), or None when it
    cannot be read (damaged, or HEIC with no pillow-heif)."""
    if path.suffix.lower() not in HEIF_SUFFIXES:
        return cv2.imread(str(path))  # OpenCV applies the EXIF orientation itself
    try:
        import pillow_heif
        from PIL import Image

        pillow_heif.register_heif_opener()  # it turns the picture as recorded (EXIF, irot)
        with Image.open(path) as im:
            rgb = np.asarray(im.convert("RGB"))
    except (ImportError, OSError, ValueError, SyntaxError):
        return None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def _pictures(path: Path, every: int = 5) -> list[np.ndarray]:
    if path.is_file() and path.suffix.lower() in PHOTO_SUFFIXES:
        img = read_photo(path)
        return [] if img is None else [img]
    if path.is_dir():
        return [img for p in sorted(path.iterdir()) if p.suffix.lower() in PHOTO_SUFFIXES
                for img in [read_photo(p)] if img is not None]
    cap = cv2.VideoCapture(str(path))
    out, i = [], 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        if i % every == 0:
            out.append(img)
        i += 1
    cap.release()
    return out


def save_face(path: Path, taken: np.ndarray) -> bool:
    """Write a face as it was cut out flat (``taken``) the way the learner reads it: in
    white light (:func:`paper_white`), the rounded card as its alpha. True when the
    light was too coloured to trust its colours (:func:`coloured_light`): the face is
    kept all the same, and the caller says so."""
    inside = card_mask(taken.shape[1], taken.shape[0])
    gains = lamp_gains(taken, inside)
    cv2.imwrite(str(path), np.dstack([paper_white(taken, inside, gains), inside]))
    return coloured_light(gains)


def _items_by_face(src: Path, failed: dict[str, str], heif: bool) -> dict[Card, list[Path]]:
    """What ``src`` holds for each face: folders of pictures, videos, and single photos
    (several of one face told apart by a number: ``R7_1.jpg``, ``R7_2.jpg``), named
    by face code or in words (``red_7``, ``Blue +2``). A name that is no face, or a
    HEIC photo with no reader for it (``heif``: :func:`heif_reader`), goes to
    ``failed``."""
    items: dict[Card, list[Path]] = {}
    for item in sorted(src.iterdir()):
        suffix = item.suffix.lower()
        if not (item.is_dir() or suffix in VIDEO_SUFFIXES or suffix in PHOTO_SUFFIXES):
            continue
        if suffix in HEIF_SUFFIXES and not heif:
            failed[item.name] = NO_HEIF
            continue
        card = face_from_file_name(item.name if item.is_dir() else item.stem)
        if card is None:
            failed[item.name] = "not a face's name (e.g. R7, B+2 or Bplus2, KING, red_7)"
            continue
        items.setdefault(card, []).append(item)
    return items


#: What to retake, for a face kept all the same.
SOFT = "its photo is a little blurred: a sharper one reads better"
COLOURED = ("taken under strongly coloured or dim light: its colours may be wrong; "
            "a photo under white light is better")


@dataclass(frozen=True, slots=True)
class EnrolReport:
    enrolled: dict[str, Path]
    failed: dict[str, str]  # face or file -> why
    quality: dict[str, float] | None = None  # face -> sharpness of the kept picture
    warnings: dict[str, str] | None = None  # face -> what to retake, for a face kept all the same


def enrol(src: Path, out: Path, w: int = CARD_W, h: int = CARD_H, finder: CardFinder | None = None) -> EnrolReport:
    """Cut each face's sharpest picture out flat into ``out/<stem>.png``.

    A face whose pictures are all a little blurred (:attr:`FoundCard.soft`) is still
    learnt, with a warning: a face learnt from a soft photo reads better than a face
    missing from the deck."""
    out.mkdir(parents=True, exist_ok=True)
    finder = finder or default_card_finder()
    done: dict[str, Path] = {}
    failed: dict[str, str] = {}
    quality: dict[str, float] = {}
    warnings: dict[str, str] = {}
    heif = heif_reader()
    for card, items in _items_by_face(src, failed, heif).items():
        crops, why = [], "no pictures"
        if not heif and any(p.suffix.lower() in HEIF_SUFFIXES for item in items if item.is_dir()
                            for p in item.iterdir()):
            why = NO_HEIF
        for img in (img for item in items for img in _pictures(item)):
            try:
                found = finder.find(img)
            except CardNotFound as e:
                why = str(e)
                continue
            crops.append((not found.soft, found.sharpness, warp_card(img, found.corners, w, h)))
        if not crops:
            failed[card.code] = f"no card cut out of its pictures ({why})"
            continue
        crisp, sharp, best = max(crops, key=lambda c: c[:2])  # a crisp picture before any soft one
        path = out / f"{file_stem(card)}.png"
        done[card.code] = path
        quality[card.code] = round(sharp, 1)
        hints = [] if crisp else [SOFT]
        if save_face(path, best):
            hints.append(COLOURED)
        if hints:
            warnings[card.code] = "; ".join(hints)
    return EnrolReport(done, failed, quality, warnings)
