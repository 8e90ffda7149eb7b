"""Deck enrolment: learn any physical deck from photos or short videos of its faces.

Layout of the source folder: ``<CODE>/*.jpg`` (photos of one face, e.g.
``R7/``, ``KING/``; ``+`` may be spelt ``plus``), ``<CODE>.mp4`` (a short clip) or
``<CODE>.jpg`` (one photo; ``R7_1.jpg``, ``R7_2.jpg`` for more), the face named by its
code or in words (``red_7``, ``Blue +2``: ``face_names.py``). A phone's HEIC photos
(an iPhone's default) are read with pillow-heif (the ``train`` extra).
Each picture is searched for the card the way the table reads it: the card
finder's box (``CardFinder.locate``), with the exact corners as a refinement where
they are found (a flat cut-out), never a reason to lose a face. The face's best
picture is written as ``<stem>.png`` (brought to white light, ``paper_white``), and
every photo becomes a :class:`~companion.training.deck_prototypes.Shot` from which
the deck's prototypes are made in seconds (``deck_prototypes.py``). Nothing here
needs torch: it runs on the runtime install.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import Card, file_stem
from ..synth.faces import CARD_H, CARD_W, card_mask
from ..vision.cardfinder import (CardFinder, CardNotFound, LocatedCard, coloured_light, lamp_gains, order_corners,
                                 paper_white, sharpness, warp_card)
from ..vision.sources import IMAGE_SUFFIXES, VIDEO_SUFFIXES
from .deck_prototypes import Shot
from .face_names import face_from_file_name

__all__ = ["EnrolReport", "enrol", "find_card", "order_corners", "sharpness", "warp_card"]


def default_card_finder(model: str | Path | None = None) -> CardFinder:
    """The table's own card finder (the shipped ONNX export on ONNX Runtime, no torch, or
    ``model``), with the shipped card masker for the exact corners."""
    from ..vision.cardmask import shipped_masker
    from ..vision.runtime import RuntimeFinder

    return CardFinder(RuntimeFinder(model, conf=0.2), masker=shipped_masker())


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


#: A photo of more pixels than this is decoded at a half, a quarter or an eighth of its
#: size (a 20000 x 20000 PNG decoded whole took 23 GB); past eight times it, refused.
MAX_PIXELS = 40_000_000
_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


class PhotoTooLarge(ValueError):
    """A photo with too many pixels to decode on this machine."""


def _pixels(path: Path) -> int:
    """The photo's size from its header alone (0 when the header cannot be read): PNG and
    JPEG read here, other kinds by Pillow. (ultralytics, once imported, patches Pillow's
    open to install a HEIF plug-in when a file fails to open: never asked here for the
    common kinds.)"""
    import struct

    try:
        with open(path, "rb") as f:
            head = f.read(256 * 1024)
    except OSError:
        return 0
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        w, h = struct.unpack(">II", head[16:24])
        return int(w) * int(h)
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 <= len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", head[i + 2:i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
                h, w = struct.unpack(">HH", head[i + 5:i + 9])
                return int(w) * int(h)
            i += 2 + length
        return 0
    try:
        from PIL import Image

        Image.MAX_IMAGE_PIXELS = None  # the header only: nothing is decoded here
        with Image.open(path) as im:
            return int(im.size[0]) * int(im.size[1])
    except Exception:  # noqa: BLE001 - any reader's failure: the size is unknown, OpenCV decides
        return 0


def read_photo(path: Path) -> np.ndarray | None:
    """A photo as BGR, turned upright as the phone recorded it (EXIF), or None when it
    cannot be read (damaged, or HEIC with no pillow-heif). A huge photo is decoded
    reduced; one too large even so raises :class:`PhotoTooLarge`."""
    if path.suffix.lower() not in HEIF_SUFFIXES:
        pixels = _pixels(path)
        if pixels > MAX_PIXELS:
            factor = next((f for f in (2, 4, 8) if pixels / (f * f) <= MAX_PIXELS), None)
            if factor is None:
                raise PhotoTooLarge(f"{path.name}: {pixels / 1e6:.0f} megapixels is too large to read; "
                                    f"save it smaller (a phone's 12 megapixels is plenty)")
            return cv2.imread(str(path), _REDUCED[factor])
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


def _pictures(path: Path, every: int = 5, problems: list[str] | None = None) -> list[np.ndarray]:
    """The pictures of one item (a photo, a folder of photos, a clip); what could not be
    read goes to ``problems``."""
    said = problems if problems is not None else []
    if path.is_file() and path.suffix.lower() in PHOTO_SUFFIXES:
        paths = [path]
    elif path.is_dir():
        paths = [p for p in sorted(path.iterdir()) if p.suffix.lower() in PHOTO_SUFFIXES]
        said += [f"{p.name}: not a photo or clip this app reads" for p in sorted(path.iterdir())
                 if p.is_file() and p.suffix.lower() not in PHOTO_SUFFIXES]
    else:
        paths = []
    if paths or path.is_dir():
        out = []
        for p in paths:
            try:
                img = read_photo(p)
            except PhotoTooLarge as e:
                said.append(str(e))
                continue
            if img is None:
                said.append(f"{p.name}: could not be read (damaged, or not a picture)")
            else:
                out.append(img)
        return out
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
            if item.is_file() and face_from_file_name(item.stem) is not None:  # meant as a face: say so
                failed[item.name] = "not a photo or clip this app reads (JPEG, PNG, HEIC, MP4 and the like)"
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
    shots: dict[str, list[Shot]] | None = None  # face -> where its card lies in each photo


#: Photos are read at most this many pixels on their longer side (a phone's 12 MP photo
#: took the exact cut 0.5-2.8 s; the card keeps hundreds of pixels).
MAX_SIDE = 1600
#: At most this many photos of one face are learnt (the crispest first).
PHOTOS_PER_FACE = 4


def _smaller(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    r = MAX_SIDE / max(h, w)
    return img if r >= 1 else cv2.resize(img, (round(w * r), round(h * r)), interpolation=cv2.INTER_AREA)


def face_picture(img: np.ndarray, found: LocatedCard, w: int, h: int) -> np.ndarray:
    """The face as a card-shaped picture: cut flat at its exact corners, or (where they
    were not found) the finder's box, turned upright if the box lies wide."""
    if found.corners is not None:
        return warp_card(img, found.corners, w, h)
    x1, y1, x2, y2 = (int(round(v)) for v in found.box)
    cut = img[max(0, y1):y2, max(0, x1):x2]
    if cut.shape[1] > cut.shape[0]:
        cut = np.ascontiguousarray(np.rot90(cut))
    return cv2.resize(cut, (w, h), interpolation=cv2.INTER_AREA)


