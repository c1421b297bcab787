#!/usr/bin/env bash
# The Python SDK's live suite, run by sdk/live-service.sh (which exports ENGRAM_BASE_URL and the keys):
# makes .venv (once), installs the pinned test requirements and the SDK from PyPI quietly, fails when the
# generated code (engram/_models.py, engram/_sync/) is stale, then runs pytest; its last line counts.
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
.venv/bin/python scripts/generate.py --check
exec .venv/bin/python -m pytest -p no:cacheprovider -q -rfE "$@"
