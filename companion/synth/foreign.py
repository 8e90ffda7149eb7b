"""Cards of other decks, drawn: so that "a card" means the whole card, whatever is printed on it.

Why: the card finder learnt one look of card (white paper, a symbol). On a black
playing card lying on a white desk it boxed the white desk around the card; on a
card with a coloured field and a white oval it took the oval for the card. These
faces are the other looks a family's deck may have, one design per deck:

- ``field``: a coloured or black field inside a white border, a white oval in the
  middle with a big symbol (UNO-like);
- ``dark``: a black or navy card, metallic (gold, silver) pips and corner indices;
- ``pips``: a white playing card, red or black pips in rows, corner indices;
- ``worn``: any of those faded, yellowed and scuffed;
- ``art`` (held out of training, a test of the finder only): full-bleed art (a
  photo or noise) with a small index in a corner.

Only the finder learns from them (one class, "card"); the face classifier never
does, so the faces' symbols need not be TAKI's.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("field", "dark", "pips", "worn")
HELD_OUT_KINDS = ("art",)

_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX)
_SYMBOLS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A", "K", "Q", "J", "+2", "+4", "S", "R")


def _colour(rng: np.random.Generator) -> tuple[int, int, int]:
    hue = int(rng.integers(0, 180))
    hsv = np.uint8([[[hue, int(rng.integers(150, 256)), int(rng.integers(120, 240))]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])  # type: ignore[return-value]


def _pip(img: np.ndarray, centre: tuple[int, int], r: int, colour: tuple[int, int, int], shape: int) -> None:
    x, y = centre
    if shape == 0:  # diamond
        pts = np.array([[x, y - r], [x + int(0.7 * r), y], [x, y + r], [x - int(0.7 * r), y]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif shape == 1:  # heart-ish
        cv2.circle(img, (x - r // 2, y - r // 4), r // 2, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y - r // 4), r // 2, colour, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([[x - r, y - r // 8], [x + r, y - r // 8], [x, y + r]], np.int32)], colour,
                     cv2.LINE_AA)
    elif shape == 2:  # club-ish
        for dx, dy in ((0, -r // 2), (-r // 2, 0), (r // 2, 0)):
            cv2.circle(img, (x + dx, y + dy), int(r * 0.45), colour, -1, cv2.LINE_AA)
        cv2.rectangle(img, (x - r // 8, y), (x + r // 8, y + r), colour, -1)
    else:  # spade-ish
        cv2.fillPoly(img, [np.array([[x, y - r], [x + r, y + r // 3], [x - r, y + r // 3]], np.int32)], colour,
                     cv2.LINE_AA)
        cv2.rectangle(img, (x - r // 8, y), (x + r // 8, y + r), colour, -1)


def _pip_rows(img: np.ndarray, rng: np.random.Generator, colour: tuple[int, int, int], top: float, span: float,
              size: float) -> None:
    """One to ten pips of one shape in two columns, as a playing card lays them out."""
    h, w = img.shape[:2]
    shape, n = int(rng.integers(4)), int(rng.integers(1, 11))
    for i in range(n):
        _pip(img, (int(w * (0.3 + 0.4 * (i % 2))), int(h * (top + span * (i // 2) / max(1, (n - 1) // 2)))),
             int(w * size), colour, shape)


def _index(img: np.ndarray, rng: np.random.Generator, text: str, colour: tuple[int, int, int], w: int) -> None:
    """The corner index at the top left and, turned round, the bottom right."""
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    scale = w / 300 * rng.uniform(0.9, 1.6)
    thick = max(1, int(w / 120))
    h = img.shape[0]
    cv2.putText(img, text, (int(0.06 * w), int(0.06 * h) + int(28 * scale)), font, scale, colour, thick, cv2.LINE_AA)
    turned = np.ascontiguousarray(img[::-1, ::-1])
    cv2.putText(turned, text, (int(0.06 * w), int(0.06 * h) + int(28 * scale)), font, scale, colour, thick,
                cv2.LINE_AA)
    img[:] = turned[::-1, ::-1]


def _big_symbol(img: np.ndarray, rng: np.random.Generator, text: str, colour: tuple[int, int, int]) -> None:
    h, w = img.shape[:2]
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    scale = w / 80 * rng.uniform(0.8, 1.2) / max(1, len(text)) ** 0.5
    thick = max(2, int(w / 25))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, ((w - tw) // 2, (h + th) // 2), font, scale, colour, thick, cv2.LINE_AA)


def foreign_face(rng: np.random.Generator, w: int, h: int, kind: str | None = None,
                 textures: tuple[np.ndarray, ...] = ()) -> np.ndarray:
    """One face (BGR, ``w`` x ``h``) of a deck of ``kind`` (drawn at random from
    :data:`KINDS` when None)."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    symbol = _SYMBOLS[int(rng.integers(len(_SYMBOLS)))]
    if kind in ("field", "worn") and (kind == "field" or rng.random() < 0.4):
        field = (20, 20, 20) if rng.random() < 0.15 else _colour(rng)
        img = np.full((h, w, 3), 245, np.uint8)
        m = int(w * rng.uniform(0.04, 0.09))
        cv2.rectangle(img, (m, m), (w - m, h - m), field, -1)
        cv2.ellipse(img, (w // 2, h // 2), (int(w * 0.36), int(h * 0.42)), float(rng.uniform(15, 40)), 0, 360,
                    (245, 245, 245), -1, cv2.LINE_AA)
        _big_symbol(img, rng, symbol, field)
        _index(img, rng, symbol, (245, 245, 245), w)
    elif kind in ("dark", "worn") and (kind == "dark" or rng.random() < 0.5):
        base = (int(rng.integers(10, 40)),) * 3 if rng.random() < 0.6 else (int(rng.integers(50, 90)), 25, 20)
        img = np.full((h, w, 3), base, np.uint8)
        metal = (60, 170, 210) if rng.random() < 0.6 else (200, 200, 200)
        _pip_rows(img, rng, metal, 0.2, 0.6, 0.08)
        _index(img, rng, symbol, metal, w)
    elif kind == "art":
        if textures:
            t = textures[int(rng.integers(len(textures)))]
            img = cv2.resize(t, (w, h), interpolation=cv2.INTER_AREA)
        else:
            img = np.clip(cv2.GaussianBlur(rng.random((h // 8, w // 8, 3)).astype(np.float32), (0, 0), 2) * 400,
                          0, 255).astype(np.uint8)
            img = cv2.resize(img, (w, h))
        _index(img, rng, symbol, (250, 250, 250), w)
    else:  # pips (and worn pips)
        img = np.full((h, w, 3), int(rng.integers(225, 252)), np.uint8)
        ink = (30, 30, 200) if rng.random() < 0.5 else (25, 25, 25)
        _pip_rows(img, rng, ink, 0.18, 0.64, 0.09)
        _index(img, rng, symbol, ink, w)
    if kind == "worn":
        yellow = np.array([0.85, 0.95, 1.0]) * rng.uniform(0.85, 1.0)
        img = np.clip(img.astype(np.float32) * yellow + rng.uniform(10, 35), 0, 255).astype(np.uint8)
        for _ in range(int(rng.integers(3, 12))):
            p = rng.integers(0, [w, h], 2)
            q = p + rng.integers(-w // 4, w // 4, 2)
            cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q), (200, 200, 200), 1, cv2.LINE_AA)
    return img


class ForeignDeck(dict):  # type: ignore[type-arg]
    """One deck of one kind and design: a face drawn when first asked for (any card
    code stands for one of its faces: the finder only learns "a card")."""

    def __init__(self, rng: np.random.Generator, w: int, h: int, kinds: tuple[str, ...] = KINDS,
                 textures: tuple[np.ndarray, ...] = ()) -> None:
        super().__init__()
        self.kind = kinds[int(rng.integers(len(kinds)))]
        self.seed = int(rng.integers(2**31))
        self.w, self.h, self.textures = w, h, textures

    def __missing__(self, card):  # type: ignore[no-untyped-def]
        from .faces import card_mask

        rng = np.random.default_rng([self.seed, card.index])
        img = foreign_face(rng, self.w, self.h, self.kind, self.textures)
        face = np.dstack([img, card_mask(self.w, self.h, max(4, self.w // 14))])
        self[card] = face
        return face
