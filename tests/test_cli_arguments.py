"""Issue 46 (1, 2, 3, 6, 10, 15): a bad option is one sentence on the console, exit 2, and
changes nothing; hypothesis over the kiosk's argument grammar finds no traceback."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.cli import build_parser
from companion.ui_args import app_argument_problem


def _problem(*argv: str) -> str | None:
    return app_argument_problem(build_parser().parse_args(list(argv)))


@pytest.mark.parametrize("argv, said", [
    (("--players", "Dana"), "2 to 10 players"),
    (("--players", ",".join(f"P{i}" for i in range(11))), "2 to 10 players"),
    (("--players", "Dana,dana"), "twice"),
    (("--players", ",,"), "names nobody"),
    (("--players", ""), "names nobody"),
    (("--players", "Dana,,Omer"), "empty name"),
    (("--seat-angles", "nan,inf"), "number of degrees"),
    (("--seat-angles", "left,right,up"), "not 'even'"),
    (("--players", "Dana,Omer,Noa", "--seat-angles", "90,180"), "2 seats for 3 players"),
    (("--windowed", "--size", "big"), "not a window size"),
    (("--board", "laptop:8080"), "needs its scheme"),
    (("--board", "http://laptop:8080", "--table", "0"), "not a table number"),
])
def test_a_bad_kiosk_option_is_one_sentence(argv: tuple[str, ...], said: str) -> None:
    problem = _problem(*argv)
    assert problem is not None and said in problem


def test_good_options_pass() -> None:
    assert _problem("--players", "Dana,Omer,Noa", "--seat-angles", "even", "--windowed", "--size", "800x480") is None
    assert _problem("--players", "Dana, Omer", "--seat-angles", "90,270") is None


def test_the_cli_says_it_and_exits_2_before_any_window(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "--players", "Dana", "--journal",
                           str(tmp_path / "j.db")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "2 to 10 players" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "j.db").exists()


def test_replay_into_a_folder_or_of_an_empty_file_says_why(tmp_path: Path) -> None:
    from companion.store.journal import Journal

    db = tmp_path / "j.db"
    with Journal(db) as j:
        j.new_game(["Dana", "Omer"])
    (tmp_path / "out").mkdir()
    run = lambda *a: subprocess.run([sys.executable, "-m", "companion.cli", "replay", *a], capture_output=True,
                                    text=True, timeout=120)  # noqa: E731
    done = run("1", "--db", str(db), "--json", str(tmp_path / "out"))
    assert done.returncode == 2 and "is a folder" in done.stderr and "Traceback" not in done.stderr
    done = run("1", "--db", str(db), "--json", str(tmp_path / "no" / "such" / "g.json"))
    assert done.returncode == 2 and "cannot write" in done.stderr and "Traceback" not in done.stderr
    (tmp_path / "empty.db").write_bytes(b"")
    done = run("--db", str(tmp_path / "empty.db"))
    assert done.returncode == 2 and "is empty" in done.stderr
    assert (tmp_path / "empty.db").read_bytes() == b""


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["--players", "--seat-angles", "--size", "--board", "--table", "--windowed",
                                 "--teaching", "--mute", "Dana,Omer", "Dana", ",", "", "nan", "90,180",
                                 "even", "1280x800", "big", "0", "3", "http://x:1", "x:1", "-1", "1e309"]),
                max_size=8))
def test_no_argument_list_raises_anything_but_a_clean_exit(argv: list[str]) -> None:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        return  # argparse's own one-line error
    if args.command is None:
        problem = app_argument_problem(args)
        assert problem is None or isinstance(problem, str)
