"""Symbols of the TAKI faces as masks, in many glyph families.

A face is drawn in two steps: the *shape* of its symbol (this module: numerals,
letters and pictures as 0/255 masks) and the *look* given to it (``styles.py``:
flat, outlined, or an extruded 3D block as on the published deck). Shapes come
from drawn block glyphs or from any installed font, so the reader learns what a
"7" is rather than how one font draws it.

Fonts: matplotlib's bundled DejaVu and STIX faces are always there; the Debian
packages ``.ci/run`` and the README install (fonts-liberation, fonts-freefont-ttf,
fonts-urw-base35, fonts-lato, fonts-open-sans) add more families when present.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: The drawn block family (chunky strokes on a grid), always available.
DRAWN = "block-drawn"

# Font families by name: candidate files (the first that exists is used).
_FONT_FILES: dict[str, tuple[str, ...]] = {
    "dejavu-sans": ("DejaVuSans-Bold.ttf",),
    "dejavu-condensed": ("DejaVuSansCondensed-Bold.ttf",),
    "dejavu-serif": ("DejaVuSerif-Bold.ttf",),
    "dejavu-mono": ("DejaVuSansMono-Bold.ttf",),
    "stix": ("STIXGeneralBol.ttf",),
    "liberation-sans": ("LiberationSans-Bold.ttf",),
    "liberation-narrow": ("LiberationSansNarrow-Bold.ttf",),
    "liberation-serif": ("LiberationSerif-Bold.ttf",),
    "liberation-mono": ("LiberationMono-Bold.ttf",),
    "free-sans": ("FreeSansBold.ttf",),
    "free-serif": ("FreeSerifBold.ttf",),
    "nimbus-sans": ("NimbusSans-Bold.otf",),
    "nimbus-narrow": ("NimbusSansNarrow-Bold.otf",),
    "nimbus-roman": ("NimbusRoman-Bold.otf",),
    "century": ("C059-Bold.otf",),
    "palatino": ("P052-Bold.otf",),
    "bookman": ("URWBookman-Demi.otf",),
    "urw-gothic": ("URWGothic-Demi.otf",),
    "lato": ("Lato-Black.ttf", "Lato-Heavy.ttf", "Lato-Bold.ttf"),
    "open-sans": ("OpenSans-ExtraBold.ttf", "OpenSans-Bold.ttf"),
}

#: The glyph family held out of training: the generalisation test renders the
#: published block style with it, and no training face ever uses it.
HELD_OUT_FAMILY = "urw-gothic"

_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")


@functools.cache
def _font_index() -> dict[str, Path]:
    """File name -> path for every font file on this machine (and matplotlib's)."""
    found: dict[str, Path] = {}
    dirs = [Path(d) for d in _FONT_DIRS]
    try:
        import matplotlib

        dirs.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf")
    except ImportError:  # pragma: no cover - matplotlib comes with ultralytics
        pass
    for d in dirs:
        if d.is_dir():
            for p in sorted(d.rglob("*")):
                if p.suffix.lower() in {".ttf", ".otf"}:
                    found.setdefault(p.name, p)
    return found


@functools.cache
def font_families() -> dict[str, Path]:
    """The font families present here, by name (sorted, so sampling is stable)."""
    index = _font_index()
    out = {}
    for name in sorted(_FONT_FILES):
        for f in _FONT_FILES[name]:
            if f in index:
                out[name] = index[f]
                break
    return out


def glyph_families(include_held_out: bool = False) -> tuple[str, ...]:
    """Every glyph family available: the drawn blocks and each installed font."""
    fams = [DRAWN, *font_families()]
    return tuple(f for f in fams if include_held_out or f != HELD_OUT_FAMILY)


# ------------------------------------------------------------------ drawn blocks

# Strokes on a unit box (x right, y down), drawn as thick square-ended bars.
_L, _R, _T, _B, _M = 0.0, 1.0, 0.0, 1.0, 0.5
_DRAWN_STROKES: dict[str, list[list[tuple[float, float]]]] = {
    "1": [[(0.6, _T), (0.6, _B)], [(0.6, _T), (0.15, 0.28)]],  # a flag, no foot serif
    "2": [[(_L, _T), (_R, _T), (_R, _M), (_L, _M), (_L, _B), (_R, _B)]],
    "3": [[(_L, _T), (_R, _T), (_R, _B), (_L, _B)], [(0.25, _M), (_R, _M)]],
    "4": [[(_L, _T), (_L, 0.62), (_R, 0.62)], [(0.72, 0.3), (0.72, _B)]],
    "5": [[(_R, _T), (_L, _T), (_L, _M), (_R, _M), (_R, _B), (_L, _B)]],
    "6": [[(_R, _T), (_L, _T), (_L, _B), (_R, _B), (_R, _M), (_L, _M)]],
    "7": [[(_L, _T), (_R, _T), (0.38, _B)]],
    "8": [[(_L, _T), (_R, _T), (_R, _B), (_L, _B), (_L, _T)], [(_L, _M), (_R, _M)]],
    "9": [[(_R, _M), (_L, _M), (_L, _T), (_R, _T), (_R, _B), (_L, _B)]],
    "+": [[(_M, 0.05), (_M, 0.95)], [(0.05, _M), (0.95, _M)]],
    "T": [[(_L, _T), (_R, _T)], [(_M, _T), (_M, _B)]],
    "A": [[(_L, _B), (_M, _T), (_R, _B)], [(0.22, 0.66), (0.78, 0.66)]],
    "K": [[(_L, _T), (_L, _B)], [(_R, _T), (0.05, 0.58)], [(0.38, 0.4), (_R, _B)]],
    "I": [[(_M, _T), (_M, _B)]],
}


def _drawn_char(ch: str, w: int, h: int, weight: float) -> np.ndarray:
    """One drawn block glyph filling a w x h mask; ``weight`` = stroke / width."""
    m = np.zeros((h, w), np.uint8)
    t = max(2, int(round(min(w, h * 0.7) * weight)))
    pad = t / 2 + 1
    for stroke in _DRAWN_STROKES[ch]:
        pts = [(pad + x * (w - 2 * pad), pad + y * (h - 2 * pad)) for x, y in stroke]
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            _bar(m, (x1, y1), (x2, y2), t)
    return m


def _bar(m: np.ndarray, a: tuple[float, float], b: tuple[float, float], t: float) -> None:
    """A thick bar with square ends that reach past the end points (blocky joints)."""
    d = np.subtract(b, a).astype(np.float64)
    n = float(np.hypot(*d)) or 1.0
    u = d / n
    v = np.array([-u[1], u[0]])
    p1, p2 = np.array(a) - u * t / 2, np.array(b) + u * t / 2
    poly = np.array([p1 + v * t / 2, p2 + v * t / 2, p2 - v * t / 2, p1 - v * t / 2])
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 255, cv2.LINE_AA)


