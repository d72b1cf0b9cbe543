#!/usr/bin/env bash
# Fetches the speaker encoder for diarization: the GE2E voice encoder in the authors' PyPI wheel
# Resemblyzer==0.1.4 (Resemble AI, Apache-2.0). Checks the wheel's sha256, then its resemblyzer/pretrained.pt
# by sha256 and by git blob id (the same blob as in the official repository resemble-ai/Resemblyzer at
# commit 15d828edebe06bc72b9cabc8ef8ca5ab2cb457ce), and fails on any mismatch, leaving nothing behind.
# The legacy-format torch file is read with Python's standard library (models/resemblyzer-convert.py, no
# torch) into models/build/resemblyzer/encoder.f32 + encoder.json; voxdex runs the encoder on ONNX
# Runtime (src/speakers/encoder.ts). Idempotent: nothing is downloaded when the files are there and check out.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL=Resemblyzer-0.1.4-py3-none-any.whl
WHEEL_SHA256=8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f
PT_SHA256=39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e
PT_GIT_BLOB=47e405a459e4b97a21325dc78ba6f8270498ac06
OUT=${VOXDEX_RESEMBLYZER_DIR:-models/build/resemblyzer}

installed() { # the manifest names the checked source and the weights still have their recorded sha256
  [ -f "$OUT/encoder.json" ] && [ -f "$OUT/encoder.f32" ] || return 1
  python3 - "$OUT" "$PT_SHA256" <<'PY'
import hashlib, json, os, sys
out, pt_sha = sys.argv[1:]
m = json.load(open(os.path.join(out, 'encoder.json')))
h = hashlib.sha256(open(os.path.join(out, m['weights']), 'rb').read()).hexdigest()
sys.exit(0 if m['source']['sha256'] == pt_sha and h == m['weightsSha256'] else 1)
PY
}

if installed; then exit 0; fi

. models/ensure-pip.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "voxdex: downloading the speaker encoder (PyPI Resemblyzer==0.1.4, 16 MB)"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" "Resemblyzer==0.1.4"
got=$(sha256sum "$tmp/$WHEEL" | cut -d' ' -f1)
if [ "$got" != "$WHEEL_SHA256" ]; then
  echo "voxdex: $WHEEL: sha256 $got, expected $WHEEL_SHA256; refusing to install it" >&2
  exit 1
fi
python3 - "$tmp/$WHEEL" "$tmp" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for member, name in (("resemblyzer/pretrained.pt", "pretrained.pt"), ("Resemblyzer-0.1.4.dist-info/LICENSE", "LICENSE")):
        with z.open(member) as src, open(f"{out}/{name}", "wb") as dst:
            dst.write(src.read())
PY
got=$(sha256sum "$tmp/pretrained.pt" | cut -d' ' -f1)
[ "$got" = "$PT_SHA256" ] || { echo "voxdex: $WHEEL: resemblyzer/pretrained.pt sha256 $got, expected $PT_SHA256" >&2; exit 1; }
# the git blob id, as `git hash-object` computes it (sha1 of "blob <size>\0" + content), without needing git
got=$(python3 -c 'import hashlib,sys; d=open(sys.argv[1],"rb").read(); print(hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest())' "$tmp/pretrained.pt")
[ "$got" = "$PT_GIT_BLOB" ] || { echo "voxdex: $WHEEL: resemblyzer/pretrained.pt git blob $got, expected $PT_GIT_BLOB (resemble-ai/Resemblyzer)" >&2; exit 1; }
python3 models/resemblyzer-convert.py "$tmp/pretrained.pt" "$tmp/model" "$WHEEL_SHA256" "$PT_SHA256" "$PT_GIT_BLOB"
cp "$tmp/LICENSE" "$tmp/model/LICENSE"
mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.tmp" && mv "$tmp/model" "$OUT.tmp" && rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
echo "voxdex: speaker encoder installed in $OUT"
