"""`taki-companion board`: one live tournament page for every table at an event.

Kiosks push their journalled events (``POST /api/push`` with the event key); the
page (``GET /``) is read-only and updates itself through server-sent events
(``GET /stream``). Every refusal is logged and answered with its reason; nothing
refused is stored. Exports: ``/export.json`` and ``/export.csv``.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import logging
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from .store import BoardStore, Refused

MAX_BODY = 1_000_000  # bytes a push may carry
log = logging.getLogger("taki.board")

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>TAKI event board</title>
<style>
body{font-family:sans-serif;background:#16191d;color:#eee;margin:1rem}
h1{margin:.2rem 0}.tables{display:flex;flex-wrap:wrap;gap:1rem}
.t{background:#23272e;border-radius:10px;padding:.8rem 1rem;min-width:16rem}
.t h2{margin:.1rem 0 .5rem;font-size:1.4rem}.off{opacity:.5}.turn{color:#ffd35a;font-weight:bold}
td{padding:.1rem .6rem}.win{color:#7f7}
</style></head><body>
<h1>TAKI event board</h1><p id="status">connecting…</p>
<div class="tables" id="tables"></div>
<h2>Leaders</h2><table id="leaders"></table>
<h2>Finished</h2><table id="finished"></table>
<p><a href="export.csv">standings (CSV)</a> · <a href="games.csv">every game (CSV)</a> · <a href="export.json">everything (JSON)</a></p>
<script>
function esc(s){return String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]))}
function draw(d){
  const T=document.getElementById('tables'); T.innerHTML='';
  for(const t of d.tables){
    const div=document.createElement('div'); div.className='t'+(t.online?'':' off'); div.id='table-'+t.table;
    let rows='';
    t.names.forEach((n,i)=>{rows+='<tr><td class="'+(n===t.to_move?'turn':'')+'">'+esc(n)+'</td><td>'
      +(t.stages?'stage '+t.stages[i]:'')+'</td><td>'+(t.counts?t.counts[i]+' cards':'')+'</td></tr>'});
    const since=new Date(t.last_seen*1000).toLocaleTimeString([], {hour:'2-digit',minute:'2-digit'});
    div.innerHTML='<h2>Table '+t.table+(t.online?'':' <span class="offline">(offline since '+since+')</span>')+'</h2>'
      +(t.winner?'<p class="win">'+esc(t.winner)+' won</p>':'<p>'+esc(t.to_move||'')+'\\'s turn</p>')
      +'<table>'+rows+'</table><p>'+esc(t.last||'')+'</p>';
    T.appendChild(div);
  }
  document.getElementById('leaders').innerHTML=d.leaders.slice(0,10).map(r=>'<tr><td>'+esc(r.name)
    +'</td><td>table '+r.table+'</td><td>'+(r.stage!==null?'stage '+r.stage:'')+'</td><td>'
    +(r.cards!==null?r.cards+' cards':'')+'</td></tr>').join('');
  document.getElementById('finished').innerHTML=(d.finished||[]).map(g=>'<tr><td>table '+g.table+'</td><td>game '
    +g.game+'</td><td class="win">'+esc(g.winner||'')+(g.tournament?' won the tournament':' won')+'</td><td>'
    +g.names.map(esc).join(', ')+'</td></tr>').join('');
  document.getElementById('status').textContent='live: '+d.events+' events';
}
const es=new EventSource('stream'); es.onmessage=e=>draw(JSON.parse(e.data));
es.onerror=()=>{document.getElementById('status').textContent='reconnecting…'};
</script></body></html>
"""


#: At most one page update per this many seconds per listener (the page stays
#: within a second of every push, and a burst of 40 kiosks costs one update).
STREAM_EVERY = 0.2


