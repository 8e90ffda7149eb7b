"""A table session: the referee, the voice and the camera pipeline, without Kivy.

The UI owns one of these and calls ``poll()`` from its clock on the main
thread; the camera and detector run on a worker thread and hand over frames
and tracker events through a queue, so no OpenGL work happens off the main
thread and nothing blocks on audio.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..rules import Card, Color, Play, Step, legal_faces
from ..rules.events import Event
from ..rules.rulings import RulingKind, in_words
from ..vision.seats import SEAT_SURE, SeatMap
from ..voice import Priority, VoiceWorker, sentences
from ..voice.catalog import tr, words
from ..voice.language import Language
from ..voice.wording import describe, whole_sentence
from .loop import Question, Referee, RefereeError

TAKE_BACK = tr("Take the {card} back.")
THANKS = tr("Thank you: the {card} leads again.")
SEATS_PLACED = tr("Seats placed: the camera now tells who played each card.")
SEATS_WRONG = tr("Place one seat for each player.")
CAMERA_LOST = tr("Camera lost: reconnecting. The game is kept.")
VIDEO_ENDED = tr("The video has ended.")
UNREADABLE = tr("I cannot read the leading card: is it in view and lit?")
CAMERA_BACK = tr("Camera back.")
UNDONE = tr("Undone: {what}")
#: After an outage, the pile's card read this many frames running, the same as before it:
#: nothing was missed, and refereeing goes on by itself.
SAME_AFTER_OUTAGE = 3
HAND_OVER = tr("Hand over the pile…")


@dataclass
class Snapshot:
    """What the worker saw last: for the camera view."""

    image: np.ndarray | None = None
    box: tuple[float, float, float, float] | None = None
    card: Card | None = None
    status: str = "starting"
    t: float = 0.0


@dataclass
class LogLine:
    t: float
    text: str
    penalty: bool = False
    undone: bool = False  # taken back by Undo: shown struck through, never as if it stood


class VisionWorker:
    """Frames -> detector -> tracker on a thread; results go into ``out``."""

    def __init__(self, source, detector, tracker, realtime: bool = True) -> None:  # type: ignore[no-untyped-def]
        self.source, self.detector, self.tracker, self.realtime = source, detector, tracker, realtime
        self.out: queue.Queue[tuple[str, object]] = queue.Queue()
        self.snapshot = Snapshot()
        self._stop = threading.Event()
        self.error: str | None = None
        self.fps = 0.0
        self._thread = threading.Thread(target=self._run, name="taki-vision", daemon=True)

    def start(self) -> VisionWorker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.source.close()

    def _run(self) -> None:
        t0 = time.monotonic()
        last_status = None  # the source's last status (or camera error) put out
        reader_failing = False
        n = 0
        backoff = 0.0
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except Exception as e:  # a driver that raises: said on screen, retried with back-off
                backoff = min(5.0, max(0.25, backoff * 2))
                self.error = f"camera: {type(e).__name__}: {e}"
                msg = f"Camera error ({type(e).__name__}): retrying in {backoff:.0f} s. The game is kept."
                if last_status != msg:
                    self.out.put(("source", msg))
                    last_status = msg
                self._stop.wait(backoff)
                continue
            backoff = 0.0
            status = getattr(self.source, "status", "ok")
            if status != last_status:
                self.out.put(("source", status))
                last_status = status
            if frame is None:
                if status == "ended":
                    return
                time.sleep(0.02)
                continue
            if self.realtime:  # a file plays at its own pace
                wait = frame.t - (time.monotonic() - t0)
                if wait > 0:
                    time.sleep(wait)
            try:
                dets = self.detector.detect(frame.image)
            except Exception as e:  # a frame the detector chokes on is skipped, the game goes on
                self.error = f"detector: {e}"
                if not reader_failing:  # said once when it starts failing, not once a frame
                    self.out.put(("source", f"Card reader error ({type(e).__name__}): the game is kept; "
                                            "enter cards by hand if need be."))
                    reader_failing = True
                dets = []
            else:
                if reader_failing:  # reading again: the message goes
                    self.out.put(("source", "ok"))
                    reader_failing = False
            try:
                events = self.tracker.update(frame.image, frame.t, dets)
            except Exception as e:  # never lose the thread to one bad frame
                self.error = f"tracker: {type(e).__name__}: {e}"
                continue
            reading = self.tracker.last_reading
            self.snapshot = Snapshot(frame.image, reading.box if reading else None,
                                     reading.card if reading else None, "ok", frame.t)
            n += 1
            self.fps = n / max(1e-6, time.monotonic() - t0)
            for ev in events:
                self.out.put(("track", (frame.t, ev)))


_PLAIN_TAPS = frozenset({"drew", "last_card", "closed_taki", "end_turn", "all_drew"})


def _colour(args: tuple[object, ...]) -> Color:
    """The colour a tap names, or a RefereeError a person can read."""
    if not args:
        raise RefereeError("name a colour: red, yellow, green or blue")
    value = args[0]
    if isinstance(value, Color):
        return value
    if isinstance(value, str):
        key = value.strip().lower()
        for c in Color:
            if key in (c.value.lower(), c.name.lower()):
                return c
    raise RefereeError(f"{value!r} is not a colour: red, yellow, green or blue")


def _card(args: tuple[object, ...]) -> Card:
    """The card a tap names (a Card or its code, e.g. "R7", "+2R"), or a RefereeError."""
    from ..rules.cards import CardParseError

    if not args:
        raise RefereeError("which card? pick one of the faces")
    value = args[0]
    if isinstance(value, Card):
        return value
    if isinstance(value, str):
        try:
            return Card.from_code(value.strip())
        except (CardParseError, ValueError):
            pass
    raise RefereeError(f"{value!r} is not a TAKI card")


def _whole(args: tuple[object, ...], i: int, what: str) -> int:
    """A whole number (0 or more) from a tap's arguments, or a RefereeError."""
    if len(args) <= i:
        raise RefereeError(f"which {what}?")
    value = args[i]
    if isinstance(value, bool):
        raise RefereeError(f"{value!r} is not a {what}")
    try:
        n = int(str(value).strip()) if isinstance(value, str) else int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        raise RefereeError(f"{value!r} is not a {what}: give a whole number") from None
    if n < 0 or (not isinstance(value, str) and n != value):
        raise RefereeError(f"{value!r} is not a {what}: give a whole number, 0 or more")
    return n


