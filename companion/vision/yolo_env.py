"""Import ultralytics with nothing reaching the network.

Every path that touches ultralytics goes through :func:`yolo`, which first sets
YOLO_OFFLINE, a private YOLO_CONFIG_DIR holding the font the dataset checks look
for (matplotlib's DejaVu Sans, already on disk, under the name Arial.ttf), and
turns the ONNX Runtime and OpenVINO telemetry off. An OpenVINO model is run in
float32 on every CPU (:func:`openvino_in_f32`).
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


def openvino_in_f32() -> bool:
    """Make every OpenVINO Core compile for the CPU in float32; False without openvino.

    OpenVINO's CPU plugin quietly runs a float32 model in bfloat16 on CPUs with
    AVX512_BF16 or AMX (this project's AMD EPYC machines), and bfloat16 flips
    look-alike faces: OpenVINO read the held-out set at 98.0% against 98.5% in
    float32, where it reads every picture as ONNX and NCNN do.
    Ultralytics makes its own ``openvino.Core`` and sets the precision only on
    Windows and ARM, so the module's Core is swapped for one that sets it."""
    try:
        import openvino as ov
    except ImportError:
        return False
    if getattr(ov.Core, "taki_f32", False):
        return True

    class Core(ov.Core):  # type: ignore[misc, valid-type]
        taki_f32 = True

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            self.set_property("CPU", {"INFERENCE_PRECISION_HINT": ov.Type.f32})

    ov.Core = Core
    return True


def is_openvino(model: str | Path) -> bool:
    p = Path(model)
    return p.name.endswith("_openvino_model") or p.suffix == ".xml"


def YOLO(model: str | Path, task: str = "detect"):  # type: ignore[no-untyped-def]  # noqa: N802
    """ultralytics.YOLO, offline (an OpenVINO model in float32)."""
    ul = ultralytics()
    if is_openvino(model):
        openvino_in_f32()
    return ul.YOLO(str(model), task=task)