# ------------------------------------------------------------------ font glyphs

@functools.cache
def _font(path: Path, size: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def _font_text(text: str, path: Path) -> np.ndarray:
    """``text`` in the font, tightly cropped, as a mask at a fixed large size."""
    from PIL import Image, ImageDraw

    font = _font(path, 160)
    l, t, r, b = font.getbbox(text)
    img = Image.new("L", (r - l + 8, b - t + 8), 0)
    ImageDraw.Draw(img).text((4 - l, 4 - t), text, fill=255, font=font)
    return _tight(np.array(img))


def _tight(m: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(m > 40)
    if len(xs) == 0:
        return m
    return m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


@dataclass(frozen=True, slots=True)
class Glyphs:
    """How text is shaped: a family, a stroke weight (drawn blocks), and the
    width/height ratio glyphs are stretched to (condensed to wide)."""

    family: str = DRAWN
    weight: float = 0.27
    aspect: float = 0.62

    def text(self, text: str, w: int, h: int) -> np.ndarray:
        """``text`` as a mask that fits a w x h box (centred, aspect kept within it)."""
        if self.family == DRAWN:
            gap = 0.12
            n = len(text)
            cw = min(w / (n + gap * (n - 1)), h * self.aspect)
            widths = [cw * (0.55 if ch in "1I" else 1.0) for ch in text]
            total = sum(widths) + gap * cw * (n - 1)
            m = np.zeros((h, w), np.uint8)
            x = (w - total) / 2
            for ch, cw_i in zip(text, widths):
                gw = max(4, int(cw_i))
                gm = _drawn_char(ch, gw, h, self.weight * cw / cw_i)
                x0 = int(x)
                m[:, x0 : x0 + gw] = np.maximum(m[:, x0 : x0 + gw], gm[:, : m[:, x0 : x0 + gw].shape[1]])
                x += cw_i + gap * cw
            return _fit(_tight(m), w, h, 1.0)
        path = font_families().get(self.family)
        if path is None:
            raise KeyError(f"glyph family {self.family!r} is not installed here "
                           f"(installed: {', '.join(glyph_families(True))})")
        stretch = self.aspect / 0.62
        return _fit(_font_text(text, path), w, h, stretch)


def _fit(src: np.ndarray, w: int, h: int, stretch: float) -> np.ndarray:
    """Scale a mask into a w x h box (widened by ``stretch``), centred."""
    sh, sw = src.shape[:2]
    s = min(w / (sw * stretch), h / sh)
    nw, nh = max(1, int(sw * stretch * s)), max(1, int(sh * s))
    g = cv2.resize(src, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((h, w), np.uint8)
    x0, y0 = (w - nw) // 2, (h - nh) // 2
    out[y0 : y0 + nh, x0 : x0 + nw] = g
    return out


# ------------------------------------------------------------------ pictures

def _poly_mask(w: int, h: int, pts: list[tuple[float, float]]) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    arr = np.array([(x * w, y * h) for x, y in pts], np.float64)
    cv2.fillPoly(m, [np.round(arr).astype(np.int32)], 255, cv2.LINE_AA)
    return m


def hand(w: int, h: int, spread: float = 1.0) -> np.ndarray:
    """Stop: an open hand, palm out, fingers up (thumb to the left)."""
    m = np.zeros((h, w), np.uint8)
    u = min(w, h)
    palm_top, palm_bot = int(h * 0.48), int(h * 0.96)
    r = int(u * 0.12)
    cv2.rectangle(m, (int(w * 0.2), palm_top), (int(w * 0.84), palm_bot - r), 255, -1)
    cv2.ellipse(m, (int(w * 0.52), palm_bot - r), (int(w * 0.32), r), 0, 0, 180, 255, -1, cv2.LINE_AA)
    fw = max(2, int(w * 0.13))
    tops = (0.18, 0.05, 0.08, 0.2)
    for i, top in enumerate(tops):
        x = int(w * (0.27 + i * 0.165) + (i - 1.5) * w * 0.02 * (spread - 1))
        cv2.line(m, (x, palm_top + fw), (x, int(h * top) + fw // 2), 255, fw, cv2.LINE_AA)
    # The thumb, slanting out from the lower left of the palm.
    cv2.line(m, (int(w * 0.28), int(h * 0.75)), (int(w * 0.05), int(h * 0.46)), 255, fw, cv2.LINE_AA)
    return m


def arrows(w: int, h: int) -> np.ndarray:
    """Change Direction: two block arrows side by side, one up, one down, offset
    like a zigzag."""
    up = [(0.0, 0.3), (0.25, 0.0), (0.5, 0.3), (0.36, 0.3), (0.36, 0.78), (0.14, 0.78), (0.14, 0.3)]
    down = [(0.5 + x, 1.0 - y) for x, y in up]
    return np.maximum(_poly_mask(w, h, up), _poly_mask(w, h, down))


def plus_blocks(w: int, h: int, offset: float = 0.04) -> np.ndarray:
    """Plus: a plus sign made of two blocks, the bar a little offset."""
    b = 0.17
    vert = [(0.5 - b, 0.0), (0.5 + b, 0.0), (0.5 + b, 1.0), (0.5 - b, 1.0)]
    horiz = [(0.0, 0.5 - b + offset), (1.0, 0.5 - b + offset), (1.0, 0.5 + b + offset), (0.0, 0.5 + b + offset)]
    return np.maximum(_poly_mask(w, h, vert), _poly_mask(w, h, horiz))


def crown(w: int, h: int) -> np.ndarray:
    """King: a crown with three points and a band."""
    pts = [(0.02, 0.95), (0.02, 0.25), (0.27, 0.55), (0.5, 0.05), (0.73, 0.55), (0.98, 0.25), (0.98, 0.95)]
    return _poly_mask(w, h, pts)


def crack(mask: np.ndarray, rng_seed: int = 7, width: float | None = None) -> np.ndarray:
    """+3 Breaker: the same +3, broken by a wide zigzag crack from top to bottom, the
    right-hand piece knocked down a little, so the break shows at the classifier's size."""
    h, w = mask.shape
    rng = np.random.default_rng(rng_seed)
    width = float(rng.uniform(0.06, 0.11)) if width is None else width
    ys = np.linspace(-0.05, 1.05, 7) * h
    xs = w * (0.55 + rng.uniform(-0.12, 0.12, len(ys)))
    pts = np.stack([xs, ys], 1).round().astype(np.int32)
    right = np.zeros_like(mask)
    cv2.fillPoly(right, [np.vstack([pts, [[w + 5, int(1.05 * h)], [w + 5, int(-0.05 * h)]]]).astype(np.int32)], 255)
    drop = int(round(h * rng.uniform(0.0, 0.06)))
    moved = np.where(right > 0, mask, 0)
    if drop:
        moved = np.vstack([np.zeros((drop, w), mask.dtype), moved[:-drop]])
    out = np.maximum(np.where(right > 0, 0, mask), moved)
    cut = np.zeros_like(mask)
    cv2.polylines(cut, [pts], False, 255, max(2, int(w * width)), cv2.LINE_AA)
    return np.where(cut > 0, 0, out).astype(np.uint8)
