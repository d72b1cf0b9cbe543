#!/usr/bin/env bash
# Installs everything the tests need (system packages, npm dependencies, addon, models, the Python
# test tools, a real Elasticsearch on loopback) and runs the whole suite (which includes the API
# fuzzer against a started server, test/e2e/api-fuzz.test.ts). This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/apt-packages.sh test
VOXDEX_SKIP_APT=1 bash scripts/install.sh
bash scripts/pyvenv.sh

# A real Elasticsearch for the conformance suite; stopped whatever happens.
trap 'bash scripts/elasticsearch.sh stop' EXIT
es_env=$(bash scripts/elasticsearch.sh start)
eval "$es_env"

echo "voxdex: type-checking"
npx tsc --noEmit -p tsconfig.json
node --import tsx test/run.ts "$@"
