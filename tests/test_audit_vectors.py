"""docs/audit.md's known-answer vectors are what Fray computes.

The vectors are read from the doc itself (each a fenced `json` block with a `"vector"`
member), so a value changed in the doc, or a change in the code that computes it, fails
here. Draws are also re-derived with plain `hmac`, and the receipt with the `cryptography`
package, so the doc is checked against more than Fray's own code path.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.app.receipts import Signer, SigningKey
from service.deciding import CommandRequest, Loaded, decide_envelopes
from service.domain.canonical import ZERO_HASH, canonical_bytes, envelope_hash, sha256_hex
from service.domain.common import EncounterCreated
from service.domain.context import Actor
from service.domain.draws import Roller, draw, shuffle_from
from service.domain.envelope import Envelope, seal
from service.domain.receipts import verify_receipt
from service.domain.timefmt import parse_iso
from service.rules.registry import ruleset_at

DOC = Path(__file__).resolve().parents[1] / "docs" / "audit.md"
VECTORS = (
    "seed", "canonical", "draws", "dice", "shuffle", "envelope", "salted-envelope", "chain",
    "receipt",
)  # fmt: skip
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)

Vector = dict[str, Any]


def fenced(info: str) -> list[str]:
    """The contents of the doc's fenced blocks whose info string is `info`."""
    return [body for kind, body in _FENCE.findall(DOC.read_text("utf-8")) if kind == info]


@cache
def vectors() -> dict[str, Vector]:
    found: dict[str, Vector] = {}
    for body in fenced("json"):
        value = json.loads(body)
        if isinstance(value, dict) and "vector" in value:
            assert value["vector"] not in found, f"vector {value['vector']!r} given twice"
            found[value["vector"]] = value
    return found


def vector(name: str) -> Vector:
    return vectors()[name]


def seed_of(v: Vector) -> bytes:
    return bytes.fromhex(v["seed"])


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_the_doc_has_every_vector_once():
    assert sorted(vectors()) == sorted(VECTORS)


def test_every_vector_uses_the_one_seed():
    seeds = {v["seed"] for v in vectors().values() if "seed" in v}
    assert seeds == {vector("seed")["seed"]}
    assert len(seed_of(vector("seed"))) == 32


# --- the seed and canonical JSON -----------------------------------------------------------


def test_the_commitment_is_the_sha256_of_the_seed_bytes():
    v = vector("seed")
    assert sha256_hex(seed_of(v)) == v["seed_commitment"]


@pytest.mark.parametrize("case", vector("canonical")["cases"], ids=lambda case: case["name"])
def test_canonical_json(case: Vector):
    written = canonical_bytes(case["value"])
    assert written == case["canonical"].encode("utf-8")
    if "canonical_utf8" in case:
        assert written.hex() == case["canonical_utf8"]
    assert sha256_hex(written) == case["sha256"]


# --- draws, dice and shuffles --------------------------------------------------------------


def test_draws_are_what_draw_gives():
    v = vector("draws")
    for d in v["draws"]:
        assert draw(seed_of(v), d["v"], d["n"], d["k"]) == d["value"], d


@pytest.mark.parametrize("index", range(len(vector("draws")["draws"])))
def test_each_draw_shows_its_attempts_as_the_algorithm_makes_them(index: int):
    v = vector("draws")
    d = v["draws"][index]
    limit = 2**64 - 2**64 % d["k"]
    if "limit" in d:
        assert int(d["limit"], 16) == limit
    for a, attempt in enumerate(d["attempts"]):
        message = f"{d['v']}:{d['n']}:{a}"
        mac = hmac.new(seed_of(v), message.encode("ascii"), hashlib.sha256).digest()
        assert (attempt["a"], attempt["message"]) == (a, message)
        if "hmac" in attempt:
            assert attempt["hmac"] == mac.hex()
        assert attempt["x"] == mac[:8].hex()
        assert attempt["accepted"] == (int(attempt["x"], 16) < limit)
    *rejected, accepted = d["attempts"]
    assert accepted["accepted"] and not any(r["accepted"] for r in rejected)
    assert d["value"] == int(accepted["x"], 16) % d["k"]


