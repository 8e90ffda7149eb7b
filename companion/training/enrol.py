"""Deck enrolment: learn any physical deck from photos or short videos of its faces.

Layout of the source folder: ``<CODE>/*.jpg`` (photos of one face, e.g.
``R7/``, ``KING/``; ``+`` may be spelt ``plus``) or ``<CODE>.mp4`` (a short clip).
Each picture is searched for the card (the largest bright four-cornered
contour), warped flat to the print size, and the sharpest crop per face is
written as ``<stem>.png``: the compositor then uses it in place of the render.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import Card, CardParseError, file_stem
from ..synth.faces import CARD_H, CARD_W, card_mask
from ..vision.sources import IMAGE_SUFFIXES, VIDEO_SUFFIXES


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left; the long side upright."""
    pts = pts.reshape(4, 2).astype(np.float32)
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(pts.sum(1)))
    pts = np.roll(pts, -start, 0)
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[3] - pts[0]):  # landscape: turn upright
        pts = np.roll(pts, -1, 0)
    return pts


def find_card(image: np.ndarray, min_area: float = 0.03) -> np.ndarray | None:
    """The four corners of the biggest card in the picture, or None."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    _, mask = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best, best_area = None, min_area * gray.size
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < best_area:
            continue
        hull = cv2.convexHull(cnt)
        quad = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
        if len(quad) != 4:
            rect = cv2.minAreaRect(hull)  # rounded corners can cost a vertex: fall back to the box
            quad = cv2.boxPoints(rect)
        best, best_area = quad, area
    return None if best is None else order_corners(np.asarray(best))


def warp_card(image: np.ndarray, corners: np.ndarray, w: int = CARD_W, h: int = CARD_H) -> np.ndarray:
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)


def sharpness(img: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def _pictures(path: Path, every: int = 5) -> list[np.ndarray]:
    if path.is_dir():
        return [img for p in sorted(path.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES
                for img in [cv2.imread(str(p))] if img is not None]
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


def _face_of(name: str) -> Card | None:
    try:
        return Card.from_code(name.replace("plus", "+"))
    except CardParseError:
        return None


@dataclass(frozen=True, slots=True)
class EnrolReport:
    enrolled: dict[str, Path]
    failed: dict[str, str]  # face or file -> why


def enrol(src: Path, out: Path, w: int = CARD_W, h: int = CARD_H) -> EnrolReport:
    out.mkdir(parents=True, exist_ok=True)
    done: dict[str, Path] = {}
    failed: dict[str, str] = {}
    for item in sorted(src.iterdir()):
        if not (item.is_dir() or item.suffix.lower() in VIDEO_SUFFIXES):
            continue
        card = _face_of(item.stem if item.is_file() else item.name)
        if card is None:
            failed[item.name] = "not a face code (e.g. R7, B+2 or Bplus2, KING)"
            continue
        crops = []
        for img in _pictures(item):
            quad = find_card(img)
            if quad is not None:
                crops.append(warp_card(img, quad, w, h))
        if not crops:
            failed[card.code] = "no card found in its pictures"
            continue
        best = max(crops, key=sharpness)
        path = out / f"{file_stem(card)}.png"
        cv2.imwrite(str(path), np.dstack([best, card_mask(w, h)]))
        done[card.code] = path
    return EnrolReport(done, failed)
