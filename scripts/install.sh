#!/usr/bin/env bash
# Installs voxdex on a Debian 12 machine: system packages, npm dependencies, the native ASR addon,
# the TypeScript build, the web UI, the telephony model, the Moonshine model, the speaker encoder and the VAD. Idempotent: a second run only redoes what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "${VOXDEX_SKIP_APT:-}" = 1 ] || bash scripts/apt-packages.sh runtime

# better-sqlite3 builds from source here (its prebuilt download is unreachable); node-gyp needs the
# headers of the running Node, which Debian-style installs keep under /usr/include/node.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi

stamp=node_modules/.voxdex-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "voxdex: installing npm dependencies (better-sqlite3 compiles from source: about 2 minutes)"
  # onnxruntime-node's postinstall downloads extras from a host we cannot reach; its CPU binaries are in
  # the npm tarball, so the install step is skipped. Only here, in the install's environment: a project
  # .npmrc key would make npm warn "Unknown project config" on every `npx voxdex` (README: plain npm install).
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

echo "voxdex: building the native ASR addon"
npm run --silent build:native
echo "voxdex: compiling TypeScript"
npm run --silent build:ts
echo "voxdex: building the web UI"
npm run --silent build:ui
bash models/build-telephony.sh
bash models/fetch-moonshine.sh   # the default model: PyPI wheel, sha256-checked, cached in models/build/
bash models/fold-moonshine.sh    # its folded graphs, derived from those files with pinned tools, sha256-checked
bash models/quantize-moonshine.sh # their int8 form (en-us-moonshine-int8), derived the same way, sha256-checked
bash models/fetch-resemblyzer.sh # speaker encoder for diarization: PyPI wheel, sha256 + git blob checked, cached in models/build/
bash models/fetch-silero.sh      # voice activity detector (diarization, live calls): PyPI wheel + member sha256-checked, cached in models/build/
