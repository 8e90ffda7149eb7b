"""Scores the tracker on synthesised videos: precision, recall, latency, same-face replays.

An event matches a true play when it names the same face, comes at or after the
frame where the card landed and before the next play lands (one event per play,
in order). Events while a hand is over the pile are counted separately: the
target is zero.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..rules.cards import Card
from ..vision.detector import Detection, Detector, RoiDetector
from ..vision.seats import SEAT_SURE, SeatMap
from ..vision.tracker import LeadingCardTracker, TrackerConfig, TrackKind
from ..synth.scene import Compositor
from ..synth.video import SynthVideo, TrueFrame


class OracleDetector:
    """Detections from a synthetic video's ground truth, with a detector's faults:
    nothing (or a wrong, weak guess) under a hand, and rare one-frame flickers."""

    def __init__(self, video: SynthVideo, seed: int = 0, flicker: float = 0.05) -> None:
        self.truth, self.rng, self.flicker = video.truth, np.random.default_rng(seed), flicker
        self.i = 0

    @classmethod
    def from_json(cls, path: Path, flicker: float = 0.0) -> OracleDetector:
        """For a synthesised video file: its ground-truth JSON stands in for a model."""
        d = json.loads(Path(path).with_suffix(".json").read_text())
        video = SynthVideo(d["fps"], [], [], [TrueFrame(f["top"], tuple(f["box"]) if f["box"] else None,
                                                        f["hand_over_pile"], f["hand_over_top"])
                                               for f in d["frames"]])
        return cls(video, 0, flicker)

    def detect(self, image: np.ndarray) -> list[Detection]:
        if self.i >= len(self.truth):
            return []
        tf = self.truth[self.i]
        self.i += 1
        if tf.top is None or tf.box is None:
            return []
        card = Card.from_code(tf.top)
        if tf.hand_over_top:
            if self.rng.random() < 0.3:
                wrong = Card.from_code(("R5", "B7", "KING", "GTAKI")[int(self.rng.integers(4))])
                return [Detection(wrong, float(self.rng.uniform(0.2, 0.6)), tf.box)]
            return []
        if self.rng.random() < self.flicker:
            wrong = Card.from_code(("Y3", "BSTOP", "+3")[int(self.rng.integers(3))])
            return [Detection(wrong, 0.9, tf.box)]
        jitter = self.rng.normal(0, 1.0, 4)
        box = tuple(float(v + j) for v, j in zip(tf.box, jitter))
        return [Detection(card, float(self.rng.uniform(0.7, 0.97)), box)]  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class SeatedPlay:
    """One matched play of a video made with seats: whose it was and what the camera said.

    Why: the seat numbers are a handful of plays out of hundreds; reading which plays
    (video seed, play, frame) went wrong is how the arm watcher gets better."""

    video: int  # the video's seed
    play: int  # its index in the video
    frame: int  # the frame the card landed on
    truth: int
    seat: int | None  # the seat named from the arm, None: no arm seen
    confidence: float
    angle: float | None  # the arm's direction from the pile (degrees), None: no arm seen

    def named(self, sure: float) -> bool:
        return self.seat is not None and self.confidence >= sure


@dataclass
class VideoScore:
    plays: int = 0
    events: int = 0
    matched: int = 0
    same_plays: int = 0
    same_found: int = 0
    during_hand: int = 0
    latencies: list[float] = field(default_factory=list)
    seat_plays: list[SeatedPlay] = field(default_factory=list)  # matched plays whose seat is known
    sure: float = SEAT_SURE  # a seat is named at this confidence (else the turn order decides)

    @property
    def seated(self) -> int:
        return len(self.seat_plays)

    @property
    def seat_right(self) -> int:
        """Plays whose seat was named confidently and right."""
        return sum(p.named(self.sure) and p.seat == p.truth for p in self.seat_plays)

    @property
    def seat_wrong(self) -> int:
        """... named confidently and wrong (the referee would accuse the wrong player)."""
        return len(self.wrong_seats())

    def wrong_seats(self) -> list[SeatedPlay]:
        return [p for p in self.seat_plays if p.named(self.sure) and p.seat != p.truth]


@dataclass
class Score:
    videos: list[VideoScore] = field(default_factory=list)

    def _sum(self, attr: str) -> int:
        return sum(getattr(v, attr) for v in self.videos)

    @property
    def precision(self) -> float:
        e = self._sum("events")
        return self._sum("matched") / e if e else 1.0

    @property
    def recall(self) -> float:
        p = self._sum("plays")
        return self._sum("matched") / p if p else 1.0

    @property
    def same_rate(self) -> float:
        s = self._sum("same_plays")
        return self._sum("same_found") / s if s else 1.0

    @property
    def seat_accuracy(self) -> float:
        """Plays whose seat was named confidently and right (the rest fall back to the turn order)."""
        n = self._sum("seated")
        return self._sum("seat_right") / n if n else float("nan")

    @property
    def seat_wrong_rate(self) -> float:
        n = self._sum("seated")
        return self._sum("seat_wrong") / n if n else float("nan")

    @property
    def median_latency(self) -> float:
        lat = [x for v in self.videos for x in v.latencies]
        return statistics.median(lat) if lat else float("nan")

    def report(self) -> str:
        return (f"videos {len(self.videos)}, plays {self._sum('plays')}, events {self._sum('events')}\n"
                f"precision {self.precision:.4f}  recall {self.recall:.4f}\n"
                f"events while a hand covered the pile: {self._sum('during_hand')}\n"
                f"same-face replacements found: {self._sum('same_found')}/{self._sum('same_plays')} "
                f"({self.same_rate:.3f})\n"
                f"median latency {self.median_latency:.3f} s"
                + (f"\nseat named right {self.seat_accuracy:.4f}, named wrong {self.seat_wrong_rate:.4f} "
                   f"({self._sum('seated')} plays with seats; the rest fall back to the turn order)"
                   if self._sum("seated") else "")
                + "".join(f"\n  named wrong: video {p.video} play {p.play} (frame {p.frame}): seat {p.truth} "
                          f"played, seat {p.seat} named at {p.confidence:.2f}" for p in self.wrong_seats()))

    def wrong_seats(self) -> list[SeatedPlay]:
        """The plays whose seat was named confidently and wrong."""
        return [p for v in self.videos for p in v.wrong_seats()]

    def seats_json(self) -> list[dict[str, object]]:
        """Every seated play, for reading them one by one (track-eval --seat-json)."""
        return [{**asdict(p), "confidence": round(p.confidence, 3),
                 "angle": None if p.angle is None else round(p.angle, 1)}
                for v in self.videos for p in v.seat_plays]


def score_video(video: SynthVideo, detector: Detector, config: TrackerConfig | None = None,
                roi: tuple[float, float, float, float] | None = None, zoom: bool = False,
                seats: SeatMap | None = None, sure: float = SEAT_SURE) -> VideoScore:
    """``zoom``: run the detector on the tracker's region of interest (as the app does);
    ``seats``: where the video's players sit (its plays' seats are scored)."""
    tracker = LeadingCardTracker(config, roi=roi)
    if zoom:
        detector = RoiDetector(detector, tracker)
    events = []
    for i, img in enumerate(video.frames):
        t = i / video.fps
        for ev in tracker.update(img, t, detector.detect(img)):
            if ev.kind is TrackKind.PLAYED:
                events.append((i, ev))
    s = VideoScore(plays=len(video.plays), events=len(events), sure=sure)
    s.same_plays = sum(p.same_as_previous for p in video.plays)
    s.during_hand = sum(video.truth[i].hand_over_top for i, _ in events)
    j = 0
    for k, play in enumerate(video.plays):
        end = video.plays[k + 1].land_frame if k + 1 < len(video.plays) else len(video.frames)
        while j < len(events) and events[j][0] < play.land_frame:
            j += 1
        if j < len(events) and events[j][0] < end and events[j][1].card is not None \
                and events[j][1].card.code == play.card:
            s.matched += 1
            s.same_found += play.same_as_previous
            s.latencies.append((events[j][0] - play.land_frame) / video.fps)
            if seats is not None and play.seat is not None:
                reach = events[j][1].reach
                seat, confidence = seats.seat_for(reach)
                s.seat_plays.append(SeatedPlay(video.seed, k, play.land_frame, play.seat, seat, confidence,
                                               None if reach is None else reach.angle))
            j += 1
    return s


def evaluate(videos: list[SynthVideo], make_detector: Callable[[SynthVideo], Detector],
             config: TrackerConfig | None = None, zoom: bool = False, seats: int = 0) -> Score:
    return Score([score_video(v, make_detector(v), config, zoom=zoom,
                              seats=SeatMap.evenly(seats) if seats else None) for v in videos])


@dataclass(frozen=True)
class OpenTakiRun:
    """Issue 14's open TAKI refereed from one synthetic video (see :func:`open_taki_run`)."""

    right: bool
    seen: tuple[str, ...]  # each card played as the referee got it: "R4@1" (seat 1), "R4@-" (no sure seat)
    counts: tuple[int, ...]
    to_move: int
    stack: int

    def describe(self) -> str:
        return f"{' '.join(self.seen)} -> counts {self.counts}, to move P{self.to_move}, stack {self.stack}"


