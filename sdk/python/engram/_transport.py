"""The only part written twice: how the sync and async clients send a request and wait.

Everything else of the async client is turned into the sync one by scripts/generate.py (unasync),
which renames AsyncTransport to SyncTransport.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Optional, Union

import httpx

from ._version import USER_AGENT


class AsyncTransport:
    def __init__(self, timeout: Union[float, httpx.Timeout], http_client: Optional[httpx.AsyncClient]):
        self._owned = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout, headers={"User-Agent": USER_AGENT})

    async def send(self, args: dict[str, Any], stream: bool) -> httpx.Response:
        return await self._http.send(self._http.build_request(**args), stream=stream)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def aclose(self) -> None:
        if self._owned:
            await self._http.aclose()


class SyncTransport:
    def __init__(self, timeout: Union[float, httpx.Timeout], http_client: Optional[httpx.Client]):
        self._owned = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout, headers={"User-Agent": USER_AGENT})

    def send(self, args: dict[str, Any], stream: bool) -> httpx.Response:
        return self._http.send(self._http.build_request(**args), stream=stream)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def close(self) -> None:
        if self._owned:
            self._http.close()
