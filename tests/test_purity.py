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
