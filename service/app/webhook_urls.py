"""Where a webhook may point: `https`, at public addresses only (no server-side request
forgery into the operator's network), checked when it is registered and again at each
delivery, which then connects to the very address it checked (a DNS answer that changes in
between cannot slip a private address through).

`FRAY_WEBHOOK_ALLOW_PRIVATE=true` (development and tests) lifts both rules: `http` and
private, loopback and link-local addresses are allowed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.domain.errors import FrayError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_URL = 2048
# NAT64's well-known prefix carries an IPv4 address in its last 32 bits.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class WebhookUrlRefused(FrayError):
    code = "webhook/bad-url"


@dataclass(frozen=True)
class Target:
    """A checked URL: its parts, and the address a delivery connects to."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


def check_url(url: str, allow_private: bool) -> tuple[str, str, int]:
    """The scheme, host and port of a URL a webhook may have (no DNS yet)."""
    if len(url) > MAX_URL:
        raise WebhookUrlRefused(f"a webhook URL is at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookUrlRefused(f"'{url}' is not a URL: {error}") from None
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes:
        raise WebhookUrlRefused(
            f"a webhook URL must be https, not '{parts.scheme or '(none)'}'"
            + ("" if allow_private else " (http only with FRAY_WEBHOOK_ALLOW_PRIVATE=true)")
        )
    if not parts.hostname:
        raise WebhookUrlRefused(f"'{url}' names no host")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlRefused("a webhook URL carries no user name or password")
    if parts.fragment:
        raise WebhookUrlRefused("a webhook URL has no fragment ('#...')")
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default


def is_public(address: IPAddress) -> bool:
    """Whether an address is on the public internet: not private, loopback, link-local,
    multicast, reserved, unspecified or shared, including IPv4 inside IPv6."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public(embedded)
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


async def resolve(url: str, allow_private: bool) -> Target:
    """Check the URL and resolve its host; refuse it if any address it resolves to is not
    public (unless allowed). The delivery connects to the first address."""
    scheme, host, port = check_url(url, allow_private)
    addresses = await _addresses(host, port)
    if not allow_private:
        for address in addresses:
            if not is_public(address):
                raise FrayError(
                    f"the webhook's host '{host}' resolves to {address}, which is not a public "
                    "address: Fray calls only the public internet (set "
                    "FRAY_WEBHOOK_ALLOW_PRIVATE=true in development)",
                    code="webhook/private-address",
                )
    return Target(url, scheme, host, port, str(addresses[0]))


async def _addresses(host: str, port: int) -> list[IPAddress]:
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return [literal]
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise FrayError(
            f"the webhook's host '{host}' does not resolve: {error}",
            code="webhook/unresolvable-host",
        ) from None
    found: list[IPAddress] = []
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]  # an IPv6 zone id is not part of the address
        address = ipaddress.ip_address(text)
        if address not in found:
            found.append(address)
    if not found:
        raise FrayError(
            f"the webhook's host '{host}' resolves to no address",
            code="webhook/unresolvable-host",
        )
    return found
