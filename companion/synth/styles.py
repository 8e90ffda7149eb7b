"""Card faces in many styles, the published TAKI deck's among them.

The published deck: a white card with no frame, one big symbol drawn as an
isometric 3D block (flat front face in the card's colour, a thick black outline,
extruded sides in a darker shade: violet for blue, orange for yellow, dark red,
dark green), and a small flat copy of the symbol in all four corners.

:class:`FaceStyle` holds every knob of a look (glyph family, extrusion depth and
direction, outline, hue, gloss, print wear, frame, corner indices); the sampler
draws one at random so the reader never learns a single drawing. Three families:
``block`` (the published look), ``flat`` (coloured symbols, no extrusion, as
many other decks print) and ``classic`` (the project's first renderer, kept as
one style among many).
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ..rules.cards import Card, Color, Kind
from . import glyphs as G
from .faces import CARD_H, CARD_W, card_mask, render_face

INK = np.array((22, 22, 22), np.float32)

# Front and side colours (BGR) of the published deck, before a style's hue jitter.
FRONT: dict[Color, tuple[int, int, int]] = {
    Color.RED: (40, 36, 214),
    Color.BLUE: (205, 105, 28),
    Color.YELLOW: (18, 208, 250),
    Color.GREEN: (52, 168, 48),
}
SIDE_PUBLISHED: dict[Color, tuple[int, int, int]] = {
    Color.RED: (30, 22, 128),  # dark red
    Color.BLUE: (128, 36, 98),  # violet-purple
    Color.YELLOW: (8, 118, 238),  # orange
    Color.GREEN: (24, 96, 22),  # dark green
}
GOLD = (28, 180, 238)
FAMILIES = ("block", "flat", "classic")
COLOURLESS_INKS = ("black", "gold", "colour")


@dataclass(frozen=True, slots=True)
class FaceStyle:
    family: str = "block"
    glyphs: G.Glyphs = field(default_factory=G.Glyphs)
    depth: float = 0.075  # extrusion, fraction of the symbol's width (0: flat)
    direction: float = 60.0  # degrees, image coordinates (90: straight down)
    outline: float = 0.028  # fraction of the symbol's width (0: none)
    hue_shift: float = 0.0  # degrees
    saturation: float = 1.0
    value: float = 1.0
    published_sides: bool = True  # violet/orange sides (else a darker same hue)
    side_dark: float = 0.6
    gloss: float = 0.0
    wear: float = 0.0
    frame: bool = False
    corners: int = 4  # corner indices: 4, 2 (diagonal) or 0
    symbol_scale: float = 0.68  # symbol width, fraction of the card's
    paper: tuple[int, int, int] = (252, 252, 252)
    colourless_ink: str = "black"
    underline_69: bool = False
    # The 9 drawn as this style's 6 turned half round, as drawn blocks and many fonts
    # shape them: then only the card's own cues (corner indices, which way the block's
    # sides fall, an underline) tell a 6 from a 9, never a font's quirk.
    turned_69: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown style family {self.family!r}; use one of {', '.join(FAMILIES)}")


#: The look of the published deck, drawn with the block glyphs.
PUBLISHED = FaceStyle()


def sample_style(rng: np.random.Generator, held_out: bool = False,
                 families: tuple[str, ...] = ("block", "block", "block", "flat", "flat", "classic"),
                 turned_69: float = 0.0) -> FaceStyle:
    """A random look. Training never sees :data:`glyphs.HELD_OUT_FAMILY`;
    ``held_out=True`` draws the published block style in that family only.
    ``turned_69``: the share of (training) looks whose 9 is their 6 turned round;
    drawn from the look's own seed, so any share leaves every other knob as it was."""
    fam = "block" if held_out else str(families[int(rng.integers(len(families)))])
    if held_out:
        gfam = G.HELD_OUT_FAMILY
        if gfam not in G.font_families():
            raise KeyError(f"the held-out glyph family {gfam} needs Debian's fonts-urw-base35")
    else:
        pool = G.glyph_families()
        gfam = G.DRAWN if rng.random() < 0.3 else str(pool[int(rng.integers(len(pool)))])
    glyph = G.Glyphs(gfam, float(rng.uniform(0.2, 0.34)), float(rng.uniform(0.5, 0.78)))
    block = fam == "block"
    cream = rng.uniform(0, 1) < 0.3
    paper = (int(rng.uniform(200, 240)), int(rng.uniform(225, 250)), int(rng.uniform(235, 255))) if cream else \
        (int(rng.uniform(238, 256)),) * 3
    out = FaceStyle(
        family=fam, glyphs=glyph,
        depth=float(rng.uniform(0.03, 0.13)) if block else 0.0,
        direction=float(rng.uniform(25, 155)),
        outline=float(rng.uniform(0.01, 0.045)) if block or rng.random() < 0.6 else 0.0,
        hue_shift=float(rng.uniform(-10, 10)), saturation=float(rng.uniform(0.7, 1.1)),
        value=float(rng.uniform(0.78, 1.05)), published_sides=bool(rng.random() < 0.65),
        side_dark=float(rng.uniform(0.45, 0.72)), gloss=float(rng.uniform(0, 0.6)) if rng.random() < 0.5 else 0.0,
        wear=float(rng.uniform(0, 1) ** 2), frame=bool(rng.random() < (0.2 if block else 0.5)),
        corners=int(rng.choice([4, 4, 2, 0])), symbol_scale=float(rng.uniform(0.55, 0.8)),
        paper=paper, colourless_ink=str(COLOURLESS_INKS[int(rng.integers(3))]),
        # Flat faces have no extrusion to show which way is up: a 6 turned round is a 9
        # unless it is marked, as printed decks mark them. Block faces show it by their sides.
        underline_69=bool(not block or rng.random() < 0.2), seed=int(rng.integers(2**31)),
    )
    if turned_69 > 0 and not held_out:
        out = replace(out, turned_69=bool(np.random.default_rng([out.seed, 69]).random() < turned_69))
    return out


