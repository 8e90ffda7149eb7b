"""Finds one card in a picture and cuts it out flat: the first step of enrolment.

A brightness threshold (the first enrolment) cut out the table on a white
cloth and half a card in a shadow. Here the learnt card finder (the reader's
first stage) says *where* the card is, whatever the table; the corners are then
refined from the card's edges inside that box (GrabCut separates the card from
the table around it, and a line is fitted to each side, so rounded corners and a
tilted camera still give the true corners). The learnt card masker
(:mod:`companion.vision.cardmask`) says which of those outlines is the card's
where the edges alone are fooled (a pale card on pale cloth, a shadow's straight
edge), and its own outline is taken where it is clearly the better one; where the
mask's card and the finder's box disagree (a shadow across the card ended the box
at its edge), the box is taken again from the mask (:func:`rebox`). When
there is not exactly one whole, sharp card it says why, in words a person can act
on.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..voice.catalog import tr
from .cardmask import Masker, padded_region
from .detector import Detection, Detector
from .outliner import Outliner
from .tracker import iou, overlap_of_smaller


class CardNotFound(ValueError):
    """No single whole sharp card: the message says which (shown to the user)."""


@dataclass(frozen=True)
class FoundCard:
    corners: np.ndarray  # (4, 2) float32: top-left, top-right, bottom-right, bottom-left of a portrait card
    box: tuple[float, float, float, float]  # the box the corners were found in (the finder's, or the mask's: rebox)
    sharpness: float  # variance of the Laplacian over the card (higher: sharper)
    crispness: float  # :func:`card_crispness` at the corners found (a blur of s px: about 1/s)

    @property
    def soft(self) -> bool:
        """Cut out right, but a little blurred (under :data:`CRISP`): the live camera
        waits for a crisper frame; a folder's photo is learnt with a hint to retake it."""
        return self.crispness < CRISP


#: A card this crisp is sharp: :func:`card_crispness`, the face measured at the card's
#: own size in the photo. Measured on 200 single-card photos of the held-out style
#: (seeds 4242, cut out at their true corners): as taken 0.115 at least; the same
#: blurred by a 9 px motion blur, 193 of 200 under it, by a Gaussian of 2 px, 181 of
#: 200. (Measured on the face scaled to 280 px, as it was, a card seen small was
#: upscaled and looked blurred.) Under it the card is :attr:`FoundCard.soft`.
CRISP = 0.105

#: Below this the card is too blurred to cut out: refused. Between it and
#: :data:`CRISP` the corners are nearly as right as a sharp card's. Measured with no
#: bound on the 1,800 tuning photos (seeds 4242 0-499, 6161 0-299, 7373 0-999), each
#: also blurred by a 5 px and a 9 px motion blur and a Gaussian of 1.2 and 2 px
#: (7,200 blurred cuts; benchmarks/blur_bounds.py): wrong corners (over 4% of the
#: card's height) by the crispness at the corners found, over CRISP 1.2%, 0.09-0.105
#: 2.7%, 0.08-0.09 4.0%, 0.07-0.08 5.8%, 0.06-0.07 6.9%. As taken, 6 photos fall under
#: CRISP, all cut right; this bound takes 3 of them. Until session 30 the one bound
#: was CRISP, which left a face out of the deck when a folder held only a slightly
#: soft photo of it.
MIN_CRISPNESS = 0.09
#: A second box at least this big (against the first) is a second card.
SECOND_CARD = 0.35
#: ... unless this much of the smaller box lies inside the other: the finder's second
#: look at the same card (a part of a shadowed card, the card with its shadow). Seen
#: on the tuning photos (seeds 4242): 2 of 200 single cards refused as "two cards",
#: both with a second box wholly inside or around the first.
NESTED = 0.8
#: The finder's box this close to the picture's edge (a share of its long side) is a
#: card the edge cuts off: a cut card's box reaches the edge itself (ultralytics clips
#: it there). The bound was 1%, which refused cards lying whole a few pixels from the
#: edge once the finder of session 14 boxed cards tightly (4 of 200 tuning photos,
#: seeds 4242; 0.3% refuses 1, a card 2 px from the edge). Cards cut by the edge by
#: 10-45% of their size (the same photos cut): 98 of 100 refused at 0.3%, as at 1%.
EDGE_BOX = 0.003
PART = tr("only part of the card is in view: move it towards the middle")
BLURRED = tr("too blurred: hold the camera (or the card) still")
EDGES_UNCLEAR = tr("the card's edges are not clear: try a plainer table or more light")


