"""The card reader on ONNX Runtime alone: no torch, no ultralytics.

Why: on a Raspberry Pi the kiosk must start in seconds and fit in a few hundred
megabytes; torch alone takes longer to import than the whole reader takes to run.
This module reproduces what ultralytics does around the exported models (the
finder's letterbox, its box decoding and NMS, the classifier's resize and centre
crop) with numpy and OpenCV, so an ``.onnx`` pair reads exactly as it does under
ultralytics. ultralytics stays the tool that trains, exports and evaluates.

Threads are set on purpose (ONNX Runtime spins a thread per core by default and
busy-waits between frames): ``threads`` intra-op threads, no spinning.
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..rules.cards import FACES, Card, file_stem
from .classifier import TWO_STAGE_DET_CONF, TwoStageDetector
from .detector import MODELS_DIR, Detection, ModelError, find_model
from .prototypes import EMBEDDING_OUTPUT, PROTOTYPES
from .second_look import TURN_BELOW, read_faces

DEFAULT_FINDER = "taki-yolov8n.onnx"  # the kiosk's default: the shipped finder on ONNX Runtime
DEFAULT_THREADS = 1  # measured on 2 cores (benchmarks/detector_speed.py): as fast as 2 threads, and NCNN's
#: second OpenMP thread cost 20-30% of a core more at 10 fps; the other core is the UI's
_BY_STEM = {file_stem(c): c for c in FACES}


class OnnxEngine:
    """An ``.onnx`` export on ONNX Runtime, threads set, no spin-waiting."""

    backend = "onnx"

    def __init__(self, path: Path, threads: int) -> None:
        try:
            import onnxruntime as ort
        except ImportError as e:  # pragma: no cover - a broken install
            raise ModelError(f"ONNX Runtime is not installed ({e}); pip install onnxruntime") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        # no arena: ONNX Runtime's allocator otherwise keeps its largest frame's buffers for
        # good (tens of MiB on a 2 GB Pi) for no speed these small models could measure
        opts.enable_cpu_mem_arena = False
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as e:
            raise ModelError(f"{path} could not be loaded by ONNX Runtime: {type(e).__name__}: {e}") from None
        self.meta: dict[str, Any] = {}
        for k, v in self.session.get_modelmeta().custom_metadata_map.items():
            try:
                self.meta[k] = ast.literal_eval(v)
            except (ValueError, SyntaxError):
                self.meta[k] = v
        self._input = self.session.get_inputs()[0].name
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.threads = threads

    def run(self, blob: np.ndarray) -> np.ndarray:
        return np.asarray(self.session.run(self.outputs[:1], {self._input: blob})[0])

    def run_all(self, blob: np.ndarray) -> dict[str, np.ndarray]:
        """Every output by name (the classifier's probabilities and its embedding)."""
        return dict(zip(self.outputs, (np.asarray(o) for o in self.session.run(None, {self._input: blob}))))


class NcnnEngine:
    """A ``*_ncnn_model/`` export (pnnx) on the ``ncnn`` package: no torch either."""

    backend = "ncnn"

    def __init__(self, path: Path, threads: int) -> None:
        try:
            import ncnn
            import yaml
        except ImportError as e:  # pragma: no cover - a broken install
            raise ModelError(f"NCNN is not installed ({e}); pip install ncnn") from None
        param = next(path.glob("*.param"), None) if path.is_dir() else path
        meta_file = (path if path.is_dir() else path.parent) / "metadata.yaml"
        if param is None or not param.with_suffix(".bin").exists() or not meta_file.exists():
            raise ModelError(f"{path} is not a whole NCNN model (model.ncnn.param, .bin, metadata.yaml)")
        self.net = ncnn.Net()
        self.net.opt.use_vulkan_compute = False
        self.net.opt.num_threads = max(1, threads)
        self.net.opt.openmp_blocktime = 0  # no spin-waiting between frames (it cost a third of a core)
        try:
            if self.net.load_param(str(param)) != 0 or self.net.load_model(str(param.with_suffix(".bin"))) != 0:
                raise ValueError("ncnn refused the files")
            self.meta = yaml.safe_load(meta_file.read_text())
        except Exception as e:
            raise ModelError(f"{path} could not be loaded by NCNN: {type(e).__name__}: {e}") from None
        self._mat = ncnn.Mat
        self._in, self._out = self.net.input_names()[0], sorted(self.net.output_names())[0]
        self.threads = threads

    def run(self, blob: np.ndarray) -> np.ndarray:
        with self.net.create_extractor() as ex:
            ex.input(self._in, self._mat(np.ascontiguousarray(blob[0])))
            out = np.array(ex.extract(self._out)[1])
        return out[None]


def is_runtime_export(path: str | Path) -> bool:
    """An export the runtime reader reads: ``.onnx``, or an NCNN model (folder or .param)."""
    p = Path(path)
    return p.suffix in (".onnx", ".param") or p.name.endswith("_ncnn_model")


def runtime_reads(model: str | Path | None, classifier: str | Path | None = "auto",
                  deck_classifier: Path | None = None) -> bool:
    """Whether this finder and classifier run on the runtime reader (no torch): both are
    exports it reads; with a deck profile, the profile has its ONNX classifier.
    Decided from the paths alone, so the kiosk knows before loading anything."""
    if classifier == "none" or not is_runtime_export(model or DEFAULT_FINDER):
        return False
    if deck_classifier is not None:  # a deck with prototypes reads with the shipped ONNX classifier
        return deck_classifier.exists() or (deck_classifier.parent / PROTOTYPES).exists()
    return classifier in (None, "auto") or is_runtime_export(classifier)  # type: ignore[arg-type]


def engine_for(path: Path, threads: int) -> OnnxEngine | NcnnEngine:
    """The engine for an export, by its file type (.onnx or *_ncnn_model)."""
    if not is_runtime_export(path):
        raise ModelError(f"{path}: the runtime reader reads .onnx or *_ncnn_model exports")
    return OnnxEngine(path, threads) if path.suffix == ".onnx" else NcnnEngine(path, threads)


def _imgsz(engine: OnnxEngine | NcnnEngine) -> tuple[int, int]:
    size = engine.meta.get("imgsz")
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ModelError("the export carries no image size in its metadata; export it with `taki-companion export`")


def _names(engine: OnnxEngine | NcnnEngine) -> list[str]:
    names = engine.meta.get("names", {0: "card"})
    return [str(names[i]) for i in sorted(names)] if isinstance(names, dict) else [str(n) for n in names]


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[float, float]]:
    """As ultralytics' LetterBox for a fixed-size export: scale to fit, pad with 114,
    centred. Returns the padded image, the gain and the (left, top) padding."""
    h, w = image.shape[:2]
    r = min(size[0] / h, size[1] / w)
    new_w, new_h = int(round(w * r)), int(round(h * r))
    dw, dh = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    if (w, h) != (new_w, new_h):
        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    out = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return out, r, (left, top)


