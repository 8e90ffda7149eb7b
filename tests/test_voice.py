"""Issue 5 voice: real speech to WAV (espeak-ng), a voice thread that never blocks the UI."""

import shutil
import threading
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.voice import Pyttsx3Speaker, RecordingSpeaker, VoiceWorker


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is installed by .ci/run")
def test_speech_renders_to_a_wav_that_is_not_silent(tmp_path: Path) -> None:
    path = Pyttsx3Speaker().render_wav("Dana, draw four: you did not call last card", tmp_path / "s.wav")
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = np.frombuffer(frames, np.int16).astype(np.float64)
    assert seconds > 1.0
    assert np.sqrt((samples**2).mean()) > 300  # clearly audible, not a silent file


def test_speaking_never_blocks_the_caller() -> None:
    """The UI thread enqueues and moves on while the speaker is still talking."""
    speaker = RecordingSpeaker(seconds=0.3)
    voice = VoiceWorker(speaker)
    voice.speak("Omer, draw two.")
    voice.speak("Noa is skipped.")
    assert speaker.busy.wait(2)  # speech started on the voice thread...
    assert speaker.said == []  # ...and the caller got control back before it finished
    assert voice.wait(5)
    assert speaker.said == ["Omer, draw two.", "Noa is skipped."]
    voice.stop()


def test_muted_voice_says_nothing() -> None:
    speaker = RecordingSpeaker()
    voice = VoiceWorker(speaker)
    voice.muted = True
    voice.speak("Dana, draw four.")
    assert voice.wait(2) and speaker.said == []
    voice.stop()


def test_broken_engine_is_reported_and_the_game_goes_on() -> None:
    told = threading.Event()
    messages: list[str] = []
    voice = VoiceWorker(RecordingSpeaker(fail=True), on_error=lambda m: (messages.append(m), told.set()))
    voice.speak("anything")
    assert told.wait(2) and "no speech engine" in messages[0] and voice.error
    voice.speak("more")  # dropped quietly, never raises
    assert voice.wait(2)
    voice.stop()