#: A side of the card found within this share of the long side of one edge, both its
#: corners, runs along the edge: the edge cut the card there and the finder boxed what
#: was left a few pixels short of it. Tuning photos cut by the edge (seeds 4242):
#: 98 -> 99 of 100 refused at 0.02 (1% and 1.5% changed none), no whole card refused.
EDGE_SIDE = 0.02


def _outside(corners: np.ndarray, w: int, h: int) -> bool:
    """The card found goes on beyond the picture: a corner outside it, or a side
    along its edge."""
    x, y = corners[:, 0], corners[:, 1]
    if (x < 0).any() or (y < 0).any() or (x > w - 1).any() or (y > h - 1).any():
        return True
    m = EDGE_SIDE * max(w, h)
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        if max(a[0], b[0]) <= m or max(a[1], b[1]) <= m or min(a[0], b[0]) >= w - 1 - m \
                or min(a[1], b[1]) >= h - 1 - m:
            return True
    return False


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left; the long side upright."""
    pts = pts.reshape(4, 2).astype(np.float32)
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(pts.sum(1)))
    pts = np.roll(pts, -start, 0)
    across = np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[3])
    down = np.linalg.norm(pts[3] - pts[0]) + np.linalg.norm(pts[2] - pts[1])
    if across > down:  # landscape (opposite sides averaged, as a tilted camera shortens one): turn upright
        pts = np.roll(pts, -1, 0)
    return pts


def warp_card(image: np.ndarray, corners: np.ndarray, w: int, h: int) -> np.ndarray:
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)


#: The paper of an enrolled card is brought to this grey (BGR, all equal).
PAPER = 235.0
#: A channel the light left at under 1/6 of white (:func:`lamp_gains` over 6) is too
#: coloured to learn the card's colours from. In one held-out deck's 57 photos (style
#: seed 3), two needed more: a red 6 (11x red) and a green Plus (23x red), under a deep
#: blue lamp; the rest 4.1x at most.
COLOURED_LIGHT = 6.0


def lamp_gains(flat: np.ndarray, inside: np.ndarray | None = None) -> np.ndarray | None:
    """Per channel (BGR), how much the light took away from the card's paper: the
    factor that brings the paper back to :data:`PAPER` grey; None when the picture
    is too small to tell. The paper is the brightest part of a card (ink and print
    are darker): the brightest fifth of the pixels, glare (the top 1%) left out, in
    shadow-free parts, gives its colour. ``inside`` (255 on the card) leaves the
    table out at the rounded corners."""
    pixels = flat.reshape(-1, 3).astype(np.float32)
    if inside is not None:
        pixels = pixels[inside.reshape(-1) > 0]
    if len(pixels) < 50:
        return None
    lum = pixels @ np.array([0.114, 0.587, 0.299], np.float32)  # BGR
    lo, hi = np.percentile(lum, [80, 99])
    paper = pixels[(lum >= lo) & (lum <= hi)]
    if len(paper) < 10:
        return None
    colour = np.maximum(paper.mean(0), 4.0)
    return np.clip(PAPER / colour, 0.5, 24.0)  # a deep blue lamp leaves a tenth of the red


def paper_white(flat: np.ndarray, inside: np.ndarray | None = None, gains: np.ndarray | None = None) -> np.ndarray:
    """The flat card as if lit by white light: every channel scaled so its paper is
    :data:`PAPER` grey (``gains``: :func:`lamp_gains`, measured here when not given).

    Why: a card is learnt from one photo, and a photo under a dim blue lamp or a
    warm bulb taught the few-shot learner a blue-tinted red 6 (it then read every
    red 6 on the table as a red 9). The learner adds its own light and colour
    casts to the face it is given, so the face must carry none.
    """
    gain = lamp_gains(flat, inside) if gains is None else gains
    if gain is None:
        return flat
    out = flat.astype(np.float32)
    for ch in range(3):
        if gain[ch] > 4.0:  # a channel the lamp nearly lacked: its JPEG noise is scaled up too
            out[:, :, ch] = cv2.medianBlur(np.ascontiguousarray(flat[:, :, ch]), 5)
    return np.clip(out * gain, 0, 255).astype(np.uint8)


def coloured_light(gains: np.ndarray | None) -> bool:
    """True when one colour of the light (``gains``: :func:`lamp_gains`) was so weak
    that the card's own colours cannot be told back from the photo (a deep blue or
    deep orange lamp, or a dark room): enrolment keeps the face but asks for a photo
    under white light."""
    return gains is not None and float(gains.max()) > COLOURED_LIGHT


def sharpness(img: np.ndarray) -> float:
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    return float(cv2.Laplacian(gray, cv2.CV_64F).var())


def crispness(img: np.ndarray) -> float:
    """How sharp the picture's edges are whatever their contrast: along each of four
    directions, the second derivative over the first on the strongest edges (a blur
    of s pixels makes it about 1/s), the least of the four (a motion blur leaves the
    edges along the motion sharp, and softens the others). Why not the variance of
    the Laplacian: it measures contrast as much as sharpness, so it refused a sharp
    card in dim light or on a pale table and passed a blurred one in bright light."""
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    g = cv2.GaussianBlur(g.astype(np.float32), (3, 3), 0)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    gxx, gyy, gxy = cv2.Sobel(g, cv2.CV_32F, 2, 0), cv2.Sobel(g, cv2.CV_32F, 0, 2), cv2.Sobel(g, cv2.CV_32F, 1, 1)
    out = []
    for th in np.radians([0, 45, 90, 135]):
        c, s = float(np.cos(th)), float(np.sin(th))
        d1 = np.abs(c * gx + s * gy)
        d2 = np.abs(c * c * gxx + 2 * c * s * gxy + s * s * gyy)
        strong = d1 > max(1e-3, float(np.percentile(d1, 95)))
        if not strong.any():
            return 0.0  # a flat picture: nothing sharp in it
        out.append(float(d2[strong].mean() / d1[strong].mean()))
    return min(out)


def card_crispness(image: np.ndarray, corners: np.ndarray, height: int = 280, width: int = 200) -> float:
    """:func:`crispness` of the card's face (its border with the table left out), cut
    flat at the card's own size in the picture (at most ``height`` x ``width``): scaling
    a card seen small up to that size would blur it, and call a steady photo shaken."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    own = (float(np.linalg.norm(c[3] - c[0])) + float(np.linalg.norm(c[2] - c[1]))) / 2
    h = int(round(min(float(height), max(32.0, own))))
    w = int(round(h * width / height))
    flat = warp_card(image, c, w, h)
    my, mx = int(round(h * 14 / 280)), int(round(w * 10 / 200))
    return crispness(flat[my:h - my, mx:w - mx])


