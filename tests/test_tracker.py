"""Issue 4 on short clips: flicker, hands, same-face replacement, TAKI runs, illegal cards."""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules import Card
from companion.vision.detector import Detection
from companion.synth.scene import Compositor, SceneConfig
from companion.training.track_eval import OracleDetector, evaluate, score_video
from companion.vision.tracker import LeadingCardTracker, TrackKind
from companion.synth.video import synth_video

BOX = (100.0, 100.0, 180.0, 210.0)


def C(code: str) -> Card:
    return Card.from_code(code)


def _still(n: int, value: int = 120) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [np.clip(np.full((240, 320, 3), value) + rng.normal(0, 1, (240, 320, 3)), 0, 255).astype(np.uint8)
            for _ in range(n)]


def _run(tracker: LeadingCardTracker, frames: list[np.ndarray], dets: list[list[Detection]]):  # type: ignore[no-untyped-def]
    out = []
    for i, (img, d) in enumerate(zip(frames, dets)):
        out += [(i, e) for e in tracker.update(img, i / 10, d)]
    return out


def _played(events):  # type: ignore[no-untyped-def]
    return [(i, e.card.code) for i, e in events if e.kind is TrackKind.PLAYED]


def test_stable_reading_is_one_play() -> None:
    dets = [[Detection(C("R5"), 0.9, BOX)]] * 10
    assert _played(_run(LeadingCardTracker(), _still(10), dets)) == [(2, "R5")]


def test_one_frame_flicker_never_plays() -> None:
    dets = [[Detection(C("R5"), 0.9, BOX)]] * 5 + [[Detection(C("B7"), 0.95, BOX)]] + [[Detection(C("R5"), 0.9, BOX)]] * 5
    dets += [[Detection(C("G1"), 0.9, BOX)], [], [Detection(C("G1"), 0.9, BOX)], [Detection(C("R5"), 0.9, BOX)]] * 2
    assert _played(_run(LeadingCardTracker(), _still(len(dets)), dets)) == [(2, "R5")]


def test_a_card_read_through_two_misreads_running_is_still_played() -> None:
    """The pile is in clear view for six frames between two hands: the new card read,
    then misread twice running (a glare), then read twice more. It was lost (3 of the last
    4 readings never agreed; open TAKI video 90019 lost the card turned up first)."""
    r3, misreads = [Detection(C("R3"), 0.9, BOX)], [[Detection(C("+3"), 0.9, BOX)], [Detection(C("BSTOP"), 0.9, BOX)]]
    dets = [[Detection(C("R5"), 0.9, BOX)]] * 4 + [r3, r3] + misreads + [r3, r3]
    assert _played(_run(LeadingCardTracker(), _still(len(dets)), dets)) == [(2, "R5"), (8, "R3")]


def test_low_confidence_never_plays() -> None:
    dets = [[Detection(C("R5"), 0.3, BOX)]] * 10
    assert _played(_run(LeadingCardTracker(), _still(10), dets)) == []


def test_prior_breaks_near_ties_but_never_hides_an_illegal_card() -> None:
    tie = [[Detection(C("B6"), 0.62, BOX), Detection(C("B9"), 0.58, BOX)]] * 5
    t = LeadingCardTracker(prior=lambda: {C("B9")})
    assert _played(_run(t, _still(5), tie)) == [(2, "B9")]
    clear = [[Detection(C("Y3"), 0.95, BOX), Detection(C("B9"), 0.5, BOX)]] * 5
    t = LeadingCardTracker(prior=lambda: {C("B9")})
    assert _played(_run(t, _still(5), clear)) == [(2, "Y3")]


def test_unreadable_pile_is_reported_once() -> None:
    dets = [[Detection(C("R5"), 0.9, BOX)]] * 5 + [[]] * 40
    events = _run(LeadingCardTracker(), _still(45), dets)
    assert [e.kind for _, e in events].count(TrackKind.UNREADABLE) == 1


@pytest.fixture(scope="module")
def comp() -> Compositor:
    return Compositor(config=SceneConfig(size=240, photometric=False))


def test_hand_over_the_pile_suspends_decisions(comp: Compositor) -> None:
    """A hand covering the pile is seen as occlusion and no play is reported under it."""
    v = synth_video(11, plays=4, size=240, compositor=comp, same_p=0, hover_p=1.0)
    tracker = LeadingCardTracker()
    det = OracleDetector(v, seed=1)
    kinds = []
    for i, img in enumerate(v.frames):
        for e in tracker.update(img, i / v.fps, det.detect(img)):
            kinds.append(e.kind)
            if e.kind is TrackKind.PLAYED:
                assert not v.truth[i].hand_over_top
    assert TrackKind.OCCLUDED in kinds and TrackKind.CLEAR in kinds
    s = score_video(v, OracleDetector(v, seed=1))
    assert s.matched == s.plays == s.events == 4 and s.during_hand == 0


