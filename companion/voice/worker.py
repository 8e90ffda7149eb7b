"""The voice thread: a priority queue of sentences, penalties first.

Why a priority queue: a penalty heard eight seconds late, after the next player has
moved, teaches a child nothing. So:

- penalties and calls ("Omer, draw two") jump ahead of instructions and hints;
- an instruction or hint whose moment has passed (the game moved on since it was
  queued) is dropped when its turn comes; penalties are never dropped;
- the queue never holds more than ``max_backlog_s`` of speech: the least urgent
  sentences go first;
- a new penalty cuts off the sentence being spoken, unless it is a penalty too
  (speakers that can stop: :class:`~companion.voice.speakers.Pyttsx3Speaker` kills
  its player); a cut call ("choose a colour") is said again after it, a cut
  instruction or hint is not.

``speak`` only enqueues, so the UI thread never waits on audio. If the speaker
fails (no engine, no audio output), ``error`` holds the message for the screen and
later sentences are dropped quietly: the game goes on without sound.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .speakers import Speaker, SpeechUnavailable

SECONDS_PER_WORD = 0.36  # espeak-ng at 165 words a minute, measured with render_wav


class Priority(enum.IntEnum):
    PENALTY = 0  # draws, penalties, a Breaker: must be heard at once
    CALL = 1  # choose a colour, the game's start and end, corrections
    INSTRUCTION = 2  # what the next player may do
    HINT = 3  # teaching mode


def speech_seconds(text: str) -> float:
    """About how long espeak-ng takes to say ``text``."""
    return 0.3 + SECONDS_PER_WORD * len(text.split())


@dataclass(order=True)
class Utterance:
    priority: int
    order: int
    text: str = field(compare=False)
    epoch: int = field(compare=False, default=0)  # the game's progress when queued
    queued_at: float = field(compare=False, default=0.0)


class VoiceWorker:
    def __init__(self, speaker: Speaker, on_error: Callable[[str], None] | None = None,
                 max_backlog_s: float = 3.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.speaker = speaker
        self.muted = False
        self.error: str | None = None
        self.on_error = on_error
        self.max_backlog_s = max_backlog_s
        self.clock = clock
        #: the game's progress (the referee's event count); sentences queued before it moved
        #: on are stale once it has (penalties excepted)
        self.epoch = 0
        self.dropped: list[str] = []  # what was not said, and why (for tests and the log)
        self._heap: list[Utterance] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._speaking: Utterance | None = None
        self._waiters: list[threading.Event] = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="taki-voice", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ from the UI thread

    def speak(self, text: str, priority: Priority = Priority.INSTRUCTION, epoch: int | None = None) -> None:
        if self.muted or self.error is not None or not text:
            return
        with self._cv:
            u = Utterance(int(priority), next(self._order), text, self.epoch if epoch is None else epoch,
                          self.clock())
            heapq.heappush(self._heap, u)
            self._trim()
            now = self._speaking
            if now is not None and priority == Priority.PENALTY and now.priority >= Priority.CALL:
                if now.priority == Priority.CALL:  # a call is said again after the penalty
                    heapq.heappush(self._heap, Utterance(now.priority, next(self._order), now.text,
                                                         now.epoch, now.queued_at))
                self._interrupt()
            self._cv.notify()

    def speak_all(self, texts: list[str] | list[tuple[str, Priority]]) -> None:
        for t in texts:
            if isinstance(t, tuple):
                self.speak(t[0], t[1])
            else:
                self.speak(t)

    def advance(self, epoch: int) -> None:
        """The game moved on: instructions queued before ``epoch`` are stale."""
        with self._cv:
            self.epoch = max(self.epoch, epoch)

    def backlog_seconds(self) -> float:
        with self._cv:
            return sum(speech_seconds(u.text) for u in self._heap)

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
        stop = getattr(self.speaker, "stop", None)
        if callable(stop):
            stop()

    def _trim(self) -> None:
        """Keep at most ``max_backlog_s`` of speech: drop the least urgent, newest first."""
        while len(self._heap) > 1 and sum(speech_seconds(u.text) for u in self._heap) > self.max_backlog_s:
            victims = [u for u in self._heap if u.priority >= Priority.INSTRUCTION]
            if not victims:
                return  # penalties are never dropped
            worst = max(victims, key=lambda u: (u.priority, u.order))
            self._heap.remove(worst)
            heapq.heapify(self._heap)
            self.dropped.append(f"backlog: {worst.text}")

    def _next(self) -> Utterance | None:
        with self._cv:
            while True:
                if self._stop:
                    return None
                while self._heap:
                    u = heapq.heappop(self._heap)
                    if u.priority >= Priority.INSTRUCTION and u.epoch < self.epoch:
                        self.dropped.append(f"stale: {u.text}")
                        continue
                    if self.muted or self.error is not None:
                        continue
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
                self.speaker.say(u.text)
            except SpeechUnavailable as e:
                self._fail(str(e))
            except Exception as e:  # an engine that breaks mid-game: say so, go on
                self._fail(f"speech stopped working: {e}")
            finally:
                with self._cv:
                    self._speaking = None

    def _fail(self, message: str) -> None:
        self.error = message
        if self.on_error is not None:
            self.on_error(message)