def _cards(dets: list[Detection]) -> list[Detection]:
    """The boxes that are cards of their own (not a second box on the same card: part
    of it, or it with its shadow, a box inside or around the first)."""
    out: list[Detection] = []
    for d in sorted(dets, key=lambda d: -d.confidence):
        if all(iou(d.box, k.box) < 0.5 and overlap_of_smaller(d.box, k.box) < NESTED for k in out):
            out.append(d)
    return out


def _quad_from_mask(mask: np.ndarray) -> np.ndarray | None:
    """Four corners of the largest blob: sides fitted as lines, corners where they meet."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    cnt = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.02, 0.03, 0.04, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    # Refine: fit a line to the contour points along each side (away from the
    # rounded corners), and intersect neighbouring sides.
    pts = cnt.reshape(-1, 2).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d)) or 1.0
        u = d / length
        rel = pts - a
        t = rel @ u
        dist = np.abs(rel @ np.array([-u[1], u[0]]))
        near = pts[(t > 0.15 * length) & (t < 0.85 * length) & (dist < max(3.0, 0.04 * length))]
        if len(near) < 5:
            lines.append((a, u))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    return _meet(lines, quad)


def _meet(lines: list[tuple[np.ndarray, np.ndarray]], fallback: np.ndarray) -> np.ndarray:
    """The corners where neighbouring side lines (point, direction) meet; a corner of
    two parallel lines keeps ``fallback``'s."""
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            out.append(fallback[i])
            continue
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * d1)
    return np.array(out, np.float32)


