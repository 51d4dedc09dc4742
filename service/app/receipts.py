"""Receipts: Ed25519 signatures that anchor the head of an encounter's hash chain.

A receipt says "this encounter's stream had the event with this hash at this version":
`{"kid", "encounter_id", "version", "hash", "sig"}`, `sig` the Ed25519 signature
(base64url, no padding) over the canonical JSON of `{"encounter_id", "hash", "version"}`
(DESIGN.md, audit algorithm). A client that keeps its last receipt can later prove that the
history before it was rewritten; an auditor checks receipts against the keys served at
`GET /v1/keys` (`verify_receipt`).

The keys come from FRAY_SIGNING_KEY: comma-separated `kid:<base64url of the 32-byte
Ed25519 seed>` entries. The first signs; all are published, so a key rotated out (listed
after the new one) still verifies the receipts it made.
"""

from __future__ import annotations

import binascii
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.domain.ids import is_id
from service.domain.receipts import ALG, KEY_BYTES, b64url, signed_bytes, unb64url

VARIABLE = "FRAY_SIGNING_KEY"
SEED_BYTES = KEY_BYTES
# Receipts this process remembers: each event is signed once, however many subscribers
# its frames go to (and the command's answer signs the same last event they do).
CACHE_SIZE = 4096
_log = logging.getLogger("fray.api")


class SigningKeyError(ValueError):
    """FRAY_SIGNING_KEY (or a file holding such entries) that does not parse: the message
    names the variable and the entry, never the secret."""


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private: Ed25519PrivateKey
    public_key: str  # base64url (no padding) of the 32 raw bytes

    @classmethod
    def from_seed(cls, kid: str, seed: bytes) -> SigningKey:
        private = Ed25519PrivateKey.from_private_bytes(seed)
        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return cls(kid, private, b64url(raw))

    def published(self) -> dict[str, str]:
        return {"kid": self.kid, "alg": ALG, "public_key": self.public_key}


def parse_signing_keys(text: str, source: str = VARIABLE) -> tuple[SigningKey, ...]:
    """The keys of a FRAY_SIGNING_KEY value, the signing one first. `source` names where
    the text came from in the errors (the variable, or a file)."""
    keys: list[SigningKey] = []
    entries = [e.strip() for e in text.split(",") if e.strip()]
    if not entries:
        raise SigningKeyError(f"{source}: no key (expected kid:<base64url Ed25519 seed>)")
    for position, entry in enumerate(entries, 1):
        kid, sep, encoded = entry.partition(":")
        kid, encoded = kid.strip(), encoded.strip()
        if not sep or not encoded:
            raise SigningKeyError(
                f"{source}: entry {position} is not kid:<key> (a key id, a colon, then the "
                "base64url of a 32-byte Ed25519 seed)"
            )
        if not is_id(kid):
            raise SigningKeyError(
                f"{source}: entry {position}: the key id {kid!r} is not an id (1-64 letters, "
                "digits, '.', '_', '~' or '-', starting with a letter or digit)"
            )
        if any(key.kid == kid for key in keys):
            raise SigningKeyError(f"{source}: the key id {kid!r} is listed twice")
        try:
            seed = unb64url(encoded)
        except (binascii.Error, ValueError):
            raise SigningKeyError(
                f"{source}: the key of {kid!r} is not base64url (A-Z, a-z, 0-9, '-', '_')"
            ) from None
        if len(seed) != SEED_BYTES:
            raise SigningKeyError(
                f"{source}: the key of {kid!r} is {len(seed)} bytes; an Ed25519 seed is "
                f"{SEED_BYTES} (43 base64url characters)"
            )
        keys.append(SigningKey.from_seed(kid, seed))
    return tuple(keys)


def new_key_entry(prefix: str) -> str:
    """A fresh `kid:<seed>` entry, its id `<prefix>-` and 8 hex digits of its public key."""
    seed = secrets.token_bytes(SEED_BYTES)
    public = SigningKey.from_seed("k", seed).public_key
    kid = f"{prefix}-{hashlib.sha256(public.encode()).hexdigest()[:8]}"
    return f"{kid}:{b64url(seed)}"


class Signer:
    """Signs receipts with the first of its keys and publishes them all."""

    def __init__(self, keys: Sequence[SigningKey], cache_size: int = CACHE_SIZE) -> None:
        if not keys:
            raise ValueError("a Signer needs at least one key")
        self._keys = tuple(keys)
        self._signing = keys[0]
        self._cache: OrderedDict[tuple[str, int, str], str] = OrderedDict()
        self._cache_size = cache_size

    @classmethod
    def from_setting(cls, setting: str | None) -> Signer:
        """The signer FRAY_SIGNING_KEY configures (`SigningKeyError` if it does not parse);
        without one, a key made up for this process, with a warning."""
        if setting is not None and setting.strip():
            return cls(parse_signing_keys(setting))
        _log.warning(
            "%s is not set: receipts are signed with a random key that dies with this "
            "process, so they will not verify after a restart, nor against another "
            "instance's GET /v1/keys",
            VARIABLE,
        )
        return cls(parse_signing_keys(new_key_entry("ephemeral")))

    @property
    def kid(self) -> str:
        return self._signing.kid

    def receipt(self, encounter_id: str, version: int, hash: str) -> dict[str, Any]:
        """The receipt of the event with `hash` at `version` of the encounter its clients
        call `encounter_id` (the public id, not where it lives in the store)."""
        key = (encounter_id, version, hash)
        sig = self._cache.get(key)
        if sig is None:
            sig = b64url(self._signing.private.sign(signed_bytes(encounter_id, version, hash)))
            self._cache[key] = sig
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return {
            "kid": self._signing.kid,
            "encounter_id": encounter_id,
            "version": version,
            "hash": hash,
            "sig": sig,
        }

    def public_keys(self) -> list[dict[str, str]]:
        """Every key, the signing one first: `{"kid", "alg": "Ed25519", "public_key"}`."""
        return [key.published() for key in self._keys]
