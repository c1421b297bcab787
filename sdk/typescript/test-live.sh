#!/usr/bin/env bash
# The TypeScript SDK's suite against the live service that `sdk/live-service.sh typescript` started
# (it exports ENGRAM_BASE_URL and the keys). Installs the SDK's own dev tools from its lockfile, fails
# when the committed models are stale against docs/openapi.json, builds, runs the unit and live tests,
# and ends with the counts.
set -euo pipefail
cd "$(dirname "$0")"

# npm ci only when the lockfile changed since the last install: quick and quiet on every later run.
stamp=node_modules/.engram-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" > "$stamp"
fi

# The same steps as `npm run check-generated`, `npm run build` and the tests' compile, called directly so
# that npm's notices about the machine's own config stay out of the log.
node scripts/generate.mjs --check
tsc() { node node_modules/typescript/bin/tsc "$@"; }
rm -rf dist build-test
tsc -p tsconfig.json && tsc -p tsconfig.node.json && tsc -p tsconfig.test.json

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
node --test --test-reporter=spec build-test/test/unit/*.test.js build-test/test/live.test.js 2>&1 | tee "$log" || status=$?
passed=$(grep -E '^ℹ pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -E '^ℹ fail [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
echo "typescript: ${passed} passed, ${failed} failed"
exit "$status"
