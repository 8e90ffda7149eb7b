"""Issue 46 (6, 7, 8): the kiosk's outbox says what is wrong, in one sentence, and never dies."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.board.outbox import Outbox, OutboxError
from companion.referee import Referee
from companion.rules import Card
from companion.store.journal import Journal


def _journal(tmp_path: Path) -> Path:
    """A journal with a game of a few events waiting for the board."""
    db = tmp_path / "j.db"
    with Journal(db) as j:
        ref = Referee.start(["Dana", "Omer"], journal=j)
        ref.card_seen(Card.from_code("R5"))
        ref.card_seen(Card.from_code("R7"))
    return db


def test_a_page_that_answers_200_with_html_is_not_taken_for_the_board(tmp_path: Path) -> None:
    db = _journal(tmp_path)
    box = Outbox(db, "http://laptop:8080", "key", "k1", 1,
                 transport=lambda url, body, headers: (200, b"<html><body>Welcome</body></html>"))
    assert box.push_once() is False  # and no exception in the outbox's thread
    assert box.offline_since is not None and "not as a TAKI board does" in box.status


def test_a_folder_where_the_outbox_file_goes_is_said(tmp_path: Path) -> None:
    db = _journal(tmp_path)
    (tmp_path / "j.db.board").mkdir()
    with pytest.raises(OutboxError, match="is a folder"):
        Outbox(db, "http://laptop:8080", "key", "k1", 1)


def test_a_wrong_event_key_is_refused_not_sent_later(tmp_path: Path) -> None:
    db = _journal(tmp_path)
    box = Outbox(db, "http://laptop:8080", "key", "k1", 1,
                 transport=lambda url, body, headers: (401, b'{"error": "wrong event key"}'))
    assert box.push_once() is False
    assert box.refused is not None and "wrong event key" in box.refused


def test_the_board_leaves_another_programs_database_as_it_was(tmp_path: Path) -> None:
    """Issue 46 (9): checked before any write, by the board's application id or its tables."""
    import sqlite3
    import subprocess
    import sys

    from companion.board.store import BoardStore, Refused

    contacts = tmp_path / "contacts.db"
    db = sqlite3.connect(contacts)
    db.execute("CREATE TABLE people (name TEXT)")
    db.commit()
    db.close()
    before = contacts.read_bytes()
    with pytest.raises(Refused, match="another program's database"):
        BoardStore(contacts)
    assert contacts.read_bytes() == before and not Path(str(contacts) + "-wal").exists()
    with pytest.raises(Refused, match="is a folder"):
        BoardStore(tmp_path)
    (tmp_path / "notes.db").write_text("not a database at all")
    with pytest.raises(Refused, match="not a database"):
        BoardStore(tmp_path / "notes.db")
    ours = tmp_path / "board.db"
    BoardStore(ours).close()
    BoardStore(ours).close()  # its own file, opened again
    done = subprocess.run([sys.executable, "-m", "companion.cli", "board", "--event-key", "12345678", "--db",
                           str(contacts), "--port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "another program's database" in done.stderr and "Traceback" not in done.stderr
