#!/usr/bin/env bash
# The Python tools the tests use, from PyPI, pinned, in .cache/pyvenv (made once, remade when the pins
# change): schemathesis (the API fuzzer of test/e2e/api-fuzz.test.ts) and requests (a real client of
# the established service's integrations, test/e2e/real-clients.test.ts) and websockets (a real live-call client,
# test/e2e/live.test.ts). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.cache/pyvenv
pins="schemathesis==4.32.5 requests==2.34.2 websockets==15.0.1"
stamp=$venv/.voxdex-pins
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pins" ]; then exit 0; fi

echo "voxdex: installing $pins into $venv (PyPI)"
rm -rf "$venv"
python3 -m venv "$venv"
# shellcheck disable=SC2086
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input $pins
echo "$pins" > "$stamp"