class Board:
    """The server's state: the store, the event key, and who is listening."""

    def __init__(self, store: BoardStore, event_key: str) -> None:
        if len(event_key) < 8:
            raise ValueError("the event key must be at least 8 characters")
        self.store, self._key = store, event_key.encode()
        self.version = 0
        self.refused = 0
        self._changed: asyncio.Condition | None = None
        self._snap_lock: asyncio.Lock | None = None
        self._cache: tuple[int, str] = (-1, "")

    async def stream_text(self) -> tuple[int, str]:
        """The page's data as JSON, made once per change for every listener (off the
        event loop: with 40 tables it is many reads), not once per listener per push."""
        if self._snap_lock is None:
            self._snap_lock = asyncio.Lock()
        async with self._snap_lock:
            if self._cache[0] != self.version:
                version = self.version
                text = json.dumps(await asyncio.to_thread(self.snapshot))
                self._cache = (version, text)
            return self._cache

    def snapshot(self) -> dict[str, Any]:
        return {"tables": self.store.tables(), "leaders": self.store.leaders(), "events": self.store.count(),
                "finished": self.store.finished(), "version": self.version}

    def authorised(self, request: Request) -> bool:
        given = request.headers.get("x-event-key", "").encode()
        return hmac.compare_digest(given, self._key)  # constant time: the key is not guessed byte by byte

    async def changed(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed


def _refuse(board: Board, request: Request, status: int, why: str) -> JSONResponse:
    board.refused += 1
    client = request.client.host if request.client else "?"
    log.warning("refused a push from %s: %s", client, why)
    return JSONResponse({"error": why}, status_code=status)


def make_app(store: BoardStore, event_key: str) -> Starlette:
    board = Board(store, event_key)

    async def push(request: Request) -> Response:
        if not board.authorised(request):
            return _refuse(board, request, 401, "a wrong or missing event key")
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return _refuse(board, request, 413, f"a push is at most {MAX_BODY} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _refuse(board, request, 413, f"a push is at most {MAX_BODY} bytes")
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _refuse(board, request, 400, "the body is not JSON")
        try:
            result = await asyncio.to_thread(store.add, data)
        except Refused as e:
            return _refuse(board, request, e.status, str(e))
        board.version += 1
        cond = await board.changed()
        async with cond:
            cond.notify_all()
        return JSONResponse({"stored": result.stored, "duplicates": result.duplicates,
                             "acked_through": result.acked_through, "gaps": list(result.gaps)})

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def tables(request: Request) -> Response:
        return JSONResponse(board.snapshot())

    async def stream(request: Request) -> Response:
        async def events():  # type: ignore[no-untyped-def]
            seen = -1
            cond = await board.changed()
            while True:
                if board.version != seen:
                    seen, text = await board.stream_text()
                    yield f"data: {text}\n\n"
                    if request.query_params.get("once"):
                        return
                    await asyncio.sleep(STREAM_EVERY)  # a burst of pushes: one update for all of it
                    continue
                async with cond:
                    try:
                        await asyncio.wait_for(cond.wait_for(lambda: board.version != seen), timeout=15)
                    except asyncio.TimeoutError:
                        yield ": keep-alive\n\n"  # also notices a page that went away
                if await request.is_disconnected():
                    return

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
                    w.writerow([g["table"], g["kiosk"], g["game"], seq, st])
            return out.getvalue()
        return PlainTextResponse(await asyncio.to_thread(rows), media_type="text/csv")

    async def export_csv(request: Request) -> Response:
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["name", "table", "stage", "cards"])
        for r in store.leaders():
            w.writerow([r["name"], r["table"], r["stage"] if r["stage"] is not None else "", r["cards"]])
        return PlainTextResponse(out.getvalue(), media_type="text/csv")

    app = Starlette(routes=[
        Route("/", page), Route("/api/push", push, methods=["POST"]), Route("/api/tables", tables),
        Route("/stream", stream), Route("/export.json", export_json), Route("/export.csv", export_csv),
        Route("/games.csv", export_games_csv),
    ])
    app.state.board = board
    return app


def serve(db: str | Path, event_key: str, host: str = "0.0.0.0", port: int = 8080) -> None:
    import uvicorn

    uvicorn.run(make_app(BoardStore(db), event_key), host=host, port=port, log_level="warning")
