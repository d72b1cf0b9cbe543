#!/usr/bin/env bash
# Derives the int8 Moonshine files (models/quantize-moonshine.py: 8-bit MatMul weights in blocks of 32,
# multiplied in int8) from the folded files that models/fold-moonshine.sh installed, into
# models/build/moonshine-int8/. The fold's tools plus onnx-ir (pinned with their hashes,
# models/fold-requirements.txt and models/quantize-requirements.txt, in .cache/quantize-venv: a venv of
# its own, so the fold's is never rebuilt for it); the derived files' sha256 are
# recorded below and checked after every derivation: a mismatch or a failed conversion fails the
# install and installs nothing. Idempotent: when the files are present with the recorded checksums,
# nothing is done (about 0.5 s).
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=${VOXDEX_MOONSHINE_FOLDED_DIR:-models/build/moonshine-folded}
OUT=${VOXDEX_MOONSHINE_INT8_DIR:-models/build/moonshine-int8}
VENV=${VOXDEX_QUANTIZE_VENV:-.cache/quantize-venv}
FILES=(
  "encoder_model.onnx e2081e61f9c902c58bf9e876f293e095eac17eb0c9f6de9082891baf090530b2"
  "decoder_model_merged.onnx 479c5c05662fb4d8bec35de0fa1c305f305f3c6504246d0fe6262845ff7da4e6"
  "tokenizer.bin 04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9"
)

INPUTS=(encoder_model.onnx decoder_model_merged.onnx)
REQS=(models/fold-requirements.txt models/quantize-requirements.txt)
PY=models/quantize-moonshine.py PREV=models/fold-moonshine.sh WHAT=int8 DOING=quantizing SIZE="8-bit MatMul weights, about 135 MB"

. models/model-tools.sh
derive_moonshine
