#!/usr/bin/env bash
# Fetches the Moonshine base English model (MIT) from the official PyPI wheel moonshine-cpp==0.1.4
# (published by the model's authors) and extracts its three model files into models/build/moonshine-base-en/.
# Every file is checked against the sha256 below; any mismatch fails the install and leaves nothing behind.
# Idempotent: when the three files are present with the right checksums, nothing is downloaded.
# Only pip's own client talks to the registry (`pip download`); the wheel's libraries are not used.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL=moonshine_cpp-0.1.4-py3-none-manylinux2014_x86_64.whl
WHEEL_SHA256=f7afc662bdd3ef98815ee3b940438b456e77d5a77cea5396ed9c572785412ebd
MEMBER_DIR=moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en
OUT=${VOXDEX_MOONSHINE_DIR:-models/build/moonshine-base-en}
FILES=(
  "encoder_model.ort 9d1a19e044cbf89a207723d1adb667de89a5671a1e3e611b8ebe721b2c31219c"
  "decoder_model_merged.ort 370e0c1f161d68dc1c2264c1a82024fb123380da3b73f47f05531d1e8d3308c3"
  "tokenizer.bin 04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9"
)

verify() { # dir -> 0 when every file is there with the right checksum
  local dir=$1 name sum
  for entry in "${FILES[@]}"; do
    read -r name sum <<<"$entry"
    [ -f "$dir/$name" ] || return 1
    [ "$(sha256sum "$dir/$name" | cut -d' ' -f1)" = "$sum" ] || { echo "voxdex: $dir/$name: sha256 mismatch" >&2; return 1; }
  done
}

if verify "$OUT"; then exit 0; fi

. models/ensure-pip.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "voxdex: downloading the Moonshine base model (PyPI moonshine-cpp==0.1.4, 55 MB)"
# --no-deps/--only-binary: just this wheel, nothing installed; works under Debian's externally-managed Python.
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 \
  -d "$tmp" "moonshine-cpp==0.1.4"
got=$(sha256sum "$tmp/$WHEEL" | cut -d' ' -f1)
if [ "$got" != "$WHEEL_SHA256" ]; then
  echo "voxdex: $WHEEL: sha256 $got, expected $WHEEL_SHA256; refusing to install it" >&2
  exit 1
fi
python3 - "$tmp/$WHEEL" "$MEMBER_DIR" "$tmp/model" <<'PY'
import os, sys, zipfile
wheel, member_dir, out = sys.argv[1:]
os.makedirs(out)
with zipfile.ZipFile(wheel) as z:
    for name in ("encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin"):
        with z.open(f"{member_dir}/{name}") as src, open(os.path.join(out, name), "wb") as dst:
            dst.write(src.read())
    with z.open("moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/LICENSE") as src, open(os.path.join(out, "LICENSE"), "wb") as dst:
        dst.write(src.read())
PY
verify "$tmp/model" || { echo "voxdex: the Moonshine model files in $WHEEL do not match their published checksums" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.tmp" && mv "$tmp/model" "$OUT.tmp" && rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
echo "voxdex: Moonshine model installed in $OUT"
