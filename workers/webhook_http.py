"""One webhook delivery over HTTP: signed, to the address that was checked, within a time
limit, no redirects followed, the receiver's answer read only up to a small limit.

The URL's host was resolved and every address checked (`service.app.webhook_urls.resolve`)
just before: the request goes to that address (the host kept in `Host` and, for https, in
TLS's server name, so the certificate is checked against the host), so a DNS answer that
changes between the check and the connection cannot point it anywhere else.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass

import httpx

from service.app.webhook_urls import Target

READ_LIMIT = 4096  # bytes of the receiver's answer read at most
# Requests in flight per receiver host. More wait their turn on a semaphore: queued inside
# httpcore's pool instead, each request's turn costs a scan of all that wait (measured: a
# fifth of the worker's CPU with a hundred deliveries waiting).
CONNECTIONS = 16
SIGNATURE = "Fray-Signature"


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no HTTP answer (refused, dropped, timed out)
    error: str | None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


class Sender:
    """Posts deliveries; one HTTP client per (scheme, host, address, port), so a kept-alive
    connection is only reused for the host (and TLS server name) it was opened for."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._clients: dict[tuple[str, str, str, int], httpx.AsyncClient] = {}
        self._turns: dict[tuple[str, str, str, int], asyncio.Semaphore] = {}

    async def post(self, target: Target, body: bytes, signed: str, delivery: str) -> Answer:
        key = (target.scheme, target.host, target.address, target.port)
        client = self._client(key)
        turn = self._turns.setdefault(key, asyncio.Semaphore(CONNECTIONS))
        headers = {
            "Host": _host_header(target),
            "Content-Type": "application/json",
            "User-Agent": "Fray-Webhooks/1",
            SIGNATURE: signed,
            "Fray-Delivery": delivery,
        }
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        request = client.build_request(
            "POST", _address_url(target), content=body, headers=headers, extensions=extensions
        )
        try:
            async with turn, asyncio.timeout(self.timeout):
                response = await client.send(request, stream=True, follow_redirects=False)
                try:
                    read = 0
                    async for chunk in response.aiter_raw():
                        read += len(chunk)
                        if read >= READ_LIMIT:
                            break
                finally:
                    await response.aclose()
        except TimeoutError:
            return Answer(None, f"no answer within {self.timeout:g} s")
        except httpx.HTTPError as error:
            return Answer(None, f"{type(error).__name__}: {error}"[:300])
        return Answer(response.status_code, None)

    def _client(self, key: tuple[str, str, str, int]) -> httpx.AsyncClient:
        client = self._clients.get(key)
        if client is None:
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                follow_redirects=False,
                trust_env=False,  # no proxy from the environment: the address is the checked one
                limits=httpx.Limits(
                    max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS
                ),
            )
            self._clients[key] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()


def _address_url(target: Target) -> str:
    """The URL with the checked address in place of the host."""
    return str(httpx.URL(target.url).copy_with(host=target.address, port=target.port))


def _host_header(target: Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"
