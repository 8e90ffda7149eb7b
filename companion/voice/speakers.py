"""Speakers behind one small protocol: pyttsx3 (espeak-ng on Linux), and fakes for tests."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from .spoken import for_speech


class SpeechUnavailable(RuntimeError):
    """No speech engine works here (no espeak-ng, no audio stack...)."""


class SentenceFailed(SpeechUnavailable):
    """One sentence could not be spoken (the engine wrote no sound for it); the next
    one may well be: the voice worker retries it once, then skips it, and goes on."""


class Speaker(Protocol):
    def say(self, text: str) -> None:
        """Speak ``text`` and return when done (called only from the voice thread)."""


class Pyttsx3Speaker:
    """pyttsx3 (espeak-ng on Linux) renders each sentence to a WAV, which ``aplay`` plays.

    Why not pyttsx3's own playback: its espeak driver starts ``aplay`` through
    ``os.system``, which can be neither stopped (a penalty must cut a long hint off)
    nor checked (with no audio device it fails silently). Here a missing player or a
    player that cannot open any output is a :class:`SpeechUnavailable` the kiosk shows
    once, and :meth:`stop` ends the sentence being played. The engine is created
    lazily in the thread that speaks, as pyttsx3 requires."""

    def __init__(self, driver: str | None = None, rate: int = 165, voice: str | None = None,
                 player: tuple[str, ...] = ("aplay", "-q")) -> None:
        self.driver, self.rate, self.voice, self.player = driver, rate, voice, player
        self._engine: Any = None
        self._playing: subprocess.Popen[bytes] | None = None
        self._stopped = False
        self._lock = threading.Lock()

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
        if shutil.which(self.player[0]) is None:
            raise SpeechUnavailable(f"no audio player ({self.player[0]}: install alsa-utils)")
        with tempfile.TemporaryDirectory(prefix="taki-say-") as tmp:
            wav = self.render_wav(text, Path(tmp) / "say.wav")
            with self._lock:
                self._stopped = False
                self._playing = subprocess.Popen([*self.player, str(wav)], stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE)
            _, err = self._playing.communicate()
            with self._lock:
                rc, stopped, self._playing = self._playing.returncode, self._stopped, None
            if rc != 0 and not stopped:
                why = err.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {rc}"]
                raise SpeechUnavailable(f"no audio output works ({self.player[0]}: {why[0]})")

    def stop(self) -> None:
        """Cut the sentence being played (called from another thread)."""
        with self._lock:
            if self._playing is not None and self._playing.poll() is None:
                self._stopped = True
                self._playing.kill()

    def render_wav(self, text: str, path: str | Path) -> Path:
        """Speak into a WAV file instead of the speakers (works with no audio device).
        Numbers go to the engine in words where its voice skips digits (``spoken.py``).

        pyttsx3 now and then returns from ``runAndWait`` with no file written: its
        espeak driver's callback found its engine already collected (ReferenceError,
        seen once in CI under load). Then the engine is made anew and asked once more,
        rather than the kiosk calling speech unavailable for good."""
        out = Path(path)
        said = for_speech(text, self.voice)
        for _ in range(2):
            engine = self._get()
            engine.save_to_file(said, str(out))
            engine.runAndWait()
            if out.exists() and out.stat().st_size > 44:  # more than a WAV header
                return out
            self._engine = None
        raise SentenceFailed(f"the speech engine wrote no sound for {text[:40]!r}")


class NullSpeaker:
    def say(self, text: str) -> None:
        pass


class RecordingSpeaker:
    """Keeps what it was asked to say; ``seconds`` per sentence stands in for speech time."""

    def __init__(self, seconds: float = 0.0, fail: bool = False) -> None:
        self.said: list[str] = []
        self.seconds, self.fail = seconds, fail
        self.busy = threading.Event()
        self.cut: list[str] = []  # sentences stopped part-way
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    def say(self, text: str) -> None:
        if self.fail:
            raise SpeechUnavailable("no speech engine: test speaker set to fail")
        self._stop.clear()
        self.busy.set()
        try:
            if self.seconds and self._stop.wait(self.seconds):
                self.cut.append(text)
                return
            self.said.append(text)
        finally:
            self.busy.clear()
