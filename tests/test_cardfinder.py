"""Issue 11, step 1: the card finder cuts one card out flat, or says why not."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.cardfinder import CardFinder, CardNotFound, order_corners, refine_corners, snap_to_edges
from companion.vision.detector import MODELS_DIR, Detection, UNNAMED


class _Boxes:
    """A finder that reports given boxes."""

    def __init__(self, *boxes: tuple[float, float, float, float]) -> None:
        self.boxes = boxes

    def detect(self, image: np.ndarray) -> list[Detection]:
        return [Detection(UNNAMED, 0.9 - 0.1 * i, b) for i, b in enumerate(self.boxes)]


def _single_card_scenes(styles: str = "held-out") -> Compositor:
    cfg = replace(SceneConfig.varied(416, styles), under_cards=(0, 0), hand_p=0.0, card_height=(0.4, 0.75))
    return Compositor(config=cfg)


def _corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner error over the card's height, upright or turned half round."""
    height = float(np.linalg.norm(truth[3] - truth[0]))
    return min(float(np.abs(found - np.roll(truth, k, 0)).max()) for k in (0, 2)) / height


def test_refined_corners_on_varied_tables() -> None:
    """Held-out-style cards on wood, checked cloth, laminate, tiles, photos,
    tilted up to 35 degrees, with hard shadows; the box off by a few per cent as
    the finder's are. Measured 83/100 within 4% of the card's height (the
    issue's target is 98%: low-contrast cards on pale cloth still fail)."""
    comp = _single_card_scenes()
    good = 0
    for i in range(40):
        rng = np.random.default_rng([555, i])
        scene = comp.scene(rng)
        x1, y1, x2, y2 = scene.box
        j = rng.normal(0, 0.02, 4) * [x2 - x1, y2 - y1, x2 - x1, y2 - y1]
        corners = refine_corners(scene.image, (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3]))
        good += corners is not None and _corner_error(corners, scene.top.corners) < 0.04
    assert good >= 30, f"{good}/40 cards cut out"


def test_the_reasons_a_card_is_not_taken() -> None:
    comp = _single_card_scenes("published")
    scene = comp.scene(np.random.default_rng([555, 3]))
    box = scene.box
    with pytest.raises(CardNotFound, match="no card in view"):
        CardFinder(_Boxes()).find(scene.image)
    with pytest.raises(CardNotFound, match="two cards in view"):
        w = box[2] - box[0]
        CardFinder(_Boxes(box, (box[0] + w, box[1], box[2] + w, box[3]))).find(scene.image)
    with pytest.raises(CardNotFound, match="only part of the card"):
        CardFinder(_Boxes((0, box[1], box[2], box[3]))).find(scene.image)
    blurred = cv2.GaussianBlur(scene.image, (0, 0), 6)
    with pytest.raises(CardNotFound, match="too blurred"):
        CardFinder(_Boxes(box)).find(blurred)
    with pytest.raises(CardNotFound, match="no picture"):
        CardFinder(_Boxes(box)).find(np.zeros((4, 4), np.uint8))
    found = CardFinder(_Boxes(box)).find(scene.image)
    assert _corner_error(found.corners, scene.top.corners) < 0.04


def test_a_second_box_on_the_same_card_is_not_a_second_card() -> None:
    """The finder sometimes boxes part of a shadowed card, or the card with its shadow,
    as well as the card: one card, not "two cards in view"."""
    scene = _single_card_scenes("published").scene(np.random.default_rng([555, 3]))
    x1, y1, x2, y2 = box = scene.box
    w, h = x2 - x1, y2 - y1
    inner = (x1 + 0.1 * w, y1 + 0.3 * h, x2 - 0.35 * w, y2 - 0.1 * h)  # IoU with the card under 0.5
    around = (x1 - 0.3 * w, y1 - 0.25 * h, x2 + 0.3 * w, y2 + 0.25 * h)
    for second in (inner, around):
        found = CardFinder(_Boxes(box, second)).find(scene.image)
        assert _corner_error(found.corners, scene.top.corners) < 0.04
    overlapping = (x1 + 0.6 * w, y1, x2 + 0.6 * w, y2)  # a card lying half on it is a second card
    with pytest.raises(CardNotFound, match="two cards in view"):
        CardFinder(_Boxes(box, overlapping)).find(scene.image)


