"""Receipts: FRAY_SIGNING_KEY's keys, the signer, and `verify_receipt`, which the audit uses
to check the receipts a client kept."""

from __future__ import annotations

import base64
import logging
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app.receipts import (
    Signer,
    SigningKey,
    SigningKeyError,
    new_key_entry,
    parse_signing_keys,
)
from service.domain.receipts import verify_receipt

# RFC 8032, section 7.1, TEST 1: a seed and its public key.
RFC_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
HASH = "ab" * 32


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def entry(kid: str, seed: bytes) -> str:
    return f"{kid}:{b64(seed)}"


OLD = entry("old", bytes(range(32)))
NEW = entry("new", bytes(range(32, 64)))


def test_a_key_is_published_as_the_32_raw_bytes_of_its_public_key() -> None:
    (key,) = parse_signing_keys(entry("rfc", RFC_SEED))

    assert key.published() == {"kid": "rfc", "alg": "Ed25519", "public_key": b64(RFC_PUBLIC)}


def test_the_first_key_signs_and_every_key_is_published() -> None:
    signer = Signer(parse_signing_keys(f" {NEW} , {OLD} ,"))

    receipt = signer.receipt("ford", 3, HASH)

    assert receipt["kid"] == signer.kid == "new"
    assert [k["kid"] for k in signer.public_keys()] == ["new", "old"]


def test_a_receipt_names_the_encounter_version_and_hash_and_verifies() -> None:
    signer = Signer(parse_signing_keys(OLD))

    receipt = signer.receipt("ford", 3, HASH)

    assert list(receipt) == ["kid", "encounter_id", "version", "hash", "sig"]
    assert (receipt["encounter_id"], receipt["version"], receipt["hash"]) == ("ford", 3, HASH)
    assert "=" not in receipt["sig"] and len(receipt["sig"]) == 86  # 64 bytes, unpadded
    assert verify_receipt(receipt, signer.public_keys()) is None


def test_after_a_rotation_the_old_keys_receipts_still_verify() -> None:
    before = Signer(parse_signing_keys(OLD)).receipt("ford", 3, HASH)
    rotated = Signer(parse_signing_keys(f"{NEW},{OLD}"))
    after = rotated.receipt("ford", 4, HASH)

    assert (before["kid"], after["kid"]) == ("old", "new")
    assert verify_receipt(before, rotated.public_keys()) is None
    assert verify_receipt(after, rotated.public_keys()) is None
    dropped = Signer(parse_signing_keys(NEW)).public_keys()
    assert (
        verify_receipt(before, dropped) == "the receipt's key 'old' is not among the trusted keys"
    )


class CountingKey:
    """An Ed25519 key that counts its signatures."""

    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.from_private_bytes(RFC_SEED)
        self.signed = 0

    def sign(self, data: bytes) -> bytes:
        self.signed += 1
        return self.key.sign(data)


def test_each_event_is_signed_once_however_often_its_receipt_is_asked_for() -> None:
    counting = CountingKey()
    key = SigningKey("k", counting, b64(RFC_PUBLIC))  # type: ignore[arg-type]
    signer = Signer([key], cache_size=2)

    firsts = [signer.receipt("ford", 1, HASH) for _ in range(200)]
    assert counting.signed == 1
    assert all(r == firsts[0] for r in firsts)
    signer.receipt("ford", 2, HASH)
    signer.receipt("ford", 3, HASH)  # the cache holds two: version 1 goes
    signer.receipt("ford", 1, HASH)
    assert counting.signed == 4
    assert verify_receipt(firsts[0], signer.public_keys()) is None


def tampered(receipt: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**receipt, **changes}


SIGNER = Signer(parse_signing_keys(f"{NEW},{OLD}"))
GOOD = SIGNER.receipt("ford", 7, HASH)
KEYS = SIGNER.public_keys()
OTHER_SIG = SIGNER.receipt("ford", 8, HASH)["sig"]


