"""STYLE lesson 1: the rules core imports no IO layer."""

import subprocess
import sys


def test_rules_core_loads_no_io_libraries() -> None:
    code = (
        "import sys, companion.rules, companion.rules.selfplay, companion.rules.notation\n"
        "bad = [m for m in ('kivy', 'cv2', 'ultralytics', 'pyttsx3', 'torch', 'sqlite3', 'numpy')"
        " if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_table_vision_imports_neither_synth_nor_training() -> None:
    """What runs at the table (frame sources, reader, tracker) never pulls in
    the picture makers or the model's life cycle (developers' guide, layout)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "companion" / "vision"
    offenders = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                mod = "." * node.level + (node.module or "")
                if any(part in mod.split(".") for part in ("synth", "training")):
                    offenders.append(f"{path.name}: {mod}")
            elif isinstance(node, ast.Import):
                offenders += [f"{path.name}: {a.name}" for a in node.names
                              if a.name.startswith(("companion.synth", "companion.training"))]
    assert offenders == []
    code = (
        "import sys, companion.vision.classifier, companion.vision.tracker, companion.vision.sources\n"
        "print(','.join(m for m in sys.modules if m.startswith(('companion.synth', 'companion.training'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
