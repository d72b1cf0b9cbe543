#!/usr/bin/env bash
# Fetches the voice activity detector: Silero VAD in its authors' PyPI wheel silero-vad==6.2.3 (MIT). Checks
# the wheel's sha256, then its member silero_vad/data/silero_vad.onnx (the 8 kHz + 16 kHz model) by sha256,
# and fails on any mismatch, leaving nothing behind. Installed in models/build/silero-vad/ (silero_vad.onnx,
# LICENSE, SHA256SUMS). voxdex runs it on ONNX Runtime (src/vad/). Idempotent: nothing is downloaded when the
# file is there and checks out.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=6.2.3
WHEEL=silero_vad-$VERSION-py3-none-any.whl
WHEEL_SHA256=7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8
ONNX_SHA256=1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3
OUT=${VOXDEX_SILERO_DIR:-models/build/silero-vad}

if [ -f "$OUT/silero_vad.onnx" ] && [ "$(sha256sum "$OUT/silero_vad.onnx" | cut -d' ' -f1)" = "$ONNX_SHA256" ]; then exit 0; fi

. models/ensure-pip.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "voxdex: downloading the voice activity detector (PyPI silero-vad==$VERSION, 14 MB)"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" "silero-vad==$VERSION"
got=$(sha256sum "$tmp/$WHEEL" | cut -d' ' -f1)
if [ "$got" != "$WHEEL_SHA256" ]; then
  echo "voxdex: $WHEEL: sha256 $got, expected $WHEEL_SHA256; refusing to install it" >&2
  exit 1
fi
mkdir "$tmp/model"
python3 - "$tmp/$WHEEL" "$tmp/model" "$VERSION" <<'PY'
import sys, zipfile
wheel, out, version = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for member, name in (("silero_vad/data/silero_vad.onnx", "silero_vad.onnx"), (f"silero_vad-{version}.dist-info/licenses/LICENSE", "LICENSE")):
        with z.open(member) as src, open(f"{out}/{name}", "wb") as dst:
            dst.write(src.read())
PY
got=$(sha256sum "$tmp/model/silero_vad.onnx" | cut -d' ' -f1)
[ "$got" = "$ONNX_SHA256" ] || { echo "voxdex: $WHEEL: silero_vad/data/silero_vad.onnx sha256 $got, expected $ONNX_SHA256" >&2; exit 1; }
printf '%s  %s\n%s  silero_vad.onnx\n' "$WHEEL_SHA256" "$WHEEL" "$ONNX_SHA256" > "$tmp/model/SHA256SUMS"
mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.tmp" && mv "$tmp/model" "$OUT.tmp" && rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
echo "voxdex: voice activity detector installed in $OUT"
