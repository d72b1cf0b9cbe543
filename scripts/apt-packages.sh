#!/usr/bin/env bash
# Installs Debian packages only when one is missing (idempotent, no apt-get update when nothing is needed).
# Usage: scripts/apt-packages.sh runtime|test
set -euo pipefail

RUNTIME=(
  build-essential cmake python3            # native addon and better-sqlite3 source build
  python3-venv                             # .cache/fold-venv: the pinned tools that fold the Moonshine model
  libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us   # the ASR engine and its wideband model
  p7zip-full                               # zip (ZipCrypto/AES) and 7z (AES, encrypted headers) archives
  ffmpeg                                   # transcoding MP3, FLAC, Ogg, M4A, AMR, GSM WAV, WebM (src/audio/transcode.ts; also encodes the test fixtures)
  bubblewrap                               # the sandbox ffmpeg runs in (src/audio/sandbox.ts): without it nothing is transcoded
  sphinxtrain sphinxbase-utils sox pocketsphinx  # building the telephony model (pocketsphinx: mdef_convert)
  asterisk-core-sounds-en-wav asterisk-core-sounds-en  # real 8 kHz speech for telephony adaptation (a-l)
  festival festvox-kallpc8k flite espeak-ng            # synthetic telephone speech for adaptation; flite: the vocabulary's letter-to-sound rules (src/asr/pronounce.ts)
)
TEST=(
  pocketsphinx pocketsphinx-testdata       # the engine's own CLI (bench peer) and real test speech
  asterisk-core-sounds-es-wav asterisk-core-sounds-fr-wav asterisk-core-sounds-it-wav asterisk-core-sounds-ru-wav  # other real voices: diarization tests and bench
  zip unzip maven default-jre-headless curl
  postgresql                               # the PostgreSQL server for the distributed-mode tests (scripts/postgres.sh)
  # (python3-venv, for .cache/pyvenv: schemathesis and requests, is in RUNTIME)
  chromium                                 # the web UI's browser test (driven by playwright-core)
)

case "${1:-runtime}" in
  runtime) want=("${RUNTIME[@]}") ;;
  test) want=("${RUNTIME[@]}" "${TEST[@]}") ;;
  *) echo "usage: $0 runtime|test" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "voxdex: installing Debian packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
