"""Typed errors, retries (429 with Retry-After, connection failures) and idempotent writes."""

from __future__ import annotations

import dataclasses
import socket
from typing import Optional

import httpx
import pytest
from conftest import OPENAPI, env, fresh, record

from engram import (ConfigurationError, Conflict, EngramConnectionError, Engram, InvalidInput, NotFound, RateLimited,
                    ResponseEvent, RetryEvent, Unauthorized)
from engram._errors import ERRORS_BY_CODE


def test_every_error_code_of_the_document_has_its_class() -> None:
    codes = OPENAPI["components"]["schemas"]["Error"]["properties"]["code"]["enum"]
    assert set(codes) <= set(ERRORS_BY_CODE)


def test_not_found_carries_status_code_and_request_id(client: Engram) -> None:
    with pytest.raises(NotFound) as caught:
        client.owner(fresh("err")).get_entity("nobody")
    err = caught.value
    assert (err.status, err.code) == (404, "not_found") and err.request_id


def test_invalid_input_names_the_field(client: Engram) -> None:
    with pytest.raises(InvalidInput) as caught:
        client.owner(fresh("err")).assert_fact("mood", "fine", observed_at="yesterday")
    assert caught.value.status == 400 and "observed_at" in caught.value.message


def test_a_bad_key_is_unauthorized_and_a_missing_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with Engram(env("ENGRAM_BASE_URL"), "sk_not_a_key_0000000000") as bad, pytest.raises(Unauthorized) as caught:
        bad.list_fields()
    assert caught.value.status == 401 and caught.value.request_id
    monkeypatch.delenv("ENGRAM_API_KEY")
    with pytest.raises(ConfigurationError, match="ENGRAM_API_KEY"):
        Engram(env("ENGRAM_BASE_URL"))


def test_the_environment_configures_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ResponseEvent] = []

    def hook(event: ResponseEvent) -> None:
        seen.append(event)
        record(event)

    with Engram(on_response=hook) as from_env:  # ENGRAM_BASE_URL and ENGRAM_API_KEY
        assert from_env.base_url == env("ENGRAM_BASE_URL").rstrip("/")
        assert from_env.openapi()["openapi"].startswith("3.1")
        assert from_env.index().service and from_env.status().store.ready
    assert [e.status for e in seen] == [200, 200, 200]


def test_rate_limited_calls_are_retried_after_retry_after() -> None:
    retries: list[RetryEvent] = []
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_LIMITED_KEY"), on_retry=retries.append, on_response=record) as c:
        for _ in range(5):  # burst 2, then 1 request per second
            c.list_fields()
    assert retries, "five quick calls on a key limited to a burst of 2 were never retried"
    assert all(r.status == 429 and r.delay >= 1 for r in retries)  # Retry-After is at least 1 s


def test_with_retries_off_rate_limited_is_raised_with_retry_after() -> None:
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_LIMITED_KEY"), max_retries=0) as c:
        with pytest.raises(RateLimited) as caught:
            for _ in range(6):
                c.list_fields()
    err = caught.value
    assert err.status == 429 and err.retry_after is not None and err.retry_after >= 1 and err.request_id


def test_connection_failures_are_retried_then_raised() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    retries: list[RetryEvent] = []
    with Engram(f"http://127.0.0.1:{port}", "sk_any_0000000000", max_retries=2, on_retry=retries.append) as c:
        c._settings = dataclasses.replace(c._settings, backoff_base=0.01)  # keep the test short
        with pytest.raises(EngramConnectionError):
            c.list_fields()
    assert [r.attempt for r in retries] == [1, 2] and all(r.status is None for r in retries)


class LoseFirstResponse(httpx.BaseTransport):
    """Forwards every request, but reports the first write's response as lost (the write did happen)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.keys: list[Optional[str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.method == "POST":
            self.keys.append(request.headers.get("idempotency-key"))
            if len(self.keys) == 1:
                response.close()
                raise httpx.ReadError("connection reset before the response arrived", request=request)
        return response


def test_a_write_whose_response_was_lost_is_retried_with_its_key_and_applied_once() -> None:
    transport = LoseFirstResponse()
    replays: list[ResponseEvent] = []
    with httpx.Client(transport=transport) as http, Engram(
            env("ENGRAM_BASE_URL"), env("ENGRAM_API_KEY"), http_client=http, on_response=replays.append) as c:
        owner = c.owner(fresh("idem"))
        fact = owner.assert_fact("visited", "Lisbon", cardinality="multi")
        assert len(transport.keys) == 2 and transport.keys[0] == transport.keys[1] and transport.keys[0]
        assert replays[-1].headers.get("idempotent-replayed") == "true"
        assert [f.fact_id for f in owner.iter_facts()] == [fact.fact_id]


def test_the_same_key_twice_is_replayed_and_another_body_with_it_conflicts() -> None:
    seen: list[ResponseEvent] = []
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_API_KEY"), on_response=seen.append) as c:
        owner = c.owner(fresh("idem"))
        first = owner.create_document("written once", idempotency_key="doc-key-1")
        second = owner.create_document("written once", idempotency_key="doc-key-1")
        assert second.doc_id == first.doc_id and seen[-1].headers.get("idempotent-replayed") == "true"
        assert owner.list_documents().count == 1
        with pytest.raises(Conflict):
            owner.create_document("another body", idempotency_key="doc-key-1")
