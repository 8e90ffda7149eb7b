"""Issue 3 model side: offline training smoke test, every backend loads, the shipped model reads cards."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

from companion.rules import Card
from companion.synth.dataset import DatasetSpec, make_dataset
from companion.vision.detector import MODELS_DIR, ModelError, YoloDetector, backend_of, find_model
from companion.synth.scene import Compositor, SceneConfig

SHIPPED = MODELS_DIR / "taki-yolov8n.pt"


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Any attempt to open a network connection fails the test."""
    real = socket.socket.connect

    def refuse(self, address):  # type: ignore[no-untyped-def]
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"network access attempted: {address}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: (_ for _ in ()).throw(
        AssertionError(f"network access attempted: {a}")))
    yield


@pytest.mark.slow
def test_tiny_dataset_trains_offline_and_loads_in_every_backend(tmp_path: Path, no_network: None) -> None:
    from companion.training.export import export_all
    from companion.training.train import TrainSpec, train

    data = make_dataset(DatasetSpec(tmp_path / "data", {"train": 16, "val": 8}, seed=3, size=96), workers=1)
    best = train(TrainSpec(data, tmp_path / "runs" / "tiny", epochs=1, imgsz=64, batch=8, workers=0,
                           cache=False))
    assert best.exists()
    made = export_all(best, tmp_path / "models", imgsz=64)
    assert set(made) == {"pytorch", "onnx", "openvino", "ncnn"}
    img = Compositor(config=SceneConfig(size=96)).scene(0).image
    for backend, path in made.items():
        det = YoloDetector(path, imgsz=64, conf=0.0)
        assert det.backend == backend
        for d in det.detect(img):  # an untrained model's guesses, but well-formed
            assert 0.0 <= d.confidence <= 1.0 and isinstance(d.card, Card)


def test_training_from_our_finder_starts_from_its_weights(tmp_path: Path, no_network: None) -> None:
    """Told ``pretrained=False``, ultralytics 8.4 drops a checkpoint's weights and starts
    from random ones: a finder "fine-tuned" from the shipped one was trained from scratch.
    With a learning rate of almost nothing, one epoch from the shipped finder must leave
    its weights as they were."""
    import torch

    from companion.training.train import TrainSpec, train

    data = make_dataset(DatasetSpec(tmp_path / "data", {"train": 8, "val": 4}, seed=3, size=128,
                                    styles="random"), workers=1)
    shipped = MODELS_DIR / "taki-yolov8n.pt"
    best = train(TrainSpec(data, tmp_path / "runs" / "tuned", arch=str(shipped), epochs=1, imgsz=96, batch=4,
                           workers=0, cache=False, lr0=1e-9, warmup_epochs=0.0, single_cls=True))

    def first_conv(path: Path) -> np.ndarray:
        model = torch.load(path, map_location="cpu", weights_only=False)["model"]
        return model.model[0].conv.weight.detach().float().numpy()

    before, after = first_conv(shipped), first_conv(best)
    assert np.abs(after - before).max() < 0.01 * np.abs(before).max()


def test_missing_and_corrupt_models_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no detector model"):
        find_model(tmp_path / "nothing.pt")
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="could not be loaded"):
        YoloDetector(bad)
    with pytest.raises(ModelError, match="unknown model type"):
        backend_of(Path("model.h5"))


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped model yet")
@pytest.mark.parametrize("name", ["taki-yolov8n.pt", "taki-yolov8n.onnx", "taki-yolov8n_openvino_model",
                                  "taki-yolov8n_ncnn_model"])
def test_shipped_model_reads_the_top_card(name: str) -> None:
    """A handful of generated piles (seeds never used in training): the top card is read."""
    path = MODELS_DIR / name
    if not path.exists():
        pytest.skip(f"{name} not shipped")
    from companion.vision.classifier import load_reader

    det = load_reader(path)
    comp = Compositor(config=SceneConfig(size=320))
    right = 0
    faces = ["R7", "BSTOP", "Y+2", "GTAKI", "KING", "COLOR", "B4", "R9"]
    for i, code in enumerate(faces):
        scene = comp.scene(np.random.default_rng([4242, i]), top=Card.from_code(code))
        dets = det.detect(scene.image)
        right += bool(dets) and dets[0].card.code == code
    assert right >= 6, f"{right}/{len(faces)} top cards read"


def test_the_card_outliner_trains_offline_from_the_finder_and_outlines(tmp_path: Path, no_network: None) -> None:
    """Issue 11: outline labels are the top card's four corners; a tiny segmentation run
    starts from the shipped finder's weights, offline, and its outlines are well-formed."""
    from companion.training.train import TrainSpec, train
    from companion.vision.outliner import YoloOutliner

    data = make_dataset(DatasetSpec(tmp_path / "data", {"train": 16, "val": 8}, seed=3, size=96,
                                    outline=True), workers=1)
    label = next((tmp_path / "data" / "labels" / "train").glob("*.txt")).read_text().split()
    assert len(label) == 9 and all(0.0 <= float(v) <= 1.0 for v in label[1:])  # class + 4 corners
    best = train(TrainSpec(data, tmp_path / "runs" / "outline", arch=str(find_model(None)), epochs=1, imgsz=64,
                           batch=8, workers=0, cache=False, single_cls=True, task="segment"))
    assert best.exists()
    outliner = YoloOutliner(best, imgsz=64, conf=0.0)
    for o in outliner.outline(Compositor(config=SceneConfig(size=96)).scene(0).image):
        assert 0.0 <= o.confidence <= 1.0 and o.polygon.ndim == 2 and o.polygon.shape[1] == 2
