"""Issue 10: faces in the published style and in many random styles."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.rules.cards import FACES, Card, Color, Kind
from companion.synth import glyphs as G
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.styles import (
    FAMILIES,
    PUBLISHED,
    FaceStyle,
    front_colour,
    render_styled_face,
    sample_style,
    side_colour,
    symbol_parts,
)

W, H = 200, 280


def _hash(img: np.ndarray) -> bytes:
    """A perceptual hash: a difference hash of the lightness, and a coarse average
    hash of each chroma channel (Lab), so faces that differ only in colour
    (G1 / B1) hash apart too."""
    small = cv2.cvtColor(cv2.resize(img[:, :, :3], (17, 16), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2LAB)
    light = small[:, :, 0].astype(int)
    bits = [np.packbits(light[:, 1:] > light[:, :-1]).tobytes()]
    for ch in (1, 2):
        c = small[:, :, ch].astype(int)
        bits.append(np.packbits(c > 128 + 8).tobytes() + np.packbits(c < 128 - 8).tobytes())
    return b"".join(bits)


def _style_of(family: str, seed: int) -> FaceStyle:
    rng = np.random.default_rng(seed)
    while True:
        s = sample_style(rng, families=(family,))
        if s.family == family:
            return s


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_draws_57_distinct_faces(family: str) -> None:
    for seed in (1, 2):
        style = PUBLISHED if family == "block" and seed == 1 else _style_of(family, seed)
        hashes = {_hash(render_styled_face(c, style, W, H)): c.code for c in FACES}
        assert len(hashes) == 57, f"{family}: faces that look the same in {style}"


def test_every_glyph_family_draws_every_number_apart() -> None:
    """Each installed glyph family (drawn blocks and each font) draws 1..9 and
    TAKI so that no two look the same: a family is useless if it merges faces."""
    for fam in G.glyph_families(include_held_out=True):
        style = FaceStyle(glyphs=G.Glyphs(fam), seed=3)
        masks = {n: G.Glyphs(fam).text(str(n), 60, 90) for n in (1, 3, 4, 5, 6, 7, 8, 9)}
        for a in masks:
            for b in masks:
                if a < b:
                    diff = np.mean(np.abs(masks[a].astype(int) - masks[b].astype(int))) / 255
                    assert diff > 0.04, f"{fam}: {a} and {b} look alike"
        assert render_styled_face(Card.from_code("RTAKI"), style, W, H).shape == (H, W, 4)


def _corner(face: np.ndarray, w: int, h: int) -> np.ndarray:
    return face[int(h * 0.045) : int(h * 0.045) + int(h * 0.11), int(w * 0.06) : int(w * 0.06) + int(w * 0.2), :3]


def test_corner_indices_and_symbol_agree_with_the_face() -> None:
    """The top-left corner index is the face's own corner symbol (it matches its
    own drawing best among all 57), in the card's colour, and the bottom-right
    one is the same turned half round."""
    style = PUBLISHED
    faces = {c: render_styled_face(c, style, W, H) for c in FACES}
    cw, ch = int(W * 0.15), int(H * 0.11)
    drawn = {}
    for c in FACES:
        cwc = int(W * 0.2) if c.kind in (Kind.TAKI, Kind.SUPER_TAKI) else cw
        m = np.max([p.mask for p in symbol_parts(c, style, cwc, ch, corner=True)], 0) > 127
        drawn[c] = np.pad(m, ((0, 0), (0, int(W * 0.2) - cwc)))
    for c, face in faces.items():
        corner = _corner(face, W, H)
        ink = corner.astype(int).sum(2) < 600  # not paper
        ious = {o: (ink & m).sum() / max(1, (ink | m).sum()) for o, m in drawn.items()}
        best = max(ious.values())
        assert ious[c] >= best - 1e-9 and ious[c] > 0.5, f"{c.code}: corner reads as {max(ious, key=ious.get)}"
        bottom = face[H - int(H * 0.045) - ch : H - int(H * 0.045), W - int(W * 0.06) - (int(W * 0.2) if c.kind in (
            Kind.TAKI, Kind.SUPER_TAKI) else cw) : W - int(W * 0.06), :3]
        top = face[int(H * 0.045) : int(H * 0.045) + ch, int(W * 0.06) : int(W * 0.06) + bottom.shape[1], :3]
        assert np.mean(np.abs(bottom[::-1, ::-1].astype(int) - top.astype(int))) < 3
        if c.color is not None:
            hue = cv2.cvtColor(corner[ink][None].astype(np.uint8), cv2.COLOR_BGR2HSV)[0, :, 0]
            want = cv2.cvtColor(front_colour(c.color, style)[None, None].astype(np.uint8), cv2.COLOR_BGR2HSV)[0, 0, 0]
            assert np.median(np.minimum(np.abs(hue.astype(int) - want), 180 - np.abs(hue.astype(int) - want))) < 8


@pytest.mark.parametrize("code", ["R7", "BSTOP", "Y+2", "GDIR", "BTAKI", "YPLUS"])
def test_published_style_statistics(code: str) -> None:
    """White card, black outline, front in the card's colour and a darker
    extrusion of a neighbouring hue (blue: violet sides, yellow: orange)."""
    card = Card.from_code(code)
    face = render_styled_face(card, PUBLISHED, 300, 420)
    bgr, alpha = face[:, :, :3], face[:, :, 3]
    inside = alpha == 255
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).astype(int)
    white = inside & (hsv[..., 1] < 30) & (hsv[..., 2] > 225)
    assert white.sum() / inside.sum() > 0.45  # mostly white card, no coloured frame
    border = np.zeros_like(inside)
    border[8:28, 30:-30] = True
    assert (white & border).sum() / border.sum() > 0.6  # the top edge is paper, not a frame
    black = inside & (hsv[..., 2] < 60)
    assert black.sum() / inside.sum() > 0.02  # a thick outline
    front = front_colour(card.color, PUBLISHED).astype(np.uint8)
    side = side_colour(card.color, PUBLISHED).astype(np.uint8)
    near_front = inside & (np.abs(bgr.astype(int) - front.astype(int)).sum(2) < 40)
    near_side = inside & (np.abs(bgr.astype(int) - side.astype(int)).sum(2) < 40)
    assert near_front.sum() / inside.sum() > 0.08
    assert near_side.sum() / inside.sum() > 0.01  # the extruded sides are there
    hf, hs = (cv2.cvtColor(c[None, None], cv2.COLOR_BGR2HSV)[0, 0].astype(int) for c in (front, side))
    lf, ls = (int(cv2.cvtColor(c[None, None], cv2.COLOR_BGR2LAB)[0, 0, 0]) for c in (front, side))
    assert ls < lf - 25  # darker (lightness)
    assert min(abs(hs[0] - hf[0]), 180 - abs(hs[0] - hf[0])) <= 35  # a neighbouring hue (blue: violet)
    # The front faces lie up-left of the sides (the block extrudes down and right).
    fy, fx = np.argwhere(near_front).mean(0)
    sy, sx = np.argwhere(near_side & ~near_front).mean(0)
    assert sy > fy and sx > fx


def test_colours_of_the_published_sides() -> None:
    def hue(bgr: np.ndarray) -> int:
        return int(cv2.cvtColor(bgr.astype(np.uint8)[None, None], cv2.COLOR_BGR2HSV)[0, 0, 0])

    assert 125 <= hue(side_colour(Color.BLUE, PUBLISHED)) <= 160  # violet-purple, not blue (about 105)
    assert 8 <= hue(side_colour(Color.YELLOW, PUBLISHED)) <= 20  # orange, not yellow (about 27)


def test_random_styles_never_use_the_held_out_family_and_vary() -> None:
    rng = np.random.default_rng(0)
    styles = [sample_style(rng) for _ in range(400)]
    assert all(s.glyphs.family != G.HELD_OUT_FAMILY for s in styles)
    assert {s.family for s in styles} == set(FAMILIES)
    assert len({s.glyphs.family for s in styles}) >= min(6, len(G.glyph_families()))
    assert {s.corners for s in styles} == {0, 2, 4} and {s.frame for s in styles} == {True, False}
    held = sample_style(np.random.default_rng(1), held_out=True)
    assert held.family == "block" and held.glyphs.family == G.HELD_OUT_FAMILY


def test_varied_scenes_are_seeded_and_label_the_top_card() -> None:
    comp = Compositor(config=SceneConfig.varied(256))
    a, b = comp.scene(5, top=Card.from_code("G8")), comp.scene(5, top=Card.from_code("G8"))
    assert np.array_equal(a.image, b.image) and a.top.card.code == "G8"
    x1, y1, x2, y2 = a.box
    assert 0 <= x1 < x2 <= 256 and 0 <= y1 < y2 <= 256
    held = Compositor(config=SceneConfig.varied(256, "held-out")).scene(5)
    assert held.image.shape == (256, 256, 3)


def test_unknown_style_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown style family"):
        FaceStyle(family="watercolour")
    with pytest.raises(ValueError, match="unknown face styles"):
        Compositor(config=SceneConfig(size=64, styles="cubist")).scene(0)


def test_a_look_whose_9_is_its_6_turned_round_still_tells_every_face_apart() -> None:
    """Training looks may draw the 9 as their 6 turned half round (--turned-69), so
    the reader learns the cues every deck has (corner indices, the block's sides,
    an underline) rather than a font's quirk. The 9's symbol is then exactly the 6's
    turned round, the rest of the look is untouched, and the faces stay apart: a 6
    card turned round is still not a 9 card."""
    fam = next(f for f in G.glyph_families() if f != G.DRAWN)
    plain = replace(PUBLISHED, glyphs=G.Glyphs(fam))
    turned = replace(plain, turned_69=True)
    six, nine = Card.from_code("R6"), Card.from_code("R9")
    mask = lambda c, s: np.max([p.mask for p in symbol_parts(c, s, 60, 90)], 0)  # noqa: E731
    assert np.array_equal(mask(nine, turned), mask(six, turned)[::-1, ::-1])
    assert not np.array_equal(mask(nine, plain), mask(six, plain)[::-1, ::-1])  # the font's own 9 differs
    assert np.array_equal(mask(six, turned), mask(six, plain))
    for style in (turned, replace(turned, corners=0), replace(turned, family="flat", underline_69=True)):
        faces = {c: render_styled_face(c, style, W, H) for c in FACES}
        assert len({_hash(f) for f in faces.values()}) == 57, style
        six_turned = faces[six][::-1, ::-1, :3].astype(int)
        assert np.mean(np.abs(six_turned - faces[nine][:, :, :3].astype(int))) > 2, style
    for seed in range(40):  # a share of looks, drawn without disturbing any other knob
        base = sample_style(np.random.default_rng(seed))
        got = sample_style(np.random.default_rng(seed), turned_69=0.5)
        assert replace(got, turned_69=False) == base
        assert not sample_style(np.random.default_rng(seed), held_out=True, turned_69=1.0).turned_69
    assert 5 < sum(sample_style(np.random.default_rng(s), turned_69=0.5).turned_69 for s in range(40)) < 35
