"""The ``taki-companion`` command: sub-commands for each part of the project."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _selfplay(args: argparse.Namespace) -> int:
    from .rules.options import RuleSet
    from .rules.selfplay import POLICIES, play_game

    rules = RuleSet(tournament=args.tournament)
    wins = [0] * args.players
    events = 0
    for i in range(args.games):
        policies = [POLICIES[args.policy]() for _ in range(args.players)]
        result = play_game(args.players, args.seed + i, policies, rules)
        if result.winner is None:
            print(f"game {args.seed + i} did not finish in {result.events} events", file=sys.stderr)
            return 1
        wins[result.winner] += 1
        events += result.events
    print(f"{args.games} games, {args.players} players, {args.policy} policy, "
          f"{'tournament' if args.tournament else 'normal game'}: {events} events")
    for seat, w in enumerate(wins):
        print(f"  seat {seat + 1}: {w} wins")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="taki-companion", description=__doc__)
    sub = p.add_subparsers(dest="command")
    sp = sub.add_parser("selfplay", help="play seeded simulated games and print a summary")
    sp.add_argument("--games", type=int, default=100)
    sp.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="2..10")
    sp.add_argument("--policy", choices=("random", "greedy"), default="random")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--tournament", action="store_true")
    sp.set_defaults(func=_selfplay)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
