#!/usr/bin/env bash
# Derives the int8 Moonshine files (models/quantize-moonshine.py: dynamic per-channel quantization of
# the MatMuls) from the folded files that models/fold-moonshine.sh installed, into
# models/build/moonshine-int8/ (the registry's en-us-moonshine-int8). Same tools as the fold (pinned
# with their hashes, models/fold-requirements.txt, in .cache/fold-venv); the derived files' sha256 are
# recorded below and checked after every derivation: a mismatch or a failed conversion fails the
# install and installs nothing. Idempotent: when the files are present with the recorded checksums,
# nothing is done (about 0.5 s).
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=${VOXDEX_MOONSHINE_FOLDED_DIR:-models/build/moonshine-folded}
OUT=${VOXDEX_MOONSHINE_INT8_DIR:-models/build/moonshine-int8}
VENV=${VOXDEX_FOLD_VENV:-.cache/fold-venv}
FILES=(
  "encoder_model.onnx 04d549e1fcb9a0f046a95d5cd052d86cdd13b157b0240abebf5199123bd54fa9"
  "decoder_model_merged.onnx 21f916a146f35d394f5396278174e1a9da337f9d28baa294ffeb447d518a26b5"
  "tokenizer.bin 04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9"
)

. models/model-tools.sh
verify() { verify_files "$1" "${FILES[@]}"; }

if verify "$OUT" 2>/dev/null; then exit 0; fi
for f in encoder_model.onnx decoder_model_merged.onnx tokenizer.bin LICENSE; do
  [ -f "$SRC/$f" ] || { echo "voxdex: $SRC/$f is missing; run bash models/fold-moonshine.sh first" >&2; exit 1; }
done

model_tools_venv "$VENV" || { echo "voxdex: the int8 Moonshine model was not made" >&2; exit 1; }

mkdir -p "$(dirname "$OUT")"
tmp=$(mktemp -d "$(dirname "$OUT")/.int8.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "voxdex: quantizing the Moonshine model ($SRC -> $OUT; int8 MatMul weights, about 130 MB)"
"$VENV/bin/python" models/quantize-moonshine.py "$SRC" "$tmp" || { echo "voxdex: quantizing the Moonshine model failed; nothing was installed" >&2; exit 1; }
cp "$SRC/tokenizer.bin" "$SRC/LICENSE" "$tmp/"
verify "$tmp" || { echo "voxdex: the int8 Moonshine files differ from the checksums recorded in models/quantize-moonshine.sh (different tool versions?); nothing was installed" >&2; exit 1; }
install_dir "$tmp" "$OUT"
echo "voxdex: int8 Moonshine model installed in $OUT"