def test_a_tilted_camera_sees_more_table_past_the_picture_never_a_mirrored_card() -> None:
    """The tilt used to mirror the whole picture at its edges: back-to-front copies of a
    card near the edge (a "second card" in enrolment photos)."""
    from companion.synth.scene import _tilted

    n = 200
    table = np.full((n, n, 3), (40, 120, 40), np.uint8)
    canvas = table.copy()
    canvas[60:140, 0:50] = 255  # a card at the picture's left edge
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    hmat = cv2.getPerspectiveTransform(src, src + np.float32([[40, 10], [0, 0], [0, 0], [40, -10]]))
    seen = _tilted(canvas, table, hmat)
    assert (seen[100, 42:74] == 255).all()  # the card, moved right with the picture
    past = seen[:, :30]  # what the camera sees left of the drawn picture
    assert past.min(axis=(0, 1)).tolist() == [40, 120, 40] and past.max(axis=(0, 1)).tolist() == [40, 120, 40]


def test_corners_are_ordered_upright_even_under_a_tilt() -> None:
    # A portrait card seen from a tilted camera: its near side is longer than its far side.
    quad = np.array([[100, 300], [80, 60], [260, 40], [300, 320]], np.float32)  # TL given last
    ordered = order_corners(quad)
    across = np.linalg.norm(ordered[1] - ordered[0]) + np.linalg.norm(ordered[2] - ordered[3])
    down = np.linalg.norm(ordered[3] - ordered[0]) + np.linalg.norm(ordered[2] - ordered[1])
    assert across < down


@pytest.mark.skipif(not (MODELS_DIR / "taki-yolov8n.pt").exists(), reason="no shipped finder")
def test_shipped_finder_finds_single_cards() -> None:
    """The whole finder (learnt box, then corners) on held-out-style photos. A
    regression guard, not the target: benchmarks/card_finder.py measured 73/100
    (the issue asks 98); every miss is a refusal with a reason or a corner off."""
    from companion.training.enrol import default_card_finder

    finder = default_card_finder()
    comp = _single_card_scenes()
    good = 0
    for i in range(12):
        scene = comp.scene(np.random.default_rng([777, i]))
        try:
            good += _corner_error(finder.find(scene.image).corners, scene.top.corners) < 0.04
        except CardNotFound:
            pass
    assert good >= 6, f"{good}/12"


class _Outlines:
    """An outliner that reports given polygons."""

    def __init__(self, *polygons: np.ndarray) -> None:
        self.polygons = polygons

    def outline(self, image: np.ndarray) -> list:  # type: ignore[type-arg]
        from companion.vision.outliner import Outline

        return [Outline(0.9, p.astype(np.float32)) for p in self.polygons]


def _dense(quad: np.ndarray, per_side: int = 12) -> np.ndarray:
    """A learnt outline's look: many points along the sides, a little ragged."""
    rng = np.random.default_rng(0)
    pts = [quad[i] + (quad[(i + 1) % 4] - quad[i]) * t for i in range(4) for t in np.linspace(0, 1, per_side,
                                                                                                 endpoint=False)]
    return np.array(pts) + rng.normal(0, 0.6, (len(pts), 2))


def test_an_outline_gives_the_corners_where_the_box_misleads() -> None:
    """Issue 11: with a learnt outline the corners come from it, not from edges inside a
    loose box; an outline that is no card's shape falls back to the box's edges."""
    comp = _single_card_scenes("published")
    scene = comp.scene(np.random.default_rng([555, 3]))
    x1, y1, x2, y2 = scene.box
    loose = (x1 + 0.08 * (x2 - x1), y1 + 0.1 * (y2 - y1), x2 - 0.05 * (x2 - x1), y2 - 0.15 * (y2 - y1))
    truth = scene.top.corners
    found = CardFinder(_Boxes(loose), outliner=_Outlines(_dense(truth))).find(scene.image)
    assert _corner_error(found.corners, truth) < 0.03
    triangle = np.array([[x1, y1], [x2, y1], [x1, y2]], float)
    fallback = CardFinder(_Boxes(scene.box), outliner=_Outlines(_dense(np.vstack([triangle, triangle[:1]]))))
    assert _corner_error(fallback.find(scene.image).corners, truth) < 0.04  # the box's own edges


