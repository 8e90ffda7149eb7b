"""The scene compositor: discard piles on tables, as a camera above would see them.

Draws older cards peeking out under a whole top card, on wood, cloth, plain or
photographic backgrounds, with hands reaching in, camera perspective, and the
photometric trouble of real rooms (albumentations: colour temperature, shadow,
glare, blur, noise, JPEG). Deterministic from a seed. The label is the top card:
the leading card that the referee must read (its box is never occluded).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..rules.cards import FACES, Card
from .faces import CARD_H, CARD_W, render_face


@dataclass(frozen=True, slots=True)
class SceneConfig:
    size: int = 416
    card_height: tuple[float, float] = (0.35, 0.72)  # of the image side
    under_cards: tuple[int, int] = (0, 4)
    hand_p: float = 0.4
    perspective: float = 0.10  # corner jitter, fraction of the side
    photometric: bool = True
    # Face styles: "classic" (the first renderer, one look), "random" (a new look
    # per scene, never the held-out glyph family), "held-out" (the published block
    # style in the held-out glyph family only), "published" (the published look).
    styles: str = "classic"
    tilt: float = 0.0  # camera tilt up to this many degrees (a real homography)
    hard_shadow_p: float = 0.0  # hard-edged shadows of hands and heads
    warm_p: float = 0.0  # warm indoor light
    rich_tables: bool = False  # checked cloth, bright laminate, tiles beside the rest
    turned_69: float = 0.0  # share of random looks whose 9 is their 6 turned round (styles.sample_style)

    @classmethod
    def varied(cls, size: int = 416, styles: str = "random", **kw: object) -> "SceneConfig":
        """The training look: styled faces on every kind of table, tilted up to
        35 degrees, warm light, hard shadows."""
        return cls(size=size, styles=styles, tilt=35.0, hard_shadow_p=0.35, warm_p=0.4, rich_tables=True,
                   perspective=0.06, **kw)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Placed:
    card: Card
    corners: np.ndarray  # (4, 2) float, image pixels, clockwise from top-left of the face


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    top: Placed
    under: list[Placed] = field(default_factory=list)
    hand_mask: np.ndarray | None = None

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The top card's box, x1 y1 x2 y2 in pixels, inside the image."""
        h, w = self.image.shape[:2]
        xs, ys = self.top.corners[:, 0], self.top.corners[:, 1]
        return (max(0.0, xs.min()), max(0.0, ys.min()), min(w - 1.0, xs.max()), min(h - 1.0, ys.max()))

    def outline_label(self) -> str:
        """The top card's outline as a YOLO segmentation label: its class and its four
        corners (normalised), the polygon a card outliner learns."""
        h, w = self.image.shape[:2]
        pts = " ".join(f"{min(1.0, max(0.0, x / w)):.6f} {min(1.0, max(0.0, y / h)):.6f}"
                       for x, y in self.top.corners)
        return f"{self.top.card.index} {pts}"

    def yolo_label(self) -> str:
        h, w = self.image.shape[:2]
        x1, y1, x2, y2 = self.box
        return (f"{self.top.card.index} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
                f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")


# ------------------------------------------------------------------ backgrounds

@functools.cache
def photos() -> tuple[np.ndarray, ...]:
    """The sample photos scikit-image ships inside its wheel (read from disk, never fetched)."""
    from pathlib import Path

    import skimage.data

    folder = Path(skimage.data.__file__).parent
    out = []
    for p in sorted(folder.glob("*.png")) + sorted(folder.glob("*.jpg")):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is not None and min(img.shape[:2]) >= 128:
            out.append(img)
    return tuple(out)


def _noise(rng: np.random.Generator, size: int, octaves: int = 4) -> np.ndarray:
    out = np.zeros((size, size), np.float32)
    for o in range(octaves):
        n = 2 ** (o + 2)
        small = rng.random((n, n)).astype(np.float32)
        out += cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC) / 2**o
    out -= out.min()
    return out / max(out.max(), 1e-6)


TABLES = ("plain", "wood", "cloth", "noise", "photo", "photo")
RICH_TABLES = (*TABLES, "checked", "checked", "laminate", "laminate", "tiles", "wood")


