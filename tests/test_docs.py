"""Issue 49: the documents a family, an organiser and a contributor read say what
the project does now: the README's commands are the ones CI runs, figures come from
benchmark JSON, links lead somewhere, and the version is the same everywhere."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import render_results  # noqa: E402
from report import Report  # noqa: E402

USER_DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "datasets" / "README.md",
             *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "models").glob("*.md"))]


def _commands(text: str) -> list[str]:
    """Shell commands, one per '&&' part or line, comments and -q dropped, 'python -m pip' as 'pip'."""
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "if ", "fi", "for ", "done", "then", "need=", "dpkg", "apt-get",
                                        "set ", "cd ", "export ", '[ ', "  ")):
            continue
        for part in line.split("&&"):
            part = part.strip().replace("python -m pip ", "pip ")
            if part.startswith("pip "):
                part = re.sub(r"\s+-q\b", "", part)
            part = part.replace(">/dev/null", "").strip()
            if part:
                out.append(part)
    return out


def _readme_block(after: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(after)
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block, f"no bash block after {after!r}"
    return block.group(1)


def test_the_readme_set_up_and_test_commands_are_the_ones_ci_runs() -> None:
    ci = _commands((ROOT / ".ci" / "run").read_text())
    setup = [c for c in _commands(_readme_block("## Set up, run, test")) if c != "taki-companion"]
    test = _commands(_readme_block("Run the tests"))
    assert setup and test == ["python -m pytest -q"]
    steps = [c for c in ci if c.startswith(("python3 -m venv", ". .venv", "pip install", "python -m companion"))]
    assert [c for c in steps if not c.startswith("pip install --upgrade pip")] == setup
    assert ci[-1] == test[0]  # CI ends with the README's test command


def test_the_readme_is_short_and_no_user_document_tells_the_work_s_history() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200
    for doc in USER_DOCS:
        found = re.findall(r"\bsessions?\b", doc.read_text(), re.I)
        assert not found, f"{doc.relative_to(ROOT)} speaks of sessions"


def test_every_local_link_in_the_documents_leads_to_a_file() -> None:
    for doc in USER_DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)\)", doc.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)} links to {target}, which is missing"


def test_the_version_is_one_number_in_the_package_the_cli_and_the_changelog() -> None:
    import companion

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert companion.__version__ == version
    out = subprocess.run([sys.executable, "-m", "companion.cli", "--version"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"taki-companion {version}"
    assert re.search(rf"^## {re.escape(version)} \(\d{{4}}-\d\d-\d\d\)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert "VERSION" in (ROOT / "companion" / "ui" / "setup.kv").read_text()  # shown on the setup screen


def test_results_are_rendered_from_benchmark_json_with_command_date_and_machine(tmp_path: Path) -> None:
    rep = Report("demo_bench", "A demonstration")
    rep.add("events lost", 0, "", "0")
    rep.add("median", 0.271, "s", "<= 0.5 s")
    rep.argv = ["--kiosks", "4", "--json", "x.json"]
    path = rep.write(tmp_path / "demo.json")
    page = render_results.render(render_results.load(tmp_path))
    assert "## A demonstration" in page and "| median | 0.271 s | <= 0.5 s |" in page
    command = re.search(r"^`(python [^`]+)`", page, re.M)
    assert command and "--kiosks 4" in command.group(1) and "--json" not in command.group(1)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC; .+, \d+ cores", page)
    card = "x\n<!-- results: demo_bench -->\nold\n<!-- /results -->\ny\n"
    filled = render_results.fill_blocks(card, render_results.load(tmp_path))
    assert "old" not in filled and "### A demonstration" in filled and filled.endswith("<!-- /results -->\ny\n")
    assert path is not None and path.exists()


def test_the_committed_results_page_and_model_card_are_what_the_render_script_makes() -> None:
    reports = render_results.load(ROOT / "benchmarks" / "results")
    assert reports, "no benchmark results committed"
    page = render_results.render(sorted(reports, key=lambda r: (r["title"], r["command"])))
    assert (ROOT / "docs" / "results.md").read_text() == page, "run python benchmarks/render_results.py"
    card = (ROOT / "models" / "README.md").read_text()
    assert render_results.fill_blocks(card, reports) == card, "run python benchmarks/render_results.py"


def test_help_lists_the_table_commands_first_and_the_model_commands_under_their_own_heading() -> None:
    out = subprocess.run([sys.executable, "-m", "companion.cli", "--help"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120).stdout
    table, models = out.index("commands at the table:"), out.index("making and measuring models")
    assert table < models
    assert all(re.search(rf"^  {c}\s", out[table:models], re.M) for c in ("enrol", "replay", "standings", "board"))
    assert all(re.search(rf"^  {c}\s", out[models:], re.M) for c in ("train", "dataset", "export", "eval"))


def test_every_benchmark_can_write_its_results_as_json() -> None:
    helpers = {"report.py", "render_results.py", "boardproc.py"}
    scripts = [p for p in sorted((ROOT / "benchmarks").glob("*.py")) if p.name not in helpers]
    assert len(scripts) >= 15
    for script in scripts:
        text = script.read_text()
        assert "add_json_argument(ap)" in text and ".write(args.json)" in text, script.name


def test_every_command_line_option_has_a_help_line() -> None:
    """Issue 47 (8): most options of selfplay, dataset, train, export, replay... had none."""
    import argparse

    from companion.cli import build_parser

    def silent(parser: argparse.ArgumentParser, where: str) -> list[str]:
        out = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out += silent(sub, f"{where} {name}")
            elif not action.help and "-h" not in action.option_strings:
                out.append(f"{where} {'/'.join(action.option_strings) or action.dest}")
        return out

    assert silent(build_parser(), "taki-companion") == []
