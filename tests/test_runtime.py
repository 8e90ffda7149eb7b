"""Issue 15: the reader on ONNX Runtime / NCNN alone reads as the ultralytics reader does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.detector import MODELS_DIR, ModelError

ROOT = Path(__file__).resolve().parent.parent
PAIRS = {"onnx": "taki-yolov8n.onnx", "ncnn": "taki-yolov8n_ncnn_model"}


def _scenes(n: int) -> list[np.ndarray]:
    """Held-out-style scenes (a glyph family no training picture used), as at the table."""
    comp = Compositor(config=SceneConfig.varied(416, "held-out"))
    return [comp.scene(9000 + i).image for i in range(n)]


@pytest.mark.parametrize("backend", sorted(PAIRS))
def test_runtime_reader_matches_the_ultralytics_reader(backend: str) -> None:
    from companion.vision.classifier import load_reader
    from companion.vision.runtime import load_runtime_reader

    finder = MODELS_DIR / PAIRS[backend]
    ours, theirs = load_runtime_reader(finder), load_reader(finder)
    same = 0
    images = _scenes(24)
    for image in images:
        a, b = ours.detect(image), theirs.detect(image)
        assert len(a) == len(b)
        if not a:
            continue
        assert np.allclose(a[0].box, b[0].box, atol=1.0)  # letterbox, decoding, NMS as ultralytics'
        assert abs(a[0].confidence - b[0].confidence) < 0.1
        same += a[0].card == b[0].card
    assert same >= len(images) - 1


def test_runtime_path_imports_neither_torch_nor_ultralytics() -> None:
    code = (
        "import sys, numpy as np\n"
        "from companion.vision.runtime import load_runtime_reader\n"
        "from companion.vision.tracker import LeadingCardTracker\n"
        "for m in ('taki-yolov8n.onnx', 'taki-yolov8n_ncnn_model'):\n"
        "    load_runtime_reader(m).detect(np.zeros((320, 320, 3), np.uint8))\n"
        "print(','.join(m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1:] in ([""], []), out.stdout


def test_a_damaged_export_is_a_model_error_not_a_crash(tmp_path: Path) -> None:
    from companion.vision.runtime import RuntimeFinder, load_runtime_reader

    bad = tmp_path / "taki-yolov8n.onnx"
    bad.write_bytes(b"not a model" * 10)
    with pytest.raises(ModelError, match="could not be loaded"):
        RuntimeFinder(bad)
    ncnn = tmp_path / "x_ncnn_model"
    ncnn.mkdir()
    (ncnn / "model.ncnn.param").write_text("7767517\n1 1\nInput in0 0 1 in0\n")
    with pytest.raises(ModelError):
        load_runtime_reader(ncnn)


def test_the_runtime_install_declares_no_torch() -> None:
    """`pip install .` (the Pi's runtime) must not pull torch: ultralytics and the export
    tools live in the `train` extra."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    for heavy in ("ultralytics", "torch", "openvino", "pnnx", "onnxslim", "scikit-image"):
        assert heavy not in core, heavy
    assert any(d.startswith("ultralytics") for d in project["optional-dependencies"]["train"])
    assert any(d.startswith("onnxruntime") for d in project["dependencies"])


def test_the_kiosk_can_cap_malloc_arenas_and_give_memory_back() -> None:
    """Issue 15: on glibc (Linux, Pi OS) the allocator takes both settings; elsewhere
    they are harmless no-ops that say so."""
    import platform

    from companion.ui.memory import give_back, limit_arenas

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        assert not give_back()
        return
    assert limit_arenas(2) is True
    assert give_back() in (True, False)  # 1 when memory was released, 0 when none could be


def test_the_kiosk_window_asks_for_no_multisampling(tmp_path: Path) -> None:
    """Issue 15: Kivy's default of two samples gave the window two 16 MiB buffers under
    software GL (277 against 307 MiB after 30 s of the demo, benchmarks/kiosk_start.py)."""
    import os

    code = (
        "import argparse\n"
        "from companion.ui.main import _kivy_env\n"
        "_kivy_env(argparse.Namespace(windowed=True, size='800x480'))\n"
        "from kivy.config import Config\n"
        "print(Config.get('graphics', 'multisamples'), Config.get('graphics', 'width'))"
    )
    env = {**os.environ, "KIVY_HOME": str(tmp_path / "kivy")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "800"]
