"""What the sync and async clients share: settings, request building, the retry policy and hooks.

Nothing here does I/O. The clients (engram/_async, and engram/_sync generated from it) only send the
request this module builds, and ask `Attempts` whether to wait and send it again.
"""

from __future__ import annotations

import os
from urllib.parse import quote
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional, Union

import httpx

from ._errors import APIError, ConfigurationError, EngramConnectionError, RetryableAPIError
from ._version import USER_AGENT

DEFAULT_BASE_URL = "http://localhost:8080"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
RETRY_STATUSES = frozenset({429, 502, 503})


@dataclass(frozen=True)
class RetryEvent:
    """Passed to `on_retry` before the SDK waits `delay` seconds and sends a request again."""

    method: str
    path: str
    attempt: int
    delay: float
    status: Optional[int]
    error: BaseException


@dataclass(frozen=True)
class ResponseEvent:
    """Passed to `on_response` for every response, retried or not (headers lower-cased)."""

    method: str
    path: str
    status: int
    headers: Mapping[str, str]
    attempt: int


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str
    timeout: Union[float, httpx.Timeout]
    max_retries: int
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    # A Retry-After longer than this is not waited out: the error is raised at once.
    max_retry_after: float = 60.0
    on_retry: Optional[Callable[[RetryEvent], None]] = None
    on_response: Optional[Callable[[ResponseEvent], None]] = None


def resolve_settings(
    base_url: Optional[str],
    api_key: Optional[str],
    *,
    timeout: Union[float, httpx.Timeout],
    max_retries: int,
    on_retry: Optional[Callable[[RetryEvent], None]],
    on_response: Optional[Callable[[ResponseEvent], None]],
) -> Settings:
    """Arguments first, then ENGRAM_BASE_URL / ENGRAM_API_KEY."""
    key = api_key or os.environ.get("ENGRAM_API_KEY")
    if not key:
        raise ConfigurationError(
            "no API key: pass api_key=... or set the ENGRAM_API_KEY environment variable"
        )
    if max_retries < 0:
        raise ConfigurationError(f"max_retries must be 0 or more: got {max_retries}")
    url = (base_url or os.environ.get("ENGRAM_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return Settings(url, key, timeout, max_retries, on_retry=on_retry, on_response=on_response)


@dataclass
class Call:
    """One logical API call; sent once, or again on a retry with the same Idempotency-Key."""

    method: str
    path: str
    params: Mapping[str, Any] = field(default_factory=dict)
    json: Any = None
    content: Optional[bytes] = None
    content_type: Optional[str] = None
    idempotency_key: Optional[str] = None
    stream: bool = False


def write_call(method: str, path: str, idempotency_key: Optional[str], **kwargs: Any) -> Call:
    """A POST that writes: it carries a key made once here, so every retry of it is applied once."""
    return Call(method, path, idempotency_key=idempotency_key or str(uuid.uuid4()), **kwargs)


def seg(value: str) -> str:
    """A path segment: ids are quoted, so no id can reach another route."""
    return quote(value, safe="")


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the given fields, leaving out those not given (None)."""
    return {k: _wire(v) for k, v in fields.items() if v is not None}


def _wire(value: Any) -> Any:
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    return value


def rfc3339(value: datetime) -> str:
    """The service wants an offset; a naive datetime is taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat()


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return value


def request_args(settings: Settings, call: Call) -> dict[str, Any]:
    """Keyword arguments for httpx's `build_request`, the same for every attempt of the call."""
    headers = {"Authorization": f"Bearer {settings.api_key}", "User-Agent": USER_AGENT, "Accept": "application/json"}
    if call.idempotency_key:
        headers["Idempotency-Key"] = call.idempotency_key
    if call.content_type:
        headers["Content-Type"] = call.content_type
    params = {k: _query_value(v) for k, v in call.params.items() if v is not None}
    return {
        "method": call.method, "url": settings.base_url + call.path, "params": params, "headers": headers,
        "json": call.json if call.content is None else None, "content": call.content, "timeout": settings.timeout,
    }


class OwnerScope:
    """What an owner handle's routes all send: the owner and its partition."""

    entity_id: str
    partition: Optional[str]

    def _scope(self, **extra: Any) -> dict[str, Any]:
        return {"entity_id": self.entity_id, "partition": self.partition, **extra}


class Attempts:
    """The retry policy for one call: how long to wait before the next attempt, or raise."""

    def __init__(self, settings: Settings, call: Call):
        self.settings = settings
        self.call = call
        self.attempt = 0

    def record(self, response: httpx.Response) -> None:
        hook = self.settings.on_response
        if hook is not None:
            hook(ResponseEvent(self.call.method, self.call.path, response.status_code,
                               {k.lower(): v for k, v in response.headers.items()}, self.attempt))

    def after_error(self, error: APIError) -> float:
        """Seconds to wait before retrying an error response; raises `error` when it is not retried."""
        if error.status not in RETRY_STATUSES or self.attempt >= self.settings.max_retries:
            raise error
        retry_after = error.retry_after if isinstance(error, RetryableAPIError) else None
        if retry_after is not None and retry_after > self.settings.max_retry_after:
            raise error
        return self._next(error, error.status, retry_after)

    def after_exception(self, exc: httpx.TransportError) -> float:
        """Seconds to wait before retrying a failed connection; raises once retries are spent.

        A read timeout is not retried: the service may still be working on the request."""
        if isinstance(exc, httpx.ReadTimeout) or self.attempt >= self.settings.max_retries:
            raise EngramConnectionError(f"{self.call.method} {self.call.path}: {exc!r}") from exc
        return self._next(exc, None, None)

    def _next(self, error: BaseException, status: Optional[int], retry_after: Optional[float]) -> float:
        backoff = min(self.settings.backoff_max, self.settings.backoff_base * 2 ** self.attempt)
        delay = backoff * (0.5 + random.random() / 2)  # jitter: spread clients that failed together
        if retry_after is not None:
            delay = max(delay, retry_after)
        self.attempt += 1
        if self.settings.on_retry is not None:
            self.settings.on_retry(RetryEvent(self.call.method, self.call.path, self.attempt, delay, status, error))
        return delay