def test_a_dim_sharp_card_is_taken_and_a_shaken_one_refused() -> None:
    """The blur test measures sharpness, not contrast: the same card in a fifth of
    the light is still cut out, while a 9 px motion blur (a moving hand) is refused.
    The old test (variance of the Laplacian: 32 here, under its 60) refused the dim one."""
    from companion.vision.cardfinder import crispness, warp_card

    comp = _single_card_scenes("published")
    scene = comp.scene(np.random.default_rng([555, 3]))
    finder = CardFinder(_Boxes(scene.box))
    dim = (scene.image * 0.2).astype(np.uint8)
    found = finder.find(dim)
    assert found.sharpness < 60
    assert _corner_error(found.corners, scene.top.corners) < 0.04
    kernel = np.zeros((9, 9), np.float32)
    kernel[4, :] = 1 / 9
    for angle in (0, 45, 90):
        k = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((4, 4), angle, 1.0), (9, 9))
        with pytest.raises(CardNotFound, match="too blurred"):
            finder.find(cv2.filter2D(scene.image, -1, k / k.sum()))
    flat = warp_card(scene.image, order_corners(scene.top.corners), 200, 280)
    assert crispness(flat) > 2 * crispness(cv2.GaussianBlur(flat, (0, 0), 3))


def test_a_sharp_card_seen_small_is_not_called_blurred() -> None:
    """The blur test measures the card at its own size in the photo: the same steady
    photo taken from twice as far (half the pixels) is cut out, not refused as shaken
    (scaled up to 280 px it looked blurred: 2 of 200 tuning photos were refused so),
    and the small photo moved by a 9 px motion blur is still refused."""
    from companion.vision.cardfinder import card_crispness

    comp = _single_card_scenes("published")
    scene = comp.scene(np.random.default_rng([555, 3]))
    small = cv2.resize(scene.image, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA)
    box = tuple(v * 0.4 for v in scene.box)
    truth = scene.top.corners * 0.4
    assert card_crispness(small, truth) > 0.8 * card_crispness(scene.image, scene.top.corners)
    found = CardFinder(_Boxes(box)).find(small)
    assert _corner_error(found.corners, truth) < 0.04
    kernel = np.zeros((9, 9), np.float32)
    kernel[4, :] = 1 / 9
    with pytest.raises(CardNotFound, match="too blurred"):
        CardFinder(_Boxes(box)).find(cv2.filter2D(small, -1, kernel))


def test_the_learnt_masker_cuts_out_cards_the_edges_alone_miss() -> None:
    """Issue 11: held-out-style cards (a glyph family the masker never saw) on varied
    tables, the finder's box off by a few per cent. Measured 36/40 cut out within 4%
    with the shipped masker, 29/40 from the edges alone."""
    from companion.vision.cardmask import shipped_masker

    masker = shipped_masker()
    assert masker is not None, "models/taki-cardmask.onnx is shipped"
    comp = _single_card_scenes()
    good = {True: 0, False: 0}
    for i in range(40):
        rng = np.random.default_rng([556, i])
        scene = comp.scene(rng)
        x1, y1, x2, y2 = scene.box
        j = rng.normal(0, 0.03, 4) * [x2 - x1, y2 - y1, x2 - x1, y2 - y1]
        box = (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3])
        for learnt in (True, False):
            try:
                found = CardFinder(_Boxes(box), masker=masker if learnt else None).find(scene.image)
            except CardNotFound:
                continue
            good[learnt] += _corner_error(found.corners, scene.top.corners) < 0.04
    assert good[True] >= 34, good
    assert good[True] >= good[False] + 4, good


