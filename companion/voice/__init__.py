"""Speech: rulings into words, spoken from a worker thread so the UI never waits."""

from .speakers import NullSpeaker, Pyttsx3Speaker, RecordingSpeaker, Speaker, SpeechUnavailable
from .wording import sentences
from .worker import Line, Priority, VoiceWorker

__all__ = ["NullSpeaker", "Pyttsx3Speaker", "RecordingSpeaker", "Speaker", "SpeechUnavailable",
           "VoiceWorker", "Priority", "Line", "sentences"]
