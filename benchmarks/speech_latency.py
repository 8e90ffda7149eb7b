"""Benchmark: card landing -> start of its penalty sentence, and the speech backlog.

Self-play games (and the bundled demo's rulings) are played at table pace through
the real :class:`~companion.voice.VoiceWorker` with a speaker that takes as long as
espeak-ng does for each sentence (seconds per word measured here by rendering
sentences to WAV with espeak-ng). Time is compressed ``--speedup`` times so 100
games take minutes; the figures printed are in table seconds. Side by side: the
priority queue (today) and a plain first-in-first-out queue (before issue 13).

Run: python benchmarks/speech_latency.py [--games 100] [--speedup 40]
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import tempfile
import threading
import time
import wave
from pathlib import Path

from companion.rules import apply, deal, legal_moves
from companion.voice import Priority, VoiceWorker
from companion.voice.wording import sentences


def measured_seconds_per_word() -> float:
    from companion.voice import Pyttsx3Speaker

    texts = ["Omer, draw two.", "Dana, draw four: you did not call last card.",
             "Red TAKI: Noa, play red cards, then call closed TAKI.", "The colour is blue.",
             "Plus three! Everyone but Eli draws three, unless someone breaks it."]
    sp = Pyttsx3Speaker()
    secs, words = 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(texts):
            with wave.open(str(sp.render_wav(t, Path(tmp) / f"{i}.wav"))) as w:
                secs += w.getnframes() / w.getframerate()
            words += len(t.split())
    return secs / words


class TimedSpeaker:
    """Speaks for as long as espeak-ng would (compressed); logs when each sentence starts."""

    def __init__(self, per_word: float, speedup: float) -> None:
        self.per_word, self.speedup = per_word, speedup
        self.started: list[tuple[str, float]] = []
        self._stop = threading.Event()

    def say(self, text: str) -> None:
        self.started.append((text, time.perf_counter()))
        self._stop.clear()
        self._stop.wait((0.3 + self.per_word * len(text.split())) / self.speedup)

    def stop(self) -> None:
        self._stop.set()


class FifoVoice:
    """The voice before issue 13: every sentence in arrival order, none dropped."""

    def __init__(self, speaker: TimedSpeaker) -> None:
        self.speaker, self.q = speaker, queue.Queue()  # type: ignore[var-annotated]
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            self.speaker.say(self.q.get())
            self.q.task_done()

    def advance(self, epoch: int) -> None:
        pass

    def speak_all(self, said: list[tuple[str, Priority]]) -> None:
        for text, _ in said:
            self.q.put(text)

    def backlog_seconds(self) -> float:
        return sum(0.3 + self.speaker.per_word * len(t.split()) for t in list(self.q.queue))

    def wait(self, timeout: float) -> bool:
        self.q.join()
        return True


def play(voice_kind: str, games: int, per_word: float, speedup: float) -> tuple[list[float], float]:
    latencies: list[float] = []
    worst_backlog = 0.0
    for g in range(games):
        speaker = TimedSpeaker(per_word, speedup)
        voice = VoiceWorker(speaker) if voice_kind == "priority" else FifoVoice(speaker)  # type: ignore[arg-type]
        rng = random.Random(g)
        names = ("Dana", "Omer", "Noa", "Eli")
        state = deal(names, seed=g)
        pending: list[tuple[str, float]] = []
        steps, epoch = 0, 0
        while not state.is_over and steps < 80:
            moves = legal_moves(state)
            if not moves:
                break
            step = apply(state, rng.choice(moves))
            state, steps = step.state, steps + 1
            if not step.legal:
                continue
            epoch += 1
            said = sentences(step)
            t = time.perf_counter()
            voice.advance(epoch)
            voice.speak_all(said)  # type: ignore[arg-type]
            pending += [(text, t) for text, p in said if p == Priority.PENALTY]
            worst_backlog = max(worst_backlog, voice.backlog_seconds())
            time.sleep(rng.uniform(1.5, 4.0) / speedup)  # the next card, at table pace
        voice.wait(30)
        starts: dict[str, list[float]] = {}
        for text, t0 in speaker.started:
            starts.setdefault(text, []).append(t0)
        for text, t in pending:  # each penalty's own start: the first of its text not before it
            later = [s for s in starts.get(text, []) if s >= t]
            if later:
                starts[text].remove(later[0])
                latencies.append((later[0] - t) * speedup)
        if isinstance(voice, VoiceWorker):
            voice.stop()
    return latencies, worst_backlog


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--speedup", type=float, default=40.0)
    args = ap.parse_args()
    per_word = measured_seconds_per_word()
    print(f"espeak-ng: {per_word:.2f} s per word (measured)")
    for kind in ("priority", "fifo"):
        lat, backlog = play(kind, args.games, per_word, args.speedup)
        lat.sort()
        print(f"{kind:8s} penalties {len(lat):5d}  landing->speech median {statistics.median(lat):4.2f} s  "
              f"p95 {lat[int(0.95 * (len(lat) - 1))]:4.2f} s  worst {lat[-1]:5.2f} s  "
              f"largest queue {backlog:5.1f} s of speech")


if __name__ == "__main__":
    main()
