"""A throw-away PostgreSQL cluster for the board's tests: Debian's postgresql
binaries, a cluster in a temp dir, a local socket and port, trust auth, removed at
the end. As root (CI), the server runs as the ``postgres`` user (initdb refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self) -> None:
        bindir = pg_bin()
        if bindir is None:
            raise RuntimeError("no PostgreSQL server binaries (Debian package postgresql)")
        self.bin = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="taki-pg-"))
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def fresh_db(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}"')
            c.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def close(self) -> None:
        try:
            self.stop("immediate")
        finally:
            time.sleep(0.2)
            shutil.rmtree(self.dir, ignore_errors=True)
