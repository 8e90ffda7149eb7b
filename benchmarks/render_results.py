"""Render docs/results.md from the benchmarks' JSON reports (``--json``).

Every table in the page is made here from ``benchmarks/results/*.json``: the
figures, the command that measured them, the date and the machine. To refresh a
figure, run its command with ``--json benchmarks/results/NAME.json`` and run this.

Run: python benchmarks/render_results.py [--results benchmarks/results] [--out docs/results.md]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

HEAD = """# Measured results

Every figure on this page is rendered by `python benchmarks/render_results.py` from
the JSON a benchmark writes with `--json` (`benchmarks/results/`); none is typed by
hand. Each table says the command that measured it, when, and on what machine.
Run the command again on your own machine to compare.

"""


def _value(v: Any, unit: str) -> str:
    if isinstance(v, float) and unit.startswith("%"):
        text = f"{v:.1f}"
    elif isinstance(v, float):
        text = f"{v:.3f}" if abs(v) < 1 else f"{v:.1f}" if abs(v) < 100 else f"{v:.0f}"
    else:
        text = str(v)
    return f"{text}{unit}" if unit.startswith("%") else f"{text} {unit}".strip()


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(reports: list[dict[str, Any]], head: str = HEAD, level: str = "##") -> str:
    parts = [head]
    for r in reports:
        m = r["machine"]
        parts.append(f"{level} {r['title']}\n\n")
        parts.append(f"`{r['command']}`  \n{r['date']}; {m['cpu']}, {m['cores']} cores, "
                     f"{m['memory_gb']} GB, {m['os']}, Python {m['python']}\n\n")
        has_target = any(f["target"] for f in r["figures"])
        parts.append("| what | measured |" + (" target |" if has_target else "") + "\n")
        parts.append("| --- | --- |" + (" --- |" if has_target else "") + "\n")
        for f in r["figures"]:
            row = f"| {_cell(f['what'])} | {_cell(_value(f['value'], f['unit']))} |"
            parts.append(row + (f" {_cell(f['target'])} |" if has_target else "") + "\n")
        for n in r.get("notes", []):
            parts.append(f"\n{n}\n")
        parts.append("\n")
    return "".join(parts)


BLOCK = re.compile(r"(<!-- results: ([a-z_ ]+) -->\n)(.*?)(<!-- /results -->)", re.S)


def fill_blocks(text: str, reports: list[dict[str, Any]]) -> str:
    """Each ``<!-- results: NAME NAME -->`` ... ``<!-- /results -->`` block of a page
    (the model card) rendered anew from the named benchmarks' reports."""
    def one(m: re.Match[str]) -> str:
        names = m.group(2).split()
        chosen = [r for r in reports if r["benchmark"] in names]
        chosen.sort(key=lambda r: names.index(r["benchmark"]))
        body = render(chosen, head="", level="###") if chosen else "(not measured yet)\n\n"
        return m.group(1) + body + m.group(4)
    return BLOCK.sub(one, text)


def load(folder: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("schema") != 1:
            raise SystemExit(f"{path}: not a benchmark report (schema 1)")
        out.append(data)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "results.md"))
    ap.add_argument("--card", default=str(ROOT / "models" / "README.md"),
                    help="a page with <!-- results: ... --> blocks to fill (the model card)")
    args = ap.parse_args()
    reports = load(Path(args.results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(sorted(reports, key=lambda r: (r["title"], r["command"]))))
    print(f"{out}: {len(reports)} benchmarks, {sum(len(r['figures']) for r in reports)} figures")
    card = Path(args.card)
    if card.exists():
        card.write_text(fill_blocks(card.read_text(), reports))
        print(f"{card}: results blocks filled")


if __name__ == "__main__":
    main()
