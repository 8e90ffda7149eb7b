"""The mypyc-compiled rules core (what wheels ship) referees exactly like the sources.

Compiles a scratch copy of companion/rules, then runs the rule, scenario and
property tests and the pinned self-play regression against it in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.buildcore import build_copy

from .test_selfplay_regression import PINNED_GAMES, PINNED_TOURNAMENTS

TESTS = Path(__file__).resolve().parent
RULE_TESTS = ["test_rules.py", "test_scenarios.py", "test_properties.py"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_compiled_core_passes_the_rule_tests_and_plays_the_pinned_games(tmp_path: Path) -> None:
    build_copy(tmp_path)
    (tmp_path / "tests").mkdir()
    for name in ["__init__.py", "helpers.py", "regression_selfplay.py", *RULE_TESTS]:
        shutil.copy(TESTS / name, tmp_path / "tests" / name)

    probe = _run([sys.executable, "-c", "import companion.rules.engine as e; print(e.__file__)"], tmp_path)
    assert probe.stdout.strip().endswith(".so"), probe.stdout + probe.stderr

    tests = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                  *[f"tests/{t}" for t in RULE_TESTS]], tmp_path)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]

    code = ("import json; from tests.regression_selfplay import summary; "
            "print(json.dumps([summary(10_000), summary(60, tournament=True)]))")
    games = _run([sys.executable, "-c", code], tmp_path)
    assert games.returncode == 0, games.stderr[-2000:]
    assert json.loads(games.stdout) == [PINNED_GAMES, PINNED_TOURNAMENTS]