def test_a_draw_vector_needs_a_rejection_and_says_which_attempt_was_accepted():
    rejecting = [d for d in vector("draws")["draws"] if len(d["attempts"]) > 1]
    assert rejecting, "keep a draw whose first attempt is rejected"
    assert all(d["k"] < 2**53 for d in vector("draws")["draws"])


def test_dice_are_what_the_roller_rolls():
    v = vector("dice")
    roller = Roller(seed=seed_of(v), version=v["v"])
    faces = [roller.die(d["sides"], d["purpose"]) for d in v["dice"]]
    assert [r.to_dict() for r in roller.records] == v["records"]
    assert faces == [r["value"] for r in v["records"]]
    for n, record in enumerate(v["records"]):
        assert record["value"] == draw(seed_of(v), v["v"], n, record["k"]) + 1


def test_the_shuffle_is_what_the_roller_shuffles():
    v = vector("shuffle")
    roller = Roller(seed=seed_of(v), version=v["v"])
    assert roller.shuffle(v["items"], v["purpose"]) == v["result"]
    assert [r.to_dict() for r in roller.records] == v["records"]


def test_the_shuffle_swaps_from_the_end_with_one_draw_each():
    v = vector("shuffle")
    m = len(v["items"])
    assert [(s["i"], s["n"], s["k"]) for s in v["swaps"]] == [
        (i, n, i + 1) for n, i in enumerate(range(m - 1, 0, -1))
    ]
    for swap in v["swaps"]:
        assert swap["j"] == draw(seed_of(v), v["v"], swap["n"], swap["k"])
    assert shuffle_from(v["items"], [s["j"] for s in v["swaps"]]) == v["result"]
    assert [r["value"] for r in v["records"]] == [s["j"] for s in v["swaps"]]


# --- the envelope and the chain ------------------------------------------------------------


def test_the_envelope_hash_is_the_sha256_of_its_canonical_json_without_hash():
    v = vector("envelope")
    envelope = v["envelope"]
    body = {key: value for key, value in envelope.items() if key != "hash"}
    assert canonical_bytes(body) == v["hashed"].encode("utf-8")
    assert hashlib.sha256(v["hashed"].encode("utf-8")).hexdigest() == v["hash"]
    assert envelope_hash(envelope) == v["hash"] == envelope["hash"]
    assert canonical_bytes(envelope) == v["line"].encode("utf-8")


def test_the_hashed_bytes_are_the_line_with_its_hash_member_cut_out():
    v = vector("envelope")
    member = f'"hash":"{v["hash"]}",'
    assert v["line"].rfind('"hash":"') == v["line"].index(member)
    assert v["line"].replace(member, "") == v["hashed"]


def test_sealing_the_envelope_writes_the_vector_line():
    v = vector("envelope")
    fields = {key: value for key, value in v["envelope"].items() if key != "hash"}
    sealed = seal(**fields)
    assert sealed.body() == v["line"].encode("utf-8")
    assert sealed.hash == v["hash"]
    assert Envelope.from_body(v["line"].encode("utf-8")).computed_hash() == v["hash"]


@pytest.mark.parametrize("name", ["envelope", "salted-envelope"])
def test_an_envelope_vector_hashes_its_canonical_json_without_hash(name: str):
    v = vector(name)
    body = {key: value for key, value in v["envelope"].items() if key != "hash"}
    assert canonical_bytes(body) == v["hashed"].encode("utf-8")
    assert hashlib.sha256(v["hashed"].encode("utf-8")).hexdigest() == v["hash"]
    assert envelope_hash(v["envelope"]) == v["hash"] == v["envelope"]["hash"]
    assert canonical_bytes(v["envelope"]) == v["line"].encode("utf-8")
    member = f'"hash":"{v["hash"]}",'
    assert v["line"].replace(member, "") == v["hashed"]


