#!/usr/bin/env bash
# The Go SDK's suite against a live service: run by `sdk/live-service.sh go`, which exports
# ENGRAM_BASE_URL and the Go tenant's keys. Standard library only: nothing to install beyond Go >= 1.23.
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

command -v go >/dev/null || { echo "go is not installed (the Go SDK needs Go 1.23 or newer)" >&2; exit 1; }
minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
[ "$minor" -ge 23 ] || { echo "Go $(go env GOVERSION) is too old: the Go SDK needs 1.23 or newer" >&2; exit 1; }

echo "-- models_gen.go against docs/openapi.json"
go run ./internal/gen -check
echo "-- go vet ./..."
go vet ./...
echo "-- go test ./... against $ENGRAM_BASE_URL"
set +e
go test -count=1 -v ./... 2>&1 | awk '
  /^=== (RUN|PAUSE|CONT|NAME)/ { next }
  { print }
  /^ *--- PASS/ { pass++ } /^ *--- FAIL/ { fail++ } /^ *--- SKIP/ { skip++ }
  END { printf "\nGo SDK tests: %d passed, %d failed, %d skipped\n", pass, fail, skip }'
status=${PIPESTATUS[0]}
set -e
exit "$status"