def refine_corners(image: np.ndarray, box: tuple[float, float, float, float],
                   learnt: np.ndarray | None = None) -> np.ndarray | None:
    """The card's four corners from its edges inside (a little around) ``box``, and
    from the learnt mask of it where there is one (``learnt``: P(card) for every pixel
    of ``padded_region(box)``, from :func:`learnt_mask`).

    Candidate outlines come from GrabCut, from closed strong edges and from the
    masker; each that is card-shaped and fits the box is scored by how strongly its
    weakest side lies on an edge, times (with a masker) how well it agrees with the
    learnt mask: the edges place a side to the pixel, the mask says which edge is
    the card's (not a shadow's or the cloth's)."""
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    rx1, ry1, rx2, ry2 = padded_region(box, image.shape)
    roi = image[ry1:ry2, rx1:rx2]
    if roi.size == 0 or min(roi.shape[:2]) < 16:
        return None
    scale = min(1.0, 320 / max(roi.shape[:2]))  # GrabCut is slow on big pictures
    small = cv2.resize(roi, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else roi
    sh, sw = small.shape[:2]
    rect = (int((x1 - rx1) * scale), int((y1 - ry1) * scale), max(2, int(bw * scale)), max(2, int(bh * scale)))
    rect = (max(1, rect[0]), max(1, rect[1]), min(rect[2], sw - 2 - max(1, rect[0])),
            min(rect[3], sh - 2 - max(1, rect[1])))
    mask = np.zeros((sh, sw), np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    candidates = []
    cv2.setRNGSeed(0)  # GrabCut's colour models start from k-means: the same picture, the same answer
    try:
        cv2.grabCut(small, mask, rect, bgd, fgd, 5, cv2.GC_INIT_WITH_RECT)
        candidates.append(np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8))
    except cv2.error:
        pass
    strength = _edge_strength(small)
    candidates += _edge_masks(strength)
    card = None
    if learnt is not None:
        card = (cv2.resize(learnt, (sw, sh), interpolation=cv2.INTER_AREA) if scale < 1 else learnt) > 0.5
        candidates.append(np.where(card, 255, 0).astype(np.uint8))
    edges = cv2.dilate(strength, np.ones((3, 3), np.uint8))  # a pixel of slack across a side
    prior = (rect[0], rect[1], rect[0] + rect[2], rect[1] + rect[3])
    quads = [_solid_quad(fg, 0.3 * rect[2] * rect[3]) for fg in candidates]
    best, best_score = None, 0.0
    for quad in quads:
        if quad is None:
            continue
        # The finder's box is a strong prior: a quad much bigger or smaller is the
        # table's pattern or the card's symbol, not the card.
        fit = iou((float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()),
                   float(quad[:, 1].max())), prior)
        if fit < 0.6 or not _card_like(quad):
            continue
        score = max(_side_support(edges, quad), SUPPORT_FLOOR) * fit**2
        if card is not None:
            score *= _mask_iou(quad, card) ** MASK_WEIGHT
        if score > best_score:
            best, best_score = quad, score
    if best is None:
        return None
    return order_corners(best / scale + np.array([rx1, ry1], np.float32))


#: How much a candidate's agreement with the learnt mask (IoU) counts against its
#: edge support (tuned on seeds 4242).
MASK_WEIGHT = 4.0
#: A candidate's edge support counts as at least this (edge strength is in the
#: hundreds on a card's border). Why: a white card on a floor as bright as its paper
#: (a warm light clips both to the same white) has one side with no edge at all; every
#: outline then scored 0 and the card was refused as "edges not clear" though the
#: learnt mask and the box agreed on it (4 of 500 tuning photos, seeds 4242).
SUPPORT_FLOOR = 1e-3


def _mask_iou(quad: np.ndarray, learnt: np.ndarray) -> float:
    filled = np.zeros(learnt.shape, np.uint8)
    cv2.fillPoly(filled, [np.round(quad).astype(np.int32).reshape(-1, 1, 2)], 1)
    f = filled.astype(bool)
    return float((f & learnt).sum() / max(1, (f | learnt).sum()))


def learnt_mask(image: np.ndarray, box: tuple[float, float, float, float], masker: Masker) -> np.ndarray:
    """The masker's P(card) for every pixel of ``padded_region(box)``: run once per photo,
    for :func:`refine_corners` and :func:`agreement` both."""
    x1, y1, x2, y2 = padded_region(box, image.shape)
    return masker.roi_mask(image[y1:y2, x1:x2])


#: The finder's box is taken again from the learnt mask's own extent, and the mask read
#: again in it, at most this many times ...
REBOX = 3
#: ... while the mask's box and the box it was read in overlap less than this (IoU).
REBOX_STABLE = 0.9
#: A mask whose card covers less than this share of its region is no guide to the box.
REBOX_MIN_SHARE = 0.2


def mask_box(image_shape: tuple[int, ...], box: tuple[float, float, float, float],
             learnt: np.ndarray) -> tuple[float, float, float, float] | None:
    """The box around the learnt mask's card (its largest blob over 0.5), in the
    picture's pixels (``learnt``: P(card) for every pixel of ``padded_region(box)``);
    None when the mask holds too little card to say."""
    on = (learnt > 0.5).astype(np.uint8)
    if on.sum() < REBOX_MIN_SHARE * on.size:
        return None
    n, _, stats, _ = cv2.connectedComponentsWithStats(on)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[k, :4])
    x1, y1, _, _ = padded_region(box, image_shape)
    return float(x1 + x), float(y1 + y), float(x1 + x + w), float(y1 + y + h)


