#!/usr/bin/env bash
# Fill the git-ignored folder .gpu/ that datasets/gpu_classifier.sh needs on a lent
# GPU machine (Python 3.12, torch, no network): wheels of what it lacks, the glyph
# families' font files (never the held-out family's), and a stand-in for polars.
# Run here, from the repository root, after the usual set-up (.venv).
set -euo pipefail
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
mkdir -p .gpu/whl .gpu/fonts .gpu/stub/polars
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
  -d .gpu/whl ultralytics==8.4.190 ultralytics-thop==2.2.3 ultralytics-platform==0.1.99 albumentations==2.0.8 \
  albucore==0.0.24 stringzilla==5.3.2 simsimd==6.5.16 pydantic==2.14.4 pydantic-core==2.50.5 \
  annotated-types==0.8.0 typing-inspection==0.4.5 typing-extensions==4.16.0
.venv/bin/python - <<'PY'
import shutil
from pathlib import Path
from companion.synth import glyphs
for name, path in glyphs.font_families().items():
    if name != glyphs.HELD_OUT_FAMILY and str(path).startswith("/usr"):
        shutil.copy(path, Path(".gpu/fonts") / path.name)
PY
cat > .gpu/stub/polars/__init__.py <<'PY'
"""Stand-in for polars: ultralytics reads results.csv with it when it saves a
checkpoint and catches this failure (the read is only for the checkpoint's record)."""
def read_csv(*args, **kwargs):
    raise RuntimeError("polars is not installed on this machine")
PY
du -sh .gpu
