#!/usr/bin/env bash
# The MCP server's suite against the live service that `sdk/live-service.sh mcp` started (it exports
# ENGRAM_BASE_URL and ENGRAM_API_KEY). Installs this package from its lockfile (which builds the TypeScript
# SDK it depends on), builds the server, runs the tests with the MCP SDK's own client over stdio and over
# HTTP, and ends with the counts.
set -euo pipefail
cd "$(dirname "$0")"

# npm ci only when the lockfile changed since the last install: quick and quiet on every later run.
stamp=node_modules/.engram-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" > "$stamp"
fi

# The steps of `npm run build` and the tests' compile, called directly so that npm's notices stay out of the log.
node scripts/build-sdk.mjs
tsc() { node node_modules/typescript/bin/tsc "$@"; }
rm -rf dist build-test
tsc -p tsconfig.json && tsc -p tsconfig.test.json

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
node --test --test-reporter=spec build-test/test/*.test.js 2>&1 | tee "$log" || status=$?
passed=$(grep -E '^ℹ pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -E '^ℹ fail [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
echo "mcp: ${passed} passed, ${failed} failed"
exit "$status"
