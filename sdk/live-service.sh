#!/usr/bin/env bash
# Starts one live Engram (the built service with npm start's embedded defaults: LMDB in a temporary
# DATA_DIR, the embedded Temporal dev server, the local embedder) and runs the SDKs' test suites against
# it, one after the other: `sdk/live-service.sh [typescript] [python] [go] [mcp] [app]` (all by default):
# the three SDKs, the MCP server (mcp/) and the reference application (examples/app/), each a `test-live.sh`.
# Each suite gets keys of its own tenant, so their declared fields and owners never meet:
#   ENGRAM_BASE_URL, ENGRAM_API_KEY (tenant sdk-<lang>), ENGRAM_ADMIN_KEY (same tenant, "admin": true),
#   ENGRAM_LIMITED_KEY (same tenant, 1 request/s, burst 2: for the 429 tests), ENGRAM_MULTI_KEY (multi-tenant).
# It builds the service first (`npm run build`, incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
suites=("$@")
[ "${#suites[@]}" -gt 0 ] || suites=(typescript python go mcp app)
# Where each suite's test-live.sh lives.
suite_dir() { case "$1" in mcp) echo mcp ;; app) echo examples/app ;; *) echo "sdk/$1" ;; esac; }
port=${SDK_TEST_PORT:-18181}
work=$(mktemp -d)
service_pid=
cleanup() {
  if [ -n "$service_pid" ]; then kill "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

keys=()
for lang in typescript python go mcp app; do
  keys+=("{ \"key\": \"sk_sdk_${lang}_0123456789\", \"tenant\": \"sdk-${lang}\", \"principal\": \"sdk-${lang}\" }")
  keys+=("{ \"key\": \"sk_sdk_${lang}_admin_0123456789\", \"tenant\": \"sdk-${lang}\", \"principal\": \"sdk-${lang}-operator\", \"admin\": true }")
  keys+=("{ \"key\": \"sk_sdk_${lang}_limited_0123456789\", \"tenant\": \"sdk-${lang}\", \"principal\": \"sdk-${lang}-limited\", \"rate_limit\": { \"per_second\": 1, \"burst\": 2 } }")
  keys+=("{ \"key\": \"sk_sdk_${lang}_multi_0123456789\", \"tenant\": \"sdk-${lang}-platform\", \"principal\": \"sdk-${lang}-platform\", \"multi_tenant\": true }")
done
(IFS=,; printf '{ "keys": [ %s ] }\n' "${keys[*]}") > "$work/keys.json"

# The embedded Temporal dev server on free ports, so that this service never joins another's dev server.
sed -e 's/^\(  port:\) *7233/\1 0/' -e 's/^\(  ui:\) *true/\1 false/' temporal.yaml > "$work/temporal.yaml"

npm run build >/dev/null
PORT=$port HOST=127.0.0.1 DATA_DIR="$work/data" API_KEYS_FILE="$work/keys.json" TEMPORAL_CONFIG="$work/temporal.yaml" TEMPORAL_TASK_QUEUE="sdk-tests-$$" \
  node --max-semi-space-size=32 dist/src/main.js >"$work/service.log" 2>&1 & # as `npm start` runs it (package.json)
service_pid=$!
export ENGRAM_BASE_URL="http://127.0.0.1:$port"
for _ in $(seq 1 240); do
  if curl -fsS "$ENGRAM_BASE_URL/status" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$service_pid" 2>/dev/null; then cat "$work/service.log"; echo "the service did not start" >&2; exit 1; fi
  sleep 0.5
done
curl -fsS "$ENGRAM_BASE_URL/status" >/dev/null || { tail -50 "$work/service.log"; echo "the service is not ready after 120 s" >&2; exit 1; }

status=0
for lang in "${suites[@]}"; do
  export ENGRAM_API_KEY="sk_sdk_${lang}_0123456789" ENGRAM_ADMIN_KEY="sk_sdk_${lang}_admin_0123456789"
  export ENGRAM_LIMITED_KEY="sk_sdk_${lang}_limited_0123456789" ENGRAM_MULTI_KEY="sk_sdk_${lang}_multi_0123456789"
  echo "== $lang against $ENGRAM_BASE_URL"
  if ! "$root/$(suite_dir "$lang")/test-live.sh"; then status=1; echo "== $lang: FAILED"; fi
done
[ "$status" -eq 0 ] || { echo "--- service log (last 40 lines)"; tail -40 "$work/service.log"; }
exit "$status"
