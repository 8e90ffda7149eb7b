"""The event board stores exactly what kiosks' journals hold, and nothing else (issues 16, 48)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from companion.board.outbox import Outbox  # noqa: E402
from companion.board.server import make_app  # noqa: E402
from companion.board.store import BoardStore  # noqa: E402
from companion.referee import Referee  # noqa: E402
from companion.rules import FACES, Card, legal_faces  # noqa: E402
from companion.store.journal import Journal  # noqa: E402

KEY = "tel-aviv-open-2026"


def _game(path: Path, names: list[str], seed: int, moves: int = 40) -> None:
    rng = random.Random(seed)
    with Journal(path) as j:
        ref = Referee.start(names, journal=j)
        ref.card_seen(Card.from_code("R5"))
        for _ in range(moves):
            if ref.state.is_over:
                break
            faces = legal_faces(ref.state)
            if ref.state.pending.value == "color":
                ref.colour(list(c for c in FACES if c.color)[0].color)  # type: ignore[arg-type]
            elif faces and rng.random() < 0.5:
                ref.card_seen(rng.choice(faces))
            else:
                ref.drew()


@pytest.fixture(scope="module")
def postgres():  # type: ignore[no-untyped-def]
    from .pg import Cluster, pg_bin

    if pg_bin() is None:
        pytest.skip("PostgreSQL server binaries are installed by .ci/run (Debian postgresql)")
    pytest.importorskip("psycopg")
    cluster = Cluster()
    yield cluster
    cluster.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def board_db(request, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    """Every board test runs against SQLite and against PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "board.db")
    return request.getfixturevalue("postgres").fresh_db(f"board_{abs(hash(request.node.name)) % 10**8}")


def _client(db: str) -> tuple[TestClient, BoardStore]:
    store = BoardStore(db)
    return TestClient(make_app(store, KEY)), store


def _via(client: TestClient, down: list[bool] | None = None):  # type: ignore[no-untyped-def]
    from urllib.parse import urlsplit

    def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        if down and down[0]:
            raise OSError("network is unreachable")
        r = client.post(urlsplit(url).path, content=body, headers=headers)
        return r.status_code, r.content
    return post


def _enrol(client: TestClient, kiosk: str, table: int) -> dict[str, str]:
    """A kiosk's first contact: the event key buys the token its pushes carry."""
    r = client.post("/api/enrol", json={"kiosk": kiosk, "table": table}, headers={"X-Event-Key": KEY})
    assert r.status_code == 200, r.text
    return {"X-Kiosk-Token": r.json()["token"]}


def _journal_states(path: Path) -> dict[int, list[tuple[int, str]]]:
    with Journal(path) as j:
        return {g.id: [(e.seq, e.state) for e in j.entries(g.id)] for g in j.games()}


def test_kiosks_push_their_journals_and_the_board_equals_them_after_an_outage(tmp_path: Path, board_db: str) -> None:
    client, store = _client(board_db)
    down = [True]
    kiosks = []
    for table in (1, 2, 3):
        jp = tmp_path / f"kiosk{table}.db"
        _game(jp, ["Dana", "Omer", "Noa"][: 2 + table % 2], seed=table)
        kiosks.append((jp, Outbox(jp, "http://board", KEY, f"kiosk-{table}", table, transport=_via(client, down))))
    for _, box in kiosks:  # the network is down: nothing lost, the kiosk says so
        assert not box.push_once() and box.offline_since is not None and "unreachable" in box.status
    down[0] = False
    for jp, box in kiosks:
        assert box.push_once() and box.status == "board up to date"
        assert box.push_once()  # nothing new: nothing sent twice
    for table, (jp, box) in enumerate(kiosks, 1):
        for game, rows in _journal_states(jp).items():
            assert store.history(f"kiosk-{table}", game) == rows  # exactly the journal, no gaps, no doubles
    page = client.get("/api/tables").json()
    assert [t["table"] for t in page["tables"]] == [1, 2, 3]
    assert all(t["online"] and len(t["counts"]) == len(t["names"]) for t in page["tables"])
    assert "TAKI event board" in client.get("/").text
    first = client.get("/stream?once=1")
    assert first.headers["content-type"].startswith("text/event-stream")
    assert json.loads(first.text.split("data: ", 1)[1])["events"] == store.count()
    csv_rows = client.get("/export.csv").text.splitlines()
    assert csv_rows == ["name,table,stage,cards"]  # casual games: no tournament stages to rank