def test_the_salted_envelope_is_the_envelope_vector_with_a_salt():
    plain, salted = vector("envelope"), vector("salted-envelope")
    salt = salted["envelope"]["salt"]
    assert len(salt) == 32 and int(salt, 16) >= 0
    assert {k: v for k, v in salted["envelope"].items() if k not in ("salt", "hash")} == {
        k: v for k, v in plain["envelope"].items() if k != "hash"
    }
    assert salted["hash"] != plain["hash"]
    # The salt sorts after `rolls`, before `schema`: between them in the hashed bytes.
    assert f'}}],"salt":"{salt}","schema":1,' in salted["hashed"]


def test_sealing_with_the_salt_writes_the_salted_vector_line():
    v = vector("salted-envelope")
    fields = {key: value for key, value in v["envelope"].items() if key != "hash"}
    sealed = seal(**fields)
    assert sealed.body() == v["line"].encode("utf-8")
    assert sealed.hash == v["hash"]
    read = Envelope.from_body(v["line"].encode("utf-8"))
    assert read.salt == fields["salt"] and read.computed_hash() == v["hash"]
    unsalted = Envelope.from_dict({k: x for k, x in v["envelope"].items() if k != "salt"})
    assert unsalted.computed_hash() != v["hash"]  # a stripped salt no longer hashes


def test_the_chain_links_and_hashes():
    v = vector("chain")
    envelopes = [Envelope.from_body(line.encode("utf-8")) for line in v["lines"]]
    previous = ZERO_HASH
    for number, (line, envelope) in enumerate(zip(v["lines"], envelopes, strict=True), 1):
        assert envelope.body() == line.encode("utf-8")  # stored bytes, as read back
        assert canonical_bytes(envelope.to_dict()) == line.encode("utf-8")
        assert envelope.version == number
        assert envelope.prev_hash == previous
        assert envelope.computed_hash() == envelope.hash == v["hashes"][number - 1]
        previous = envelope.hash
    assert v["lines"][1] == vector("envelope")["line"]


def test_the_chain_commits_to_the_seed_and_draws_its_dice_from_it():
    v = vector("chain")
    first, second = (json.loads(line) for line in v["lines"])
    assert first["type"] == "encounter-created"
    assert first["data"]["encounter_id"] == v["encounter_id"]
    assert first["data"]["seed_commitment"] == vector("seed")["seed_commitment"]
    for roll in second["rolls"]:
        assert roll["value"] == draw(seed_of(v), second["version"], roll["n"], roll["k"]) + 1
    by_draw = {(d["v"], d["n"], d["k"]): d["value"] for d in vector("draws")["draws"]}
    assert second["rolls"][0]["value"] == by_draw[(2, 0, 20)] + 1
    assert second["rolls"][1]["value"] == by_draw[(2, 1, 6)] + 1


def test_re_running_the_chains_command_reproduces_version_2():
    v = vector("chain")
    first, second = (Envelope.from_body(line.encode("utf-8")) for line in v["lines"])
    created = EncounterCreated.model_validate(first.data)
    ruleset = ruleset_at(created.ruleset, created.ruleset_version)
    assert ruleset.version == created.ruleset_version
    assert second.command is not None
    _, produced = decide_envelopes(
        Loaded(ruleset, ruleset.initial_state(created), first.version, first.hash),
        ruleset.parse_command(second.command, strict=False),
        CommandRequest(command=second.command),
        Actor.from_dict(second.actor),
        second.command_id,
        seed_of(v),
        parse_iso(second.at),
    )
    assert [e.body() for e in produced] == [v["lines"][1].encode("utf-8")]


# --- receipts ------------------------------------------------------------------------------

# `issue(private_key, kid, payload) -> receipt`: a signer under test, given the 32-byte
# Ed25519 private key, the key id and `{"encounter_id", "hash", "version"}`.
Issue = Callable[[bytes, str, Mapping[str, Any]], Mapping[str, Any]]
# `verify(public_key, receipt) -> bool`: a verifier under test, given the 32 raw bytes.
Verify = Callable[[bytes, Mapping[str, Any]], bool]


