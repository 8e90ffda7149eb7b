#!/usr/bin/env bash
# Retrain the face classifier in one call on a lent GPU machine (one GPU, 16 cores,
# no network): fresh crops on every core, then a fine-tune of the shipped classifier
# on the GPU, all inside BUDGET seconds. Run from the repository root.
#
# That machine has torch but none of our other packages and none of the fonts, so
# they travel in the git-ignored folder .gpu/ (datasets/gpu_prepare.sh fills it):
#   .gpu/whl/    wheels for Python 3.12 (ultralytics, albumentations and their needs)
#   .gpu/fonts/  the glyph families' font files, never the held-out family's
#   .gpu/stub/   a stand-in for polars (ultralytics reads results.csv with it)
# Here, on the CPU, the same script runs with PY=.venv/bin/python and small sizes.
set -euo pipefail
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
export NO_ALBUMENTATIONS_UPDATE=1 YOLO_OFFLINE=True  # no network there: ask nobody for news
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu-out}
BUDGET=${BUDGET:-540}            # seconds for the whole script
GEN_BUDGET=${GEN_BUDGET:-230}    # seconds for making crops
CHUNK=${CHUNK:-4000}             # scenes per crop run (the time is checked between runs)
WORKERS=${WORKERS:-16}
VAL=${VAL:-1200}
DEVICE=${DEVICE:-0}
BATCH=${BATCH:-256}
LR0=${LR0:-0.0005}
D=${D:-/tmp/crops}
IMGSZ=${IMGSZ:-128}               # the classifier's input (the shipped one reads 128 px); crops are cut at this size too
ARCH=${ARCH:-models/taki-cls-yolov8n.pt}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

if [ -d .gpu/whl ] && ! $PY -c "import ultralytics, albumentations" 2>/dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD/.gpu/stub:$PWD
  mkdir -p /usr/local/share/fonts/taki && cp .gpu/fonts/* /usr/local/share/fonts/taki/
fi
$PY - <<'EOF'
import torch, ultralytics, albumentations
from companion.synth.glyphs import font_families
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
print("torch", torch.__version__, gpu, "ultralytics", ultralytics.__version__,
      "albumentations", albumentations.__version__, len(font_families()), "glyph families")
EOF
mkdir -p "$OUT"
rm -rf "$D"
$PY -m companion.cli crops --scenes "$VAL" --workers "$WORKERS" --splits val --out "$D" --seed 93 --per-image 1 --crop-size "$IMGSZ"
# Every face, then the look-alikes a reader confuses, chunk by chunk, two to one.
first=${SEED0:-100}
seed=$first
while [ $seed -eq $first ] || [ "$(elapsed)" -lt "$GEN_BUDGET" ]; do
  if [ $(( seed % 3 )) -eq 2 ]; then
    $PY -m companion.cli crops --scenes "$CHUNK" --workers "$WORKERS" --splits train --out "$D" --seed $seed \
      --per-image 2 --crop-size "$IMGSZ" --faces R6 R9 G6 G9 B6 B9 Y6 Y9 R1 R7 G1 G7 B1 B7 Y1 Y7 R5 R8 Y5 Y8 G5 G8 B5 B8 \
      RSTOP YSTOP GSTOP BSTOP BREAKER +3 SUPER COLOR
  else
    $PY -m companion.cli crops --scenes "$CHUNK" --workers "$WORKERS" --splits train --out "$D" --seed $seed --per-image 2 --crop-size "$IMGSZ"
  fi
  seed=$(( seed + 1 ))
done
echo "crops: $(find "$D/train" -name '*.jpg' | wc -l) train, $(find "$D/val" -name '*.jpg' | wc -l) val, made in $(elapsed) s"
[ "$(ls "$D/train" | wc -l)" -eq 57 ] || { echo "expected 57 face folders under $D/train"; exit 1; }
HOURS=$($PY -c "print(round(max(60, $BUDGET - $(elapsed) - 60) / 3600, 4))")
echo "training for $HOURS h"
$PY -m companion.cli train-classifier --data "$D" --run "$OUT/cls" --arch "$ARCH" --imgsz "$IMGSZ" \
  --batch "$BATCH" --device "$DEVICE" --workers "$WORKERS" --hours "$HOURS" --epochs 60 --lr0 "$LR0" 2>&1 \
  | tr '\r' '\n' > "$OUT/train.log" && trained=0 || trained=$?  # the log's end is shown either way
grep -v -E 'it/s]|s/it]' "$OUT/train.log" | tail -40 || true
cat "$OUT/cls/results.csv" || true
ls -la "$OUT/cls/weights" || true
echo "done in $(elapsed) s"
exit "$trained"