def _seat(args: tuple[object, ...], i: int, players: int) -> int:
    """A seat at this table from a tap's arguments, or a RefereeError."""
    seat = _whole(args, i, "seat")
    if seat >= players:
        raise RefereeError(f"there is no seat {seat} at this table")
    return seat


@dataclass
class TableSession:
    referee: Referee
    voice: VoiceWorker | None = None
    teaching: bool = False
    language: Language = Language.ENGLISH  # what the referee says and shows its rulings in
    #: where the players sit (their arms' directions from the pile), once known: the
    #: camera then names who played each card; None: the turn order decides
    seat_map: SeatMap | None = None
    log: list[LogLine] = field(default_factory=list)
    status: str = ""
    warning: str = ""  # lasting trouble (no journal, no speech): always shown with the status
    on_change: Callable[[], None] | None = None
    vision: VisionWorker | None = None
    taps: list = field(default_factory=list)  # the demo's scripted taps  # type: ignore[type-arg]
    cards_accepted: int = 0
    _takeback: Card | None = None
    #: the camera was off (lost, or its driver failed) since the last card it read
    outage: bool = False
    #: after an outage, the new top card the camera saw: not applied until a person says
    #: what was played meanwhile (the referee never guesses a missing play)
    missed: Card | None = None
    _same_since_outage: int = 0
    _outage_frame_t: float | None = None

    def __post_init__(self) -> None:
        self.referee.listeners.append(self._heard)
        self._kept: list[tuple[int, int]] = []  # each kept step's lines in the log (start, end)

    # ------------------------------------------------------------ rulings out

    def _heard(self, step: Step) -> None:
        problem = self.referee.journal_error
        if problem and problem not in self.warning:  # lasting, beside whatever else is shown
            self.warning = "; ".join(w for w in (self.warning, problem) if w)
        said = sentences(step, self.teaching, self.language)
        if self.voice is not None:
            self.voice.advance(self.referee.seq)  # what was queued for earlier moves is stale now
            self.voice.speak_all(said)
        start = len(self.log)
        for r in step.rulings:
            if r.kind is RulingKind.TURN:
                continue
            self.log.append(LogLine(time.time(), describe(r, self.language), r.is_penalty))
        if step.legal:  # a step the referee keeps, and Undo can take back
            self._kept.append((start, len(self.log)))
        if self.teaching and not step.legal:
            hint = self.hint()
            if hint:
                self.log.append(LogLine(time.time(), hint))
                if self.voice is not None:
                    self.voice.speak(hint, Priority.HINT)
        if self.on_change:
            self.on_change()

    def _mark_undone(self) -> None:
        """After Undo: the step taken back stays in the log struck through, and a line
        says what was undone ("Undone: Omer played the blue 7."), so the log never shows
        an undone play as if it stood."""
        if self._kept:
            self._kept.pop()  # the undo's own step
        if not self._kept:
            return
        start, end = self._kept.pop()
        taken = [ln for ln in self.log[start:end] if not ln.undone]
        for ln in taken:
            ln.undone = True
        if taken:
            self.log.append(LogLine(time.time(), words(self.language)(UNDONE, what=taken[0].text)))
            if self.on_change:
                self.on_change()

    def _words(self, msgid: str, card: Card | None = None) -> str:
        """A status line in the session's language (``card`` said in it)."""
        w = words(self.language)
        return w(msgid, card=w.card(card))

    def hint(self) -> str:
        """Teaching mode: what the player to move can do, in words."""
        s = self.referee.state
        if not s.phase.value == "playing":
            return ""
        faces = legal_faces(s)
        name = s.names[s.to_move]
        if s.pending.value == "color":
            return f"{name}, tap the colour you want."
        if s.stack:
            return f"{name}, you can put down a plus two or a King, or draw {in_words(2 * s.stack)}."
        colours = sorted({c.color.spoken for c in faces if c.color is not None})
        extra = " or any colourless card" if any(c.color is None for c in faces) else ""
        if s.run is not None and s.run.seat == s.to_move:
            return f"{name}, keep playing {s.run.color.spoken} cards, then call closed TAKI."
        lead = s.lead.spoken if s.lead else "the leading card"
        return (f"{name}, match the {lead}: a {' or '.join(colours)} card, the same symbol{extra}. "
                "If you cannot, draw a card.")

    # ------------------------------------------------------------ inputs

    def tap(self, action: str, *args: object) -> Step | Question | None:
        """A button: 'drew', 'last_card', 'closed_taki', 'end_turn', 'colour', 'undo',
        'correct', 'answer', 'all_drew', 'card' (a card entered by hand: the camera missed
        it, or there is no camera), 'fix' (the last card was misread: it was this one) and
        'only_that' (after a camera outage: the card now on the pile was the only play).
        A wrong tap is answered, never raised."""
        r = self.referee
        try:
            if action == "card":
                card = _card(args)
                self.outage, self.missed = False, None  # a person is saying what was played
                return self.card_seen(card)
            if action == "only_that":
                if self.missed is None:
                    raise RefereeError("no card is waiting: nothing was missed")
                card, self.outage, self.missed = self.missed, False, None
                self.status = ""
                return self.card_seen(card)
            if action == "fix":
                card = _card(args)
                step = r.fix_card(card)
                # a fixed card that could not be played is on the pile until taken back
                self._takeback = None if step.legal else card
                self.status = "" if step.legal else self._words(TAKE_BACK, card=card)
                if self.on_change:
                    self.on_change()
                return step
            if action == "colour":
                return r.colour(_colour(args))
            if action == "undo":
                step = r.undo()
                self._mark_undone()
                return step
            if action == "correct":
                return r.correct(_seat(args, 0, r.state.n_players), _whole(args, 1, "count"))
            if action == "answer":
                step = r.answer(_seat(args, 0, r.state.n_players))
                if step.legal and self._takeback is not None:  # a person overrode the camera's seat
                    self._takeback, self.status = None, ""
                    if self.on_change:
                        self.on_change()
                return step
            if not isinstance(action, str) or action not in _PLAIN_TAPS:
                raise RefereeError(f"no button does {action!r}")
            return getattr(r, action)()  # type: ignore[no-any-return]
        except RefereeError as e:
            self.status = whole_sentence(str(e))
            if self.on_change:
                self.on_change()
            return None

    def save_elsewhere(self, path: str) -> str:
        """After the journal failed: save the game so far at ``path`` and keep saving there.
        Returns what to show (done, or why not)."""
        from ..store.journal import JournalError

        problem = self.referee.journal_error
        try:
            gid = self.referee.save_to(path)
        except (JournalError, OSError) as e:
            return f"Not saved at {path}: {e}"
        if problem:
            self.warning = "; ".join(w for w in self.warning.split("; ") if w != problem)
        return f"Saved: game {gid} in {path}; the game goes on being saved there."

    def submit(self, event: Event) -> Step:
        return self.referee.submit(event)

    def place_seats(self, angles: tuple[float, ...] | list[float]) -> str:
        """The players' seats as placed round the table (degrees from the pile, as the
        camera sees it, in seat order): used from now on and kept in the journal.
        Returns what to show."""
        n = self.referee.state.n_players
        if len(angles) != n:
            return self._words(SEATS_WRONG)
        from ..store.journal import JournalError

        self.seat_map = SeatMap(tuple(float(a) % 360 for a in angles))
        journal, gid = self.referee.journal, self.referee.game_id
        if journal is not None and gid is not None:
            try:
                journal.set_seats(gid, self.seat_map.angles)
            except JournalError as e:
                self.warning = "; ".join(w for w in (self.warning, str(e)) if w)
        self.status = self._words(SEATS_PLACED)
        if self.on_change:
            self.on_change()
        return self.status

    def seat_of(self, ev) -> int | None:  # type: ignore[no-untyped-def]
        """Who put the card down, when the seats are known and the camera is sure."""
        if self.seat_map is None or getattr(ev, "reach", None) is None:
            return None
        seat, confidence = self.seat_map.seat_for(ev.reach)
        return seat if confidence >= SEAT_SURE else None

    def card_seen(self, card: Card, t: float | None = None, seat: int | None = None) -> Step | Question | None:
        if self._takeback is not None and card == self.referee.state.top:
            self._takeback = None
            self.referee.question = None  # taken back: nobody is asked who played it
            self.status = self._words(THANKS, card=card)
            if self.on_change:
                self.on_change()
            return None
        result = self.referee.card_seen(card, t, seat)
        if isinstance(result, Step) and result.legal:
            self.cards_accepted += 1
        if isinstance(result, Step) and not result.legal:
            self._takeback = card  # the pile shows a refused card until it is taken back
            self.status = self._words(TAKE_BACK, card=card)
        elif isinstance(result, Question):
            self.status = result.text
            if self.voice is not None:
                self.voice.speak(result.text, Priority.CALL)
            if self.on_change:
                self.on_change()
        else:
            self._takeback = None
        return result

    def poll(self, now: float, video_t: float | None = None) -> None:
        """Called on the UI thread: drain the camera's events, run due taps and timers."""
        if self.vision is not None:
            while True:
                try:
                    kind, payload = self.vision.out.get_nowait()
                except queue.Empty:
                    break
                if kind == "source":
                    if payload not in ("ok", "ended"):
                        self.outage, self._same_since_outage = True, 0
                    said = {"lost": CAMERA_LOST, "ended": VIDEO_ENDED}.get(str(payload))
                    self.status = "" if payload == "ok" else self._words(said) if said else str(payload)
                    if self.on_change:
                        self.on_change()
                elif kind == "track":
                    t, ev = payload  # type: ignore[misc]
                    self._track(ev, t)
            self._outage_over()
        if video_t is not None:
            # A scripted tap waits for its card to be read (or 3 s more, if it never is).
            while self.taps and self.taps[0].t <= video_t and (
                    self.cards_accepted > self.taps[0].after or video_t >= self.taps[0].t + 3.0):
                event = self.taps.pop(0).event
                if isinstance(event, Play):  # an out-of-turn Breaker: answers "who played that?"
                    if self.referee.question is not None and event.seat is not None:
                        self.tap("answer", event.seat)
                else:
                    self.submit(event)
        self.referee.tick(now)

    def _outage_over(self) -> None:
        """After an outage, the camera back and the pile's card the same as before it, read
        frame after frame: nothing was missed, so refereeing goes on with no tap. (The
        tracker says nothing of a card it already knows, so waiting for its news held every
        later card until someone answered.) A different card is asked about (:meth:`_track`)."""
        if not self.outage or self.missed is not None or self.vision is None:
            return
        snap = getattr(self.vision, "snapshot", None)
        if snap is None or snap.t == self._outage_frame_t:
            return
        self._outage_frame_t = snap.t
        top = self.referee.state.top
        if snap.card is None or snap.card != top or snap.status != "ok":
            self._same_since_outage = 0
            return
        self._same_since_outage += 1
        if self._same_since_outage >= SAME_AFTER_OUTAGE:
            self.outage, self._same_since_outage = False, 0
            self.status = self._words(CAMERA_BACK)
            if self.on_change:
                self.on_change()

    def _track(self, ev, t: float) -> None:  # type: ignore[no-untyped-def]
        from ..vision.tracker import TrackKind

        if ev.kind is TrackKind.PLAYED and ev.card is not None:
            if self.outage and self.referee.state.phase.value != "setup":
                if ev.card == self.referee.state.top:  # the pile as it was: nothing was missed
                    self.outage = False
                else:
                    self.missed = ev.card
                    self.status = (f"The camera was off, and now the {ev.card.spoken} is on top. What was played "
                                   f"meanwhile? Tap 'Only the {ev.card.spoken}', or enter each card.")
                    if self.voice is not None:
                        self.voice.speak(f"The camera was off. What was played? The {ev.card.spoken} is on top.",
                                         Priority.CALL)
            else:
                self.card_seen(ev.card, t, self.seat_of(ev))
        elif ev.kind is TrackKind.UNREADABLE:
            self.status = self._words(UNREADABLE)
        elif ev.kind is TrackKind.OCCLUDED:
            self.status = self._words(HAND_OVER)
        elif ev.kind is TrackKind.CLEAR and self.status == self._words(HAND_OVER):
            self.status = ""
        if self.on_change:
            self.on_change()