def test_second_copy_of_the_same_face_is_a_new_play(comp: Compositor) -> None:
    cards = [C("G4"), C("G4"), C("G4"), C("R4")]
    v = synth_video(5, plays=4, size=240, compositor=comp, first=cards, hover_p=0)
    s = score_video(v, OracleDetector(v, seed=2, flicker=0))
    assert s.same_plays == 2 and s.same_found == 2 and s.matched == 4 and s.events == 4


def test_a_copy_laid_while_no_hand_was_seen_is_still_a_new_play() -> None:
    """Seat video 1035 (tuning seeds): the second Change Colour is laid by an arm whose
    hand is the table's colour, so no motion over the pile is seen while it lands; the
    copy lies turned and moved, which no card does by itself. It used to be missed
    (and the next card's arm was then looked for among the arms before it)."""
    from companion.cli import _seat_turns
    from companion.vision.seats import SeatMap

    comp320 = Compositor(config=SceneConfig(size=320, photometric=False))
    v = synth_video(1035, plays=15, size=320, compositor=comp320, seats=4, turns=_seat_turns(1035, 15, 4),
                    second_hand_p=0.15)
    assert v.plays[2].same_as_previous
    s = score_video(v, OracleDetector(v, seed=v.seed), seats=SeatMap.evenly(4))
    found = {p.play: p for p in s.seat_plays}
    assert 2 in found, "the second copy was not seen as a play"
    assert s.events == s.matched  # and nothing else was made a play


def test_a_card_boxed_differently_with_no_hand_over_it_is_not_a_new_play(comp: Compositor) -> None:
    """The reader's box of a card lying still moves from frame to frame; with no hand seen,
    only a card that lies elsewhere or turned, seen so twice running, is a new copy."""
    scene = comp.scene(np.random.default_rng(5), top=C("G4"))
    x1, y1, x2, y2 = scene.box
    w, h = x2 - x1, y2 - y1
    wobble = [(x1, y1, x2, y2), (x1 + 0.12 * w, y1, x2 + 0.12 * w, y2), (x1, y1 + 0.1 * h, x2, y2 + 0.1 * h)]
    dets = [[Detection(C("G4"), 0.9, wobble[0])]] * 5 + [[Detection(C("G4"), 0.9, wobble[1 + i % 2])] for i in range(12)]
    assert _played(_run(LeadingCardTracker(), [scene.image] * len(dets), dets)) == [(2, "G4")]


def test_a_hover_with_no_card_is_not_a_play(comp: Compositor) -> None:
    v = synth_video(8, plays=3, size=240, compositor=comp, first=[C("Y1"), C("Y5"), C("B5")], hover_p=1.0)
    s = score_video(v, OracleDetector(v, seed=3, flicker=0))
    assert s.events == 3 and s.matched == 3


def test_taki_run_reported_in_order(comp: Compositor) -> None:
    run = [C("R5"), C("RTAKI"), C("R1"), C("R3"), C("RSTOP"), C("R9")]
    v = synth_video(21, plays=len(run), size=240, compositor=comp, first=run, hover_p=0, idle=(3, 4))
    tracker = LeadingCardTracker()
    det = OracleDetector(v, seed=4, flicker=0)
    seen = []
    for i, img in enumerate(v.frames):
        seen += [e.card.code for e in tracker.update(img, i / v.fps, det.detect(img)) if e.kind is TrackKind.PLAYED]
    assert seen == [c.code for c in run]


def test_evaluation_over_clips_meets_the_logic_targets(comp: Compositor) -> None:
    """The tracker's own logic (oracle detector with flicker): no false plays, none under a hand."""
    vids = [synth_video(100 + s, plays=6, size=240, compositor=comp) for s in range(4)]
    score = evaluate(vids, lambda v: OracleDetector(v, seed=v.seed))
    assert score.precision == 1.0 and score.recall >= 0.95
    assert sum(v.during_hand for v in score.videos) == 0
    assert score.median_latency <= 0.5
    assert "precision" in score.report()


def test_roi_detector_looks_at_the_pile_and_maps_boxes_back() -> None:
    from companion.vision.detector import RoiDetector

    class Spy:
        shapes: list[tuple[int, ...]] = []

        def detect(self, image: np.ndarray) -> list[Detection]:
            self.shapes.append(image.shape)
            return [Detection(C("R5"), 0.9, (10.0, 20.0, 50.0, 80.0))]

    tracker = LeadingCardTracker()
    spy = Spy()
    det = RoiDetector(spy, tracker)
    frame = np.zeros((240, 320, 3), np.uint8)
    assert det.detect(frame)[0].box == (10.0, 20.0, 50.0, 80.0)  # no region yet: the whole frame
    tracker.roi = (100.0, 50.0, 260.0, 210.0)
    d = det.detect(frame)[0]
    assert spy.shapes[-1] == (160, 160, 3) and d.box == (110.0, 70.0, 150.0, 130.0)