# ------------------------------------------------------------------ colours

def _jitter(bgr: tuple[int, int, int], style: FaceStyle) -> np.ndarray:
    b, g, r = (v / 255 for v in bgr)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    h = (h + style.hue_shift / 360) % 1.0
    s, v = min(1.0, s * style.saturation), min(1.0, v * style.value)
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return np.array([b * 255, g * 255, r * 255], np.float32)


def front_colour(color: Color, style: FaceStyle) -> np.ndarray:
    return _jitter(FRONT[color], style)


def side_colour(color: Color, style: FaceStyle) -> np.ndarray:
    if style.published_sides:
        return _jitter(SIDE_PUBLISHED[color], style)
    return front_colour(color, style) * style.side_dark


# ------------------------------------------------------------------ symbols

@dataclass(frozen=True)
class Part:
    """One piece of a symbol: its mask in the symbol box, front and side colour."""

    mask: np.ndarray
    front: np.ndarray
    side: np.ndarray


def _ink(card: Card, style: FaceStyle, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if card.color is not None:
        return front_colour(card.color, style), side_colour(card.color, style)
    if style.colourless_ink == "gold" or card.kind is Kind.KING:
        g = _jitter(GOLD, style)
        return g, g * 0.55
    if style.colourless_ink == "colour":
        c = list(Color)[int(rng.integers(4))]
        return front_colour(c, style), side_colour(c, style)
    return np.array((40, 40, 40), np.float32), np.array((90, 90, 90), np.float32)


def symbol_parts(card: Card, style: FaceStyle, w: int, h: int, corner: bool = False) -> list[Part]:
    """The symbol of ``card`` in a w x h box, as coloured parts drawn in order.
    ``corner``: the corner index (TAKI: the word; +2: the 2 with a small +)."""
    rng = np.random.default_rng(style.seed)
    front, side = _ink(card, style, rng)
    g, k = style.glyphs, card.kind
    z = np.zeros((h, w), np.uint8)

    def one(mask: np.ndarray) -> list[Part]:
        return [Part(mask, front, side)]

    if k is Kind.NUMBER:
        def numeral(height: int) -> np.ndarray:
            if card.number == 9 and style.turned_69:
                return np.ascontiguousarray(g.text("6", w, height)[::-1, ::-1])
            return g.text(str(card.number), w, height)

        underlined = card.number in (6, 9) and style.underline_69
        m = numeral(int(h * 0.86) if underlined else h)
        if underlined:
            m = np.vstack([m, np.zeros((h - m.shape[0], w), np.uint8)])
            t = max(2, h // 14)
            m[h - 2 * t : h - t, w // 4 : 3 * w // 4] = 255
        return one(m)
    if k in (Kind.PLUS2, Kind.PLUS3, Kind.BREAKER):
        digit = "2" if k is Kind.PLUS2 else "3"
        m = z.copy()
        m[int(h * 0.12) :, int(w * 0.3) :] = g.text(digit, w - int(w * 0.3), h - int(h * 0.12))
        ps = int(min(w, h) * 0.34)
        m[:ps, :ps] = np.maximum(m[:ps, :ps], g.text("+", ps, ps))
        if k is Kind.BREAKER:
            m = G.crack(m, 3 + style.seed % 5)
        return one(m)
    if k is Kind.PLUS:
        return one(G.plus_blocks(w, h, 0.03 * (1 if style.seed % 2 else -1)))
    if k is Kind.STOP:
        return one(G.hand(w, h, 1.0 + 0.4 * ((style.seed >> 3) % 3)))
    if k is Kind.CHANGE_DIRECTION:
        return one(G.arrows(w, h))
    if k is Kind.KING:
        return one(G.crown(w, h))
    if k in (Kind.TAKI, Kind.SUPER_TAKI):
        if corner and k is Kind.TAKI:
            word = z.copy()
            word[h // 8 : h // 8 + h * 3 // 4] = g.text("TAKI", w, h * 3 // 4)
            return one(word)
        top, bottom = z.copy(), z.copy()
        half = h // 2
        top[: half - h // 20] = g.text("TA", w, half - h // 20)
        bottom[half + h // 20 :] = g.text("KI", w, h - half - h // 20)
        if k is Kind.TAKI:
            return one(np.maximum(top, bottom))
        # Super TAKI: each letter a different colour of the four.
        parts, order = [], list(Color)
        rng.shuffle(order)  # type: ignore[arg-type]
        for i, m in enumerate(_split_letters(top) + _split_letters(bottom)):
            c = order[i % 4]
            parts.append(Part(m, front_colour(c, style), side_colour(c, style)))
        return parts
    if k is Kind.CHANGE_COLOR:
        return _cubes(w, h, style, corner)
    raise ValueError(f"no symbol for {card}")  # pragma: no cover - every kind is listed


def _split_letters(m: np.ndarray) -> list[np.ndarray]:
    """Two letters of a row as two masks (split at the emptiest middle column)."""
    cols = (m > 40).sum(0)
    xs = np.nonzero(cols)[0]
    if len(xs) == 0:
        return [m, np.zeros_like(m)]
    lo, hi = xs.min(), xs.max()
    mid_lo, mid_hi = lo + (hi - lo) // 3, lo + 2 * (hi - lo) // 3
    cut = mid_lo + int(np.argmin(cols[mid_lo:mid_hi + 1]))
    a, b = m.copy(), m.copy()
    a[:, cut:] = 0
    b[:, :cut] = 0
    return [a, b]


def _cubes(w: int, h: int, style: FaceStyle, corner: bool) -> list[Part]:
    """Change Colour: an isometric stack of four cubes (red, blue, yellow, green);
    in the corner, a small diamond split in the four colours."""
    colours = [Color.RED, Color.BLUE, Color.YELLOW, Color.GREEN]
    parts = []
    if corner:
        cx, cy = w / 2, h / 2
        pts = {"t": (cx, 0), "r": (w, cy), "b": (cx, h), "l": (0, cy), "c": (cx, cy)}
        quads = [("t", "r"), ("r", "b"), ("b", "l"), ("l", "t")]
        for (a, b_), c in zip(quads, colours):
            m = np.zeros((h, w), np.uint8)
            poly = np.array([pts["c"], pts[a], pts[b_]], np.float64)
            cv2.fillPoly(m, [poly.round().astype(np.int32)], 255, cv2.LINE_AA)
            parts.append(Part(m, front_colour(c, style), side_colour(c, style)))
        return parts
    # Cubes of edge e in isometric view, two columns of two: bottom ones first.
    e = min(w / 3.6, h / 3.2)
    dx, dy = e * np.cos(np.pi / 6), e * 0.5
    x0, y0 = w / 2, h / 2
    spots = [(-dx, 0.0), (dx, 0.0), (-dx, -e), (dx, -e)]
    for (ox, oy), c in zip(spots, colours):
        xc, yc = x0 + ox, y0 + oy
        top = [(xc, yc - dy), (xc + dx, yc), (xc, yc + dy), (xc - dx, yc)]
        left = [(xc - dx, yc), (xc, yc + dy), (xc, yc + dy + e), (xc - dx, yc + e)]
        right = [(xc, yc + dy), (xc + dx, yc), (xc + dx, yc + e), (xc, yc + dy + e)]
        top = [(x, y - e / 2) for x, y in top]
        left = [(x, y - e / 2) for x, y in left]
        right = [(x, y - e / 2) for x, y in right]
        f, s = front_colour(c, style), side_colour(c, style)
        for poly, col in ((left, f), (right, s), (top, np.minimum(255, f * 0.6 + 255 * 0.4))):
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [np.array(poly).round().astype(np.int32)], 255, cv2.LINE_AA)
            parts.append(Part(m, col, col))
    return parts


# ------------------------------------------------------------------ painting

def _paint(canvas: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> None:
    a = (mask.astype(np.float32) / 255)[..., None]
    canvas[:] = canvas * (1 - a) + colour * a


def _dilate(mask: np.ndarray, px: float) -> np.ndarray:
    r = int(round(px))
    if r <= 0:
        return mask
    return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))


def _draw_parts(canvas: np.ndarray, parts: list[Part], style: FaceStyle, x: int, y: int, scale_w: int,
                flat: bool = False) -> None:
    """Paint the parts at (x, y): outline, extruded sides, then the front faces."""
    h, w = parts[0].mask.shape
    pad = int(scale_w * 0.2) + 4
    region = canvas[y - pad : y + h + pad, x - pad : x + w + pad]
    if region.shape[:2] != (h + 2 * pad, w + 2 * pad):
        pad = 0
        region = canvas[y : y + h, x : x + w]
    padded = [np.pad(p.mask, pad) for p in parts]
    depth = 0 if flat else int(round(style.depth * scale_w))
    ow = style.outline * scale_w * (0.5 if flat else 1.0)
    d = np.array([np.cos(np.radians(style.direction)), np.sin(np.radians(style.direction))])
    exts = []
    for m in padded:
        ext = np.zeros_like(m)
        for k in range(1, depth + 1):
            mt = np.float32([[1, 0, d[0] * k], [0, 1, d[1] * k]])
            ext = np.maximum(ext, cv2.warpAffine(m, mt, (m.shape[1], m.shape[0])))
        exts.append(ext)
    if ow > 0.5:
        solid = np.max([np.maximum(m, e) for m, e in zip(padded, exts)], 0)
        _paint(region, _dilate(solid, ow), INK)
    for m, e, p in zip(padded, exts, parts):
        if depth:
            _paint(region, e, p.side)
            if ow > 0.5:
                _paint(region, _dilate(m, max(1.0, ow * 0.55)), INK)
        _paint(region, m, p.front)
    if style.gloss > 0 and not flat:
        union = np.max(padded, 0).astype(np.float32) / 255
        yy = np.linspace(0, 1, union.shape[0])[:, None]
        xx = np.linspace(0, 1, union.shape[1])[None, :]
        streak = np.clip(1 - np.abs((xx + yy) - 0.7) / 0.12, 0, 1) * style.gloss * 0.6
        a = (union * streak)[..., None]
        region[:] = region * (1 - a) + 255 * a


def _wear(img: np.ndarray, style: FaceStyle, rng: np.random.Generator) -> None:
    """Print wear: faded ink in blotches, light scratches and paper grain."""
    if style.wear <= 0.02:
        return
    h, w = img.shape[:2]
    small = rng.random((max(2, h // 40), max(2, w // 40))).astype(np.float32)
    blot = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    fade = np.clip((blot - 0.55) * 3, 0, 1) * style.wear * 0.45
    paper = np.array(style.paper, np.float32)
    img[:] = img * (1 - fade[..., None]) + paper * fade[..., None]
    for _ in range(int(style.wear * 8)):
        p1 = rng.uniform(0, 1, 2) * (w, h)
        p2 = p1 + rng.normal(0, 0.15, 2) * (w, h)
        cv2.line(img, tuple(int(v) for v in p1), tuple(int(v) for v in p2),
                 tuple(float(v) for v in paper * 0.97), 1, cv2.LINE_AA)
    img[:] = np.clip(img + rng.normal(0, 3 + 6 * style.wear, img.shape[:2])[..., None], 0, 255)


def render_styled_face(card: Card, style: FaceStyle = PUBLISHED, w: int = CARD_W, h: int = CARD_H) -> np.ndarray:
    """The face in ``style`` as a BGRA image (alpha = the rounded card shape)."""
    if style.family == "classic":
        return render_face(card, w, h)
    rng = np.random.default_rng([style.seed, card.index])
    img = np.empty((h, w, 3), np.float32)
    img[:] = style.paper
    if style.frame:
        inset, t = int(w * 0.035), max(2, int(w * 0.022))
        col = front_colour(card.color, style) if card.color is not None else INK
        cv2.rectangle(img, (inset, inset), (w - inset, h - inset), tuple(float(v) for v in col), t, cv2.LINE_AA)
    # The centre symbol.
    sw = int(w * style.symbol_scale)
    sh = min(int(sw * 1.2), int(h * 0.62))
    if card.kind in (Kind.TAKI, Kind.SUPER_TAKI):
        sh = min(int(sw * 1.05), int(h * 0.62))
    depth_px = int(style.depth * sw) if style.family == "block" else 0
    d = (np.cos(np.radians(style.direction)) * depth_px, np.sin(np.radians(style.direction)) * depth_px)
    x0 = int((w - sw - d[0]) / 2)
    y0 = int((h - sh - d[1]) / 2)
    _draw_parts(img, symbol_parts(card, style, sw, sh), style, x0, y0, sw, flat=style.family != "block")
    # Corner indices: flat small copies, the bottom ones turned half round.
    if style.corners:
        cw, chh = int(w * 0.15), int(h * 0.11)
        if card.kind in (Kind.TAKI, Kind.SUPER_TAKI):
            cw = int(w * 0.2)
        cx, cy = int(w * 0.06), int(h * 0.045)
        corner = np.empty((chh, cw, 3), np.float32)
        corner[:] = img[cy : cy + chh, cx : cx + cw]
        cstyle = replace(style, outline=style.outline * 0.5)
        _draw_parts(corner, symbol_parts(card, cstyle, cw, chh, corner=True), cstyle, 0, 0, cw, flat=True)
        spots = [(cx, cy, False), (w - cx - cw, h - cy - chh, True)]
        if style.corners == 4:
            spots += [(w - cx - cw, cy, False), (cx, h - cy - chh, True)]
        for x, y, turned in spots:
            img[y : y + chh, x : x + cw] = corner[::-1, ::-1] if turned else corner
    _wear(img, style, rng)
    out = np.clip(img, 0, 255).astype(np.uint8)
    alpha = card_mask(w, h, max(2, int(w * 0.065)))
    cv2.rectangle(out, (0, 0), (w - 1, h - 1), (200, 200, 200), 1)
    res = np.dstack([out, alpha])
    res[alpha == 0, :3] = 0
    return res
