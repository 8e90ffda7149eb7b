"""Draws the 57 TAKI faces (R-DECK) as card images at print resolution.

Style of a real deck: a white card with rounded corners, the symbol large in the
centre in the card's colour, small symbols in two corners. Every colour also has
its own corner *shape* (red circle, yellow triangle, green square, blue diamond)
and every symbol its own outline, so faces can be told apart without colour
vision and in bad light; 6 and 9 are underlined as on printed decks.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card, Color, Kind, file_stem

DPI = 300
CARD_MM = (63.0, 88.0)  # a standard playing card
CARD_W, CARD_H = (round(mm / 25.4 * DPI) for mm in CARD_MM)  # 744 x 1039 px
RADIUS = 48

BGR: dict[Color | None, tuple[int, int, int]] = {
    Color.RED: (38, 38, 214),
    Color.YELLOW: (0, 190, 245),
    Color.GREEN: (52, 160, 36),
    Color.BLUE: (196, 96, 18),
    None: (30, 30, 30),
}
INK = (25, 25, 25)
WHITE = (255, 255, 255)
FONT = cv2.FONT_HERSHEY_DUPLEX


def card_mask(w: int = CARD_W, h: int = CARD_H, r: int = RADIUS) -> np.ndarray:
    """255 inside the rounded card, 0 outside."""
    m = np.zeros((h, w), np.uint8)
    cv2.rectangle(m, (r, 0), (w - r - 1, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - r - 1), 255, -1)
    for cx, cy in ((r, r), (w - r - 1, r), (r, h - r - 1), (w - r - 1, h - r - 1)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


def _text(img: np.ndarray, text: str, box: tuple[int, int, int, int], color: tuple[int, int, int],
          outline: bool = True, italic: bool = False) -> None:
    """Fit ``text`` into ``box`` (x, y, w, h), centred, filled with an ink outline."""
    x, y, w, h = box
    font = FONT | (cv2.FONT_ITALIC if italic else 0)
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(w / tw, h / th) * 0.92
    thick = max(1, int(scale * 2.2))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    org = (x + (w - tw) // 2, y + (h + th) // 2)
    if outline:
        cv2.putText(img, text, org, font, scale, INK, thick + max(2, thick // 2), cv2.LINE_AA)
    cv2.putText(img, text, org, font, scale, color, thick, cv2.LINE_AA)


def _poly(img: np.ndarray, pts: np.ndarray, color: tuple[int, int, int], line: int) -> None:
    pts = pts.astype(np.int32)
    cv2.fillPoly(img, [pts], color, cv2.LINE_AA)
    cv2.polylines(img, [pts], True, INK, max(1, line), cv2.LINE_AA)


def _regular(cx: float, cy: float, r: float, n: int, start: float = 0.0) -> np.ndarray:
    a = start + np.arange(n) * 2 * np.pi / n
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], 1)


def _color_shape(img: np.ndarray, color: Color, cx: int, cy: int, r: int) -> None:
    """The colour-blind cue: a shape of its own for each colour."""
    c, line = BGR[color], max(1, r // 6)
    if color is Color.RED:
        cv2.circle(img, (cx, cy), r, c, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), r, INK, line, cv2.LINE_AA)
    elif color is Color.YELLOW:
        _poly(img, _regular(cx, cy + r * 0.15, r * 1.1, 3, -np.pi / 2), c, line)
    elif color is Color.GREEN:
        _poly(img, _regular(cx, cy, r * 1.25, 4, np.pi / 4), c, line)
    else:
        _poly(img, np.array([[cx, cy - r * 1.2], [cx + r * 0.8, cy], [cx, cy + r * 1.2], [cx - r * 0.8, cy]]), c, line)


def _arrows(img: np.ndarray, box: tuple[int, int, int, int], color: tuple[int, int, int]) -> None:
    """Change Direction: two curved arrows chasing each other round a circle."""
    x, y, w, h = box
    cx, cy, r = x + w // 2, y + h // 2, int(min(w, h) * 0.36)
    t = max(3, r // 5)
    for start in (200, 20):
        cv2.ellipse(img, (cx, cy), (r, r), 0, start, start + 130, INK, t + 6, cv2.LINE_AA)
        cv2.ellipse(img, (cx, cy), (r, r), 0, start, start + 130, color, t, cv2.LINE_AA)
        a = np.deg2rad(start + 130)
        tip = np.array([cx + r * np.cos(a), cy + r * np.sin(a)])
        tangent = np.array([-np.sin(a), np.cos(a)])
        normal = np.array([np.cos(a), np.sin(a)])
        head = np.stack([tip + tangent * t * 2.2, tip - normal * t * 1.6, tip + normal * t * 1.6])
        _poly(img, head, color, 3)


def _crown(img: np.ndarray, box: tuple[int, int, int, int]) -> None:
    x, y, w, h = box
    pts = np.array([[0.1, 0.85], [0.1, 0.35], [0.3, 0.6], [0.5, 0.2], [0.7, 0.6], [0.9, 0.35], [0.9, 0.85]])
    pts = np.stack([x + pts[:, 0] * w, y + pts[:, 1] * h], 1)
    _poly(img, pts, (40, 180, 230), max(2, w // 40))
    for i, c in enumerate(Color):
        cv2.circle(img, (int(x + w * (0.2 + 0.2 * i)), int(y + h * 0.74)), max(2, w // 16), BGR[c], -1, cv2.LINE_AA)


def _wheel(img: np.ndarray, box: tuple[int, int, int, int]) -> None:
    """Change Colour: a disc in four colour quarters."""
    x, y, w, h = box
    cx, cy, r = x + w // 2, y + h // 2, int(min(w, h) * 0.42)
    for i, c in enumerate(Color):
        cv2.ellipse(img, (cx, cy), (r, r), 0, i * 90, i * 90 + 90, BGR[c], -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy), r, INK, max(2, r // 14), cv2.LINE_AA)
    cv2.line(img, (cx - r, cy), (cx + r, cy), INK, max(1, r // 20), cv2.LINE_AA)
    cv2.line(img, (cx, cy - r), (cx, cy + r), INK, max(1, r // 20), cv2.LINE_AA)


def draw_symbol(img: np.ndarray, card: Card, box: tuple[int, int, int, int]) -> None:
    """Draw the face's symbol to fill ``box``; used for the centre and the corners."""
    x, y, w, h = box
    color = BGR[card.color]
    k = card.kind
    if k is Kind.NUMBER:
        _text(img, str(card.number), (x, y, w, int(h * 0.86)), color)
        if card.number in (6, 9):
            t = max(2, h // 14)
            cv2.rectangle(img, (x + w // 4, y + h - t * 2), (x + 3 * w // 4, y + h - t), INK, -1)
    elif k is Kind.STOP:
        _poly(img, _regular(x + w / 2, y + h / 2, min(w, h) * 0.47, 8, np.pi / 8), color, max(2, w // 40))
        _text(img, "STOP", (x + w // 6, y + h // 3, 2 * w // 3, h // 3), WHITE, outline=False)
    elif k is Kind.PLUS2:
        _text(img, "+2", (x, y, w, h), color)
    elif k is Kind.CHANGE_DIRECTION:
        _arrows(img, box, color)
    elif k is Kind.PLUS:
        b = min(w, h) * 0.16
        cx, cy, r = x + w / 2, y + h / 2, min(w, h) * 0.46
        cross = np.array([[-b, -r], [b, -r], [b, -b], [r, -b], [r, b], [b, b], [b, r], [-b, r], [-b, b],
                          [-r, b], [-r, -b], [-b, -b]]) + [cx, cy]
        _poly(img, cross, color, max(2, w // 40))
    elif k is Kind.TAKI:
        _text(img, "TAKI", (x, y + h // 4, w, h // 2), color, italic=True)
        cv2.line(img, (x + w // 8, y + 3 * h // 4), (x + 7 * w // 8, y + 3 * h // 4), color, max(2, h // 18))
    elif k is Kind.SUPER_TAKI:
        _text(img, "SUPER", (x, y + h // 8, w, h // 3), INK, outline=False)
        lw = w // 4
        for i, (ch, c) in enumerate(zip("TAKI", Color)):
            _text(img, ch, (x + i * lw, y + h // 2, lw, h // 3), BGR[c], italic=True)
    elif k is Kind.KING:
        _crown(img, box)
    elif k is Kind.PLUS3:
        _text(img, "+3", (x, y, w, h), INK, outline=False)
    elif k is Kind.BREAKER:
        _text(img, "+3", (x + w // 8, y + h // 8, 3 * w // 4, 3 * h // 4), INK, outline=False)
        cx, cy, r = x + w // 2, y + h // 2, int(min(w, h) * 0.47)
        t = max(3, r // 7)
        cv2.circle(img, (cx, cy), r, BGR[Color.RED], t, cv2.LINE_AA)
        d = int(r * 0.7)
        cv2.line(img, (cx - d, cy - d), (cx + d, cy + d), BGR[Color.RED], t, cv2.LINE_AA)
    elif k is Kind.CHANGE_COLOR:
        _wheel(img, box)


def render_face(card: Card, w: int = CARD_W, h: int = CARD_H) -> np.ndarray:
    """The face as a BGRA image (alpha = the rounded card shape)."""
    s = w / CARD_W
    img = np.full((h, w, 3), 255, np.uint8)
    frame = BGR[card.color]
    inset, t = int(26 * s), max(2, int(16 * s))
    if card.color is None:  # colourless: a frame in all four colours
        cols = list(Color)
        pts = [(inset, inset), (w - inset, inset), (w - inset, h - inset), (inset, h - inset)]
        for i in range(4):
            cv2.line(img, pts[i], pts[(i + 1) % 4], BGR[cols[i]], t, cv2.LINE_AA)
    else:
        cv2.rectangle(img, (inset, inset), (w - inset, h - inset), frame, t, cv2.LINE_AA)
    draw_symbol(img, card, (int(w * 0.14), int(h * 0.25), int(w * 0.72), int(h * 0.5)))
    corner = (int(w * 0.08), int(h * 0.055), int(w * 0.22), int(h * 0.13))
    draw_symbol(img, card, corner)
    if card.color is not None:
        _color_shape(img, card.color, int(w * 0.19), int(h * 0.235), max(3, int(w * 0.045)))
    # The opposite corner: the same corner, turned half round.
    ch, cw = int(h * 0.3), int(w * 0.35)
    img[h - ch :, w - cw :] = cv2.rotate(img[:ch, :cw], cv2.ROTATE_180)
    alpha = card_mask(w, h, max(2, int(RADIUS * s)))
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 200), 1)
    out = np.dstack([img, alpha])
    out[alpha == 0, :3] = 0
    return out


def render_all(w: int = CARD_W, h: int = CARD_H, style: object = None) -> dict[Card, np.ndarray]:
    """Every face, in ``style`` (a styles.FaceStyle; None: this module's classic look)."""
    if style is None:
        return {card: render_face(card, w, h) for card in FACES}
    from .styles import render_styled_face

    return {card: render_styled_face(card, style, w, h) for card in FACES}  # type: ignore[arg-type]


def export_faces(out_dir: Path, w: int = CARD_W, h: int = CARD_H, style: object = None) -> list[Path]:
    """Write ``<code>.png`` for every face (``+`` spelt ``plus`` in file names)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for card, img in render_all(w, h, style).items():
        p = out_dir / f"{file_stem(card)}.png"
        cv2.imwrite(str(p), img)
        paths.append(p)
    return paths


def export_pdf(path: Path, w: int = CARD_W, h: int = CARD_H, style: object = None) -> int:
    """A printable A4 sheet set at 300 dpi, 9 cards a page, with cut lines. Returns pages."""
    from PIL import Image

    page_w, page_h = round(210 / 25.4 * DPI), round(297 / 25.4 * DPI)
    cols, rows, gap = 3, 3, 20
    x0 = (page_w - cols * w - (cols - 1) * gap) // 2
    y0 = (page_h - rows * h - (rows - 1) * gap) // 2
    pages: list[Image.Image] = []
    faces = list(render_all(w, h, style).values())
    for start in range(0, len(faces), cols * rows):
        page = np.full((page_h, page_w, 3), 255, np.uint8)
        for i, face in enumerate(faces[start : start + cols * rows]):
            r, c = divmod(i, cols)
            x, y = x0 + c * (w + gap), y0 + r * (h + gap)
            a = face[:, :, 3:4] / 255.0
            page[y : y + h, x : x + w] = (face[:, :, :3] * a + page[y : y + h, x : x + w] * (1 - a)).astype(np.uint8)
            cv2.rectangle(page, (x - 1, y - 1), (x + w, y + h), (170, 170, 170), 1)
        pages.append(Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB)))
    path.parent.mkdir(parents=True, exist_ok=True)
    pages[0].save(path, "PDF", resolution=DPI, save_all=True, append_images=pages[1:])
    return len(pages)
