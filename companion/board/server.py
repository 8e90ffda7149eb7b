"""`taki-companion board`: one live tournament page for every table at an event.

A kiosk's first contact (``POST /api/enrol`` with the event key) seats it at its
table and returns a kiosk token; its pushes (``POST /api/push``) and heartbeats
(``POST /api/heartbeat``) carry that token, so the event key alone cannot push as
another table. The organiser frees a table for a replacement kiosk on ``/admin``
(the event key again). The page (``GET /``) is read-only and updates itself
through server-sent events (``GET /stream``), which also turn a silent table
offline by the clock. Every refusal is logged and answered with its reason (a 4xx;
503 while the database is down); nothing refused is stored. Exports:
``/export.json``, ``/export.csv`` and ``/games.csv``.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import logging
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from . import page as board_page
from .store import OFFLINE_AFTER, BoardStore, Refused

MAX_BODY = 1_000_000  # bytes a push may carry
MAX_SMALL_BODY = 2_000  # bytes an enrolment, a heartbeat or a release may carry
log = logging.getLogger("taki.board")

#: At most one page update per this many seconds per listener (the page stays
#: within a second of every push, and a burst of 40 kiosks costs one update).
STREAM_EVERY = 0.2
#: The stream looks at the clock this often with no push at all, so a table whose
#: kiosk went silent turns offline on the page within OFFLINE_AFTER + TICK seconds.
TICK = 2.0
#: With nothing new, the stream still says it is alive this often (the page shows
#: itself stale when it hears nothing for longer).
PING_EVERY = 5.0

#: Sent with every answer: no script but the board's own, no framing, no sniffing.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}
#: What a spreadsheet would run as a formula at the start of a cell.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text: a leading formula character gets a quote
    (OWASP's advice against CSV injection); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class Board:
    """The server's state: the store, the event key, and who is listening."""

    def __init__(self, store: BoardStore, event_key: str, offline_after: float = OFFLINE_AFTER,
                 tick: float = TICK) -> None:
        if len(event_key) < 8:
            raise ValueError("the event key must be at least 8 characters")
        self.store, self._key = store, event_key.encode()
        self.offline_after, self.tick = offline_after, tick
        self.version = 0
        self.refused = 0
        self._changed: asyncio.Condition | None = None
        self._snap_lock: asyncio.Lock | None = None
        self._cache: tuple[tuple[int, int], str] = ((-1, -1), "")

    async def stream_text(self) -> tuple[int, str]:
        """The page's data as JSON, made once per change (or per clock tick, which is
        what turns a silent table offline) for every listener, off the event loop.
        Returns the version the text shows with it."""
        if self._snap_lock is None:
            self._snap_lock = asyncio.Lock()
        async with self._snap_lock:
            key = (self.version, int(time.time() // self.tick))
            if self._cache[0] != key:
                text = json.dumps(await asyncio.to_thread(self.snapshot))
                self._cache = (key, text)
            return self._cache[0][0], self._cache[1]

    def snapshot(self) -> dict[str, Any]:
        now = time.time()
        tables = self.store.tables(now, self.offline_after)
        return {"tables": tables, "leaders": self.store.leaders(tables),
                "events": self.store.count(), "finished": self.store.finished(), "version": self.version,
                "offline_after": self.offline_after, "now": now}

    def authorised(self, request: Request) -> bool:
        """The event key: enrolment and the organiser's page."""
        given = request.headers.get("x-event-key", "").encode("utf-8", "replace")
        return hmac.compare_digest(given, self._key)  # constant time: the key is not guessed byte by byte

    def kiosk(self, request: Request) -> str | None:
        """The kiosk whose token the request carries (None: no valid token)."""
        return self.store.kiosk_of(request.headers.get("x-kiosk-token", ""))

    async def changed(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed


def _refuse(board: Board, request: Request, status: int, why: str) -> JSONResponse:
    board.refused += 1
    client = request.client.host if request.client else "?"
    log.warning("refused a push from %s: %s", client, why)
    return JSONResponse({"error": why}, status_code=status)


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every answer (plain ASGI: the live stream is
    passed through as it is written, never buffered)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None when it is larger than ``limit`` bytes."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


def _json(body: bytes) -> Any:
    """The body as JSON; :class:`Refused` (400) for anything else, deep nesting included."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused("the body is not JSON (or is nested too deeply)", 400) from None


def make_app(store: BoardStore, event_key: str, offline_after: float = OFFLINE_AFTER, tick: float = TICK) -> Starlette:
    board = Board(store, event_key, offline_after, tick)

    async def changed() -> None:
        board.version += 1
        cond = await board.changed()
        async with cond:
            cond.notify_all()

    async def read_json(request: Request, limit: int) -> Any:
        body = await _body(request, limit)
        if body is None:
            raise Refused(f"the body is at most {limit} bytes", 413)
        return _json(body)

    async def organiser_request(request: Request, fields: str) -> dict[str, Any]:
        """The body of a request that needs the event key (an enrolment, a release)."""
        if not board.authorised(request):
            raise Refused("a wrong or missing event key", 401)
        data = await read_json(request, MAX_SMALL_BODY)
        if not isinstance(data, dict):
            raise Refused(f"the body must be a JSON object with {fields}")
        return data

    async def kiosk_request(request: Request) -> str:
        """The kiosk whose token a push or a heartbeat carries; 401 without a valid one."""
        kiosk = await asyncio.to_thread(board.kiosk, request)
        if kiosk is None:
            raise Refused("a wrong or missing kiosk token: enrol with the event key first", 401)
        return kiosk

    async def enrol(request: Request) -> Response:
        data = await organiser_request(request, "kiosk and table")
        token = await asyncio.to_thread(store.enrol, data.get("kiosk"), data.get("table"))
        log.info("kiosk %s enrolled at table %s", data.get("kiosk"), data.get("table"))
        await changed()
        return JSONResponse({"kiosk": data["kiosk"], "table": data["table"], "token": token})

    async def push(request: Request) -> Response:
        kiosk = await kiosk_request(request)
        data = await read_json(request, MAX_BODY)
        result = await asyncio.to_thread(store.add, data, None, kiosk)
        await changed()
        return JSONResponse({"stored": result.stored, "duplicates": result.duplicates,
                             "acked_through": result.acked_through, "gaps": [list(g) for g in result.gaps]})

    async def heartbeat(request: Request) -> Response:
        kiosk = await kiosk_request(request)
        if not await asyncio.to_thread(store.heartbeat, kiosk):
            raise Refused(f"kiosk {kiosk} has no table: enrol again", 409)
        return JSONResponse({"kiosk": kiosk, "ok": True})

    async def release(request: Request) -> Response:
        data = await organiser_request(request, "the table")
        kiosk = await asyncio.to_thread(store.release, data.get("table"))
        log.warning("the organiser released table %s (kiosk %s)", data.get("table"), kiosk)
        await changed()
        return JSONResponse({"table": data["table"], "released": kiosk})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        if exc.status == 503:
            log.warning("%s %s: %s", request.method, request.url.path, exc)
            return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "5"})
        return _refuse(board, request, exc.status, str(exc))

    async def page(request: Request) -> Response:
        return HTMLResponse(board_page.HTML)

    async def admin_page(request: Request) -> Response:
        return HTMLResponse(board_page.ADMIN_HTML)

    def asset(text: str, media: str):  # type: ignore[no-untyped-def]
        async def serve_asset(request: Request) -> Response:
            return Response(text, media_type=media, headers={"cache-control": "no-cache"})
        return serve_asset

    async def tables(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(board.snapshot))

    async def stream(request: Request) -> Response:
        once = bool(request.query_params.get("once"))
        first = await board.stream_text()  # the database down: a 503 now, and the page retries

        async def events():  # type: ignore[no-untyped-def]
            sent, said = "", time.monotonic()
            seen, text = first
            cond = await board.changed()
            while True:
                if text != sent:
                    sent, said = text, time.monotonic()
                    yield f"data: {text}\n\n"
                    if once:
                        return
                    await asyncio.sleep(STREAM_EVERY)  # a burst of pushes: one update for all of it
                elif time.monotonic() - said >= PING_EVERY:
                    said = time.monotonic()
                    yield f"event: ping\ndata: {time.time():.0f}\n\n"  # also notices a page that went away
                async with cond:
                    try:  # a push, or the next clock tick (a table may have gone silent)
                        await asyncio.wait_for(cond.wait_for(lambda: board.version != seen), timeout=board.tick)
                    except asyncio.TimeoutError:
                        pass
                if await request.is_disconnected():
                    return
                try:
                    seen, text = await board.stream_text()
                except Refused:  # the database went down: the page keeps what it shows, and pings
                    pass

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def export_json(request: Request) -> Response:
        def everything() -> dict[str, Any]:
            data = board.snapshot()
            data["games"] = [{**g, "history": [{"seq": seq, "state": st} for seq, st in
                                               store.history(g["kiosk"], g["game"])]} for g in store.games()]
            return data
        return JSONResponse(await asyncio.to_thread(everything))

    async def export_games_csv(request: Request) -> Response:
        """Every game, every event: one row per journalled event as the kiosk sent it."""
        def rows() -> str:
            out = io.StringIO()
            w = csv.writer(out)
            w.writerow(["table", "kiosk", "game", "seq", "state"])
            for g in store.games():
                for seq, st in store.history(g["kiosk"], g["game"]):
                    w.writerow([csv_cell(v) for v in (g["table"], g["kiosk"], g["game"], seq, st)])
            return out.getvalue()
        return PlainTextResponse(await asyncio.to_thread(rows), media_type="text/csv")

    async def export_csv(request: Request) -> Response:
        def rows() -> str:
            out = io.StringIO()
            w = csv.writer(out)
            w.writerow(["name", "table", "stage", "cards"])
            for r in store.leaders():
                w.writerow([csv_cell(r["name"]), r["table"], r["stage"], r["cards"]])
            return out.getvalue()
        return PlainTextResponse(await asyncio.to_thread(rows), media_type="text/csv")

    app = Starlette(routes=[
        Route("/", page), Route("/board.css", asset(board_page.CSS, "text/css")),
        Route("/board.js", asset(board_page.JS, "text/javascript")),
        Route("/admin", admin_page), Route("/admin.js", asset(board_page.ADMIN_JS, "text/javascript")),
        Route("/api/enrol", enrol, methods=["POST"]), Route("/api/push", push, methods=["POST"]),
        Route("/api/heartbeat", heartbeat, methods=["POST"]), Route("/api/release", release, methods=["POST"]),
        Route("/api/tables", tables), Route("/stream", stream), Route("/export.json", export_json),
        Route("/export.csv", export_csv), Route("/games.csv", export_games_csv),
    ], exception_handlers={Refused: refused}, middleware=[Middleware(SecurityHeaders)])
    app.state.board = board
    return app


def serve(db: str | Path, event_key: str, host: str = "0.0.0.0", port: int = 8080,
          certfile: str | None = None, keyfile: str | None = None) -> None:
    """Run the board; with ``certfile`` (and ``keyfile``) over HTTPS, uvicorn's own TLS."""
    import uvicorn

    uvicorn.run(make_app(BoardStore(db), event_key), host=host, port=port, log_level="warning",
                ssl_certfile=certfile, ssl_keyfile=keyfile)
