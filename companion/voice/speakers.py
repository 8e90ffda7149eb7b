"""Speakers behind one small protocol: pyttsx3 (espeak-ng on Linux), and fakes for tests."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Protocol


class SpeechUnavailable(RuntimeError):
    """No speech engine works here (no espeak-ng, no audio stack...)."""


class Speaker(Protocol):
    def say(self, text: str) -> None:
        """Speak ``text`` and return when done (called only from the voice thread)."""


class Pyttsx3Speaker:
    """pyttsx3; created lazily in the thread that speaks, as pyttsx3 requires."""

    def __init__(self, driver: str | None = None, rate: int = 165, voice: str | None = None) -> None:
        self.driver, self.rate, self.voice = driver, rate, voice
        self._engine: Any = None

    def _get(self) -> Any:
        if self._engine is None:
            try:
                import pyttsx3

                engine = pyttsx3.init(self.driver)
                engine.setProperty("rate", self.rate)
                if self.voice:
                    engine.setProperty("voice", self.voice)
            except Exception as e:  # ImportError, OSError (no libespeak), RuntimeError
                raise SpeechUnavailable(f"no speech engine: {e}") from e
            self._engine = engine
        return self._engine

    def say(self, text: str) -> None:
        engine = self._get()
        engine.say(text)
        engine.runAndWait()

    def render_wav(self, text: str, path: str | Path) -> Path:
        """Speak into a WAV file instead of the speakers (works with no audio device)."""
        engine = self._get()
        engine.save_to_file(text, str(path))
        engine.runAndWait()
        return Path(path)


class NullSpeaker:
    def say(self, text: str) -> None:
        pass


class RecordingSpeaker:
    """Keeps what it was asked to say; ``seconds`` per sentence stands in for speech time."""

    def __init__(self, seconds: float = 0.0, fail: bool = False) -> None:
        self.said: list[str] = []
        self.seconds, self.fail = seconds, fail
        self.busy = threading.Event()

    def say(self, text: str) -> None:
        if self.fail:
            raise SpeechUnavailable("no speech engine: test speaker set to fail")
        self.busy.set()
        try:
            if self.seconds:
                time.sleep(self.seconds)
            self.said.append(text)
        finally:
            self.busy.clear()