def rebox(image: np.ndarray, box: tuple[float, float, float, float], masker: Masker,
          learnt: np.ndarray) -> tuple[tuple[float, float, float, float], np.ndarray]:
    """The box (and its learnt mask) the card is cut out in: the finder's, or the mask's
    own where the two disagree.

    Why: the finder reads the photo at 192 px, and a hard shadow across the card
    ends its box at the shadow's edge, or a pale shadow beside it widens the box.
    The corners are searched only a little around the box, and an outline much
    bigger or smaller than it is taken for the table's pattern, so the card was cut
    short at the shadow. The masker, reading the region at 128 px, sees the card go
    on past the box's side: its box, read again, reaches the card's border. On the
    tuning photos (seeds 4242 0-499, 6161 0-299, 7373 0-999) cut out right:
    1,764 -> 1,777 of 1,800."""
    for _ in range(REBOX):
        again = mask_box(image.shape, box, learnt)
        if again is None or iou(again, box) >= REBOX_STABLE:
            break
        box = again
        learnt = learnt_mask(image, box, masker)
    return box, learnt


#: Corners the learnt mask agrees with less than this (IoU) are not taken: the card's
#: edges are not clear. Why: where the mask runs onto a table as pale as the card, or
#: past a shadow, no outline fits both, and learning a face from a cut that holds table
#: is worse than asking for another photo. On the tuning photos (seeds 4242 0-499,
#: 6161 0-299, 7373 0-999, cut out with :func:`rebox`) 4 of the 11 wrong cuts agreed
#: less than this, and 1 of the 1,776 right ones (0.76: a card the finder had refused
#: before :func:`rebox`).
MIN_AGREEMENT = 0.9


def agreement(image: np.ndarray, box: tuple[float, float, float, float], corners: np.ndarray,
              learnt: np.ndarray) -> float:
    """IoU of the quad ``corners`` (image pixels) with the learnt mask around ``box``.

    Why: snapping a side to the strongest nearby edge fixes a side pulled inwards by
    a frame printed inside the border, and breaks one next to a shadow's edge; the
    mask says which of the two is the card."""
    x1, y1, _, _ = padded_region(box, image.shape)
    return _mask_iou(corners - np.array([x1, y1], np.float32), learnt > 0.5)


#: The masker's own outline replaces the corners from the edges when it agrees with
#: the mask by at least this much more (IoU) ...
MASK_CLEARER = 0.01
#: ... while its weakest side still lies on an edge at least this strong (against the
#: edges' corners' weakest side). Both chosen on the tuning seeds 4242 and 6161 (0 to
#: 0.01 and 0.5 to 0.6 gave the same): :func:`mask_or_edges`.
MASK_SUPPORT = 0.5


def mask_outline(learnt: np.ndarray) -> np.ndarray | None:
    """The learnt mask's own outline, its sides fitted as lines (``learnt``: P(card) for
    every pixel of the region around the finder's box), in the region's pixels; None
    where it has no card's shape."""
    quad = _quad_from_mask(np.where(learnt > 0.5, 255, 0).astype(np.uint8))
    if quad is None or not _card_like(quad):
        return None
    return order_corners(quad)


def mask_or_edges(image: np.ndarray, box: tuple[float, float, float, float], refined: np.ndarray,
                  snapped: np.ndarray, learnt: np.ndarray) -> np.ndarray:
    """The card's corners: from its edges (``refined``, or ``snapped`` onto the nearest
    strong edge), or the learnt mask's own outline.

    Why: a side the edges put on a shadow's line, on the cloth's pattern or on a frame
    printed inside the card scores as well as the true one, while the mask, seen at
    the region's scale, gets it right; its outline is as precise as the snapped
    corners (median 0.4% of the card's height). Snapping is kept when it agrees with
    the mask at least as well as not snapping; the mask's outline replaces either
    only when it agrees clearly better and its sides lie on edges too (the mask
    alone rounds off a side it is unsure of). On the tuning photos (seeds 4242,
    6161) cut out right: 192 -> 196 and 193 -> 195 of 200."""
    snapped_fit, refined_fit = agreement(image, box, snapped, learnt), agreement(image, box, refined, learnt)
    edges_best, edges_fit = (snapped, snapped_fit) if snapped_fit >= refined_fit else (refined, refined_fit)
    outline = mask_outline(learnt)  # in the region's pixels
    if outline is None:
        return edges_best
    x1, y1, x2, y2 = padded_region(box, image.shape)
    at = np.array([x1, y1], np.float32)
    if agreement(image, box, outline + at, learnt) < edges_fit + MASK_CLEARER:
        return edges_best
    edges = cv2.dilate(_edge_strength(image[y1:y2, x1:x2]), np.ones((3, 3), np.uint8))
    if _side_support(edges, outline) < MASK_SUPPORT * _side_support(edges, edges_best - at):
        return edges_best
    return outline + at


