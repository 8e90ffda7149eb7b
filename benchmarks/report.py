"""What a benchmark measured, printed and (with ``--json FILE``) kept as JSON.

Why: the figures in ``docs/results.md`` are rendered from these files by
``benchmarks/render_results.py``, each with the command that produced it, the
date and the machine, so no figure is typed by hand or outlives its measurement.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = 1


def add_json_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--json", metavar="FILE", default=None,
                    help="also write the results as JSON (benchmarks/render_results.py makes docs/results.md of them)")


def machine() -> dict[str, Any]:
    """The machine in a few words: CPU model, cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": mem_gb, "os": platform.platform(terse=True),
            "python": platform.python_version()}


@dataclass(frozen=True)
class Figure:
    what: str
    value: float | int | str
    unit: str = ""
    target: str = ""  # e.g. "<= 0.5 s"; empty when the figure has none


@dataclass
class Report:
    """One benchmark run: its title, the figures, and where they came from."""

    benchmark: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    argv: list[str] | None = None  # the command's arguments, when not this process' own

    def add(self, what: str, value: float | int | str, unit: str = "", target: str = "") -> Figure:
        f = Figure(what, value, unit, target)
        self.figures.append(f)
        return f

    def note(self, text: str) -> None:
        self.notes.append(text)

    def write(self, path: str | Path | None) -> Path | None:
        """The report as JSON at ``path`` (nothing when None)."""
        if path is None:
            return None
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        args = self.argv if self.argv is not None else sys.argv[1:]
        argv = [Path(sys.argv[0]).as_posix()] + _without_json(args)
        rel = argv[0].split("benchmarks/", 1)
        argv[0] = "benchmarks/" + rel[1] if len(rel) == 2 else argv[0]
        data = {"schema": SCHEMA, "benchmark": self.benchmark, "title": self.title,
                "command": "python " + shlex.join(argv),
                "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "machine": machine(), "figures": [asdict(f) for f in self.figures], "notes": self.notes}
        out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        return out


def _without_json(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--json":
            skip = True
            continue
        if a.startswith("--json="):
            continue
        out.append(a)
    return out
