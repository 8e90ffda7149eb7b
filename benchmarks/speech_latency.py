"""Benchmark: card landing -> start of its penalty sentence, and the speech backlog.

The bundled demo (its cards and taps at their own times, through the real
:class:`~companion.referee.Referee`) and self-play games at table pace (a card
every 1.5-4 s) go through the real :class:`~companion.voice.VoiceWorker` with a
speaker that takes as long as espeak-ng does for each sentence (seconds per word
measured here by rendering the language's sentences to WAV with espeak-ng). Time
is compressed ``--speedup`` times; the figures printed are in table seconds. Side
by side: the priority queue (today) and a plain first-in-first-out queue (before
issue 13).

A penalty whose news was settled before it was said (a +3 window replaced by
"Broken!" or by everyone's draw) is counted apart as superseded: its settling
sentence is itself a penalty, timed like any other.

Run: python benchmarks/speech_latency.py [--games 100] [--speedup 40] [--language en] [--kinds priority fifo]
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
from collections.abc import Callable, Iterator
from pathlib import Path

from companion.rules import Step, apply, deal, legal_moves
from companion.voice import Line, Priority, VoiceWorker
from companion.voice.language import Language
from companion.voice.wording import sentences

SAMPLES = {
    Language.ENGLISH: ["Omer, draw two.", "Dana, draw four: no last-card call.",
                       "Red TAKI, Noa: red cards, then closed TAKI.", "The colour is blue.",
                       "Plus three! Everyone but Eli, draw three."],
}
from report import Report, add_json_argument


def measured_seconds_per_word(lang: Language) -> float:
    """espeak-ng's pace in ``lang``, from sentences the referee really says."""
    from companion.rules import Play, Reveal, new_game
    from companion.rules.cards import Card
    from companion.voice import Pyttsx3Speaker

    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(Card.from_code("R5"))).state
    steps = [apply(g, Play(Card.from_code(c))) for c in ("R+2", "+3", "RTAKI", "COLOR", "RSTOP")]
    texts = [line.text for s in steps for line in sentences(s, lang=lang)]
    sp = Pyttsx3Speaker(voice=lang.voice)
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

    def speak_all(self, said: list[Line]) -> None:
        for line in said:
            self.q.put(line.text)

    def backlog_seconds(self) -> float:
        return sum(0.3 + self.speaker.per_word * len(t.split()) for t in list(self.q.queue))

    def wait(self, timeout: float) -> bool:
        self.q.join()
        return True

    def stop(self) -> None:
        pass


#: a game as (table seconds, what happens then -> the steps it made)
Timeline = Iterator[tuple[float, Callable[[], list[Step]]]]


def selfplay(g: int) -> Timeline:
    rng = random.Random(g)
    state = deal(("Dana", "Omer", "Noa", "Eli"), seed=g)
    t, steps = 0.0, 0
    while not state.is_over and steps < 80:
        moves = legal_moves(state)
        if not moves:
            return
        step = apply(state, rng.choice(moves))
        state, steps = step.state, steps + 1
        yield t, (lambda s=step: [s])
        t += rng.uniform(1.5, 4.0)  # the next card, at table pace


def demo() -> Timeline:
    from companion.referee import Referee
    from companion.rules.cards import Card
    from companion.synth.demo import load_script

    script = load_script()
    ref = Referee.start(list(script.names), first=script.first, rules=script.rules)
    made: list[Step] = []
    ref.listeners.append(made.append)

    def run(f: Callable[[], object]) -> list[Step]:
        made.clear()
        f()
        return list(made)

    acts = [(t, (lambda c=Card.from_code(code): run(lambda: ref.card_seen(c))))
            for code, t in zip(script.cards, script.land_t)]
    acts += [(tap.t, (lambda e=tap.event: run(lambda: ref.submit(e)))) for tap in script.taps]
    yield from sorted(acts, key=lambda a: a[0])


def play(voice_kind: str, games: list[Callable[[], Timeline]], per_word: float, speedup: float,
         lang: Language) -> tuple[list[float], float, int]:
    latencies: list[float] = []
    worst_backlog, superseded = 0.0, 0
    for game in games:
        speaker = TimedSpeaker(per_word, speedup)
        voice = VoiceWorker(speaker, clock=lambda: time.perf_counter() * speedup, speedup=speedup,
                            seconds_per_word=per_word) \
            if voice_kind == "priority" else FifoVoice(speaker)
        pending: list[tuple[str, float]] = []
        epoch, start = 0, time.perf_counter()
        for at, act in game():
            time.sleep(max(0.0, start + at / speedup - time.perf_counter()))
            for step in act():
                if not step.legal:
                    continue
                epoch += 1
                said = sentences(step, lang=lang)
                t = time.perf_counter()
                voice.advance(epoch)
                voice.speak_all(said)  # type: ignore[arg-type]
                pending += [(line.text, t) for line in said if line.priority == Priority.PENALTY]
                worst_backlog = max(worst_backlog, voice.backlog_seconds())
        voice.wait(30)
        starts: dict[str, list[float]] = {}
        for text, t0 in speaker.started:
            starts.setdefault(text, []).append(t0)
        for text, t in pending:  # each penalty's own start: the first of its text not before it
            later = [s for s in starts.get(text, []) if s >= t]
            if later:
                starts[text].remove(later[0])
                latencies.append((later[0] - t) * speedup)
            else:
                superseded += 1
        voice.stop()
    return latencies, worst_backlog, superseded


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100, help="self-play games, beside the demo")
    ap.add_argument("--speedup", type=float, default=40.0)
    ap.add_argument("--language", default="en", help="en he sr te ur gd")
    ap.add_argument("--kinds", nargs="+", default=["priority", "fifo"], choices=["priority", "fifo"],
                    help="which voices to run (the plain queue's figures do not change with the worker)")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report("speech_latency", f"Speech: from a card landing to its penalty being said ({args.language})")
    lang = Language.parse(args.language)
    per_word = measured_seconds_per_word(lang)
    print(f"espeak-ng ({lang.voice}): {per_word:.2f} s per word (measured); the demo + {args.games} "
          f"self-play games, {args.speedup:g}x compressed")
    games: list[Callable[[], Timeline]] = [demo] + [lambda g=g: selfplay(g) for g in range(args.games)]
    for kind in args.kinds:
        lat, backlog, superseded = play(kind, games, per_word, args.speedup, lang)
        lat.sort()
        print(f"{kind:8s} penalties {len(lat):5d}  landing->speech median {statistics.median(lat):4.2f} s  "
              f"p95 {lat[int(0.95 * (len(lat) - 1))]:4.2f} s  worst {lat[-1]:5.2f} s  "
              f"largest queue {backlog:5.1f} s of speech  superseded {superseded}")
        what = "the speech queue" if kind == "priority" else "a plain first-in-first-out queue (for comparison)"
        rep.add(f"{what}: landing -> speech, median", round(statistics.median(lat), 2), "s")
        rep.add(f"{what}: landing -> speech, worst", round(lat[-1], 2), "s")
        rep.add(f"{what}: largest queue", round(backlog, 1), "s of speech")
    rep.note(f"The bundled demo and {args.games} self-play games through the real referee and voice worker, "
             f"{args.speedup:g} times table pace; espeak-ng's measured pace {per_word:.2f} s a word.")
    rep.write(args.json)


if __name__ == "__main__":
    main()
