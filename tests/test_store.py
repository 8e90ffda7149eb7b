"""The game journal: round trip, crash and resume, corrupt files, tournaments."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.referee import Referee, RefereeError
from companion.rules import Card, RuleSet, apply, new_game
from companion.rules.selfplay import GreedyPolicy, play_game
from companion.store import Journal, JournalError, replay
from companion.store.tournament import standings, to_csv, to_json

from .crash_child import script

ROOT = Path(__file__).resolve().parent.parent


def _feed(ref: Referee, events: list) -> None:  # type: ignore[type-arg]
    for e in events:
        assert ref.submit(e).legal


def test_journal_round_trip(tmp_path: Path) -> None:
    names, rules, events = script(4, 4)
    with Journal(tmp_path / "j.db") as j:
        ref = Referee.start(names, 0, rules, journal=j)
        _feed(ref, events)
        gid = ref.game_id
    with Journal(tmp_path / "j.db") as j:
        r = replay(j, gid)
        assert r.state == ref.state and r.events == tuple(events)
        info = j.game(gid)
        assert info.winner == ref.state.winner and info.finished is not None
        assert j.unfinished() is None
        entries = list(j.entries(gid))
        assert [e.seq for e in entries] == list(range(len(events)))
        assert any("wins" in r["text"] for r in entries[-1].rulings)


def test_refused_events_are_journalled_with_their_rulings(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as j:
        ref = Referee.start(["Dana", "Omer"], journal=j)
        ref.card_seen(Card.from_code("R5"))
        ref.card_seen(Card.from_code("B7"))  # does not match: refused, but journalled
        ref.card_seen(Card.from_code("R7"))
        entries = list(j.entries(ref.game_id))
        assert [e.refused for e in entries] == [False, True, False]
        assert "does not match" in entries[1].rulings[0]["text"]
        r = replay(j, ref.game_id)
        assert r.state == ref.state and len(r.events) == 2 and r.next_seq == 3


def test_undo_is_journalled_and_replayed(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as j:
        ref = Referee.start(["Dana", "Omer"], journal=j)
        ref.card_seen(Card.from_code("R5"))
        ref.card_seen(Card.from_code("R7"))
        ref.undo()
        ref.card_seen(Card.from_code("B5"))
        state = ref.state
    with Journal(tmp_path / "j.db") as j:
        again = Referee.resume(j)
        assert again is not None and again.state == state and again.state.lead == Card.from_code("B5")
        again.undo()
        again.undo()
        with pytest.raises(RefereeError):
            again.undo()


def test_resume_picks_up_at_the_same_turn(tmp_path: Path) -> None:
    names, rules, events = script(7, 5)
    with Journal(tmp_path / "j.db") as j:
        ref = Referee.start(names, 0, rules, journal=j)
        _feed(ref, events[:30])
        mid = ref.state
    with Journal(tmp_path / "j.db") as j:
        ref2 = Referee.resume(j)
        assert ref2 is not None and ref2.state == mid and ref2.seq == 30
        _feed(ref2, events[30:])
        assert ref2.state.is_over


def _reference_states(names, rules, events):  # type: ignore[no-untyped-def]
    s = new_game(names, 0, rules)
    states = [s]
    for e in events:
        s = apply(s, e).state
        states.append(s)
    return states


@pytest.mark.slow
def test_crash_and_resume_at_random_points(tmp_path: Path) -> None:
    """200 referee processes killed (SIGKILL) at random instants: nothing lost, nothing doubled."""
    rng = random.Random(2026)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trials = 0
    for trial in range(200):
        seed, players = rng.randrange(10_000), rng.randrange(2, 7)
        names, rules, events = script(seed, players)
        states = _reference_states(names, rules, events)
        db = tmp_path / f"crash{trial}.db"
        child = subprocess.Popen([sys.executable, "-m", "tests.crash_child", str(db), str(seed), str(players)],
                                 cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        # Kill after a random number of acknowledged events (sometimes before the first).
        target = rng.randrange(-1, len(events))
        acked = -1
        assert child.stdout is not None
        while acked < target:
            line = child.stdout.readline()
            if not line or line.startswith("done"):
                break
            acked = int(line.split()[1])
        time.sleep(rng.random() * 0.002)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with Journal(db) if db.exists() else _null() as j:
            if j is None:
                assert acked == -1
                continue
            games = j.games()
            if not games:  # killed before the game was created
                assert acked == -1
                continue
            ref = Referee.resume(j, games[0].id)
            assert ref is not None
            kept = ref.seq
            assert acked + 1 <= kept <= len(events), (acked, kept)  # no acked event lost
            seqs = [e.seq for e in j.entries(ref.game_id)]
            assert seqs == list(range(kept))  # none doubled, none skipped
            assert ref.state == states[kept]
            _feed(ref, events[kept:])
            assert ref.state == states[-1]
            trials += 1
    assert trials >= 150


class _null:
    def __enter__(self):  # type: ignore[no-untyped-def]
        return None

    def __exit__(self, *a: object) -> None:
        pass


def test_corrupt_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    p = tmp_path / "notes.db"
    p.write_bytes(b"these are my holiday notes, not a database\n" * 10)
    before = p.read_bytes()
    with pytest.raises(JournalError, match="not an SQLite database"):
        Journal(p)
    assert p.read_bytes() == before


def test_foreign_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    p = tmp_path / "other.db"
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('hummus')")
    db.commit()
    db.close()
    before = p.read_bytes()
    with pytest.raises(JournalError, match="another program"):
        Journal(p)
    assert p.read_bytes() == before


def test_truncated_journal_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "j.db"
    with Journal(p) as j:
        ref = Referee.start(["Dana", "Omer"], journal=j)
        ref.card_seen(Card.from_code("R5"))
    data = p.read_bytes()
    p.write_bytes(data[:100] + b"\xff" * 200 + data[300:])
    before = p.read_bytes()
    with pytest.raises(JournalError):
        j = Journal(p)
        replay(j, 1)
    assert p.read_bytes() == before


def test_tampered_event_is_detected(tmp_path: Path) -> None:
    p = tmp_path / "j.db"
    with Journal(p) as j:
        ref = Referee.start(["Dana", "Omer"], journal=j)
        ref.card_seen(Card.from_code("R5"))
        ref.card_seen(Card.from_code("R7"))
        j.db.execute("UPDATE events SET event=? WHERE seq=1", (json.dumps({"type": "Play", "card": "R8", "seat": None}),))
        with pytest.raises(JournalError, match="differs"):
            replay(j, ref.game_id)


def _tournament(j: Journal, tables: int = 3) -> tuple[int, list]:  # type: ignore[type-arg]
    tid = j.new_tournament("Club night")
    results = []
    for table in range(1, tables + 1):
        n = 2 + table
        rules = RuleSet(tournament=True)
        res = play_game(n, 100 + table, [GreedyPolicy() for _ in range(n)], rules, first=0)
        names = [f"T{table}P{i + 1}" for i in range(n)]
        ref = Referee.start(names, 0, rules, journal=j, tournament_id=tid, table_no=table)
        _feed(ref, list(res.log))
        results.append((names, res))
    return tid, results


def test_tournament_standings_from_a_simulated_eight_stage_tournament(tmp_path: Path) -> None:
    """R-TOUR-1..3 through the journal: one winner per table, at stage 1, placed first."""
    with Journal(tmp_path / "j.db") as j:
        tid, results = _tournament(j)
        rows = standings(j, tid)
    assert len(rows) == sum(len(names) for names, _ in results)
    winners = [r for r in rows if r.winner]
    assert {w.name for w in winners} == {names[res.winner] for names, res in results}
    assert all(w.stage == 1 for w in winners) and rows[: len(winners)] == winners
    by_name = {r.name: r for r in rows}
    for names, res in results:
        for seat, name in enumerate(names):
            assert by_name[name].stage == res.final.stages[seat]
    assert [r.place for r in rows] == list(range(1, len(rows) + 1))
    losers = rows[len(winners):]
    assert [(r.stage, r.cards) for r in losers] == sorted((r.stage, r.cards) for r in losers)
    csv_text = to_csv(rows)
    assert csv_text.splitlines()[0] == "place,name,table,game,stage,cards,winner"
    assert json.loads(to_json(rows))[0]["winner"] is True


def test_replay_and_standings_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "j.db"
    with Journal(db) as j:
        tid, results = _tournament(j, tables=1)
    assert main(["replay", "--db", str(db)]) == 0
    assert "game 1: T1P1, T1P2, T1P3 (won by" in capsys.readouterr().out
    assert main(["replay", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Reveal card=" in out and "winner: T1P" in out
    out_json = tmp_path / "g.json"
    assert main(["replay", "1", "--db", str(db), "--json", str(out_json)]) == 0
    capsys.readouterr()
    data = json.loads(out_json.read_text())
    assert data["players"] == ["T1P1", "T1P2", "T1P3"] and len(data["events"]) == len(results[0][1].log)
    assert main(["standings", str(tid), "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("place,name,table")
    assert main(["replay", "9", "--db", str(db)]) == 2
    bad = tmp_path / "bad.db"
    bad.write_text("hello")
    assert main(["replay", "--db", str(bad)]) == 2
    assert "not an SQLite database" in capsys.readouterr().err


def test_referee_replays_simulated_games_exactly() -> None:
    """A referee-mode game fed a simulated game's events (the camera's and taps' view)
    reaches the same counts, turn, stages and winner as the simulation."""
    for seed in range(60):
        rules = RuleSet(tournament=seed % 2 == 1)
        res = play_game(2 + seed % 9, seed, rules=rules, first=0)
        ref = Referee.start(list(res.final.names), 0, rules)
        _feed(ref, list(res.log))
        s, f = ref.state, res.final
        assert (s.counts, s.to_move, s.winner, s.stages, s.draw_size) == (f.counts, f.to_move, f.winner, f.stages, f.draw_size)


_CREATOR = (
    "import sys\n"
    "from pathlib import Path\n"
    "from companion.store import Journal\n"
    "root = Path(sys.argv[1])\n"
    "print('ready', flush=True)\n"
    "for i in range(100000):\n"
    "    Journal(root / f'j{i}.db').close()\n"
)


def test_a_kill_while_a_journal_is_created_never_leaves_an_unusable_journal(tmp_path: Path) -> None:
    """Issue 12: kill -9 at random moments while journals are being created,
    again and again: every journal file that exists afterwards opens."""
    import random
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(7)
    made = 0
    for trial in range(12):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        child = subprocess.Popen([sys.executable, "-c", _CREATOR, str(root)], stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        for path in sorted(root.glob("j*.db")):
            Journal(path).close()  # raises JournalError on an unusable file
            made += 1
        assert not [p for p in root.glob("j*.db") if p.stat().st_size == 0]
    assert made > 12


def test_a_journal_path_that_is_a_folder_or_cannot_be_made_is_refused(tmp_path: Path) -> None:
    from companion.store import JournalError

    with pytest.raises(JournalError, match="is a folder"):
        Journal(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JournalError, match="cannot be made"):
        Journal(blocker / "sub" / "journal.db")


def test_seats_are_kept_with_their_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 14: the seats placed for a game come back with it (and only with it)."""
    from companion.store.journal import Journal

    with Journal(tmp_path / "j.db") as j:
        a = j.new_game(["Dana", "Omer", "Noa"])
        b = j.new_game(["Eli", "Noa"])
        j.set_seats(a, (90.0, 210.0, 330.004))
    with Journal(tmp_path / "j.db") as j:
        assert j.seats(a) == (90.0, 210.0, 330.0)
        assert j.seats(b) is None
