"""Fixtures for the live suite: clients on the service sdk/live-service.sh started (ENGRAM_* variables),
fresh owner ids, and a record of every route the SDK called (test_zz_route_coverage checks it)."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from engram import AsyncEngram, Engram, ResponseEvent

SDK_DIR = Path(__file__).resolve().parent.parent
OPENAPI = json.loads((SDK_DIR.parent.parent / "docs" / "openapi.json").read_text())
DATA = Path(__file__).resolve().parent / "fixtures"

# (method, path template) of every response the suite's clients saw.
CALLED: set[tuple[str, str]] = set()
_TEMPLATES = [
    (method.upper(), template, re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"))
    for template, ops in OPENAPI["paths"].items() for method in ops
]


def record(event: ResponseEvent) -> None:
    for method, template, pattern in _TEMPLATES:
        if method == event.method and pattern.match(event.path):
            CALLED.add((method, template))


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run the suite through sdk/live-service.sh python")
    return value


@pytest.fixture
def client() -> Iterator[Engram]:
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_API_KEY"), on_response=record) as c:
        yield c


@pytest.fixture
def admin() -> Iterator[Engram]:
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_ADMIN_KEY"), on_response=record) as c:
        yield c


@pytest.fixture
async def aclient() -> AsyncEngram:
    async with AsyncEngram(env("ENGRAM_BASE_URL"), env("ENGRAM_API_KEY"), on_response=record) as c:
        yield c


def fresh(prefix: str) -> str:
    """An owner (or record) id no other test or run uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
