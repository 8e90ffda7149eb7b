"""The bundled demo: a synthesised video of a real (simulated) game, plus its taps.

A seeded greedy game supplies the order of cards; the video shows them landing
on a pile; every other event of the game (a draw, a colour named, "closed
TAKI") becomes a timed tap, as the people at the table would press it. The app
referees the video live, through the tracker and the shipped detector.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..rules import RuleSet
from ..rules.cards import Card
from ..rules.events import Event, Play, Reveal
from ..rules.selfplay import GreedyPolicy, play_game
from ..store.codec import event_from_dict, event_to_dict
from .scene import Compositor, SceneConfig
from .video import synth_video

ASSETS = Path(__file__).resolve().parent.parent / "assets"
DEMO_VIDEO = ASSETS / "demo.mp4"
DEMO_SCRIPT = ASSETS / "demo.json"
DEMO_NAMES = ("Dana", "Omer", "Noa")


@dataclass(frozen=True, slots=True)
class Tap:
    t: float  # video seconds
    event: Event
    after: int = 0  # the tap belongs after this many cards have landed (0-based index of its card)


@dataclass(frozen=True, slots=True)
class DemoScript:
    names: tuple[str, ...]
    first: int
    rules: RuleSet
    taps: tuple[Tap, ...]
    cards: tuple[str, ...]
    land_t: tuple[float, ...]


def load_script(path: Path = DEMO_SCRIPT) -> DemoScript:
    d = json.loads(path.read_text())
    return DemoScript(tuple(d["names"]), d["first"], RuleSet(), tuple(Tap(t["t"], event_from_dict(t["event"]), t.get("after", 0)) for t in d["taps"]),
                      tuple(d["cards"]), tuple(d["land_t"]))


def build_demo(seed: int = 7, max_cards: int = 22, size: int = 320, fps: float = 10.0,
               video: Path = DEMO_VIDEO, script: Path = DEMO_SCRIPT) -> DemoScript:
    game = play_game(len(DEMO_NAMES), seed, [GreedyPolicy() for _ in DEMO_NAMES], first=0)
    cards: list[Card] = []
    after: list[list[Event]] = []  # the taps that follow each card
    for e in game.log:
        if isinstance(e, (Reveal, Play)):
            if len(cards) == max_cards:
                break
            cards.append(e.card)
            after.append([])
            if isinstance(e, Play) and e.seat is not None:
                after[-1].append(e)  # an out-of-turn Breaker: somebody answers "who played that?"
        elif after:
            after[-1].append(e)
    comp = Compositor(config=SceneConfig(size=size, photometric=False))
    vid = synth_video(seed, plays=len(cards), fps=fps, size=size, same_p=0.0, hover_p=0.1,
                      compositor=comp, first=cards, idle=(14, 18), noise=0.0, shake=0.0, light=0.0)
    taps = []
    for k, play in enumerate(vid.plays):
        for j, e in enumerate(after[k]):
            taps.append(Tap(round(play.land_t + 0.7 + 0.3 * j, 2), e, k))
    vid.write(video)
    doc = {"names": list(DEMO_NAMES), "first": 0, "seed": seed,
           "cards": [c.code for c in cards], "land_t": [p.land_t for p in vid.plays],
           "taps": [{"t": t.t, "after": t.after, "event": event_to_dict(t.event)} for t in taps]}
    script.write_text(json.dumps(doc, indent=1))
    return load_script(script)


if __name__ == "__main__":
    s = build_demo()
    print(f"demo: {len(s.cards)} cards, {len(s.taps)} taps -> {DEMO_VIDEO} ({DEMO_VIDEO.stat().st_size // 1024} KiB)")
