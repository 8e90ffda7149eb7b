"""The event board's page: HTML, style and script, served as three files.

Why three files and no inline code: the board sends a strict Content Security
Policy (``script-src 'self'``), so a name a kiosk pushed can never run as script
even if escaping were missed somewhere. One layout serves a projector (two columns
that fit twelve tables, the leaders and the finished games on 1024x768 without
scrolling), a laptop, and a phone (one column, leaders first). Colours meet WCAG
AA contrast on the dark background, links included.
"""

from __future__ import annotations

HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>TAKI event board</title><link rel="stylesheet" href="board.css"></head>
<body>
<header><h1>TAKI event board</h1><p id="status" role="status">connecting…</p></header>
<main>
<section id="tables-section" aria-label="Tables"><div class="tables" id="tables"></div></section>
<aside>
<section id="leaders-section"><h2>Tournament leaders</h2>
<p class="note">Everyone starts at stage 8; emptying your hand moves you down a stage.
Lower is better: the first out at stage 1 wins.</p>
<table id="leaders"><thead><tr><th>Player</th><th>Table</th><th>Stage</th><th>Cards</th></tr></thead>
<tbody></tbody></table></section>
<section id="finished-section"><h2>Finished games</h2>
<table id="finished"><tbody></tbody></table></section>
<nav><a href="export.csv">standings (CSV)</a> · <a href="games.csv">every game (CSV)</a> ·
<a href="export.json">everything (JSON)</a></nav>
</aside>
</main>
<script src="board.js"></script>
</body></html>
"""

CSS = """
:root{--bg:#16191d;--card:#23272e;--text:#f0f0f0;--muted:#c4c7cc;--turn:#ffd35a;--win:#8ef58e;--link:#9cc4ff;--off:#ff9f8a}
*{box-sizing:border-box}
html{font-size:16px}
body{font-family:sans-serif;background:var(--bg);color:var(--text);margin:0;padding:.6rem 1rem;font-size:1rem}
a{color:var(--link)}a:visited{color:#d0b4ff}
header{display:flex;align-items:baseline;gap:1.5rem}
h1{margin:0 0 .4rem;font-size:1.6rem}h2{margin:.2rem 0 .3rem;font-size:1.25rem}
#status{margin:0;color:var(--muted)}
body.stale #status{color:var(--off);font-weight:bold}
body.stale .tables{opacity:.75}
main{display:grid;gap:1rem}
.tables{display:grid;grid-template-columns:repeat(auto-fill,minmax(11.5rem,1fr));gap:.6rem}
.t{background:var(--card);border-radius:8px;padding:.4rem .6rem;border:2px solid transparent}
.t h3{margin:0;font-size:1.2rem;display:flex;justify-content:space-between;align-items:baseline;gap:.4rem;white-space:nowrap}
.t .when{font-size:.85rem;font-weight:normal;color:var(--muted)}
.t p{margin:.15rem 0}
.t table{border-collapse:collapse;width:100%}
.t td{padding:0 .2rem;font-size:1rem}
.t td.n{text-align:right;color:var(--muted)}
.t .last{font-size:.9rem;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.t.off{border:2px dashed var(--off)}
.t.off .state{color:var(--off);font-weight:bold}
.turn{color:var(--turn);font-weight:bold}
.win{color:var(--win);font-weight:bold}
aside table{border-collapse:collapse;width:100%}
aside th{text-align:left;color:var(--muted);font-weight:normal;font-size:.9rem}
aside td{padding:.05rem .4rem .05rem 0}
.note{margin:0 0 .3rem;color:var(--muted);font-size:.9rem}
nav{margin-top:.6rem;font-size:.95rem}
/* projector and laptop: tables left, leaders and finished games right, one screen */
@media (min-width:900px){main{grid-template-columns:1fr 19rem}}
/* a big screen: everything larger, in the same layout */
@media (min-width:1400px){html{font-size:20px}}
@media (min-width:1800px){html{font-size:24px}}
/* phone: one column, the leaders first */
@media (max-width:899px){
  main{display:flex;flex-direction:column}
  aside{order:-1}
  .tables{grid-template-columns:1fr}
}
"""

JS = r"""
'use strict';
const params=new URLSearchParams(location.search);
if(params.get('view')==='projector'||(params.get('view')!=='page'&&innerWidth>1024)) document.body.classList.add('projector');
function esc(s){return String(s).replace(/[&<>"']/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]))}
function hhmm(t){return new Date(t*1000).toLocaleTimeString([], {hour:'2-digit',minute:'2-digit',hour12:false})}
function row(cells){return '<tr>'+cells.map(c=>'<td>'+c+'</td>').join('')+'</tr>'}
let lastContact=Date.now(), lastData=0;
function draw(d){
  const T=document.getElementById('tables'); T.innerHTML='';
  for(const t of d.tables){
    const div=document.createElement('div'); div.className='t'+(t.online?'':' off'); div.id='table-'+t.table;
    let rows='';
    t.names.forEach((n,i)=>{rows+='<tr><td class="'+(t.online&&n===t.to_move?'turn':'')+'">'+esc(n)+'</td><td class="n">'
      +(t.stages?'stage '+t.stages[i]+' · ':'')+(t.counts?t.counts[i]+' cards':'')+'</td></tr>'});
    const when=t.last_event?'last card '+hhmm(t.last_event):'';
    const state=!t.online?'Offline since '+hhmm(t.last_seen)
      :(t.winner?'<span class="win">'+esc(t.winner)+' won</span>':'<span class="turn">'+esc(t.to_move||'')+'</span> to play');
    div.innerHTML='<h3>Table '+t.table+'<span class="when">'+when+'</span></h3><p class="state">'+state+'</p>'
      +'<table>'+rows+'</table><p class="last">'+esc(t.online?(t.last||''):'')+'</p>';
    T.appendChild(div);
  }
  if(!d.tables.length) T.innerHTML='<p>No table has joined yet: start a kiosk with --board.</p>';
  const L=d.leaders.slice(0,10);
  document.querySelector('#leaders tbody').innerHTML=L.length?L.map(r=>row([esc(r.name),r.table,r.stage,r.cards])).join('')
    :'<tr><td colspan="4">No tournament is being played.</td></tr>';
  const F=(d.finished||[]).slice(-8).reverse();
  document.querySelector('#finished tbody').innerHTML=F.length?F.map(g=>row(['table '+g.table,
    '<span class="win">'+esc(g.winner||'')+'</span>'+(g.tournament?' won the tournament':' won'),
    g.names.filter(n=>n!==g.winner).map(esc).join(', ')])).join(''):'<tr><td>None yet.</td></tr>';
  lastData=d.now||Date.now()/1000;
}
function live(){
  const quiet=Date.now()-lastContact;
  const S=document.getElementById('status');
  if(quiet>12000){document.body.classList.add('stale');
    S.textContent='Not live: no news from the board since '+new Date(lastContact).toLocaleTimeString([], {hour12:false})+' (reconnecting)';}
  else{document.body.classList.remove('stale');
    S.textContent='Live · updated '+(lastData?new Date(lastData*1000).toLocaleTimeString([], {hour12:false}):'—');}
}
const es=new EventSource('stream');
es.onmessage=e=>{lastContact=Date.now(); draw(JSON.parse(e.data)); live()};
es.addEventListener('ping',()=>{lastContact=Date.now(); live()});
es.onerror=()=>live();
setInterval(live,2000);
"""

#: The organiser's page: free a table for a replacement kiosk (the event key, typed
#: here, is sent only with that request and never stored by the page).
ADMIN_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>TAKI event board: organiser</title><link rel="stylesheet" href="board.css"></head>
<body>
<header><h1>Organiser</h1><p><a href="./">back to the board</a></p></header>
<p class="note">Release a table when its kiosk is replaced or lost its token: the table's games stay
on the board, and the next kiosk that enrols with the event key for that table takes it.</p>
<form id="release">
<p><label>Event key <input id="key" type="password" autocomplete="off" required></label></p>
<p><label>Table <input id="table" type="number" min="1" max="999" required></label>
<button type="submit">Release the table</button></p>
</form>
<p id="result" role="status"></p>
<h2>Tables</h2><table id="seats"><thead><tr><th>Table</th><th>Kiosk</th><th>Last heard</th></tr></thead>
<tbody></tbody></table>
<script src="admin.js"></script>
</body></html>
"""

ADMIN_JS = r"""
'use strict';
function esc(s){return String(s).replace(/[&<>"']/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]))}
async function seats(){
  const d=await (await fetch('api/tables')).json();
  document.querySelector('#seats tbody').innerHTML=d.tables.map(t=>'<tr><td>'+t.table+'</td><td>'+esc(t.kiosk)
    +'</td><td>'+new Date(t.last_seen*1000).toLocaleTimeString()+(t.online?'':' (offline)')+'</td></tr>').join('');
}
document.getElementById('release').addEventListener('submit',async e=>{
  e.preventDefault();
  const table=Number(document.getElementById('table').value);
  const r=await fetch('api/release',{method:'POST',headers:{'Content-Type':'application/json',
    'X-Event-Key':document.getElementById('key').value},body:JSON.stringify({table})});
  const d=await r.json();
  document.getElementById('result').textContent=r.ok?('Table '+table+' released'+(d.released?' (it was kiosk '+d.released+')':' (no kiosk held it)'))
    :('Not released: '+d.error);
  seats();
});
seats();
"""