@pytest.mark.parametrize(
    ("receipt", "keys", "problem"),
    [
        pytest.param(
            tampered(GOOD, hash="cd" * 32),
            KEYS,
            "the receipt's signature does not verify with key 'new': it was not made by that "
            "key for this encounter, version and hash",
            id="an edited hash",
        ),
        pytest.param(
            tampered(GOOD, version=6),
            KEYS,
            "does not verify with key 'new'",
            id="an edited version",
        ),
        pytest.param(
            tampered(GOOD, encounter_id="other"),
            KEYS,
            "does not verify with key 'new'",
            id="another encounter",
        ),
        pytest.param(
            tampered(GOOD, sig=OTHER_SIG), KEYS, "does not verify with key 'new'", id="a wrong sig"
        ),
        pytest.param(
            tampered(GOOD, kid="old"), KEYS, "does not verify with key 'old'", id="another kid"
        ),
        pytest.param(
            tampered(GOOD, kid="k9"),
            KEYS,
            "the receipt's key 'k9' is not among the trusted keys",
            id="an unknown kid",
        ),
        pytest.param(GOOD, [], "not among the trusted keys", id="no trusted keys"),
        pytest.param(
            tampered(GOOD, sig="not base64!"),
            KEYS,
            "the receipt's sig is not base64url",
            id="a sig that is not base64url",
        ),
        pytest.param(
            {k: v for k, v in GOOD.items() if k != "sig"},
            KEYS,
            "the receipt has no 'sig'",
            id="no sig",
        ),
        pytest.param(
            tampered(GOOD, version="7"),
            KEYS,
            "the receipt's version is an integer",
            id="a version that is a string",
        ),
        pytest.param(
            tampered(GOOD, version=True),
            KEYS,
            "the receipt's version is an integer",
            id="a version that is a boolean",
        ),
        pytest.param(
            tampered(GOOD, hash=7),
            KEYS,
            "the receipt's kid, encounter_id, hash and sig are strings",
            id="a hash that is a number",
        ),
        pytest.param([GOOD], KEYS, "a receipt is a JSON object", id="not an object"),
        pytest.param(
            GOOD,
            [{**KEYS[0], "alg": "RS256"}],
            "the key 'new' is not an Ed25519 public key (32 bytes, base64url)",
            id="a key of another algorithm",
        ),
        pytest.param(
            GOOD,
            [{**KEYS[0], "public_key": KEYS[0]["public_key"][:40]}],
            "is not an Ed25519 public key",
            id="a truncated public key",
        ),
        pytest.param(
            GOOD,
            [{**KEYS[0], "public_key": "***"}],
            "is not an Ed25519 public key",
            id="a public key that is not base64url",
        ),
    ],
)
def test_verify_receipt_names_what_is_wrong(
    receipt: Any, keys: list[dict[str, str]], problem: str
) -> None:
    found = verify_receipt(receipt, keys)

    assert found is not None and problem in found


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "FRAY_SIGNING_KEY: no key", id="empty"),
        pytest.param(" , ", "FRAY_SIGNING_KEY: no key", id="only commas"),
        pytest.param(
            b64(RFC_SEED),
            "FRAY_SIGNING_KEY: entry 1 is not kid:<key> (a key id, a colon, then the base64url "
            "of a 32-byte Ed25519 seed)",
            id="no key id",
        ),
        pytest.param(f"{OLD},k2:", "FRAY_SIGNING_KEY: entry 2 is not kid:<key>", id="no key"),
        pytest.param(
            f"key one:{b64(RFC_SEED)}",
            "FRAY_SIGNING_KEY: entry 1: the key id 'key one' is not an id",
            id="a key id with a space",
        ),
        pytest.param(
            f"{OLD},{entry('old', RFC_SEED)}",
            "FRAY_SIGNING_KEY: the key id 'old' is listed twice",
            id="a key id twice",
        ),
        pytest.param(
            "k1:not+base64/url",
            "FRAY_SIGNING_KEY: the key of 'k1' is not base64url",
            id="standard base64",
        ),
        pytest.param(
            entry("k1", RFC_SEED[:16]),
            "FRAY_SIGNING_KEY: the key of 'k1' is 16 bytes; an Ed25519 seed is 32",
            id="a short seed",
        ),
        pytest.param("k1:A", "FRAY_SIGNING_KEY: the key of 'k1' is not base64url", id="one char"),
    ],
)
def test_a_signing_key_that_does_not_parse_is_named_and_not_echoed(text: str, message: str) -> None:
    with pytest.raises(SigningKeyError) as raised:
        parse_signing_keys(text)

    assert message in str(raised.value)
    assert b64(RFC_SEED) not in str(raised.value)


def test_a_padded_seed_is_accepted() -> None:
    padded = base64.urlsafe_b64encode(RFC_SEED).decode()
    assert padded.endswith("=")

    (key,) = parse_signing_keys(f"k1:{padded}")

    assert key.public_key == b64(RFC_PUBLIC)


def test_a_made_up_key_parses_and_its_id_says_where_it_came_from() -> None:
    made = new_key_entry("dev")

    (key,) = parse_signing_keys(made)

    assert key.kid.startswith("dev-") and len(key.kid) == len("dev-") + 8
    assert made != new_key_entry("dev")


def test_without_a_setting_the_signer_makes_up_a_key_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="fray.api"):
        first = Signer.from_setting(None)
        second = Signer.from_setting("  ")

    assert first.kid.startswith("ephemeral-") and first.kid != second.kid
    (warning, _) = [r.getMessage() for r in caplog.records]
    assert "FRAY_SIGNING_KEY is not set" in warning
    assert "will not verify after a restart" in warning and "another instance" in warning


def test_with_a_setting_the_signer_uses_it_and_a_bad_one_fails() -> None:
    assert Signer.from_setting(f"{NEW},{OLD}").kid == "new"
    with pytest.raises(SigningKeyError, match="FRAY_SIGNING_KEY"):
        Signer.from_setting("nonsense")
    with pytest.raises(ValueError, match="at least one key"):
        Signer([])
