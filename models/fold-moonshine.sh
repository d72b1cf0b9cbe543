#!/usr/bin/env bash
# Derives the folded Moonshine files (models/fold-moonshine.py: int8 dequantization and the output
# embedding's transpose computed once, offline) from the verified official .ort files that
# models/fetch-moonshine.sh installed, into models/build/moonshine-folded/. The tools are pinned with
# their hashes (models/fold-requirements.txt, installed into .cache/fold-venv); the derived files'
# sha256 are recorded below and checked after every derivation: a mismatch or a failed conversion
# fails the install and installs nothing. Idempotent: when the files are present with the recorded
# checksums, nothing is done (about 1 s).
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=${VOXDEX_MOONSHINE_DIR:-models/build/moonshine-base-en}
OUT=${VOXDEX_MOONSHINE_FOLDED_DIR:-models/build/moonshine-folded}
VENV=${VOXDEX_FOLD_VENV:-.cache/fold-venv}
FILES=(
  "encoder_model.onnx 30001b8ceab96083e37237d78401740461813b3a42397aad77713f5677f6799f"
  "decoder_model_merged.onnx fcee885b6f0e6d9a8fe6c30f3112f138bd98e6f79f2ae2d8db4152a13b9b2a33"
  "tokenizer.bin 04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9"
)

INPUTS=(encoder_model.ort decoder_model_merged.ort)
REQS=(models/fold-requirements.txt)
PY=models/fold-moonshine.py PREV=models/fetch-moonshine.sh WHAT=folded DOING=folding SIZE="about 300 MB of float32 weights"

. models/model-tools.sh
derive_moonshine
