"""Reads a YOLO-format dataset made by someone else, as ``eval`` must.

Why: our own sets put every face in :data:`FACES` order, with absolute paths
and a ``test`` split. A set labelled by hand or exported from a labelling tool
differs in all three: its own class names and order ("red_7", "Blue +2",
"super taki"), paths relative to the data.yaml (``train: ../train/images``), a
split given as a list of folders or a .txt of images, sometimes no ``test``
split at all. Read as if it were ours, every card would be scored against the
wrong face, or the whole run would stop on a path, and the reader would look
broken when it is not. Here the class names are read into faces, the paths are
found the way ultralytics finds them, and what could not be understood is said.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..rules.cards import FACES
from ..vision.sources import IMAGE_SUFFIXES as SOURCE_SUFFIXES
from .face_names import face_from_name

#: What the app's picture folders take, and the TIFFs ultralytics reads as well.
IMAGE_SUFFIXES = frozenset(SOURCE_SUFFIXES | {".tif", ".tiff"})


@dataclass(frozen=True)
class ClassNames:
    """A dataset's class ids read as faces: ``faces[id]`` is our face index."""

    faces: dict[int, int]
    unknown: tuple[str, ...] = ()  # names that are no face (their ids are taken in our order)
    ours: bool = True  # the names are ours, in our order (nothing translated)

    def face(self, class_id: int) -> int | None:
        return self.faces.get(class_id)


def names_by_id(cfg: dict) -> dict[int, str]:
    """The data.yaml's ``names`` (a list, or a dict of id -> name) as id -> name; empty
    when it has none."""
    names = cfg.get("names")
    if isinstance(names, list):
        names = dict(enumerate(names))
    return {int(i): str(n) for i, n in names.items()} if isinstance(names, dict) else {}


def class_names(cfg: dict) -> ClassNames:
    """Read ``names`` into faces. No names, or names that are not all faces: our order
    is taken (and the names not understood are kept to be said)."""
    names = names_by_id(cfg)
    ours = {c.index: c.index for c in FACES}
    if not names:
        return ClassNames(ours)
    read = {i: face_from_name(n) for i, n in names.items()}
    unknown = tuple(names[i] for i, f in read.items() if f is None)
    if unknown:
        return ClassNames(ours, unknown)
    faces = {i: f.index for i, f in read.items() if f is not None}
    return ClassNames(faces, (), all(faces.get(c.index) == c.index for c in FACES) and len(faces) == len(FACES))


@dataclass(frozen=True)
class Dataset:
    yaml_path: Path
    root: Path
    cfg: dict = field(repr=False)
    names: ClassNames


def load(data: Path) -> Dataset:
    try:
        cfg = yaml.safe_load(Path(data).read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no dataset file {data}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ValueError(f"{data} is not a readable data.yaml ({type(e).__name__})") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"{data} is not a data.yaml (no keys in it)")
    return Dataset(Path(data), _root(Path(data), cfg.get("path")), cfg, class_names(cfg))


def _root(data: Path, path: object) -> Path:
    """The dataset's root as ultralytics finds it, and also beside the data.yaml
    (where a set copied to another machine still is)."""
    here = data.resolve().parent
    if not path:
        return here
    p = Path(str(path)).expanduser()
    if p.is_absolute():
        return p if p.exists() or not (here / p.name).exists() else here / p.name
    for candidate in (p, here / p):
        if candidate.exists():
            return candidate.resolve()
    return (here / p).resolve()


def _entry_images(ds: Dataset, entry: str) -> list[Path] | None:
    """The images of one split entry (a folder, a .txt list or one image), None if not found."""
    candidates = [ds.root / entry, ds.yaml_path.resolve().parent / entry]
    if entry.startswith("../"):
        candidates.append(ds.root / entry[3:])  # ultralytics: "../" names a folder inside the root
    for c in candidates:
        if c.is_dir():
            return sorted(p for p in c.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        if c.is_file() and c.suffix.lower() == ".txt":
            out = []
            for line in c.read_text().splitlines():
                line = line.strip()
                if line:
                    q = Path(line)
                    out.append(q if q.is_absolute() else (c.parent / q).resolve()
                               if (c.parent / q).exists() else (ds.root / q).resolve())
            return out
        if c.is_file() and c.suffix.lower() in IMAGE_SUFFIXES:
            return [c]
    return None


def images(ds: Dataset, split: str) -> list[Path]:
    entry = ds.cfg.get(split)
    if not entry:
        raise ValueError(f"{ds.yaml_path} has no {split!r} split")
    out: list[Path] = []
    for e in entry if isinstance(entry, list) else [entry]:
        found = _entry_images(ds, str(e))
        if found is None:
            raise FileNotFoundError(f"{ds.yaml_path}: its {split} images {e} are not at {ds.root / str(e)}")
        out += found
    return out


def label_path(image: Path) -> Path:
    """ultralytics' rule: the last ``images`` folder in the path becomes ``labels``."""
    sa, sb = f"{os.sep}images{os.sep}", f"{os.sep}labels{os.sep}"
    s = str(image)
    return Path(sb.join(s.rsplit(sa, 1)) if sa in s else s).with_suffix(".txt")


def top_label(image: Path) -> int | None:
    """The class id on the label's first line (the top card, in our sets), or None
    when there is no label or it is empty or unreadable."""
    try:
        first = label_path(image).read_text().split()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return int(float(first[0])) if first else None
    except ValueError:
        return None
