#!/usr/bin/env bash
# The reference app's suite against the live service that `sdk/live-service.sh app` started (it exports
# ENGRAM_BASE_URL and ENGRAM_API_KEY). Installs the app from its lockfile (which builds the TypeScript SDK it
# depends on), compiles it, and runs the unit tests, the API routes against the live Engram (with a stand-in
# OpenAI-compatible server) and the page in Debian's Chromium; ends with the counts.
# APP_SCREENSHOTS=1 also rewrites screenshots/*.png.
set -euo pipefail
cd "$(dirname "$0")"

[ -x /usr/bin/chromium ] || { echo "app: /usr/bin/chromium is missing (apt-get install chromium)" >&2; echo "app: 0 passed, 1 failed"; exit 1; }

# npm ci only when the lockfile changed since the last install; the SDK is rebuilt whenever its sources changed.
stamp=node_modules/.engram-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" > "$stamp"
else
  node scripts/build-sdk.mjs
fi

rm -rf dist
node node_modules/typescript/bin/tsc -p tsconfig.json

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
node --test --test-concurrency=1 --test-reporter=spec dist/test/unit/*.test.js dist/test/live/*.test.js 2>&1 | tee "$log" || status=$?
passed=$(grep -E '^ℹ pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -E '^ℹ fail [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
if [ "${APP_SCREENSHOTS:-}" = 1 ]; then node dist/test/live/screenshots.js || status=$?; fi
echo "app: ${passed} passed, ${failed} failed"
exit "$status"
