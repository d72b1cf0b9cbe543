#!/usr/bin/env bash
# Installs everything the tests need (system packages, npm dependencies, addon, models, the Python
# test tools, and real Elasticsearch, PostgreSQL and MinIO servers on loopback) and runs the whole
# suite, which includes the API fuzzer against a started server (test/e2e/api-fuzz.test.ts). This is
# the README's test command. The first run on a machine builds MinIO from source (scripts/minio.sh:
# about 6-7 minutes on 2 cores); later runs use the cached binary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/apt-packages.sh test
# The MinIO test server is built from source once per machine (minutes on 2 cores): start that build
# now, beside the install, and wait for it only where MinIO is started. Cached: returns at once.
minio_log=$(mktemp)
bash scripts/minio.sh build >"$minio_log" 2>&1 &
minio_build=$!
VOXDEX_SKIP_APT=1 bash scripts/install.sh
bash scripts/pyvenv.sh

# Real servers for the conformance suites and the distributed-mode tests: Elasticsearch, PostgreSQL
# and MinIO (S3), each on loopback with a per-checkout run dir; all stopped whatever happens.
trap 'bash scripts/elasticsearch.sh stop; bash scripts/postgres.sh stop; bash scripts/minio.sh stop' EXIT
es_env=$(bash scripts/elasticsearch.sh start)
eval "$es_env"
pg_env=$(bash scripts/postgres.sh start)
eval "$pg_env"
wait "$minio_build" || { cat "$minio_log" >&2; echo "voxdex: building the MinIO test server failed" >&2; exit 1; }
rm -f "$minio_log"
s3_env=$(bash scripts/minio.sh start)
eval "$s3_env"

echo "voxdex: type-checking"
npx tsc --noEmit -p tsconfig.json
npx tsc -p ui/tsconfig.json
node --import tsx test/run.ts "$@"
