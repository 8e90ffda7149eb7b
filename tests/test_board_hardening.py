"""Issue 48: one push cannot take the board down, silent tables turn offline by the
clock, kiosks push only with their own token, and every bad request is a 4xx with a
reason (a 503 while the database is down), never a 500."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from companion.board.outbox import Outbox  # noqa: E402
from companion.board.server import SECURITY_HEADERS, csv_cell, make_app  # noqa: E402
from companion.board.store import MAX_GAPS, MAX_NUMBER, BoardStore  # noqa: E402
from companion.rules import RuleSet, new_game  # noqa: E402
from companion.rules.notation import to_text  # noqa: E402

from .test_board import KEY, _enrol, _game, _via, board_db, postgres  # noqa: E402,F401

NAMES = ["Dana", "Omer"]


def _event(seq: int, names: list[str] = NAMES, tournament: bool = False) -> dict[str, object]:
    state = new_game(names, 0, RuleSet(tournament=tournament))
    return {"seq": seq, "t": 1.0 + seq, "state": to_text(state), "rulings": []}


def _push(kiosk: str, table: int, events: list[dict[str, object]], names: list[str] = NAMES) -> dict[str, object]:
    return {"kiosk": kiosk, "table": table, "game": 1, "names": names, "events": events}


def test_a_huge_seq_costs_nothing_and_gaps_come_back_as_a_few_runs(board_db: str) -> None:
    client = TestClient(make_app(BoardStore(board_db), KEY))
    h = _enrol(client, "k1", 1)
    tracemalloc.start()
    t0 = time.monotonic()
    r = client.post("/api/push", json=_push("k1", 1, [_event(0), _event(MAX_NUMBER)]), headers=h)
    took = time.monotonic() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.status_code == 200 and r.json()["gaps"] == [[1, MAX_NUMBER - 1]] and r.json()["acked_through"] == 0
    assert took < 2.0 and peak < 20e6  # it built a list of two billion numbers before
    many = [_event(s) for s in range(2, 2 + 4 * MAX_GAPS, 2)]  # every other seq: more runs than are named
    assert len(client.post("/api/push", json=_push("k1", 1, many), headers=h).json()["gaps"]) == MAX_GAPS
    for field in ("seq", "game"):  # the same bound on SQLite as the PostgreSQL column's
        bad = _push("k1", 1, [_event(0)])
        if field == "seq":
            bad["events"] = [_event(MAX_NUMBER + 1)]
        else:
            bad["game"] = MAX_NUMBER + 1
        r = client.post("/api/push", json=bad, headers=h)
        assert r.status_code == 422 and "2147483647" in r.json()["error"]


def test_a_silent_table_turns_offline_by_the_clock_and_a_heartbeat_keeps_a_quiet_one_online(tmp_path: Path) -> None:
    client = TestClient(make_app(BoardStore(str(tmp_path / "b.db")), KEY, offline_after=1.0, tick=0.2))
    h1, h2 = _enrol(client, "k1", 1), _enrol(client, "k2", 2)
    for kiosk, h, table in (("k1", h1, 1), ("k2", h2, 2)):
        assert client.post("/api/push", json=_push(kiosk, table, [_event(0)]), headers=h).status_code == 200

    def online() -> dict[int, bool]:
        text = client.get("/stream?once=1").text  # the page's own feed, not /api/tables
        return {t["table"]: t["online"] for t in json.loads(text.split("data: ", 1)[1])["tables"]}

    assert online() == {1: True, 2: True}
    end = time.monotonic() + 1.6
    while time.monotonic() < end:  # kiosk 2 is quiet but there; kiosk 1 is gone; nothing else happens
        assert client.post("/api/heartbeat", headers=h2).status_code == 200
        time.sleep(0.3)
    assert online() == {1: False, 2: True}


def test_the_kiosk_heartbeats_while_its_game_is_quiet(tmp_path: Path) -> None:
    client = TestClient(make_app(BoardStore(str(tmp_path / "b.db")), KEY))
    sent: list[str] = []
    post = _via(client)

    def spy(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        sent.append(url.rsplit("/", 1)[1])
        return post(url, body, headers)

    clock = [100.0]
    jp = tmp_path / "k.db"
    _game(jp, NAMES, seed=1, moves=5)
    box = Outbox(jp, "http://board", KEY, "k1", 1, transport=spy, clock=lambda: clock[0])
    assert box.push_once() and sent == ["enrol", "push"]
    assert box.push_once() and sent == ["enrol", "push"]  # just pushed: nothing to say
    clock[0] += 5.0
    assert box.push_once() and sent[-1] == "heartbeat"


def test_a_token_pushes_only_as_its_own_kiosk_and_the_organiser_hands_a_table_over(tmp_path: Path) -> None:
    client = TestClient(make_app(BoardStore(str(tmp_path / "b.db")), KEY))
    h1, h2 = _enrol(client, "k1", 1), _enrol(client, "k2", 2)
    r = client.post("/api/push", json=_push("k2", 2, [_event(0)]), headers=h1)
    assert r.status_code == 403 and "k1" in r.json()["error"]
    r = client.post("/api/push", json=_push("k1", 1, [_event(0)]), headers={"X-Event-Key": KEY})
    assert r.status_code == 401  # the event key alone pushes nothing
    again = client.post("/api/enrol", json={"kiosk": "k1", "table": 1}, headers={"X-Event-Key": KEY})
    assert again.status_code == 409 and "/admin" in again.json()["error"]  # no second token for a kiosk
    taken = client.post("/api/enrol", json={"kiosk": "k3", "table": 1}, headers={"X-Event-Key": KEY})
    assert taken.status_code == 409 and "belongs to kiosk k1" in taken.json()["error"]
    assert client.post("/api/release", json={"table": 1}, headers={"X-Event-Key": "wrong-key-123"}).status_code == 401
    assert "Release the table" in client.get("/admin").text
    freed = client.post("/api/release", json={"table": 1}, headers={"X-Event-Key": KEY})
    assert freed.status_code == 200 and freed.json()["released"] == "k1"
    assert client.post("/api/push", json=_push("k1", 1, [_event(0)]), headers=h1).status_code == 401
    h3 = _enrol(client, "k3", 1)  # the replacement kiosk takes the table
    assert client.post("/api/push", json=_push("k3", 1, [_event(0)]), headers=h3).status_code == 200
    assert client.post("/api/push", json=_push("k2", 2, [_event(0)]), headers=h2).status_code == 200


def test_bad_input_is_a_4xx_with_a_reason_never_a_500(board_db: str) -> None:
    store = BoardStore(board_db)
    client = TestClient(make_app(store, KEY), raise_server_exceptions=False)
    h = {**_enrol(client, "k1", 1), "Content-Type": "application/json"}
    good = _push("k1", 1, [_event(0)])
    bodies: list[bytes] = [
        b"[" * 100_000,  # RecursionError in the JSON parser
        json.dumps({**good, "events": [{**_event(0), "state": "\ud800"}]}).encode(),  # a lone surrogate
        json.dumps({**good, "names": ["Dana", "\ud800"]}).encode(),
        json.dumps({**good, "kiosk": "k1\n"}).encode(),  # '$' matched before a trailing newline
        json.dumps({**good, "events": [{**_event(0), "t": float("inf")}]}).encode(),  # Python writes Infinity
        json.dumps({**good, "events": [{**_event(0), "t": float("nan")}]}).encode(),
        json.dumps(_push("k1", 1, [_event(0)], ["Dana", "dana "])).encode(),  # the same name twice
        json.dumps(_push("k1", 1, [_event(0)], ["Dana", "   "])).encode(),
        json.dumps(_push("k1", 1, [_event(0)], ["Dana", "\u202eanaD"])).encode(),  # turns the line round
        json.dumps({**good, "game": 2**31}).encode(),
        json.dumps({**good, "events": [_event(2**31)]}).encode(),
        json.dumps({**good, "table": True}).encode(),
    ]
    for body in bodies:
        r = client.post("/api/push", content=body, headers=h)
        assert 400 <= r.status_code < 500 and r.json()["error"], (r.status_code, body[:60])
    for path, body in (("/api/enrol", b"[" * 50_000), ("/api/enrol", b'{"kiosk": "a\\n", "table": 1}'),
                       ("/api/release", b'{"table": "1; DROP TABLE kiosks"}'), ("/api/enrol", b"x" * 5000)):
        r = client.post(path, content=body, headers={"X-Event-Key": KEY})
        assert 400 <= r.status_code < 500 and r.json()["error"], (path, r.status_code)
    assert store.count() == 0


def test_the_database_down_is_503_on_every_endpoint(tmp_path: Path, postgres) -> None:  # type: ignore[no-untyped-def]
    store = BoardStore(postgres.fresh_db("outage"))
    client = TestClient(make_app(store, KEY), raise_server_exceptions=False)
    h = _enrol(client, "k1", 1)
    assert client.post("/api/push", json=_push("k1", 1, [_event(0)]), headers=h).status_code == 200
    postgres.stop()
    try:
        for path in ("/api/tables", "/export.json", "/export.csv", "/games.csv", "/stream?once=1"):
            assert client.get(path).status_code == 503, path
        assert client.post("/api/push", json=_push("k1", 1, [_event(1)]), headers=h).status_code == 503
        r = client.post("/api/enrol", json={"kiosk": "k2", "table": 2}, headers={"X-Event-Key": KEY})
        assert r.status_code == 503 and r.headers["retry-after"]
    finally:
        postgres.start()
    assert client.get("/api/tables").json()["tables"][0]["kiosk"] == "k1"


def test_csv_cells_that_start_a_formula_are_text_and_every_answer_carries_security_headers(tmp_path: Path) -> None:
    store = BoardStore(str(tmp_path / "b.db"))
    client = TestClient(make_app(store, KEY))
    names = ['=HYPERLINK("http://evil/","x")', "+Omer", "@Noa", "-1"]
    h = _enrol(client, "k1", 1)
    r = client.post("/api/push", json=_push("k1", 1, [_event(0, names, tournament=True)], names), headers=h)
    assert r.status_code == 200
    import csv
    import io

    rows = list(csv.reader(io.StringIO(client.get("/export.csv").text)))
    assert sorted(r[0] for r in rows[1:]) == sorted("'" + n for n in names)
    assert rows[1][2] == "8"  # everyone at stage 8 (R-TOUR-1)
    assert csv_cell("Dana") == "Dana" and csv_cell(3) == 3
    for path in ("/", "/board.js", "/stream?once=1", "/export.csv", "/admin"):
        got = client.get(path).headers
        for k, v in SECURITY_HEADERS.items():
            assert got[k] == v, (path, k)
    assert "script-src 'self'" in SECURITY_HEADERS["content-security-policy"]
    assert "<script>" not in client.get("/").text  # no inline script: the CSP would block it


def test_leaders_are_only_tournament_players(tmp_path: Path) -> None:
    store = BoardStore(str(tmp_path / "b.db"))
    client = TestClient(make_app(store, KEY))
    h1, h2 = _enrol(client, "k1", 1), _enrol(client, "k2", 2)
    client.post("/api/push", json=_push("k1", 1, [_event(0)]), headers=h1)  # a casual game
    client.post("/api/push", json=_push("k2", 2, [_event(0, ["Eli", "Maya"], True)], ["Eli", "Maya"]), headers=h2)
    leaders = client.get("/api/tables").json()["leaders"]
    assert {r["name"] for r in leaders} == {"Eli", "Maya"} and all(r["stage"] == 8 for r in leaders)


def _played(names: list[str], seed: int, moves: int, tournament: bool = False) -> list[dict[str, object]]:
    """Self-play states as a kiosk journals them (to the end when ``moves`` is large)."""
    import random

    from companion.rules import apply, deal, legal_moves

    rng = random.Random(seed)
    state = deal(names, seed=seed, rules=RuleSet(tournament=tournament))
    out = [{"seq": 0, "t": 1.0, "state": to_text(state), "rulings": []}]
    while not state.is_over and len(out) <= moves:
        step = apply(state, rng.choice(legal_moves(state)))
        if step.legal:
            state = step.state
            out.append({"seq": len(out), "t": 1.0 + len(out), "state": to_text(state),
                        "rulings": [r.text[:300] for r in step.rulings][:50]})
    return out


def test_the_projector_view_fits_twelve_tables_leaders_and_finished_games_on_one_screen(tmp_path: Path) -> None:
    """At 1024x768 nothing is below the fold (from the DOM's own element positions);
    screenshots at projector, full-HD and phone sizes are left in the test's folder."""
    import shutil
    import urllib.request

    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    from .test_board import _free_port, _start_board

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium or not shutil.which("chromedriver"):
        pytest.skip("Debian's chromium and chromium-driver are installed by .ci/run")
    port = _free_port()
    board = _start_board(str(tmp_path / "board.db"), port)

    def post(path: str, body: object, headers: dict[str, str]) -> dict[str, object]:
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
        with urllib.request.urlopen(req, timeout=10) as r:
            return dict(json.loads(r.read()))

    players = ["Dana", "Omer", "Noa", "Eli", "Maya", "Yoni", "Tamar", "Avi"]
    try:
        for table in range(1, 13):
            names = [players[(table + i) % 8] + ("" if i else "") for i in range(4 if table % 3 else 3)]
            token = str(post("/api/enrol", {"kiosk": f"k{table}", "table": table}, {"X-Event-Key": KEY})["token"])
            games = [(1, _played(names, table, 5000))] if table <= 4 else []  # a finished game first
            games.append((len(games) + 1, _played(names, 100 + table, 12, tournament=table > 6)))
            for game, events in games:
                for i in range(0, len(events), 400):
                    post("/api/push", {"kiosk": f"k{table}", "table": table, "game": game, "names": names,
                                       "events": events[i: i + 400]}, {"X-Kiosk-Token": token})
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars"):
            opts.add_argument(a)
        browser = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))
        try:
            for w, h, name in ((1024, 768, "projector"), (1920, 1080, "full-hd"), (390, 844, "phone")):
                browser.set_window_size(w, h)
                inner = browser.execute_script("return [innerWidth, innerHeight]")
                browser.set_window_size(2 * w - inner[0], 2 * h - inner[1])  # the page itself at w x h
                browser.get(f"http://127.0.0.1:{port}/" + ("?view=projector" if name == "projector" else ""))
                end = time.time() + 10
                while time.time() < end and len(browser.find_elements("css selector", ".t")) < 12:
                    time.sleep(0.1)
                time.sleep(0.3)
                browser.save_screenshot(str(tmp_path / f"board-{name}.png"))
                if name == "projector":
                    low = browser.execute_script(
                        "const H=innerHeight; return [...document.querySelectorAll('body *')]"
                        ".filter(e=>e.getClientRects().length && e.getBoundingClientRect().bottom>H+0.5)"
                        ".map(e=>e.tagName+'#'+e.id+'.'+e.className+' '+Math.round(e.getBoundingClientRect().bottom))")
                    assert low == [], low  # nothing below the fold
                    shown = browser.find_element("css selector", "body").text
                    assert "Finished games" in shown and "won" in shown and "Tournament leaders" in shown
                    assert "stage 8" in shown and "Lower is better" in shown
                if name == "phone":  # leaders first on a phone
                    top = browser.execute_script(
                        "return [document.getElementById('leaders-section').getBoundingClientRect().top,"
                        " document.getElementById('tables-section').getBoundingClientRect().top]")
                    assert top[0] < top[1]
            assert browser.find_element("id", "status").text.startswith("Live")
            board.kill()  # the board goes away: the page says it is not live any more
            board.wait(10)
            end = time.time() + 20
            while time.time() < end and "stale" not in (browser.find_element("tag name", "body").get_attribute("class")
                                                        or ""):
                time.sleep(0.5)
            assert browser.find_element("id", "status").text.startswith("Not live")
        finally:
            browser.quit()
    finally:
        board.kill()
        board.wait(10)


def test_every_text_colour_of_the_page_meets_wcag_aa_contrast_on_its_backgrounds() -> None:
    """Issue 48 (3): the export links were default blue on #16191d. Every text colour of
    the page (links and visited links included) against both backgrounds: >= 4.5:1."""
    import re

    from companion.board.page import CSS

    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[i: i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    colours = dict(re.findall(r"--([a-z]+):(#[0-9a-fA-F]{6})", CSS))
    visited = re.search(r"a:visited\{color:(#[0-9a-fA-F]{6})\}", CSS)
    assert visited and {"bg", "card", "text", "muted", "turn", "win", "link", "off"} <= set(colours)
    texts = [colours[k] for k in ("text", "muted", "turn", "win", "link", "off")] + [visited.group(1)]
    for background in (colours["bg"], colours["card"]):
        for text in texts:
            hi, lo = sorted((luminance(text), luminance(background)), reverse=True)
            assert (hi + 0.05) / (lo + 0.05) >= 4.5, (text, background)