def _solid_quad(fg: np.ndarray, min_area: float) -> np.ndarray | None:
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    big = max(contours, key=cv2.contourArea)
    if cv2.contourArea(big) < min_area:
        return None
    # Fill holes: the card is one solid convex shape even where its symbol matched the table.
    solid = np.zeros_like(fg)
    cv2.drawContours(solid, [cv2.convexHull(big)], -1, 255, -1)
    return _quad_from_mask(solid)


#: The widest a card may look for its height: a camera tilted 35 degrees along the
#: card's length, with the near end drawn bigger, makes it nearly square.
MAX_ASPECT = 0.99  # 0.95 refused 1 of 200 true outlines (seeds 4242)


def _card_like(quad: np.ndarray, max_skew: float = 40.0) -> bool:
    """Convex, corners near square, opposite sides alike and a card's proportions
    (a camera tilted up to 35 degrees bends and shortens less than this)."""
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
    if min(sides[0], sides[2]) < 0.55 * max(sides[0], sides[2]) or \
            min(sides[1], sides[3]) < 0.55 * max(sides[1], sides[3]):
        return False
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    if not 0.5 <= min(a, b) / max(a, b, 1e-6) <= MAX_ASPECT:  # a TAKI card is 0.68 wide for its height
        return False
    for i in range(4):
        a, b, c = quad[i - 1], quad[i], quad[(i + 1) % 4]
        u, v = a - b, c - b
        cos = float(u @ v / max(1e-6, np.linalg.norm(u) * np.linalg.norm(v)))
        if abs(np.degrees(np.arccos(np.clip(cos, -1, 1))) - 90) > max_skew:
            return False
    return True


def _edge_strength(img: np.ndarray) -> np.ndarray:
    """Edge strength whatever its direction: the strongest Lab channel's gradient."""
    g = _gradients(img).reshape(*img.shape[:2], 3, 2)
    return np.sqrt((g ** 2).sum(axis=3)).max(axis=2)


def _gradients(img: np.ndarray) -> np.ndarray:
    """(h, w, 6): the Sobel x and y of each Lab channel, so that the edge across any
    direction can be read (:func:`snap_to_edges`)."""
    lab = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2LAB), (3, 3), 0).astype(np.float32)
    return np.stack([g for c in range(3) for g in (cv2.Sobel(lab[:, :, c], cv2.CV_32F, 1, 0),
                                                    cv2.Sobel(lab[:, :, c], cv2.CV_32F, 0, 1))], axis=-1)


