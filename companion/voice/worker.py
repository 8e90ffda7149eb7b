"""The voice thread: a priority queue of sentences, penalties first.

Why a priority queue: a penalty heard eight seconds late, after the next player has
moved, teaches a child nothing. So:

- penalties and calls ("Omer, draw two") jump ahead of instructions and hints;
- a call, instruction or hint whose moment has passed (the game moved on since it
  was queued: "The red 9 leads" once Dana has played) is dropped when its turn
  comes; penalties, and lasting calls (a win, a reshuffle, a correction), are never;
- the queue never holds more than ``max_backlog_s`` of speech: long sentences are
  said in their short form (who does what; the reason is on the screen), and the
  least urgent go first (:meth:`VoiceWorker._trim`);
- a newer card's penalty cuts an older card's penalty once its first 1.2 s (who
  draws how many) are said;
- a new penalty cuts off the sentence being spoken, unless it is a penalty too
  (speakers that can stop: :class:`~companion.voice.speakers.Pyttsx3Speaker` kills
  its player); a cut call ("choose a colour") is said again after it, a cut
  instruction or hint is not;
- news that settles an earlier penalty (a +3 broken, or drawn by everyone) replaces
  it: a :class:`Line` that ``supersedes`` a topic cuts that topic's sentence if it is
  being spoken and drops it if it is still waiting, as the new sentence says it all.

``speak`` only enqueues, so the UI thread never waits on audio. If the speaker
fails (no engine, no audio output), ``error`` holds the message for the screen and
later sentences are dropped quietly: the game goes on without sound.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from .speakers import SentenceFailed, Speaker, SpeechUnavailable

log = logging.getLogger("taki.voice")

SECONDS_PER_WORD = 0.43  # espeak-ng 1.51 in English, as benchmarks/speech_latency.py measures it
#: How long an older card's penalty is said before a newer card's penalty cuts it:
#: "Dana, draw four" is heard by then (the reason follows, and is on the screen).
PENALTY_HEARD_S = 1.2


class Priority(enum.IntEnum):
    PENALTY = 0  # draws, penalties, a Breaker: must be heard at once
    CALL = 1  # choose a colour, the game's start and end, corrections
    INSTRUCTION = 2  # what the next player may do
    HINT = 3  # teaching mode


def speech_seconds(text: str, per_word: float = SECONDS_PER_WORD) -> float:
    """About how long espeak-ng takes to say ``text``."""
    return 0.3 + per_word * len(text.split())


class Line(NamedTuple):
    """One sentence to say: its words, how urgent, and what it is about.

    ``topic`` names what a sentence announces (``"plus3"``: a +3 waiting to be
    answered); ``supersedes`` names the topic a sentence settles, whose older
    sentences are then cut or dropped."""

    text: str
    priority: Priority = Priority.INSTRUCTION
    topic: str | None = None
    supersedes: str | None = None
    lasting: bool = False  # a call worth saying even after the game moved on
    short: str | None = None  # the same without its reason, for when time is short


@dataclass(order=True)
class Utterance:
    priority: int
    order: int
    text: str = field(compare=False)
    epoch: int = field(compare=False, default=0)  # the game's progress when queued
    queued_at: float = field(compare=False, default=0.0)
    topic: str | None = field(compare=False, default=None)
    lasting: bool = field(compare=False, default=False)
    started_at: float = field(compare=False, default=0.0)  # when the speaker began it
    short: str | None = field(compare=False, default=None)  # its short form, not yet used


class VoiceWorker:
    def __init__(self, speaker: Speaker, on_error: Callable[[str], None] | None = None,
                 max_backlog_s: float = 3.0, clock: Callable[[], float] = time.monotonic,
                 speedup: float = 1.0, seconds_per_word: float = SECONDS_PER_WORD) -> None:
        """``clock`` and ``speedup``: a benchmark's compressed time (clock seconds pass
        ``speedup`` times faster than real ones); ``seconds_per_word``: the voice's pace
        (espeak-ng's differs by language and version; the benchmark measures it)."""
        self.per_word = seconds_per_word
        self.speaker = speaker
        self.muted = False
        self.error: str | None = None
        self.on_error = on_error
        self.max_backlog_s = max_backlog_s
        self.clock, self.speedup = clock, speedup
        #: the game's progress (the referee's event count); sentences queued before it moved
        #: on are stale once it has (penalties excepted)
        self.epoch = 0
        self.dropped: list[str] = []  # what was not said, and why (for tests and the log)
        self.failed: list[str] = []  # sentences the engine could not say even twice (skipped, logged)
        self._heap: list[Utterance] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._speaking: Utterance | None = None
        self._waiters: list[threading.Event] = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="taki-voice", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ from the UI thread

    def speak(self, text: str, priority: Priority = Priority.INSTRUCTION, epoch: int | None = None,
              topic: str | None = None, supersedes: str | None = None, lasting: bool = False,
              short: str | None = None) -> None:
        if self.muted or self.error is not None or not text:
            return
        with self._cv:
            u = Utterance(int(priority), next(self._order), text, self.epoch if epoch is None else epoch,
                          self.clock(), topic, lasting, short=short if short and short != text else None)
            now = self._speaking
            if supersedes is not None:
                self._drop(lambda q: q.topic == supersedes, "superseded")
                if now is not None and now.topic == supersedes:
                    self.dropped.append(f"cut, superseded: {now.text}")
                    self._interrupt()
                    now = None
            heapq.heappush(self._heap, u)
            self._trim()
            if now is not None and priority == Priority.PENALTY and now.priority >= Priority.CALL:
                if now.priority == Priority.CALL and not self._stale(now):  # said again after the penalty
                    heapq.heappush(self._heap, Utterance(now.priority, next(self._order), now.text,
                                                         now.epoch, now.queued_at, now.topic, now.lasting,
                                                         short=now.short))
                    self._trim()
                self._interrupt()
            elif now is not None and priority == Priority.PENALTY and now.priority == Priority.PENALTY \
                    and now.epoch < u.epoch:
                self._cut_later(now)
            self._cv.notify()

    def _cut_later(self, old: Utterance) -> None:
        """A newer card's penalty waits behind an older one: the older is cut once its
        first ``PENALTY_HEARD_S`` are said (who draws how many comes first; the reason
        after it is on the screen), so no penalty waits longer than that."""
        left = PENALTY_HEARD_S - (self.clock() - old.started_at)

        def cut() -> None:
            with self._cv:
                if self._speaking is old:
                    self.dropped.append(f"cut, a newer penalty: {old.text}")
                    self._interrupt()

        if left <= 0:
            cut()  # the condition's lock is re-entrant: the caller holds it already
            return
        timer = threading.Timer(left / self.speedup, cut)
        timer.daemon = True
        timer.start()

    def speak_all(self, texts: list[str] | list[Line] | list[tuple[str, Priority]]) -> None:
        for t in texts:
            if isinstance(t, Line):
                self.speak(t.text, t.priority, topic=t.topic, supersedes=t.supersedes, lasting=t.lasting,
                           short=t.short)
            elif isinstance(t, tuple):
                self.speak(t[0], t[1])
            else:
                self.speak(t)

    def advance(self, epoch: int) -> None:
        """The game moved on: instructions queued before ``epoch`` are stale."""
        with self._cv:
            self.epoch = max(self.epoch, epoch)
            self._drop(self._stale, "stale")  # gone at once: the backlog counts only what will be said

    def backlog_seconds(self) -> float:
        """Seconds of speech waiting behind the sentence being said (the first in the
        queue, when nothing is being said, starts at once and does not wait)."""
        with self._cv:
            return self._waiting_seconds()

    def _waiting_seconds(self) -> float:
        total = sum(speech_seconds(u.text, self.per_word) for u in self._heap)
        if self._speaking is None and self._heap:
            total -= speech_seconds(self._heap[0].text, self.per_word)
        return total

    def wait(self, timeout: float = 10.0) -> bool:
        """Block until everything queued was spoken or dropped (tests, shutdown)."""
        done = threading.Event()
        with self._cv:
            if not self._heap and self._speaking is None:
                return True
            self._waiters.append(done)
            self._cv.notify()
        return done.wait(timeout)

    def stop(self) -> None:
        with self._cv:
            self._stop = True
            self._interrupt()
            self._cv.notify()
        self._thread.join(timeout=5)

    # ------------------------------------------------------------ inside

    def _interrupt(self) -> None:
        """Stop the sentence being said (the caller holds the lock); from now on it no
        longer holds the next one back."""
        self._speaking = None
        stop = getattr(self.speaker, "stop", None)
        if callable(stop):
            stop()

    def _drop(self, which: Callable[[Utterance], bool], why: str) -> None:
        """Take the waiting sentences ``which`` picks off the queue, noting ``why``."""
        gone = [u for u in self._heap if which(u)]
        if gone:
            self._heap = [u for u in self._heap if not which(u)]
            heapq.heapify(self._heap)
            self.dropped += [f"{why}: {u.text}" for u in gone]

    def _stale(self, u: Utterance) -> bool:
        return u.priority >= Priority.CALL and not u.lasting and u.epoch < self.epoch

    def _trim(self) -> None:
        """Keep at most ``max_backlog_s`` of speech waiting. In this order, until it fits:
        a call, instruction or hint being said whose moment has passed is cut off (all
        that waits is newer); instructions and hints said in their short form, then
        dropped (the least urgent, newest first); calls and penalties said in their
        short form (who does what; the reason stays on the screen); last, calls that do
        not last (newest first). Penalties and lasting calls (a win, a correction) are
        never dropped; everything dropped is still on the screen."""
        def over() -> bool:
            return self._waiting_seconds() > self.max_backlog_s

        def shorten(which: Callable[[Utterance], bool]) -> bool:
            found = [u for u in self._heap if u.short and which(u)]
            if not found:
                return False
            u = max(found, key=lambda u: (u.priority, u.order))
            self.dropped.append(f"shortened: {u.text}")
            u.text, u.short = u.short or u.text, None
            return True

        def drop(which: Callable[[Utterance], bool]) -> bool:
            victims = [u for u in self._heap if which(u)]
            if not victims or len(self._heap) < 2:
                return False
            worst = max(victims, key=lambda u: (u.priority, u.order))
            self._heap.remove(worst)
            heapq.heapify(self._heap)
            self.dropped.append(f"backlog: {worst.text}")
            return True

        def cut_stale() -> bool:
            now = self._speaking
            if now is None or not self._stale(now):
                return False
            self.dropped.append(f"cut, stale: {now.text}")
            self._interrupt()
            return True

        while over():
            if not (cut_stale()
                    or shorten(lambda u: u.priority >= Priority.INSTRUCTION)
                    or drop(lambda u: u.priority >= Priority.INSTRUCTION)
                    or shorten(lambda u: True)
                    or drop(lambda u: u.priority == Priority.CALL and not u.lasting)):
                return

    def _next(self) -> Utterance | None:
        with self._cv:
            while True:
                if self._stop:
                    return None
                while self._heap:
                    u = heapq.heappop(self._heap)
                    if self._stale(u):
                        self.dropped.append(f"stale: {u.text}")
                        continue
                    if self.muted or self.error is not None:
                        continue
                    u.started_at = self.clock()
                    self._speaking = u
                    return u
                for w in self._waiters:
                    w.set()
                self._waiters.clear()
                self._cv.wait()

    def _run(self) -> None:
        while True:
            u = self._next()
            if u is None:
                return
            try:
                self._say(u.text)
            except SpeechUnavailable as e:  # no engine or no audio output: said once, then quiet
                self._fail(str(e))
            finally:
                with self._cv:
                    self._speaking = None

    def _say(self, text: str) -> None:
        """One sentence; one that fails (no sound written, an engine that broke) is
        tried once more, then skipped and logged: it never mutes the sentences after it."""
        for attempt in (1, 2):
            try:
                self.speaker.say(text)
                return
            except SentenceFailed as e:
                why = str(e)
            except SpeechUnavailable:
                raise
            except Exception as e:  # noqa: BLE001 - an engine that breaks on one sentence
                why = f"{type(e).__name__}: {e}"
            if attempt == 1:
                log.info("speech: trying again (%s)", why)
        self.failed.append(text)
        log.warning("speech: skipped a sentence the engine could not say twice (%s): %r", why, text[:60])

    def _fail(self, message: str) -> None:
        self.error = message
        if self.on_error is not None:
            self.on_error(message)