def test_a_card_masker_trains_exports_and_is_read_without_torch(tmp_path) -> None:
    """Issue 11: the masker's whole life in small (the CI's smoke run): photos made, a
    net trained a step, exported to ONNX and read on ONNX Runtime; a region in, a
    probability per pixel of that region out."""
    from companion.training.cardmask import export, make_samples, train
    from companion.vision.cardmask import SIZE, OnnxMasker

    x, y = make_samples(4, 7, tmp_path / "t.npz", workers=1)
    assert x.shape == (8, SIZE, SIZE, 3) and y.shape == (8, SIZE, SIZE)
    assert 0.2 < (y > 127).mean() < 0.9  # the card fills much of its region, not all of it
    assert (tmp_path / "t.npz").exists()  # cached: a second call reads it back
    again, _ = make_samples(4, 7, tmp_path / "t.npz", workers=1)
    assert np.array_equal(again, x)
    net = train(x, y, x[:2], y[:2], epochs=1, batch=4, log=lambda s: None)
    masker = OnnxMasker(export(net, tmp_path / "m.onnx"))
    prob = masker.roi_mask(np.zeros((150, 110, 3), np.uint8))
    assert prob.shape == (150, 110) and 0.0 <= prob.min() <= prob.max() <= 1.0


def test_the_shipped_masker_can_be_trained_on_from_its_export(tmp_path) -> None:
    """Only the masker's ONNX is shipped (its BatchNorm folded into its convolutions).
    Training it further starts from exactly what it knows: the net rebuilt from the
    export gives the export's output, trains a step, and exports again."""
    import torch

    from companion.training.cardmask import export, from_onnx, make_samples, train
    from companion.vision.cardmask import DEFAULT_MASKER, OnnxMasker, to_input

    shipped = OnnxMasker(DEFAULT_MASKER, turns=1)  # the net itself, one look
    x, y = make_samples(2, 11, tmp_path / "t.npz", workers=1, size=shipped.size)
    region = x[0]
    net = from_onnx(DEFAULT_MASKER).eval()
    with torch.no_grad():
        rebuilt = torch.sigmoid(net(torch.from_numpy(to_input(region, shipped.size))))[0, 0].numpy()
    assert np.abs(rebuilt - shipped.roi_mask(region)).max() < 1e-3
    assert ((rebuilt > 0.5) == (y[0] > 127)).mean() > 0.9  # it already knows where the card is
    tuned = train(x, y, x[:1], y[:1], epochs=1, batch=2, lr=1e-4, init=DEFAULT_MASKER, log=lambda s: None)
    again = OnnxMasker(export(tuned, tmp_path / "m.onnx", shipped.size)).roi_mask(region)
    assert again.shape == region.shape[:2]
    assert ((again > 0.5) == (y[0] > 127)).mean() > 0.9  # a small step from there, not a fresh net
    with pytest.raises(ValueError, match="convolutions"):  # not the masker's net
        from_onnx(export(torch.nn.Sequential(torch.nn.Conv2d(3, 1, 3, padding=1)), tmp_path / "other.onnx"))


def test_a_missing_or_damaged_masker_is_a_model_error(tmp_path) -> None:
    from companion.vision.cardmask import OnnxMasker
    from companion.vision.detector import ModelError

    with pytest.raises(ModelError, match="no card masker"):
        OnnxMasker(tmp_path / "gone.onnx")
    (tmp_path / "bad.onnx").write_bytes(b"not a net" * 10)
    with pytest.raises(ModelError, match="could not be loaded"):
        OnnxMasker(tmp_path / "bad.onnx")