def _edge_masks(mag: np.ndarray) -> list[np.ndarray]:
    """Closed shapes outlined by strong edges (the card's border against the table),
    from an edge-strength map."""
    out = []
    for q in (80, 90):
        e = (mag > np.percentile(mag, q)).astype(np.uint8) * 255
        e = cv2.morphologyEx(e, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(e, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            m = np.zeros(mag.shape, np.uint8)
            cv2.drawContours(m, [max(contours, key=cv2.contourArea)], -1, 255, -1)
            out.append(m)
    return out


def _side_support(edges: np.ndarray, quad: np.ndarray, samples: int = 40) -> float:
    """How well the quad's four sides lie on strong edges: the weakest side's median
    edge strength (a wrong corner leaves one side across the card or the table)."""
    h, w = edges.shape
    scores = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        t = np.linspace(0.1, 0.9, samples)[:, None]
        pts = a + (b - a) * t
        xs = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
        ys = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
        scores.append(float(np.median(edges[ys, xs])))
    return min(scores)


#: Along a side's normal, an edge at least this strong (against the strongest) may be
#: the card's border, outside a frame printed just inside it (tuned on seeds 4242).
OUTER_EDGE = 0.7
#: The outer line is kept when its share of points on the line is at most this much
#: below the strongest edge's.
STRAIGHT_SLACK = 0.05


def _straight_fit(pts: list[np.ndarray]) -> tuple[tuple[np.ndarray, np.ndarray], float]:
    """A line fitted (robustly) through ``pts``, and the share of them within 1.5 px of
    it: a card's side is straight, a table's pattern or a shadow seldom is."""
    arr = np.array(pts, np.float32)
    vx, vy, x0, y0 = cv2.fitLine(arr, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    off = np.abs((arr[:, 0] - x0) * vy - (arr[:, 1] - y0) * vx)
    return (np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)), float((off < 1.5).mean())


def snap_to_edges(image: np.ndarray, quad: np.ndarray, reach: float = 0.04, samples: int = 30) -> np.ndarray:
    """Each side moved onto the card's border across it, at full resolution.

    Why: the corners come from a mask found on a reduced picture, and a shadow or a
    pale table can pull a side a few pixels off. Along each side's normals, reading
    only the edge across the side (a checked cloth's or a shadow's lines at other
    angles do not count; tuning seeds 4242 and 6161: 191 -> 192 and 192 -> 193 of
    200 cut out, against the edge's full strength), two candidates are found: the
    strongest edge, and the outermost edge nearly as strong (a frame printed just
    inside the border is often stronger than the border against a pale table). Each
    is refitted as a line (robustly), and the outer one is kept when it is as
    straight as the strongest; neighbouring sides meet at the new corners, and a
    result that no longer looks like a card is not used."""
    h, w = image.shape[:2]
    grads = _gradients(image)
    size = float(np.linalg.norm(quad[2] - quad[0]))
    r = max(2, int(reach * size))
    centre = quad.mean(0).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        d = b - a
        length = float(np.hypot(*d)) or 1.0
        u = d / length
        n = np.array([-u[1], u[0]])
        outward = float(n @ (a + d / 2 - centre)) > 0  # which way along n is off the card
        strongest, outer = [], []
        for t in np.linspace(0.15, 0.85, samples):
            p = a + d * t
            offs = np.arange(-r, r + 1)
            q = p[None, :] + offs[:, None] * n[None, :]
            xs, ys = q[:, 0].round().astype(int), q[:, 1].round().astype(int)
            ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            if ok.sum() < len(offs) // 2:
                continue
            g = grads[np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)].reshape(-1, 3, 2)
            vals = np.where(ok, np.abs(g @ n).max(axis=1), 0)  # the edge across the side only
            k = int(vals.argmax())
            if vals[k] <= 0:
                continue
            near = np.flatnonzero(vals >= OUTER_EDGE * vals[k])
            strongest.append(q[k])
            outer.append(q[int(near.max() if outward else near.min())])
        if len(strongest) < samples // 2:
            return quad
        line, straight = _straight_fit(strongest)
        outer_line, outer_straight = _straight_fit(outer)
        lines.append(outer_line if outer_straight >= straight - STRAIGHT_SLACK else line)
    snapped = _meet(lines, quad)
    moved = float(np.abs(snapped - quad).max())
    if not _card_like(snapped) or moved > 2 * r:
        return quad
    return order_corners(snapped)


def quad_from_outline(image_shape: tuple[int, ...], polygon: np.ndarray) -> np.ndarray | None:
    """Four corners from a learnt outline (a polygon of many points): the outline
    filled, its sides fitted as lines; None when it is no card's shape."""
    h, w = image_shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32).reshape(-1, 1, 2)], 255)
    quad = _quad_from_mask(mask)
    if quad is None or not _card_like(quad):
        return None
    return order_corners(quad)


