"""Import ultralytics with nothing reaching the network.

Every path that touches ultralytics goes through :func:`yolo`, which first sets
YOLO_OFFLINE, a private YOLO_CONFIG_DIR holding the font the dataset checks look
for (matplotlib's DejaVu Sans, already on disk, under the name Arial.ttf), and
turns the ONNX Runtime and OpenVINO telemetry off.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import ModuleType

_READY = False


def offline_env() -> Path:
    global _READY
    os.environ["YOLO_OFFLINE"] = "True"
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("OPENVINO_TELEMETRY_DISABLE", "1")  # honoured by openvino-telemetry
    os.environ.setdefault("OV_TELEMETRY_DISABLE", "1")
    cfg = Path(os.environ.setdefault(
        "YOLO_CONFIG_DIR", str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "taki-companion" / "ultralytics")))
    cfg.mkdir(parents=True, exist_ok=True)
    font = cfg / "Arial.ttf"
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copyfile(src, font)
    if not _READY:
        _READY = True
        try:
            from openvino_telemetry import Telemetry  # type: ignore[import-not-found]

            Telemetry.opt_out(None)  # type: ignore[arg-type]
        except Exception:  # not installed, or no such call in this version
            pass
    return cfg


def ultralytics() -> ModuleType:
    offline_env()
    import ultralytics as ul

    ul.settings.update({"sync": False})
    return ul


def YOLO(model: str | Path, task: str = "detect"):  # type: ignore[no-untyped-def]  # noqa: N802
    """ultralytics.YOLO, offline."""
    return ultralytics().YOLO(str(model), task=task)
