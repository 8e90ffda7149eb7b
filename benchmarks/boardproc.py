"""A `taki-companion board` process for the board benchmarks, and its memory.

Why one module: both board benchmarks start the board the way an organiser does (its
own process, loopback, a free port) and read its memory from /proc.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_board(db: str, key: str) -> tuple[subprocess.Popen, int]:  # type: ignore[type-arg]
    """The board on a free loopback port, accepting connections when this returns."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    board = subprocess.Popen([sys.executable, "-m", "companion.cli", "board", "--db", db, "--event-key", key,
                              "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return board, port


def rss_mb(pid: int) -> float:
    """The process's resident memory, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