class CardFinder:
    """One card per picture, flat: corners, or a :class:`CardNotFound` saying why.

    With an ``outliner`` (a learnt card outline, :mod:`companion.vision.outliner`)
    the corners come from its outline; without one, or when the outline is no
    card's shape, from the card's edges inside the finder's box."""

    def __init__(self, finder: Detector, min_confidence: float = 0.3, min_crispness: float = MIN_CRISPNESS,
                 outliner: Outliner | None = None, masker: Masker | None = None):
        self.finder, self.min_confidence, self.min_crispness = finder, min_confidence, min_crispness
        self.outliner, self.masker = outliner, masker

    def find(self, image: np.ndarray) -> FoundCard:
        """The card's exact corners, or :class:`CardNotFound` with the reason."""
        first = self._one_card(image)
        return self._exact(image, first)

    def locate(self, image: np.ndarray) -> "LocatedCard":
        """The one whole card in the picture as the table reads it (the finder's box),
        with its exact corners where they can be found: a card whose outline is not
        clear (a coloured field with a white border, an oval, full-bleed art, a busy
        table) or that is a little soft is still located. Refused only with no card,
        two cards, a card cut by the picture's edge, or a blur past :data:`UNUSABLE`."""
        first = self._one_card(image, LOCATE_CONFIDENCE, beside=True)
        try:
            found = self._exact(image, first)
        except CardNotFound as e:
            crisp = card_crispness(image, box_quad(first.box))
            if crisp < UNUSABLE:
                raise CardNotFound(BLURRED) from None
            return LocatedCard(first.box, None, crisp, str(e))
        return LocatedCard(found.box, found.corners, found.crispness, None)

    def _one_card(self, image: np.ndarray, min_confidence: float | None = None, beside: bool = False) -> Detection:
        """The one card the picture is of. ``beside``: cards cut by the picture's edge
        are left out where a whole card is in view (a neighbour peeking in beside the
        card photographed is not a second card)."""
        if image is None or image.ndim != 3 or min(image.shape[:2]) < 32:
            raise CardNotFound(tr("no picture from the camera"))
        least = self.min_confidence if min_confidence is None else min_confidence
        cards = _cards([d for d in self.finder.detect(image) if d.confidence >= least])
        if not cards:
            raise CardNotFound(tr("no card in view: lay the card face up in the middle of the picture"))
        h, w = image.shape[:2]
        edge = EDGE_BOX * max(w, h)

        def cut(d: Detection) -> bool:
            x1, y1, x2, y2 = d.box
            return x1 <= edge or y1 <= edge or x2 >= w - 1 - edge or y2 >= h - 1 - edge
        if beside and any(not cut(d) for d in cards):
            cards = [d for d in cards if not cut(d)]
        first = cards[0]
        if len(cards) > 1 and cards[1].area >= SECOND_CARD * first.area:
            raise CardNotFound(tr("two cards in view: show one card at a time"))
        if cut(first):
            raise CardNotFound(PART)
        return first

    def _exact(self, image: np.ndarray, first: Detection) -> FoundCard:
        h, w = image.shape[:2]
        corners = None
        if self.outliner is not None:
            outlines = [o for o in self.outliner.outline(image) if o.confidence >= self.min_confidence]
            if outlines:
                corners = quad_from_outline(image.shape, outlines[0].polygon)
        box, learnt = first.box, None
        if self.masker is not None:
            box, learnt = rebox(image, box, self.masker, learnt_mask(image, box, self.masker))
        if corners is None:
            corners = refine_corners(image, box, learnt)
        if corners is None:
            raise CardNotFound(EDGES_UNCLEAR)
        snapped = snap_to_edges(image, corners)
        if learnt is None:
            corners = snapped
        else:
            corners = mask_or_edges(image, box, corners, snapped, learnt)
        if _outside(corners, w, h):
            raise CardNotFound(PART)
        if learnt is not None and agreement(image, box, corners, learnt) < MIN_AGREEMENT:
            raise CardNotFound(EDGES_UNCLEAR)
        crisp = card_crispness(image, corners)
        if crisp < self.min_crispness:
            raise CardNotFound(BLURRED)
        return FoundCard(corners, box, sharpness(warp_card(image, corners, 200, 280)), crisp)


#: The finder's confidence a located card needs (the exact cut asks 0.3): a card of a
#: look the finder never saw (a black field, full-bleed art) is boxed less surely.
LOCATE_CONFIDENCE = 0.2

#: Located without exact corners, a card this blurred (crispness of its box) is refused:
#: half the exact cut's bound, a blur of about 10 px.
UNUSABLE = MIN_CRISPNESS / 2


@dataclass(frozen=True)
class LocatedCard:
    """Where the one card lies: the finder's box (what the table reads), its exact
    corners when they were found and agreed (else None, and ``why_not_exact``)."""

    box: tuple[float, float, float, float]
    corners: np.ndarray | None
    crispness: float
    why_not_exact: str | None

    @property
    def soft(self) -> bool:
        """A little blurred (or blurred, if cut without its exact corners): worth a retake."""
        return self.crispness < CRISP

    def outline(self) -> np.ndarray:
        """The card's four corners: the exact ones, else the finder's box."""
        return np.asarray(self.corners, np.float64) if self.corners is not None else box_quad(self.box)


def box_quad(box: tuple[float, float, float, float]) -> np.ndarray:
    """A box's four corners, clockwise from the top left, as the card's corners are."""
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