def open_taki_run(seed: int, compositor: Compositor, seats: bool = True) -> OpenTakiRun:
    """4 players, seats spread evenly: a card turned up, P0 plays a TAKI and a card of its
    colour and says nothing, P1 goes on with a card of that colour and a +2 of it, then
    calls "closed TAKI" (P1's own call). Each card reaches the real session as the app
    sends it (the tracker's event, its seat when the seat map is sure); the reader is the
    ground truth. Right: P0 and P1 hold six cards, the others eight, and the +2 is P2's
    to answer. ``seats=False``: no seats known (the misattribution of the issue)."""
    from ..referee import Referee
    from ..referee.session import TableSession
    from ..rules import CloseTaki, new_game
    from ..synth.video import synth_video

    rng = np.random.default_rng(seed)
    colour = "RYGB"[int(rng.integers(4))]
    n1, n2, start = (str(int(x)) for x in rng.choice([1, 3, 4, 5, 6, 7, 8, 9], 3, replace=False))
    cards = [Card.from_code(c) for c in (colour + start, colour + "TAKI", colour + n1, colour + n2, colour + "+2")]
    turns = [int(rng.integers(4)), 0, 0, 1, 1]  # anyone turns up the first card
    video = synth_video(seed, plays=len(cards), size=320, compositor=compositor, seats=4, turns=turns,
                        first=cards, same_p=0.0, hover_p=0.0)
    session = TableSession(Referee(new_game(["P0", "P1", "P2", "P3"])),
                           seat_map=SeatMap.evenly(4) if seats else None)
    tracker, reader = LeadingCardTracker(), OracleDetector(video, seed=seed)
    seen: list[str] = []
    for i, image in enumerate(video.frames):
        for ev in tracker.update(image, i / video.fps, reader.detect(image)):
            if ev.kind is TrackKind.PLAYED and ev.card is not None:
                seat = session.seat_of(ev)
                seen.append(f"{ev.card.code}@{'-' if seat is None else seat}")
                session.card_seen(ev.card, i / video.fps, seat)
    session.referee.submit(CloseTaki())
    s = session.referee.state
    return OpenTakiRun(s.counts == (6, 6, 8, 8) and s.to_move == 2 and s.stack == 1, tuple(seen), tuple(s.counts),
                       s.to_move, s.stack)
