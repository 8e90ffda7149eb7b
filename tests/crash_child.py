"""A referee process for the crash tests: journals a seeded game's events one by one.

    python -m tests.crash_child DB SEED PLAYERS

Resumes the journal's unfinished game if there is one. Prints "ack N" after event
N is committed, so the parent knows what was promised before it kills us.
"""

import sys
import time

from companion.referee import Referee
from companion.rules import RuleSet
from companion.rules.selfplay import play_game
from companion.store import Journal


def script(seed: int, players: int) -> tuple[list[str], RuleSet, list]:  # type: ignore[type-arg]
    rules = RuleSet(tournament=seed % 3 == 0)
    result = play_game(players, seed, rules=rules, first=0)
    return list(result.final.names), rules, list(result.log)


def main() -> None:
    db, seed, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    names, rules, events = script(seed, players)
    journal = Journal(db)
    ref = Referee.resume(journal) or Referee.start(names, 0, rules, journal=journal)
    for i in range(ref.seq, len(events)):
        step = ref.submit(events[i], t=float(i))
        assert step.legal
        print(f"ack {i}", flush=True)
        time.sleep(0.0005)
    print("done", flush=True)


if __name__ == "__main__":
    main()
