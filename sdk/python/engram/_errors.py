"""Typed errors: one class per `code` of the service's Error body, all under EngramError.

The service answers every failure with `{ error, code, request_id }`; `error_from_response` turns that
into the class for its code, so callers catch `NotFound` or `RateLimited` rather than compare strings.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional


class EngramError(Exception):
    """Base of every error this SDK raises."""

    status: Optional[int]
    code: str
    message: str
    request_id: Optional[str]

    def __init__(self, message: str, *, status: Optional[int] = None, code: str = "", request_id: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.code}: {self.message}{where}" if self.status else self.message


class APIError(EngramError):
    """Raised when the service answers with an error status; subclasses name the code."""


class InvalidInput(APIError):
    """Raised on 400 `invalid_input`: the message names the field and the rule it broke."""


class Unauthorized(APIError):
    """Raised on 401 `unauthorized`: the API key is missing, unknown or revoked."""


class NotFound(APIError):
    """Raised on 404 `not_found`: no such record in the caller's scope."""


class MethodNotAllowed(APIError):
    """Raised on 405 `method_not_allowed`."""


class Conflict(APIError):
    """Raised on 409 `conflict`: an Idempotency-Key reused with another body, a write to an owner being
    erased, or an import into a scope that is not empty."""


class Gone(APIError):
    """Raised on 410 `gone`: an unversioned alias after its sunset."""


class PayloadTooLarge(APIError):
    """Raised on 413 `payload_too_large`."""


class Misdirected(APIError):
    """Raised on 421 `misdirected`: another node hosts the scope."""


class MediaProcessingUnavailable(APIError):
    """Raised on 422 `media_processing_unavailable`: no caption/transcript given and no provider may derive it."""


class RetryableAPIError(APIError):
    """An error the service expects to clear: `retry_after` is its Retry-After in seconds, when it sent one."""

    retry_after: Optional[float]

    def __init__(self, message: str, *, retry_after: Optional[float] = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class RateLimited(RetryableAPIError):
    """Raised on 429 `rate_limited` once retries are spent (or disabled)."""


class Internal(APIError):
    """Raised on 500 `internal`."""


class ProviderError(RetryableAPIError):
    """Raised on 502 `provider_error`: a captioning, transcription or embedding provider failed."""


class Unavailable(RetryableAPIError):
    """Raised on 503 `unavailable` (e.g. a full disk, or no semantic model loaded)."""


class EngramConnectionError(EngramError):
    """Raised when the service could not be reached (after retries)."""


class ConfigurationError(EngramError):
    """Raised when the client is built without what it needs (an API key)."""


ERRORS_BY_CODE: dict[str, type[APIError]] = {
    "invalid_input": InvalidInput,
    "unauthorized": Unauthorized,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "conflict": Conflict,
    "gone": Gone,
    "payload_too_large": PayloadTooLarge,
    "misdirected": Misdirected,
    "media_processing_unavailable": MediaProcessingUnavailable,
    "rate_limited": RateLimited,
    "internal": Internal,
    "provider_error": ProviderError,
    "unavailable": Unavailable,
}

# For bodies that are not the service's JSON (a proxy's 502 page, say), the status decides.
_CODE_BY_STATUS = {400: "invalid_input", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
                   409: "conflict", 410: "gone", 413: "payload_too_large", 421: "misdirected",
                   422: "media_processing_unavailable", 429: "rate_limited", 500: "internal",
                   502: "provider_error", 503: "unavailable"}


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After in seconds (the service sends delta-seconds; an HTTP date is not used by it)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def error_from_response(status: int, body: bytes, headers: Mapping[str, str]) -> APIError:
    """The typed error for an error response."""
    parsed: Any = None
    try:
        parsed = json.loads(body)
    except ValueError:
        pass
    if isinstance(parsed, dict) and isinstance(parsed.get("code"), str):
        code, message = parsed["code"], str(parsed.get("error", ""))
        request_id = parsed.get("request_id") or headers.get("x-request-id")
    else:
        code = _CODE_BY_STATUS.get(status, "")
        message = body.decode("utf-8", "replace")[:500] or f"HTTP {status}"
        request_id = headers.get("x-request-id")
    cls = ERRORS_BY_CODE.get(code, APIError)
    kwargs: dict[str, Any] = {"status": status, "code": code, "request_id": request_id}
    if issubclass(cls, RetryableAPIError):
        kwargs["retry_after"] = parse_retry_after(headers.get("retry-after"))
    return cls(message, **kwargs)
