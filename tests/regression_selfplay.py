"""The self-play summaries pinned by test_selfplay_regression (shared with the benchmark)."""

from __future__ import annotations

import hashlib
from collections import Counter

from companion.rules import RuleSet
from companion.rules.selfplay import GreedyPolicy, Policy, RandomPolicy, play_game


def summary(games: int, tournament: bool = False) -> dict[str, object]:
    """Seeded games for 2..10 players, greedy and random players alternating seats."""
    rules = RuleSet(tournament=tournament)
    kinds: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    events = longest = 0
    digest = hashlib.sha256()
    for i in range(games):
        n = 2 + i % 9
        policies: list[Policy] = [GreedyPolicy() if (i + s) % 2 else RandomPolicy() for s in range(n)]
        r = play_game(n, i, policies, rules)
        assert r.winner is not None, f"game {i} did not finish"
        events += r.events
        longest = max(longest, r.events)
        wins[policies[r.winner].name] += 1
        kinds.update(r.rulings)
        digest.update(f"{i}:{r.winner}:{r.events};".encode())
    return {
        "events": events,
        "longest": longest,
        "wins": dict(sorted(wins.items())),
        "penalties": kinds["penalty"],
        "reshuffles": kinds["reshuffle"],
        "broken": kinds["plus3_broken"],
        "stages": kinds["stage"],
        "digest": digest.hexdigest()[:16],
    }


if __name__ == "__main__":
    print(summary(10_000))
    print(summary(60, tournament=True))
