"""The rules core compiled with mypyc: the same .py files, about 2.5x faster.

Self-play (the regression oracle, the tournament simulator) spends all its time
in ``companion/rules``. Wheels carry these modules compiled by mypyc (see
setup.py), as black and mypy ship theirs; editable installs run the .py sources
as they are, so an edit takes effect at once. :func:`build_copy` compiles a
scratch copy, so the tests can check that the compiled core plays exactly the
pinned games and the benchmark can time it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

#: Modules of companion/rules compiled in wheels (notation and __init__ stay Python).
COMPILED = ("cards", "state", "rulings", "events", "options", "engine", "selfplay")
ROOT = Path(__file__).resolve().parent.parent


def sources() -> list[str]:
    """The compiled modules, relative to the project root (as mypyc wants them)."""
    return [f"companion/rules/{name}.py" for name in COMPILED]


def build_copy(dest: Path) -> Path:
    """Copy ``companion/rules`` under ``dest`` and compile it there in place.

    Returns ``dest``: put it first on PYTHONPATH to import the compiled core.
    Raises CalledProcessError (with mypyc's output) when compiling fails."""
    pkg = dest / "companion"
    (pkg / "rules").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "companion" / "__init__.py", pkg / "__init__.py")
    for src in (ROOT / "companion" / "rules").glob("*.py"):
        shutil.copy(src, pkg / "rules" / src.name)
    subprocess.run([sys.executable, "-m", "mypyc", *sources()], cwd=dest, check=True,
                   capture_output=True, text=True)
    return dest


def is_compiled() -> bool:
    """Whether the imported rules engine is the mypyc build."""
    from .rules import engine

    return not str(engine.__file__).endswith(".py")