def test_the_same_batch_twice_is_stored_once_and_a_gap_is_reported(tmp_path: Path, board_db: str) -> None:
    client, store = _client(board_db)
    jp = tmp_path / "k.db"
    _game(jp, ["Dana", "Omer"], seed=9)
    with Journal(jp) as j:
        entries = [{"seq": e.seq, "t": e.t, "state": e.state, "rulings": []} for e in j.entries(1)]
    body = {"kiosk": "k1", "table": 4, "game": 1, "names": ["Dana", "Omer"], "events": entries[:5]}
    h = _enrol(client, "k1", 4)
    assert client.post("/api/push", json=body, headers=h).json()["stored"] == 5
    again = client.post("/api/push", json=body, headers=h).json()
    assert again["stored"] == 0 and again["duplicates"] == 5
    gap = client.post("/api/push", json={**body, "events": entries[7:9]}, headers=h).json()
    assert gap["acked_through"] == 4 and gap["gaps"] == [[5, 6]]
    assert store.count() == 7


def test_forged_and_malformed_pushes_are_refused_and_nothing_is_stored(tmp_path: Path, board_db: str) -> None:
    client, store = _client(board_db)
    jp = tmp_path / "k.db"
    _game(jp, ["Dana", "Omer"], seed=3)
    with Journal(jp) as j:
        e0 = [{"seq": e.seq, "t": e.t, "state": e.state, "rulings": []} for e in j.entries(1)][:3]
    good = {"kiosk": "k1", "table": 1, "game": 1, "names": ["Dana", "Omer"], "events": e0}
    token = _enrol(client, "k1", 1)["X-Kiosk-Token"]
    assert client.post("/api/push", json=good, headers={"X-Kiosk-Token": token}).status_code == 200
    before = store.count()
    rng = random.Random(7)
    bad_bodies: list[tuple[dict[str, str], bytes]] = []
    for i in range(100):
        kind = i % 10
        headers = {"X-Kiosk-Token": token, "Content-Type": "application/json"}
        body: object = dict(good)
        if kind == 0:
            headers["X-Kiosk-Token"] = token[:-1] + chr(ord(token[-1]) ^ rng.randrange(1, 30))
        elif kind == 1:
            headers = {"X-Event-Key": KEY}  # the event key alone pushes nothing
        elif kind == 2:  # another table's kiosk id claiming table 1
            body = {**good, "kiosk": f"intruder{i}"}
        elif kind == 3:  # rewriting a stored event
            body = {**good, "events": [{**e0[0], "state": e0[1]["state"]}]}
        elif kind == 4:
            bad_bodies.append((headers, b"{not json" + bytes([rng.randrange(256)])))
            continue
        elif kind == 5:
            bad_bodies.append((headers, b"[" + b"1," * 600_000 + b"1]"))  # over the size limit
            continue
        elif kind == 6:
            body = {**good, "events": [{"seq": -1, "t": 0, "state": "x", "rulings": []}]}
        elif kind == 7:
            body = {**good, "names": ["Dana"] * 40}
        elif kind == 8:
            body = {**good, "table": "1; DROP TABLE events"}
        else:
            body = {**good, "game": 1, "names": ["Eve", "Mallory"]}
        bad_bodies.append((headers, json.dumps(body).encode()))
    for headers, raw in bad_bodies:
        r = client.post("/api/push", content=raw, headers=headers)
        assert 400 <= r.status_code < 500, (r.status_code, raw[:80])
        assert "error" in r.json()
    assert store.count() == before and len(bad_bodies) == 100
    assert store.history("k1", 1) == [(e["seq"], e["state"]) for e in e0]


