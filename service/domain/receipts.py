"""Receipts, the part an auditor needs: what a receipt signs and how it is checked.

A receipt `{"kid", "encounter_id", "version", "hash", "sig"}` says "this encounter's stream
had the event with this hash at this version"; `sig` is the Ed25519 signature (base64url,
no padding) over the canonical JSON of `{"encounter_id", "hash", "version"}` (DESIGN.md,
audit algorithm). Signing, and the keys it uses, live in service/app/receipts.py.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from service.domain.canonical import canonical_bytes

ALG = "Ed25519"
KEY_BYTES = 32  # an Ed25519 public key, and the seed of a private one
RECEIPT_FIELDS = ("kid", "encounter_id", "version", "hash", "sig")

_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """Base64url with or without padding; `binascii.Error` on anything else."""
    if not text or not set(text) <= _B64URL:
        raise binascii.Error("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def signed_bytes(encounter_id: str, version: int, hash: str) -> bytes:
    """What a receipt's `sig` signs: the canonical JSON of its encounter, version and hash."""
    return canonical_bytes({"encounter_id": encounter_id, "hash": hash, "version": version})


def verify_receipt(receipt: Any, keys: Sequence[Mapping[str, Any]]) -> str | None:
    """What is wrong with `receipt` against the trusted `keys` (as GET /v1/keys lists
    them), or None when its signature verifies with the key it names."""
    if not isinstance(receipt, Mapping):
        return "a receipt is a JSON object"
    missing = [name for name in RECEIPT_FIELDS if name not in receipt]
    if missing:
        return f"the receipt has no {', '.join(repr(m) for m in missing)}"
    kid, sig = receipt["kid"], receipt["sig"]
    encounter_id, version, digest = receipt["encounter_id"], receipt["version"], receipt["hash"]
    if not all(isinstance(v, str) for v in (kid, sig, encounter_id, digest)):
        return "the receipt's kid, encounter_id, hash and sig are strings"
    if isinstance(version, bool) or not isinstance(version, int):
        return "the receipt's version is an integer"
    key = next((k for k in keys if isinstance(k, Mapping) and k.get("kid") == kid), None)
    if key is None:
        return f"the receipt's key {kid!r} is not among the trusted keys"
    public = _public_key(key)
    if public is None:
        return f"the key {kid!r} is not an Ed25519 public key (32 bytes, base64url)"
    try:
        signature = unb64url(sig)
    except (binascii.Error, ValueError):
        return "the receipt's sig is not base64url"
    try:
        public.verify(signature, signed_bytes(encounter_id, version, digest))
    except InvalidSignature:
        return (
            f"the receipt's signature does not verify with key {kid!r}: it was not made by "
            "that key for this encounter, version and hash"
        )
    return None


def _public_key(key: Mapping[str, Any]) -> Ed25519PublicKey | None:
    encoded = key.get("public_key")
    if key.get("alg") != ALG or not isinstance(encoded, str):
        return None
    try:
        raw = unb64url(encoded)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != KEY_BYTES:
        return None
    return Ed25519PublicKey.from_public_bytes(raw)