def test_a_card_photographed_under_a_coloured_lamp_is_enrolled_in_white_light() -> None:
    """A red 6 photographed under a dim blue lamp came out navy and taught the few-shot
    learner that red 6s are blue; enrolment now brings the paper back to white."""
    from companion.rules.cards import Card
    from companion.synth.faces import card_mask
    from companion.synth.styles import render_styled_face, sample_style
    from companion.vision.cardfinder import PAPER, paper_white

    style = sample_style(np.random.default_rng(3), held_out=True)
    face = render_styled_face(Card.from_code("R6"), style, 300, 420)
    inside = face[:, :, 3]
    true = face[:, :, :3]
    lamps = {"dim blue": (0.75, 0.42, 0.09), "warm bulb": (0.45, 0.8, 1.0), "white, bright": (1.0, 1.0, 1.0)}
    noise = np.random.default_rng(0).normal(0, 2, true.shape)
    hue = lambda img: cv2.cvtColor(img, cv2.COLOR_BGR2HSV)[:, :, 0].astype(int)  # noqa: E731
    ink = (cv2.cvtColor(true, cv2.COLOR_BGR2HSV)[:, :, 1] > 120) & (inside > 0)  # the red symbol's face
    assert ink.mean() > 0.03
    for lamp, gains in lamps.items():
        photo = np.clip(true * np.array(gains) + noise, 0, 255).astype(np.uint8)
        flat = paper_white(photo, card_mask(300, 420))
        paper = np.median(flat[(inside > 0) & ~ink & (true.min(axis=2) > 200)], axis=0)
        assert np.abs(paper - PAPER).max() < 12, (lamp, paper)  # grey-white paper, not tinted
        red = hue(flat)[ink]
        reddish = ((red <= 12) | (red >= 168)).mean()  # OpenCV hue: red wraps round 0/180
        assert reddish > 0.8, (lamp, reddish)
    # a flat picture with too few pixels is returned as it came
    tiny = np.full((5, 5, 3), 40, np.uint8)
    assert (paper_white(tiny) == tiny).all()


def test_a_card_whole_near_the_edge_is_taken_and_one_the_edge_cuts_is_not() -> None:
    """A phone photo often has the card a few pixels from the picture's edge. The
    finder boxes a card tightly, so a box 1% from the edge (the old bound) refused
    this whole card, 12 px from the left edge and boxed 3.5 px from it; the same
    card with a third of it beyond the edge must still be refused."""
    from companion.training.enrol import default_card_finder

    finder = default_card_finder()
    cfg = replace(SceneConfig.varied(480, "held-out"), under_cards=(0, 0), hand_p=0.0, card_height=(0.4, 0.75))
    scene = Compositor(config=cfg).scene(np.random.default_rng([4242, 56]))
    truth = scene.top.corners
    assert 5 < truth[:, 0].min() < 0.03 * 480  # whole, near the left edge
    assert _corner_error(finder.find(scene.image).corners, truth) < 0.04
    lo, hi = truth.min(0), truth.max(0)
    for cut in (scene.image[:, int(lo[0] + 0.3 * (hi[0] - lo[0])):],  # its left third gone
                scene.image[int(lo[1] + 0.3 * (hi[1] - lo[1])):],  # its top third gone
                scene.image[:int(hi[1] - 0.15 * (hi[1] - lo[1]))]):  # its bottom sixth gone
        with pytest.raises(CardNotFound, match="only part of the card"):
            finder.find(np.ascontiguousarray(cut))