def _blob(image_bgr: np.ndarray) -> np.ndarray:
    rgb = image_bgr[:, :, ::-1].transpose(2, 0, 1)
    return np.ascontiguousarray(rgb, dtype=np.float32)[None] / 255.0


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> list[int]:
    """Greedy non-maximum suppression (as torchvision's), highest score first."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    x1, y1, x2, y2 = boxes.T
    areas = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        ix1, iy1 = np.maximum(x1[i], x1[rest]), np.maximum(y1[i], y1[rest])
        ix2, iy2 = np.minimum(x2[i], x2[rest]), np.minimum(y2[i], y2[rest])
        inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
        union = areas[i] + areas[rest] - inter
        order = rest[inter / np.maximum(union, 1e-9) <= iou_threshold]
    return keep


class RuntimeFinder:
    """The card finder (or a 57-face detector) exported to ONNX or NCNN, read with numpy."""

    def __init__(self, model: str | Path | None = None, conf: float = 0.25, max_det: int = 5,
                 iou_threshold: float = 0.7, threads: int = DEFAULT_THREADS) -> None:
        self.path = find_model(model or DEFAULT_FINDER)
        self.engine = engine_for(self.path, threads)
        self.backend = f"{self.engine.backend} (runtime)"
        self.conf, self.max_det, self.iou_threshold = conf, max_det, iou_threshold
        self.size = _imgsz(self.engine)
        self.imgsz = self.size[0]
        codes = _names(self.engine)
        self.names_faces = codes == [c.code for c in FACES]
        if not self.names_faces and len(codes) != 1:
            raise ModelError(f"{self.path} neither finds cards nor detects the 57 TAKI faces")

    def detect(self, image: np.ndarray) -> list[Detection]:
        boxed, gain, (left, top) = letterbox(image, self.size)
        out = self.engine.run(_blob(boxed))[0]  # (4 + classes, anchors)
        scores_all = out[4:]
        cls = scores_all.argmax(0)
        scores = scores_all[cls, np.arange(out.shape[1])]
        keep = scores > self.conf
        if not keep.any():
            return []
        xywh, scores, cls = out[:4, keep].T, scores[keep], cls[keep]
        boxes = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], 1)
        offset = boxes + cls[:, None] * 7680.0  # per-class NMS, as ultralytics does it
        chosen = nms(offset, scores, self.iou_threshold)[: self.max_det]
        h, w = image.shape[:2]
        result = []
        for i in chosen:
            x1, y1, x2, y2 = boxes[i]
            box = (float(np.clip((x1 - left) / gain, 0, w)), float(np.clip((y1 - top) / gain, 0, h)),
                   float(np.clip((x2 - left) / gain, 0, w)), float(np.clip((y2 - top) / gain, 0, h)))
            card = FACES[int(cls[i])] if self.names_faces else FACES[0]
            result.append(Detection(card, float(scores[i]), box))
        return sorted(result, key=lambda d: -d.confidence)


class RuntimeClassifier:
    """The face classifier exported to ONNX or NCNN: resize the short side, centre crop, read."""

    def __init__(self, model: str | Path, threads: int = DEFAULT_THREADS, turn_below: float = TURN_BELOW) -> None:
        self.turn_below = turn_below
        self.path = find_model(model, "face classifier", "taki-cls-yolov8n.onnx", "train-classifier")
        self.engine = engine_for(self.path, threads)
        self.backend = f"{self.engine.backend} (runtime)"
        self.size = _imgsz(self.engine)
        self.imgsz = self.size[0]
        stems = _names(self.engine)
        if sorted(stems) != sorted(_BY_STEM):
            raise ModelError(f"{self.path} does not classify the 57 TAKI faces")
        self._cards = [_BY_STEM[s] for s in stems]
        try:  # a model whose output is not what its names say would misread every card in silence
            out = self.engine.run(np.zeros((1, 3, self.size[0], self.size[1]), np.float32)).reshape(-1)
        except Exception as e:
            raise ModelError(f"{self.path} could not read a picture: {type(e).__name__}: {e}") from None
        if out.size != len(stems):
            raise ModelError(f"{self.path} names {len(stems)} faces but gives {out.size} scores: "
                             f"a damaged or mismatched export")

    @property
    def faces(self) -> list[Card]:
        """The faces in this model's class order (the columns of :meth:`probabilities`)."""
        return list(self._cards)

    def _prepare(self, crop: np.ndarray) -> np.ndarray:
        h, w = crop.shape[:2]
        s = self.size[0]
        if (h, w) != (s, s):
            r = s / min(h, w)
            nh, nw = max(s, int(round(h * r))), max(s, int(round(w * r)))
            # PIL's bilinear (what ultralytics uses) filters like INTER_AREA when shrinking
            crop = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
            y, x = (nh - s) // 2, (nw - s) // 2
            crop = crop[y: y + s, x: x + s]
        return _blob(crop)[0]

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(crops, 57) face probabilities in this model's class order."""
        out = []
        for crop in crops:  # exported with batch 1
            p = self.engine.run(self._prepare(crop)[None]).reshape(-1).astype(np.float64)
            if abs(float(p.sum()) - 1.0) > 1e-3:  # logits: make them probabilities
                e = np.exp(p - p.max())
                p = e / e.sum()
            out.append(p)
        return np.stack(out)

    def classify(self, crops: list[np.ndarray]) -> list[tuple[Card, float]]:
        """As FaceClassifier.classify: one read, a second look at quarter turns when unsure."""
        return read_faces(self.probabilities, crops, self._cards, self.turn_below)

    @property
    def embeds(self) -> bool:
        """Whether this export gives each crop's embedding too (deck prototypes need it)."""
        return EMBEDDING_OUTPUT in getattr(self.engine, "outputs", ())

    def read(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(crops, 57) face probabilities and (crops, d) embeddings, from one run each."""
        if not self.embeds:
            raise ModelError(f"{self.path} gives no embedding (deck prototypes need the shipped ONNX classifier, "
                             f"or one exported with `taki-companion export`)")
        probs, embs = [], []
        for crop in crops:
            out = self.engine.run_all(self._prepare(crop)[None])  # type: ignore[union-attr]
            probs.append(out[self.engine.outputs[0]].reshape(-1).astype(np.float64))  # type: ignore[union-attr]
            embs.append(out[EMBEDDING_OUTPUT].reshape(-1).astype(np.float32))
        return np.stack(probs), np.stack(embs)


def load_runtime_reader(model: str | Path | None = None, classifier: str | Path | None = None,
                        threads: int = DEFAULT_THREADS, conf: float = TWO_STAGE_DET_CONF) -> TwoStageDetector:
    """The shipped pair of one backend (ONNX by default, or the finder named: .onnx or
    *_ncnn_model; the classifier of the same backend unless named), read without torch,
    merged and classified by the same :class:`TwoStageDetector` as the ultralytics path."""
    finder = RuntimeFinder(model or DEFAULT_FINDER, conf=conf, threads=threads)
    if classifier is None:
        suffix = "_ncnn_model" if finder.engine.backend == "ncnn" else ".onnx"
        classifier = finder.path.with_name("taki-cls-yolov8n" + suffix)
        if not Path(classifier).exists():
            classifier = MODELS_DIR / ("taki-cls-yolov8n" + suffix)
    return TwoStageDetector(finder, RuntimeClassifier(classifier, threads=threads))  # type: ignore[arg-type]


DEFAULT_CLASSIFIER = "taki-cls-yolov8n.onnx"  # the shipped classifier; its embedding makes deck prototypes


def file_digest(path: Path) -> str:
    """A short digest of a model file: which classifier made a deck's prototypes."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def deck_classifier(deck: str | Path, threads: int = DEFAULT_THREADS):  # type: ignore[no-untyped-def]
    """The second stage for a deck profile, torch-free: the shipped classifier and the
    deck's prototypes (version 2), or the deck's own ONNX classifier (version 1). A
    profile that cannot be read so raises :class:`~companion.vision.deck.DeckError`."""
    from .deck import CLASSIFIERS, DeckError, load_profile
    from .prototypes import KEYPOINTS, PrototypeClassifier, Prototypes

    profile = load_profile(deck)
    if profile.prototypes_path is None:
        onnx = profile.path / CLASSIFIERS["onnx"]
        if not onnx.exists():
            raise DeckError(f"{profile.path} has no ONNX classifier for the torch-free reader; enrol the deck again")
        return RuntimeClassifier(onnx, threads=threads)
    base = RuntimeClassifier(find_model(DEFAULT_CLASSIFIER, "face classifier"), threads=threads)
    if not base.embeds:
        raise DeckError(f"{base.path} gives no embedding: reinstall the app's models")
    if profile.embedding and profile.embedding != file_digest(base.path):
        raise DeckError(f"{profile.path} was learnt with another face classifier than this app's; "
                        f"enrol the deck again (`taki-companion learn-deck {profile.path}` rebuilds it from its photos)")
    keypoints = None
    if (profile.path / KEYPOINTS).exists():
        from .keypoints import FaceKeypoints

        try:
            keypoints = FaceKeypoints.load(profile.path / KEYPOINTS)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
            raise DeckError(f"{profile.path / KEYPOINTS} is damaged ({type(e).__name__}); enrol the deck again") \
                from None
    return PrototypeClassifier(base, Prototypes.load(profile.prototypes_path), keypoints=keypoints)


def table_reader(model: str | Path | None = None, classifier: str | Path | None = "auto",
                 deck: str | Path | None = None, threads: int = DEFAULT_THREADS):  # type: ignore[no-untyped-def]
    """The reader the kiosk uses. ONNX and NCNN exports (and the default, the shipped
    ONNX pair) run on the runtime reader, without torch; so does any deck profile with
    prototypes, or with an ONNX classifier. A ``.pt`` or OpenVINO model goes through
    ultralytics (:func:`load_reader`)."""
    from .classifier import load_reader

    finder = find_model(model or DEFAULT_FINDER)
    deck_cls: Path | None = None
    if deck is not None:
        from .deck import CLASSIFIERS, load_profile

        profile = load_profile(deck)
        if profile.prototypes_path is not None:
            stage = deck_classifier(deck, threads)
            if is_runtime_export(finder):
                return TwoStageDetector(RuntimeFinder(finder, conf=TWO_STAGE_DET_CONF, threads=threads), stage)
            from .detector import YoloDetector

            return TwoStageDetector(YoloDetector(finder, conf=TWO_STAGE_DET_CONF), stage)
        deck_cls = profile.path / CLASSIFIERS["onnx"]  # a version-1 profile: its own classifier
    cls: Path | None = deck_cls
    if deck is None and classifier not in (None, "auto", "none"):
        cls = Path(str(classifier))
    if not runtime_reads(finder, classifier, deck_cls):
        return load_reader(finder, classifier, deck=deck)
    return load_runtime_reader(finder, cls, threads=threads)