def test_postgresql_restarted_mid_event_loses_nothing(tmp_path: Path, postgres) -> None:  # type: ignore[no-untyped-def]
    """Issue 16 faults: the database restarts between two pushes; the board reconnects
    and its history equals the kiosk's journal."""
    client, store = _client(postgres.fresh_db("restart"))
    jp = tmp_path / "k.db"
    _game(jp, ["Dana", "Omer", "Noa"], seed=5)
    box = Outbox(jp, "http://board", KEY, "kiosk-1", 1, transport=_via(client))
    assert box.push_once()
    postgres.restart()
    _game(jp, ["Dana", "Omer", "Noa"], seed=6)  # the kiosk's next game, pushed after the restart
    assert box.push_once() and box.status == "board up to date"
    for game, rows in _journal_states(jp).items():
        assert store.history("kiosk-1", game) == rows


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_board(db: str, port: int):  # type: ignore[no-untyped-def]
    """``taki-companion board`` in its own process, listening when this returns."""
    import os
    import socket
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    p = subprocess.Popen([sys.executable, "-m", "companion.cli", "board", "--db", db, "--event-key", KEY,
                          "--host", "127.0.0.1", "--port", str(port)], cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return p
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise AssertionError("the board did not start")


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_the_board_killed_and_restarted_catches_up_with_every_kiosk(tmp_path: Path, db: str,
                                                                     request) -> None:  # type: ignore[no-untyped-def]
    """Issue 16 faults: the board process is killed (-9) mid-event and started again;
    kiosks that pushed meanwhile were told it was offline, and afterwards every
    table's history on the board equals its kiosk's journal."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    from companion.board.outbox import http_post

    url_db = str(tmp_path / "board.db") if db == "sqlite" else request.getfixturevalue("postgres").fresh_db("kill9")
    port = _free_port()

    def start() -> subprocess.Popen:  # type: ignore[type-arg]
        return _start_board(url_db, port)

    board = start()
    boxes = []
    for table in (1, 2):
        jp = tmp_path / f"k{table}.db"
        _game(jp, ["Dana", "Omer", "Noa"], seed=20 + table, moves=60)
        boxes.append((jp, Outbox(jp, f"http://127.0.0.1:{port}", KEY, f"kiosk-{table}", table, transport=http_post)))
    try:
        assert boxes[0][1].push_once()
        board.send_signal(signal.SIGKILL)
        board.wait(10)
        assert not boxes[1][1].push_once() and boxes[1][1].offline_since is not None  # told, nothing lost
        _game(boxes[0][0], ["Dana", "Omer", "Noa"], seed=30)  # table 1 plays on while the board is down
        board = start()
        for jp, box in boxes:
            for _ in range(50):
                if box.push_once() and box.status == "board up to date":
                    break
            assert box.status == "board up to date", box.status
        store = BoardStore(url_db)
        for table, (jp, _) in enumerate(boxes, 1):
            for game, rows in _journal_states(jp).items():
                assert store.history(f"kiosk-{table}", game) == rows
        store.close()
    finally:
        board.kill()
        board.wait(10)


def test_the_page_in_a_real_browser_shows_tables_and_updates_live(tmp_path: Path) -> None:
    """Issue 16: Debian's chromium (headless, its own chromedriver; nothing downloads a
    browser) loads the board, shows a table, and shows a second table the moment its
    kiosk pushes, without a reload."""
    import shutil
    import time

    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver")
    if not chromium or not driver_bin:
        pytest.skip("Debian's chromium and chromium-driver are installed by .ci/run")
    from companion.board.outbox import http_post

    port = _free_port()
    board = _start_board(str(tmp_path / "board.db"), port)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(a)
    browser = webdriver.Chrome(options=opts, service=Service(driver_bin))
    try:
        jp1 = tmp_path / "k1.db"
        _game(jp1, ["Dana", "Omer", "Noa"], seed=1)
        assert Outbox(jp1, f"http://127.0.0.1:{port}", KEY, "kiosk-1", 1, transport=http_post).push_once()
        browser.get(f"http://127.0.0.1:{port}/")

        def shown(css: str, timeout: float = 10.0) -> str:
            end = time.time() + timeout
            while time.time() < end:
                found = browser.find_elements(By.CSS_SELECTOR, css)
                if found and found[0].text:
                    return str(found[0].text)
                time.sleep(0.1)
            raise AssertionError(f"{css} never shown: {browser.page_source[:400]}")

        first = shown("#table-1")
        assert "Table 1" in first and all(n in first for n in ("Dana", "Omer", "Noa"))
        assert "offline" not in first
        jp2 = tmp_path / "k2.db"
        _game(jp2, ["Eli", "Maya"], seed=2)
        assert Outbox(jp2, f"http://127.0.0.1:{port}", KEY, "kiosk-2", 2, transport=http_post).push_once()
        second = shown("#table-2", timeout=5)  # pushed live over server-sent events, no reload
        assert "Eli" in second and "Maya" in second
        assert shown("#status").startswith("Live")
    finally:
        browser.quit()
        board.kill()
        board.wait(10)


def test_finished_games_and_every_game_are_exported(tmp_path: Path, board_db: str) -> None:
    """Issue 16 (1, 5): a table's finished game stays on the board with its winner after
    the next game starts, and the exports hold every game, event for event."""
    from companion.rules.notation import from_text

    client, store = _client(board_db)
    jp = tmp_path / "k.db"
    for seed in range(40):  # a game played to its end
        _game(jp, ["Dana", "Omer"], seed=seed, moves=2000)
        states = _journal_states(jp)
        last = max(states)
        if from_text(states[last][-1][1]).is_over:
            break
    else:
        pytest.fail("no random game ended")
    _game(jp, ["Dana", "Omer"], seed=99, moves=10)  # the table's next game, just begun
    assert Outbox(jp, "http://board", KEY, "kiosk-1", 1, transport=_via(client)).push_once()
    journal = _journal_states(jp)
    data = client.get("/export.json").json()
    assert {(g["game"]): [(e["seq"], e["state"]) for e in g["history"]] for g in data["games"]} == journal
    finished = data["finished"]
    assert [g["game"] for g in finished] == [last] and finished[0]["winner"] in ("Dana", "Omer")
    rows = client.get("/games.csv").text.splitlines()
    assert rows[0] == "table,kiosk,game,seq,state" and len(rows) == 1 + sum(len(v) for v in journal.values())