@pytest.mark.parametrize("period,dark", [(5, 60), (7, 60), (9, 120), (13, 170)])
def test_a_side_snaps_to_the_card_not_to_a_cloths_stripes_running_across_it(period: int, dark: int) -> None:
    """A pale card on a cloth striped across its top and bottom sides: along those
    sides' normals the stripes' own edges are as strong as the card's border, but they
    run across the side, not along it, so only the border counts (with the edge's full
    strength the top side was pulled up to 12.7 px off)."""
    yy, xx = np.mgrid[0:400, 0:400]
    cloth = np.where((xx // period) % 2 > 0, dark, 200).astype(np.uint8)
    image = np.ascontiguousarray(np.repeat(cloth[..., None], 3, axis=2))
    truth = np.array([[120, 80], [280, 80], [280, 320], [120, 320]], np.float32)
    cv2.fillPoly(image, [truth.astype(np.int32).reshape(-1, 1, 2)], (230, 230, 230))
    image = cv2.GaussianBlur(image, (3, 3), 0)
    start = truth + np.array([[0, -3], [0, 4], [0, 3], [0, -4]], np.float32)  # top and bottom a few px off
    snapped = snap_to_edges(image, start)
    assert np.abs(snapped - truth)[:, 1].max() < 1.5



def _card_with_a_shadow_line() -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]:
    """A white card on a grey table, a hard shadow's straight edge across its lower
    part (darker below it, inside the card and out): the photo, the card's corners and
    the finder's box."""
    image = np.full((400, 400, 3), 120, np.uint8)
    truth = np.array([[130, 70], [270, 70], [270, 330], [130, 330]], np.float32)
    cv2.fillPoly(image, [truth.astype(np.int32).reshape(-1, 1, 2)], (235, 235, 235))
    image[290:] = (image[290:] * 0.55).astype(np.uint8)  # the shadow from y = 290 down
    image = cv2.GaussianBlur(image, (3, 3), 0)
    return image, truth, (130.0, 70.0, 270.0, 330.0)


def _region_mask(image: np.ndarray, box: tuple[float, float, float, float], quad: np.ndarray) -> np.ndarray:
    from companion.vision.cardmask import padded_region

    x1, y1, x2, y2 = padded_region(box, image.shape)
    mask = np.zeros((y2 - y1, x2 - x1), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - [x1, y1]).astype(np.int32).reshape(-1, 1, 2)], 255)
    return cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32) / 255.0


def test_the_masks_own_outline_wins_where_the_edges_took_a_shadows_line() -> None:
    """Issue 11: the edges put the card's bottom side on a shadow's straight edge
    across it (as strong an edge as the card's own border); the learnt mask says the
    card goes on below it. The mask's outline, whose sides lie on the card's border,
    is taken: on the tuning photos this cut out 6 more of 400 cards."""
    from companion.vision.cardfinder import mask_or_edges

    image, truth, box = _card_with_a_shadow_line()
    on_shadow = truth.copy()
    on_shadow[2:, 1] = 290  # bottom side on the shadow's edge: 15% of the card's height off
    learnt = _region_mask(image, box, truth)
    found = mask_or_edges(image, box, on_shadow, on_shadow, learnt)
    assert _corner_error(found, truth) < 0.02
    assert _corner_error(on_shadow, truth) > 0.1


def test_the_mask_does_not_move_a_side_off_the_cards_border() -> None:
    """The converse: a mask that runs past the card onto plain table (unsure there)
    agrees with its own outline better than with the card's, but that outline's side
    lies on no edge, so the corners from the card's edges stay."""
    from companion.vision.cardfinder import mask_or_edges

    image, truth, box = _card_with_a_shadow_line()
    too_wide = truth + np.array([[0, 0], [25, 0], [25, 0], [0, 0]], np.float32)  # right side on bare table
    learnt = _region_mask(image, box, too_wide)
    found = mask_or_edges(image, box, truth, truth, learnt)
    assert _corner_error(found, truth) < 0.01


def test_a_white_card_on_a_floor_as_white_is_cut_out_where_the_mask_knows_it() -> None:
    """Issue 11: a white card lies across the border of a dark mat and a floor as white as
    its paper (a warm light clips both to the same white), so three of its sides have no
    edge at all. Every outline then scored nothing and the card was refused as "edges not
    clear" (4 of 500 tuning photos); the learnt mask, which knows the card's shape, now
    places it."""
    image = np.full((400, 400, 3), 255, np.uint8)
    image[:, :120] = (60, 70, 80)  # the dark mat, left of the card's left side
    truth = np.array([[120, 80], [270, 80], [270, 300], [120, 300]], np.float32)
    cv2.fillPoly(image, [truth.astype(np.int32).reshape(-1, 1, 2)], (255, 255, 255))
    cv2.circle(image, (195, 190), 45, (40, 160, 40), -1)  # the green symbol
    box = (118.0, 78.0, 272.0, 302.0)
    learnt = _region_mask(image, box, truth)

    class _Knows:
        def roi_mask(self, roi: np.ndarray) -> np.ndarray:
            assert roi.shape[:2] == learnt.shape
            return learnt

    assert refine_corners(image, box) is None  # the edges alone cannot tell
    found = CardFinder(_Boxes(box), masker=_Knows()).find(image)
    assert _corner_error(found.corners, truth) < 0.02


