"""Train the leading-card detector: YOLO nano from its .yaml, offline, on CPU.

Resumable: a run folder's ``weights/last.pt`` is picked up again by the same
command. No downloaded weights, no plots, no hub.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vision.yolo_env import YOLO


def every_core() -> None:
    """torch's CPU work on every core of the machine (training: nothing else runs)."""
    import torch

    torch.set_num_threads(os.cpu_count() or 1)


def on_every_core(model: Any) -> Any:
    """The model, set to train on every CPU core.

    Why: on a CPU, ultralytics loads the data in the training process itself and gives
    torch one core less than the machine has (its NUM_THREADS): a single thread on
    this 2-core machine, with the other core idle through every training here. An
    epoch of 1,280 crops took 23.0 s on one thread and 16.4 s on two (session 16)."""

    def on_cpu(trainer: Any) -> None:
        if trainer.device.type == "cpu":  # a GPU's feeders are their own processes
            every_core()

    model.add_callback("on_train_start", on_cpu)
    return model


@dataclass(frozen=True, slots=True)
class TrainSpec:
    data: Path
    run_dir: Path = Path("runs/taki")
    arch: str = "yolov8n.yaml"  # or our own earlier weights (.pt) to start from
    epochs: int = 30
    imgsz: int = 192
    batch: int = 16
    hours: float | None = None  # stop after this long (ultralytics' `time`)
    device: str = "cpu"
    workers: int = 2
    seed: int = 0
    mosaic: float = 0.0  # one pile per image is what the camera sees; data is plentiful
    cache: bool = True  # decoded images in RAM (4,000 at 192 px: about 0.5 GB)
    # A short CPU budget buys few steps: small batches and a brisk AdamW rate beat
    # ultralytics' "auto" choice (lr about 1.6e-4 for 57 classes), measured here.
    optimizer: str = "AdamW"
    lr0: float = 0.001
    warmup_epochs: float = 1.0
    # One class ("the top card") whatever the face: the detector only finds the
    # card, the face classifier names it. Labels keep the face (eval needs it).
    single_cls: bool = False
    # "segment": the card outliner (enrolment's finder): the card's outline, not its box.
    # Started from a detector's .pt, the backbone and neck are taken over (``load``).
    task: str = "detect"


def last_checkpoint(spec: TrainSpec) -> Path | None:
    p = spec.run_dir / "weights" / "last.pt"
    return p if p.exists() else None


def train(spec: TrainSpec) -> Path:
    """Train (or resume) and return the best weights."""
    last = last_checkpoint(spec)
    if last is not None:
        on_every_core(YOLO(last)).train(resume=True)
    else:
        if spec.task == "segment" and not str(spec.arch).endswith("-seg.yaml"):
            model = YOLO("yolov8n-seg.yaml", task="segment")
            if str(spec.arch).endswith(".pt"):
                model.load(str(spec.arch))  # the card finder's features: it already finds cards
        else:
            model = YOLO(spec.arch)
        on_every_core(model)
        kwargs = dict(
            data=str(spec.data), epochs=spec.epochs, imgsz=spec.imgsz, batch=spec.batch,
            device=spec.device, workers=spec.workers, project=str(spec.run_dir.parent.resolve()),
            name=spec.run_dir.name, exist_ok=True, plots=False, amp=False,
            # From our own .pt its weights are the start: ultralytics 8.4 builds a new model
            # and drops a checkpoint's weights when told pretrained=False (the finder said
            # "fine-tuned" and was trained from scratch). A segmenter built from a .yaml has
            # no checkpoint; its backbone came in through ``load`` above.
            pretrained=str(spec.arch).endswith(".pt") and spec.task == "detect",
            seed=spec.seed, deterministic=False, fliplr=0.0, degrees=0.0, mosaic=spec.mosaic,
            close_mosaic=0, patience=100, verbose=True, val=True, cache="ram" if spec.cache else False,
            optimizer=spec.optimizer, lr0=spec.lr0, warmup_epochs=spec.warmup_epochs, cos_lr=True,
            single_cls=spec.single_cls,
        )
        if spec.hours:
            kwargs["time"] = spec.hours
        model.train(**kwargs)
    best = spec.run_dir / "weights" / "best.pt"
    return best if best.exists() else spec.run_dir / "weights" / "last.pt"


@dataclass(frozen=True, slots=True)
class ClassifierSpec:
    """The face classifier (second stage): crops made by ``crops.make_crops``."""

    data: Path  # folder with train/ and val/, one sub-folder per face
    run_dir: Path = Path("runs/taki-cls")
    arch: str = "yolov8n-cls.yaml"
    epochs: int = 20
    imgsz: int = 64
    batch: int = 64
    device: str = "cpu"
    workers: int = 2
    seed: int = 0
    lr0: float = 0.002
    hours: float | None = None  # stop after this long (ultralytics' `time`)


def train_classifier(spec: ClassifierSpec) -> Path:
    """Train (or resume) the face classifier and return the best weights."""
    last = spec.run_dir / "weights" / "last.pt"
    if last.exists():
        on_every_core(YOLO(last, task="classify")).train(resume=True)
    else:
        extra = {"time": spec.hours} if spec.hours else {}
        on_every_core(YOLO(spec.arch, task="classify")).train(
            **extra, data=str(spec.data), epochs=spec.epochs, imgsz=spec.imgsz, batch=spec.batch,
            device=spec.device, workers=spec.workers, project=str(spec.run_dir.parent.resolve()),
            name=spec.run_dir.name, exist_ok=True, plots=False, amp=False,
            # From our own .pt the weights are the start (ultralytics resets a classifier's
            # parameters unless told it is pretrained); from a .yaml, random.
            pretrained=str(spec.arch).endswith(".pt"),
            seed=spec.seed, deterministic=False, patience=100, verbose=True, val=True, cache="ram",
            # The crops carry the scene augmentations already. No flips: a mirrored 7 is no
            # card, and 6/9 differ only by orientation mark; hue stays (colour is the face).
            fliplr=0.0, scale=0.1, erasing=0.0, auto_augment=None, hsv_h=0.01,
            optimizer="AdamW", lr0=spec.lr0, warmup_epochs=0.5, cos_lr=True,
        )
    best = spec.run_dir / "weights" / "best.pt"
    return best if best.exists() else last
