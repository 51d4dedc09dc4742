"""Canonical JSON and hashing, exactly as DESIGN.md's audit algorithm defines them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

ZERO_HASH = "0" * 64


# What `json.dumps(value, sort_keys=True, ...)` builds on every call, built once.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """UTF-8, keys sorted, no insignificant whitespace, no NaN/Infinity."""
    return _ENCODER.encode(value)


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def envelope_hash(envelope: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the envelope without its `hash` key."""
    body = {key: value for key, value in envelope.items() if key != "hash"}
    return sha256_hex(canonical_bytes(body))