def enrol(src: Path, out: Path, w: int = CARD_W, h: int = CARD_H, finder: CardFinder | None = None) -> EnrolReport:
    """Locate the card in every picture of every face; write each face's best picture
    to ``out/<stem>.png`` and return the shots the prototypes are made from.

    A face is kept whenever one of its pictures shows one whole card: a soft photo,
    or one whose exact outline was not found, is learnt with a hint to retake it."""
    out.mkdir(parents=True, exist_ok=True)
    finder = finder or default_card_finder()
    done: dict[str, Path] = {}
    failed: dict[str, str] = {}
    quality: dict[str, float] = {}
    warnings: dict[str, str] = {}
    shots: dict[str, list[Shot]] = {}
    heif = heif_reader()
    for card, items in _items_by_face(src, failed, heif).items():
        found_all, why = [], "no pictures"
        if not heif and any(p.suffix.lower() in HEIF_SUFFIXES for item in items if item.is_dir()
                            for p in item.iterdir()):
            why = NO_HEIF
        problems: list[str] = []
        for img in (_smaller(img) for item in items for img in _pictures(item, problems=problems)):
            try:
                found = finder.locate(img)
            except CardNotFound as e:
                why = str(e)
                continue
            found_all.append((not found.soft, found.corners is not None, found.crispness, img, found))
        if not found_all:
            failed[card.code] = f"no card found in its pictures ({why})" if why != "no pictures" or not problems \
                else "; ".join(problems[:3])
            continue
        found_all.sort(key=lambda f: f[:3], reverse=True)  # crisp first, then exactly cut, then crispest
        crisp, exact, sharp, img, best = found_all[0]
        path = out / f"{file_stem(card)}.png"
        done[card.code] = path
        quality[card.code] = round(sharp, 3)
        shots[card.code] = [Shot(i, f.box, f.corners) for *_, i, f in found_all[:PHOTOS_PER_FACE]]
        hints = [] if crisp else [SOFT]
        if save_face(path, face_picture(img, best, w, h)):
            hints.append(COLOURED)
        if hints:
            warnings[card.code] = "; ".join(hints)
    return EnrolReport(done, failed, quality, warnings, shots)
