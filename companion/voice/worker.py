"""The voice thread: a queue of sentences, spoken one after another.

``speak`` only enqueues, so the UI thread never waits on audio. If the speaker
fails (no engine), ``error`` holds the message for the screen and later
sentences are dropped quietly: the game goes on without sound.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from .speakers import Speaker, SpeechUnavailable

_STOP = object()


class VoiceWorker:
    def __init__(self, speaker: Speaker, on_error: Callable[[str], None] | None = None) -> None:
        self.speaker = speaker
        self.muted = False
        self.error: str | None = None
        self.on_error = on_error
        self._q: queue.Queue[object] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="taki-voice", daemon=True)
        self._thread.start()

    def speak(self, text: str) -> None:
        if not self.muted and self.error is None and text:
            self._q.put(text)

    def speak_all(self, texts: list[str]) -> None:
        for t in texts:
            self.speak(t)

    def wait(self, timeout: float = 10.0) -> bool:
        """Block until everything queued was spoken (for tests and shutdown)."""
        done = threading.Event()
        self._q.put(done)
        return done.wait(timeout)

    def stop(self) -> None:
        self._q.put(_STOP)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            if self.muted or self.error is not None:
                continue
            try:
                self.speaker.say(str(item))
            except SpeechUnavailable as e:
                self._fail(str(e))
            except Exception as e:  # an engine that breaks mid-game: say so, go on
                self._fail(f"speech stopped working: {e}")

    def _fail(self, message: str) -> None:
        self.error = message
        if self.on_error is not None:
            self.on_error(message)