def test_the_masker_reads_a_region_turned_a_quarter_as_the_same_card_turned() -> None:
    """The masker reads each region at four quarter turns (TURNS) and turns each read
    back before averaging, so a photo taken with the phone turned a quarter gives the
    same card outline, turned: a read turned back the wrong way would break this.
    One look alone (turns=1) does not promise it."""
    from companion.vision.cardmask import DEFAULT_MASKER, OnnxMasker, padded_region

    scene = _single_card_scenes().scene(np.random.default_rng([557, 0]))
    x1, y1, x2, y2 = padded_region(scene.box, scene.image.shape)
    side = min(x2 - x1, y2 - y1)
    roi = np.ascontiguousarray(scene.image[y1:y1 + side, x1:x1 + side])
    four, one = OnnxMasker(DEFAULT_MASKER), OnnxMasker(DEFAULT_MASKER, turns=1)
    upright, one_look = four.roi_mask(roi), one.roi_mask(roi)
    for mask in (upright, one_look):
        assert mask.shape == roi.shape[:2] and 0.2 < (mask > 0.5).mean() < 0.95
    turned_back = np.rot90(four.roi_mask(np.ascontiguousarray(np.rot90(roi))), -1)
    assert np.abs(upright - turned_back).max() < 0.02
    assert ((upright > 0.5) == (one_look > 0.5)).mean() > 0.97  # the same card
    with pytest.raises(ValueError, match="quarter turns"):
        OnnxMasker(DEFAULT_MASKER, turns=5)


def _short_box(box: tuple[float, float, float, float], side: int, share: float) -> tuple[float, float, float, float]:
    """``box`` with ``share`` of it cut off at one side (0 left, 1 right, 2 top, 3 bottom)."""
    x1, y1, x2, y2 = box
    b = [x1, y1, x2, y2]
    if side == 0:
        b[0] = x1 + share * (x2 - x1)
    elif side == 1:
        b[2] = x2 - share * (x2 - x1)
    elif side == 2:
        b[1] = y1 + share * (y2 - y1)
    else:
        b[3] = y2 - share * (y2 - y1)
    return b[0], b[1], b[2], b[3]


def _sharp_card_with_a_shadow_line() -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]:
    """:func:`_card_with_a_shadow_line` with a symbol on the card: something sharp to see
    (a blank card is refused as too blurred)."""
    image, truth, box = _card_with_a_shadow_line()
    cv2.circle(image, (200, 180), 40, (40, 40, 200), 4)
    return image, truth, box


class _Bright:
    """A masker that takes every pixel brighter than the lit table's grey for card (the
    card 235 or 129 in the shadow, the table 120 or 66): it sees the card, shadowed or
    not, and runs onto any pale patch of table. It notes the regions it was asked about."""

    def __init__(self) -> None:
        self.regions: list[tuple[int, int]] = []

    def roi_mask(self, roi: np.ndarray) -> np.ndarray:
        self.regions.append(roi.shape[:2])
        return (cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) > 124).astype(np.float32)