def assert_issues_the_vector_receipt(issue: Issue) -> None:
    """The hook for any signer (Fray's own included): it must issue the doc's receipt."""
    v = vector("receipt")
    receipt = issue(bytes.fromhex(v["private_key"]), v["kid"], v["payload"])
    assert {key: receipt[key] for key in ("encounter_id", "hash", "version", "sig")} == {
        key: v["receipt"][key] for key in ("encounter_id", "hash", "version", "sig")
    }


def assert_verifies_the_vector_receipt(verify: Verify) -> None:
    """The hook for any verifier: the doc's receipt verifies, an altered one does not."""
    v = vector("receipt")
    key = unb64url(v["public_key"])
    assert verify(key, v["receipt"])
    assert not verify(key, {**v["receipt"], "version": v["receipt"]["version"] + 1})
    assert not verify(key, {**v["receipt"], "hash": "0" * 64})


def cryptography_issue(private_key: bytes, kid: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    signed = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    sig = Ed25519PrivateKey.from_private_bytes(private_key).sign(signed.encode("utf-8"))
    return {"kid": kid, **payload, "sig": b64url(sig)}


def cryptography_verify(public_key: bytes, receipt: Mapping[str, Any]) -> bool:
    signed = {key: receipt[key] for key in ("encounter_id", "hash", "version")}
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            unb64url(receipt["sig"]), canonical_bytes(signed)
        )
    except InvalidSignature:
        return False
    return True


def test_the_receipt_key_is_rfc_8032_test_1():
    v = vector("receipt")
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key"]))
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert raw.hex() == v["public_key_hex"]
    assert b64url(raw) == v["public_key"] and len(v["public_key"]) == 43
    # RFC 8032, section 7.1, TEST 1: the public key above, and the empty message's signature.
    assert key.sign(b"").hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )


def test_the_receipt_signs_the_canonical_json_of_its_payload():
    v = vector("receipt")
    assert canonical_bytes(v["payload"]) == v["signed"].encode("utf-8")
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key"]))
    assert key.sign(v["signed"].encode("utf-8")).hex() == v["sig_hex"]
    assert unb64url(v["receipt"]["sig"]).hex() == v["sig_hex"] and len(v["receipt"]["sig"]) == 86
    assert v["receipt"] == {"kid": v["kid"], **v["payload"], "sig": v["receipt"]["sig"]}


def test_the_receipt_is_for_the_vector_chains_head():
    v = vector("receipt")
    chain = vector("chain")
    assert v["payload"] == {
        "encounter_id": chain["encounter_id"],
        "hash": chain["hashes"][-1],
        "version": len(chain["lines"]),
    }


def test_cryptography_issues_the_vector_receipt():
    assert_issues_the_vector_receipt(cryptography_issue)


def test_cryptography_verifies_the_vector_receipt():
    assert_verifies_the_vector_receipt(cryptography_verify)


# --- the export example --------------------------------------------------------------------


def test_the_export_example_is_a_header_then_the_vector_chain():
    (example,) = fenced("jsonl")
    header, *lines = example.splitlines()
    parsed = json.loads(header)
    assert sorted(parsed) == ["encounter_id", "exported_at", "fray_export", "head", "keys"]
    assert parsed["fray_export"] == 1
    assert parsed["encounter_id"] == vector("chain")["encounter_id"]
    assert parsed["head"] == vector("receipt")["receipt"]
    receipt = vector("receipt")
    assert parsed["keys"] == [
        {"kid": receipt["kid"], "alg": "Ed25519", "public_key": receipt["public_key"]}
    ]
    assert lines == vector("chain")["lines"]


def fray_issue(private_key: bytes, kid: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    signer = Signer([SigningKey.from_seed(kid, private_key)])
    return signer.receipt(payload["encounter_id"], payload["version"], payload["hash"])


def fray_verify(public_key: bytes, receipt: Mapping[str, Any]) -> bool:
    keys = [{"kid": receipt["kid"], "alg": "Ed25519", "public_key": b64url(public_key)}]
    return verify_receipt(receipt, keys) is None


def test_frays_signer_issues_the_vector_receipt():
    assert_issues_the_vector_receipt(fray_issue)


def test_frays_verifier_verifies_the_vector_receipt():
    assert_verifies_the_vector_receipt(fray_verify)