def background(rng: np.random.Generator, size: int, rich: bool = False) -> np.ndarray:
    kind = rng.choice(list(RICH_TABLES if rich else TABLES))
    base = rng.integers(30, 230, 3).astype(np.float32)
    if kind in ("checked", "laminate", "tiles"):
        return _rich_table(rng, size, str(kind))
    if kind == "photo":
        pool = photos()
        if not pool:
            return background(rng, size, rich)
        img = pool[int(rng.integers(len(pool)))]
        h, w = img.shape[:2]
        s = int(rng.integers(min(h, w) // 3, min(h, w) + 1))
        y, x = int(rng.integers(0, h - s + 1)), int(rng.integers(0, w - s + 1))
        return cv2.resize(img[y : y + s, x : x + s], (size, size), interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    if kind == "plain":
        grad = 1 + 0.25 * (xx * rng.uniform(-1, 1) + yy * rng.uniform(-1, 1))
        img = base[None, None] * grad[..., None]
    elif kind == "wood":
        base = np.array([rng.uniform(20, 70), rng.uniform(60, 120), rng.uniform(110, 190)], np.float32)
        ang = rng.uniform(0, np.pi)
        u = xx * np.cos(ang) + yy * np.sin(ang)
        rings = np.sin((u * rng.uniform(20, 60) + 4 * _noise(rng, size)) * np.pi)
        img = base[None, None] * (0.75 + 0.2 * rings[..., None] + 0.1 * _noise(rng, size)[..., None])
    elif kind == "cloth":
        f = rng.uniform(60, 160)
        weave = 0.5 + 0.25 * (np.sin(xx * f * np.pi) + np.sin(yy * f * np.pi))
        img = base[None, None] * (0.8 + 0.25 * weave[..., None] + 0.1 * _noise(rng, size)[..., None])
    else:
        n = _noise(rng, size)
        other = rng.integers(30, 230, 3).astype(np.float32)
        img = base[None, None] * n[..., None] + other[None, None] * (1 - n[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _rich_table(rng: np.random.Generator, size: int, kind: str) -> np.ndarray:
    """Tables a card finder finds hard: a checked cloth, bright laminate, tiles."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    ang = rng.uniform(-0.6, 0.6)
    u, v = xx * np.cos(ang) - yy * np.sin(ang), xx * np.sin(ang) + yy * np.cos(ang)
    if kind == "checked":  # gingham: two colours, the crossings darker
        f = rng.uniform(4, 14)
        a = (np.floor(u * f) % 2).astype(np.float32)
        b = (np.floor(v * f) % 2).astype(np.float32)
        light = np.array([rng.uniform(225, 255)] * 3, np.float32)
        dark = rng.integers(20, 220, 3).astype(np.float32)
        t = ((a + b) / 2)[..., None]
        img = light * (1 - t) + dark * t
        img *= (0.92 + 0.08 * _noise(rng, size, 3))[..., None]
    elif kind == "laminate":  # near white with faint grain and a sheen
        base = np.array([rng.uniform(200, 250), rng.uniform(205, 252), rng.uniform(210, 255)], np.float32)
        grain = np.sin((u * rng.uniform(80, 200) + 3 * _noise(rng, size)) * np.pi)
        sheen = np.exp(-((xx - rng.uniform(0, 1)) ** 2 + (yy - rng.uniform(0, 1)) ** 2) / 0.08)
        img = base[None, None] * (0.95 + 0.03 * grain[..., None]) + 40 * sheen[..., None]
    else:  # tiles with grout lines
        f = rng.uniform(2, 6)
        grout = ((np.abs((u * f) % 1 - 0.5) > 0.47) | (np.abs((v * f) % 1 - 0.5) > 0.47)).astype(np.float32)
        tile = rng.integers(120, 250, 3).astype(np.float32)
        img = tile[None, None] * (0.9 + 0.15 * _noise(rng, size)[..., None]) * (1 - 0.4 * grout[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _tilt(rng: np.random.Generator, size: int, degrees: float) -> np.ndarray:
    """The homography of a camera tilted up to ``degrees`` from looking straight
    down, about a random axis in the table's plane (the far side shrinks)."""
    theta = np.radians(rng.uniform(0, degrees))
    phi = rng.uniform(0, 2 * np.pi)
    dist = rng.uniform(2.0, 4.0)  # camera height in half image sides
    half = size / 2
    src = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    p = src @ rot  # into the tilt axis' frame
    y, z = p[:, 1] * np.cos(theta), dist + p[:, 1] * np.sin(theta)
    proj = np.stack([p[:, 0] * dist / z, y * dist / z], 1) @ rot.T
    proj /= np.abs(proj).max()
    dst = ((proj * 0.98 + 1) * half).astype(np.float32)
    return cv2.getPerspectiveTransform(((src + 1) * half).astype(np.float32), dst)


def _hard_shadow(rng: np.random.Generator, canvas: np.ndarray) -> None:
    """A sharp shadow of a head or an arm from a lamp close above the table."""
    n = canvas.shape[0]
    m = np.zeros((n, n), np.uint8)
    if rng.random() < 0.5:  # a head: a big ellipse from an edge
        c = (int(rng.uniform(-0.1, 1.1) * n), int(rng.choice([-0.15, 1.15]) * n))
        if rng.random() < 0.5:
            c = c[::-1]
        cv2.ellipse(m, c, (int(n * rng.uniform(0.2, 0.4)), int(n * rng.uniform(0.25, 0.5))),
                    float(rng.uniform(0, 180)), 0, 360, 255, -1)
    else:  # an arm and a hand
        a = rng.uniform(0, 1, 2) * n
        b = a + rng.normal(0, 0.4, 2) * n
        cv2.line(m, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, int(n * rng.uniform(0.08, 0.18)))
    m = cv2.GaussianBlur(m, (0, 0), rng.uniform(0.8, 3.0)).astype(np.float32) / 255
    dark = rng.uniform(0.35, 0.7)
    canvas[:] = (canvas * (1 - (1 - dark) * m[..., None])).astype(np.uint8)


def _warm(rng: np.random.Generator, canvas: np.ndarray) -> None:
    """Warm indoor light: less blue, a little less green."""
    k = rng.uniform(0.1, 0.35)
    gain = np.array([1 - k, 1 - k * 0.4, 1.0], np.float32)
    canvas[:] = np.clip(canvas * gain, 0, 255).astype(np.uint8)


# ------------------------------------------------------------------ compositing

SKIN = ((60, 90, 160), (80, 120, 200), (100, 150, 225), (45, 70, 120), (90, 140, 190))


def _hand(rng: np.random.Generator, size: int) -> np.ndarray:
    """A mask of a hand and fingers reaching in from one edge."""
    m = np.zeros((size, size), np.uint8)
    edge = rng.integers(4)
    t = rng.uniform(0.15, 0.85) * size
    reach = rng.uniform(0.15, 0.4) * size
    ang = [np.pi / 2, -np.pi / 2, 0.0, np.pi][edge] + rng.uniform(-0.5, 0.5)
    start = [(t, -10), (t, size + 10), (-10, t), (size + 10, t)][edge]
    d = np.array([np.cos(ang), np.sin(ang)])
    palm = np.array(start) + d * reach
    wid = rng.uniform(0.10, 0.16) * size
    cv2.line(m, tuple(map(int, start)), tuple(map(int, palm)), 255, int(wid * 1.2))
    cv2.ellipse(m, tuple(map(int, palm)), (int(wid), int(wid * 0.8)), float(np.degrees(ang)), 0, 360, 255, -1)
    normal = np.array([-d[1], d[0]])
    for k in range(int(rng.integers(2, 5))):
        base = palm + normal * wid * (k - 1.5) * 0.45
        tip = base + (d + normal * rng.uniform(-0.3, 0.3)) * wid * rng.uniform(0.9, 1.6)
        cv2.line(m, tuple(map(int, base)), tuple(map(int, tip)), 255, max(3, int(wid * 0.28)))
    return m


def _photometric(seed: int):  # type: ignore[no-untyped-def]
    import os

    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # its import asks PyPI for news otherwise
    import albumentations as A

    from .light import room_light

    return A.Compose(
        [
            room_light(p=0.5),  # the room light's colour, as the camera's white balance leaves it
            # Exposure as a gain (a dim room darkens every channel in proportion), and a
            # little black level: an additive -0.3 (76 of 255) took a warm picture's whole
            # blue channel with it (see light.py).
            A.RandomBrightnessContrast(brightness_limit=0.1, contrast_limit=(-0.4, 0.3), p=0.8),
            A.HueSaturationValue(hue_shift_limit=4, sat_shift_limit=25, val_shift_limit=15, p=0.4),
            A.RandomShadow(shadow_roi=(0, 0, 1, 1), num_shadows_limit=(1, 1),
                           shadow_intensity_range=(0.15, 0.4), p=0.2),
            A.RandomSunFlare(flare_roi=(0, 0, 1, 1), src_radius=90, num_flare_circles_range=(1, 3), p=0.1),
            A.OneOf([A.MotionBlur(blur_limit=(3, 7)), A.GaussianBlur(blur_limit=(3, 5)),
                     A.Defocus(radius=(1, 2))], p=0.4),
            A.GaussNoise(std_range=(0.01, 0.06), p=0.4),
            A.ImageCompression(quality_range=(35, 95), p=0.5),
        ],
        seed=seed,
    )


def in_rgb(transform, canvas: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``transform`` (an albumentations pipeline) applied to an OpenCV (BGR) picture.

    Why: albumentations' colour ops take RGB. Handed BGR, the colour temperature of a
    warm room (3000 K: red up, blue down) came out as a deep blue-cyan cast, and a cool
    daylight cast as a mild amber, so the scenes had blue lamps no room has and never
    the strong amber of a bulb at night.
    """
    rgb = cv2.cvtColor(canvas, cv2.COLOR_BGR2RGB)
    return cv2.cvtColor(transform(image=rgb)["image"], cv2.COLOR_RGB2BGR)


class Compositor:
    """Makes scenes from a set of faces (rendered, or enrolled from a real deck)."""

    def __init__(self, faces: dict[Card, np.ndarray] | None = None, config: SceneConfig | None = None):
        self.config = config or SceneConfig()
        top_px = int(self.config.size * self.config.card_height[1] * 1.2)
        w = max(8, int(top_px * CARD_W / CARD_H))
        self._face_size = (w, top_px)
        self.styled = faces is None and self.config.styles != "classic"
        if faces is None and not self.styled:
            faces = {c: render_face(c, w, top_px) for c in FACES}
        self.faces = {c: _with_alpha(img) for c, img in (faces or {}).items()}
        self.cards = list(FACES) if self.styled else [c for c in FACES if c in self.faces]
        self._photometric = _photometric(0) if self.config.photometric else None

    def _styled_deck(self, rng: np.random.Generator) -> dict[Card, np.ndarray]:
        from .styles import PUBLISHED, sample_style

        mode = self.config.styles
        if mode in ("any-deck", "foreign-held-out"):
            from .foreign import HELD_OUT_KINDS, KINDS, ForeignDeck

            if mode == "foreign-held-out":
                return ForeignDeck(rng, *self._face_size, HELD_OUT_KINDS, photos())  # type: ignore[return-value]
            if rng.random() < 0.5:
                return ForeignDeck(rng, *self._face_size, KINDS)  # type: ignore[return-value]
            mode = "random"
        if mode == "published":
            style = PUBLISHED
        elif mode in ("random", "held-out"):
            style = sample_style(rng, held_out=mode == "held-out", turned_69=self.config.turned_69)
        else:
            raise ValueError(f"unknown face styles {mode!r}: use classic, random, held-out or published")
        return _StyledDeck(style, *self._face_size)

    def _paste(self, canvas: np.ndarray, face: np.ndarray, centre: np.ndarray, height: float,
               angle: float, light: float, shadow: bool) -> np.ndarray:
        fh, fw = face.shape[:2]
        s = height / fh
        m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, s)
        m[:, 2] += centre - np.array([fw / 2, fh / 2])
        size = canvas.shape[1], canvas.shape[0]
        warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        a = warped[:, :, 3:4].astype(np.float32) / 255
        if shadow:
            sh = cv2.GaussianBlur(a, (0, 0), max(1.0, height * 0.02))
            sh = np.roll(sh, (int(height * 0.015), int(height * 0.02)), (0, 1))
            canvas[:] = (canvas * (1 - 0.45 * sh[..., None])).astype(np.uint8)  # blur drops the channel axis
        rgb = np.clip(warped[:, :, :3].astype(np.float32) * light, 0, 255)
        canvas[:] = (rgb * a + canvas * (1 - a)).astype(np.uint8)
        corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        return np.hstack([corners, np.ones((4, 1), np.float32)]) @ m.T.astype(np.float32)

    def scene(self, seed: int | np.random.Generator, top: Card | None = None,
              under: list[Card] | None = None) -> Scene:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        cfg, n = self.config, self.config.size
        faces = self._styled_deck(rng) if self.styled else self.faces
        canvas = background(rng, n, cfg.rich_tables)
        table = canvas.copy()
        height = rng.uniform(*cfg.card_height) * n
        half_diag = 0.5 * height * np.hypot(1, CARD_W / CARD_H)
        lo, hi = half_diag + 2, n - half_diag - 2
        centre = rng.uniform(lo, hi, 2) if hi > lo else np.array([n / 2, n / 2])
        if under is None:
            k = int(rng.integers(cfg.under_cards[0], cfg.under_cards[1] + 1))
            under = [self.cards[int(i)] for i in rng.integers(0, len(self.cards), k)]
        placed_under = []
        for card in under:
            c = centre + rng.normal(0, 0.18, 2) * height
            corners = self._paste(canvas, faces[card], c, height * rng.uniform(0.95, 1.05),
                                  rng.uniform(0, 360), rng.uniform(0.8, 1.0), True)
            placed_under.append(Placed(card, corners))
        top = top or self.cards[int(rng.integers(len(self.cards)))]
        corners = self._paste(canvas, faces[top], centre, height, rng.uniform(0, 360),
                              rng.uniform(0.85, 1.05), True)
        hand_mask = None
        if rng.random() < cfg.hand_p:
            card_mask = np.zeros((n, n), np.uint8)
            cv2.fillPoly(card_mask, [corners.astype(np.int32)], 255)
            card_mask = cv2.dilate(card_mask, np.ones((7, 7), np.uint8))
            for _ in range(6):
                m = _hand(rng, n)
                if not (m & card_mask).any():
                    skin = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.8, 1.15)
                    shade = (0.85 + 0.3 * _noise(rng, n, 2))[..., None]
                    a = cv2.GaussianBlur(m, (5, 5), 0)[..., None].astype(np.float32) / 255
                    canvas[:] = np.clip(skin * shade * a + canvas * (1 - a), 0, 255).astype(np.uint8)
                    hand_mask = m
                    break
        if cfg.hard_shadow_p > 0 and rng.random() < cfg.hard_shadow_p:
            _hard_shadow(rng, canvas)
        if cfg.perspective > 0 or cfg.tilt > 0:
            src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
            jitter = rng.uniform(-cfg.perspective, cfg.perspective, (4, 2)).astype(np.float32) * n
            if cfg.tilt > 0:
                tilted = cv2.perspectiveTransform(src[None], _tilt(rng, n, cfg.tilt))[0]
                jitter = jitter + (tilted - src)
            for shrink in (1.0, 0.75, 0.5, 0.25, 0.0):  # keep the whole top card in view
                hmat = cv2.getPerspectiveTransform(src, src + jitter * shrink)
                warped = cv2.perspectiveTransform(corners[None], hmat)[0]
                if warped.min() >= 1 and warped.max() <= n - 2:
                    break
            canvas = _tilted(canvas, table, hmat)
            corners = warped
            placed_under = [Placed(p.card, cv2.perspectiveTransform(p.corners[None], hmat)[0]) for p in placed_under]
            if hand_mask is not None:
                hand_mask = cv2.warpPerspective(hand_mask, hmat, (n, n))
        if cfg.warm_p > 0 and rng.random() < cfg.warm_p:
            _warm(rng, canvas)
        if self._photometric is not None:
            self._photometric.set_random_seed(int(rng.integers(2**31)))
            canvas = in_rgb(self._photometric, canvas)
        return Scene(canvas, Placed(top, corners.astype(np.float32)), placed_under, hand_mask)


def _tilted(canvas: np.ndarray, table: np.ndarray, hmat: np.ndarray) -> np.ndarray:
    """The picture seen by the tilted camera. Where the camera sees past the drawn
    picture it sees more table (the table mirrored), never a mirrored copy of a card:
    mirroring the whole picture put back-to-front cards at its edges (a second card
    in an enrolment photo, unlabelled cards in the reader's training scenes)."""
    n = canvas.shape[0]
    seen = cv2.warpPerspective(canvas, hmat, (n, n), borderMode=cv2.BORDER_REFLECT)
    inside = cv2.warpPerspective(np.ones((n, n), np.float32), hmat, (n, n), borderMode=cv2.BORDER_CONSTANT)
    if inside.min() > 0.999:
        return seen
    more = cv2.warpPerspective(table, hmat, (n, n), borderMode=cv2.BORDER_REFLECT)
    a = inside[..., None]
    return np.clip(seen * a + more * (1 - a), 0, 255).astype(np.uint8)


class _StyledDeck(dict):  # type: ignore[type-arg]
    """One deck in one style: faces rendered when first asked for."""

    def __init__(self, style: object, w: int, h: int) -> None:
        super().__init__()
        self.style, self.w, self.h = style, w, h

    def __missing__(self, card: Card) -> np.ndarray:
        from .styles import render_styled_face

        img = render_styled_face(card, self.style, self.w, self.h)  # type: ignore[arg-type]
        self[card] = img
        return img


def _with_alpha(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3 and img.shape[2] == 4:
        return img
    from .faces import card_mask

    h, w = img.shape[:2]
    return np.dstack([img[:, :, :3], card_mask(w, h, max(2, w // 16))])