def test_a_card_whose_box_ends_at_a_shadows_edge_is_cut_out_whole(monkeypatch) -> None:
    """Issue 11: the finder's box ends at a hard shadow's edge across the card (20% of it
    left out). The mask, read in the box's region, runs on to the region's side; the box
    is taken again from the mask, read again, and the whole card is cut out. Without
    that (REBOX 0) the cut stops short of the card's bottom."""
    from companion.vision import cardfinder

    image, truth, _ = _sharp_card_with_a_shadow_line()
    box = (130.0, 70.0, 270.0, 278.0)  # stops short of the shadow's edge at y = 290; the card goes to 330
    seen = _Bright()
    found = CardFinder(_Boxes(box), masker=seen).find(image)
    assert _corner_error(found.corners, truth) < 0.02
    assert found.box[3] >= 328, found.box  # the box it was cut out in reaches the card's bottom
    assert len(seen.regions) >= 2
    monkeypatch.setattr(cardfinder, "REBOX", 0)
    try:
        short = CardFinder(_Boxes(box), masker=_Bright()).find(image).corners
        assert _corner_error(short, truth) > 0.04
    except CardNotFound:
        pass  # refused is right too: what matters is that it is not cut out whole


def test_held_out_cards_are_cut_out_whole_from_boxes_a_third_short(monkeypatch) -> None:
    """Issue 11: held-out-style cards on varied tables, the finder's box 30% short at one
    side (as a hard shadow or the table's pattern leaves it). Measured with the shipped
    masker: 19 of 20 cut out within 4% of the card's height, 0 of 20 with the box as
    given (REBOX 0)."""
    from companion.vision import cardfinder
    from companion.vision.cardmask import shipped_masker

    masker = shipped_masker()
    assert masker is not None
    comp = _single_card_scenes()

    def cut_out() -> int:
        good = 0
        for i in range(20):
            rng = np.random.default_rng([557, i])
            scene = comp.scene(rng)
            box = _short_box(scene.box, int(rng.integers(4)), 0.3)
            try:
                found = CardFinder(_Boxes(box), masker=masker).find(scene.image)
            except CardNotFound:
                continue
            good += _corner_error(found.corners, scene.top.corners) < 0.04
        return good

    assert cut_out() >= 17
    monkeypatch.setattr(cardfinder, "REBOX", 0)
    assert cut_out() <= 3


def test_a_cut_the_learnt_mask_disagrees_with_is_refused_not_learnt(monkeypatch) -> None:
    """Issue 11: a pale patch of table beside the card that the masker takes for card
    (as a real masker runs onto a table as pale as the paper). No outline fits both the
    edges and the mask, so the photo is refused as "edges not clear", for the user to
    take again, rather than a face learnt from a cut that may hold table. Without the
    bound (MIN_AGREEMENT 0) the same photo is taken."""
    from companion.vision import cardfinder

    image, truth, box = _sharp_card_with_a_shadow_line()
    cv2.ellipse(image, (270, 200), (60, 90), 0, -90, 90, (150, 150, 150), -1)  # the pale patch right of the card
    with pytest.raises(CardNotFound, match="edges are not clear"):
        CardFinder(_Boxes(box), masker=_Bright()).find(image)
    monkeypatch.setattr(cardfinder, "MIN_AGREEMENT", 0.0)
    CardFinder(_Boxes(box), masker=_Bright()).find(image)


def test_a_card_a_little_blurred_is_cut_out_and_called_soft() -> None:
    """Two bounds (session 30): a 5 px motion blur (a slow hand) or a Gaussian of
    1.5 px leaves the corners as right as a sharp card's, so the card is cut out but
    called soft (the camera then waits for a crisper frame, a folder's photo is learnt
    with a hint); a 9 px motion blur is still refused (the test above)."""
    from companion.vision.cardfinder import CRISP, MIN_CRISPNESS

    comp = _single_card_scenes("published")
    scene = comp.scene(np.random.default_rng([555, 3]))
    finder = CardFinder(_Boxes(scene.box))
    sharp = finder.find(scene.image)
    assert not sharp.soft and sharp.crispness >= CRISP
    kernel = np.zeros((5, 5), np.float32)
    kernel[2, :] = 1 / 5
    for shaken in (cv2.filter2D(scene.image, -1, kernel), cv2.GaussianBlur(scene.image, (0, 0), 1.5)):
        found = finder.find(shaken)
        assert found.soft and MIN_CRISPNESS <= found.crispness < CRISP
        assert _corner_error(found.corners, scene.top.corners) < 0.04
