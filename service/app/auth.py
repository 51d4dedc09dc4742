"""Credentials: tenant API keys and signed encounter tokens, resolved to a `Principal`.

A token is `fray1.<base64url(canonical JSON payload)>.<base64url(HMAC-SHA256)>`, the HMAC
keyed with FRAY_TOKEN_SECRET over everything before the last dot. Tokens are stateless, so
any API instance sharing the secret accepts them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, cast

import orjson

from service.app.errors import ExpiredToken, InvalidToken, MissingCredential
from service.config import Settings
from service.domain.canonical import canonical_bytes
from service.domain.context import SYSTEM, Actor, Role
from service.domain.errors import Forbidden, NotFound
from service.domain.ids import is_id, split_stream, stream_id
from service.engine import Engine
from service.store.errors import InvalidArgument

PREFIX = "fray1"
TOKEN_ROLES = ("gm", "player", "observer", "auditor")
TENANT_ACTOR_PREFIX = "tenant:"
_CACHE_SIZE = 4096
_log = logging.getLogger("fray.api")


@dataclass(frozen=True)
class Principal:
    actor: Actor
    kind: Literal["tenant", "token", "system"]
    tenant: str | None
    encounter_id: str | None  # the token's encounter (None for tenant keys)
    stream: str | None = None  # where the asked-for encounter lives in the store
    expires: int | None = None  # a token's expiry (epoch seconds); None for a key

    def stream_of(self) -> str:
        assert self.stream is not None, "a principal resolved for an encounter"
        return self.stream


def system_principal(stream: str) -> Principal:
    """Fray's own processes (the workers firing deadlines, the CLI beside the store): the
    system actor, with no credential, for the encounter stored at `stream`."""
    tenant, encounter_id = split_stream(stream)
    return Principal(SYSTEM, "system", tenant, encounter_id, stream)


def tenant_actor(tenant: str) -> Actor:
    """The actor a tenant key acts as: GM of the encounters it created."""
    return Actor(f"{TENANT_ACTOR_PREFIX}{tenant}", "gm")


def parse_keys(keys: Sequence[str]) -> dict[str, str]:
    """API key secret -> tenant id. `name:secret` names the tenant; a bare secret is named
    by the first 8 hex digits of its SHA-256."""
    parsed: dict[str, str] = {}
    for key in keys:
        name, sep, secret = key.partition(":")
        if not sep:
            name, secret = hashlib.sha256(key.encode()).hexdigest()[:8], key
        if not is_id(name):  # a tenant names where its encounters live in the store
            raise ValueError(
                f"FRAY_API_KEYS: tenant name {name!r} is not an id (1-64 letters, digits, "
                "'.', '_', '~' or '-', starting with a letter or digit)"
            )
        if secret:
            parsed[secret] = name
    return parsed


def bearer(authorization: str | None) -> str:
    if not authorization:
        raise MissingCredential("send 'Authorization: Bearer <API key or encounter token>'")
    scheme, _, credential = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not credential.strip():
        raise MissingCredential("the Authorization header must read 'Bearer <credential>'")
    return credential.strip()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Auth:
    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self._keys = parse_keys(settings.api_keys)
        secret = settings.token_secret
        if secret is None:
            _log.warning(
                "FRAY_TOKEN_SECRET is not set: tokens are signed with a random key that "
                "dies with this process and no other instance accepts"
            )
            secret = secrets.token_hex(32)
        self._secret = secret.encode()
        self._clock = clock
        self._owners: OrderedDict[str, str | None] = OrderedDict()
        self._verified: OrderedDict[str, dict[str, Any]] = OrderedDict()

    # --- tokens ------------------------------------------------------------------------

    def mint(
        self,
        encounter_id: str,
        role: str,
        combatants: Sequence[str],
        subject: str,
        ttl_seconds: int,
        tenant: str | None,
    ) -> tuple[str, datetime]:
        if role not in TOKEN_ROLES:
            raise ValueError(f"unknown role {role!r}")
        expires = int(self._clock()) + ttl_seconds
        payload = {
            "enc": encounter_id,
            "role": role,
            "combatants": sorted(set(combatants)),
            "sub": subject,
            "exp": expires,
            "tenant": tenant,
        }
        signed = f"{PREFIX}.{_b64(canonical_bytes(payload))}"
        token = f"{signed}.{_b64(self.sign(signed))}"
        return token, datetime.fromtimestamp(expires, UTC)

    def sign(self, signed: str) -> bytes:
        """The HMAC-SHA256 of `signed` under FRAY_TOKEN_SECRET: tokens', and stream
        tickets' (`service.app.tickets`), which a distinct prefix keeps apart."""
        return hmac.new(self._secret, signed.encode(), hashlib.sha256).digest()

    def verify(self, token: str) -> dict[str, Any]:
        """The payload of a genuine, unexpired token. A token checked once is remembered
        (its signature cannot change), so a busy client pays for the HMAC once; its expiry
        is checked on every use."""
        payload = self._verified.get(token)
        if payload is None:
            payload = self._checked(token)
            self._verified[token] = payload
            while len(self._verified) > _CACHE_SIZE:
                self._verified.popitem(last=False)
        exp = payload["exp"]
        if exp <= self._clock():
            raise ExpiredToken("the token has expired; mint a new one")
        return payload

    def _checked(self, token: str) -> dict[str, Any]:
        signed, _, signature = token.rpartition(".")
        if not signed.startswith(f"{PREFIX}.") or signed.count(".") != 1:
            raise InvalidToken("the credential is neither an API key nor a Fray token")
        try:
            given = _unb64(signature)
            payload = orjson.loads(_unb64(signed.split(".", 1)[1]))
        except (binascii.Error, ValueError) as error:
            raise InvalidToken("the token is garbled") from error
        if not hmac.compare_digest(given, self.sign(signed)):
            raise InvalidToken("the token's signature does not match")
        if not isinstance(payload, dict) or payload.get("role") not in TOKEN_ROLES:
            raise InvalidToken("the token's payload is not a Fray token")
        if not isinstance(payload.get("exp"), int):
            raise InvalidToken("the token's payload is not a Fray token")
        return payload

    # --- principals --------------------------------------------------------------------

    def _tenant_key(self, credential: str) -> str | None:
        found = None
        for secret, tenant in self._keys.items():
            if hmac.compare_digest(secret.encode(), credential.encode()):
                found = tenant
        return found

    def tenant_of_key(self, authorization: str | None) -> str:
        """The tenant of an API key; only a key may create encounters."""
        credential = bearer(authorization)
        tenant = self._tenant_key(credential)
        if tenant is None:
            self.verify(credential)  # a bad token is a 401, a good one a 403
            raise Forbidden("only a tenant API key may do this, not an encounter token")
        return tenant

    async def principal(
        self, authorization: str | None, encounter_id: str | None, engine: Engine
    ) -> Principal:
        """Who is asking, and (for `encounter_id`, the id in the path) where that encounter
        lives in the store. Ids are per tenant: another tenant's encounter is answered as an
        unknown one (404), so ids cannot be probed."""
        credential = bearer(authorization)
        tenant = self._tenant_key(credential)
        if tenant is not None:
            stream = None
            if encounter_id is not None:
                stream = stream_id(tenant, encounter_id)
                try:
                    owner = await self.owner(stream, engine)
                except NotFound:
                    raise NotFound(f"there is no encounter '{encounter_id}'") from None
                if owner != tenant:
                    raise NotFound(f"there is no encounter '{encounter_id}'")
            return Principal(tenant_actor(tenant), "tenant", tenant, None, stream)
        payload = self.verify(credential)
        enc = str(payload.get("enc"))
        if encounter_id is not None and enc != encounter_id:
            raise Forbidden("this token is for another encounter")
        combatants = payload.get("combatants") or []
        actor = Actor(
            str(payload.get("sub", "")),
            cast(Role, payload["role"]),
            frozenset(str(c) for c in combatants),
        )
        owner = payload.get("tenant")
        tenant = str(owner) if owner is not None else None
        return Principal(actor, "token", tenant, enc, stream_id(tenant, enc), payload["exp"])

    async def owner(self, encounter_id: str, engine: Engine) -> str | None:
        """The tenant that created an encounter: the actor of its first event (immutable,
        so it is cached). Raises NotFound for an unknown encounter."""
        if encounter_id in self._owners:
            self._owners.move_to_end(encounter_id)
            return self._owners[encounter_id]
        try:
            first = await engine.store.read(encounter_id, limit=1)
        except InvalidArgument as error:  # a malformed id reads as unknown
            raise NotFound(f"there is no encounter '{encounter_id}'") from error
        if not first:
            raise NotFound(f"there is no encounter '{encounter_id}'")
        actor = orjson.loads(first[0].body).get("actor") or {}
        actor_id = str(actor.get("id", ""))
        owner = (
            actor_id.removeprefix(TENANT_ACTOR_PREFIX)
            if actor_id.startswith(TENANT_ACTOR_PREFIX)
            else None
        )
        self._owners[encounter_id] = owner
        while len(self._owners) > _CACHE_SIZE:
            self._owners.popitem(last=False)
        return owner
