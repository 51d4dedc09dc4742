"""Envelopes, canonical JSON and hashes as DESIGN.md defines them."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.canonical import ZERO_HASH, canonical_json, envelope_hash
from service.domain.envelope import Envelope, seal
from service.domain.upcasting import MissingUpcaster, upcast


def sealed(**overrides) -> Envelope:
    fields = dict(
        version=1, type="note-added", schema=1, data={"text": "héllo", "hidden": False},
        at="2026-01-01T12:00:00.000Z", command_id="c1", actor={"id": "gm", "role": "gm"},
        command={"type": "add-note", "text": "héllo"}, rolls=[], prev_hash=ZERO_HASH,
    )  # fmt: skip
    fields.update(overrides)
    return seal(**fields)


def test_canonical_json_sorts_keys_without_whitespace_or_escapes():
    assert canonical_json({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'


def test_canonical_json_refuses_nan():
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_the_hash_is_sha256_of_the_canonical_envelope_without_hash():
    envelope = sealed()
    body = {k: v for k, v in envelope.to_dict().items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert envelope.hash == hashlib.sha256(text.encode()).hexdigest()


def test_any_change_changes_the_hash():
    assert sealed().hash != sealed(data={"text": "hello", "hidden": False}).hash


def test_an_envelope_round_trips_through_its_body():
    envelope = sealed()
    assert Envelope.from_body(envelope.body()) == envelope


def test_upcasters_run_step_by_step():
    steps = {
        ("x", 1): lambda d: {**d, "b": 2},
        ("x", 2): lambda d: {"c": d["a"] + d["b"]},
    }
    assert upcast(steps, "x", 1, 3, {"a": 1}) == {"c": 3}
    with pytest.raises(MissingUpcaster):
        upcast(steps, "y", 1, 2, {})


_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
_json = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@given(
    data=st.dictionaries(st.text(max_size=12), _json, max_size=5),
    command=st.none() | st.dictionaries(st.text(max_size=12), _json, max_size=4),
    rolls=st.lists(st.dictionaries(st.text(max_size=6), _json, max_size=3), max_size=3),
    kind=st.text(min_size=1, max_size=20),
    version=st.integers(1, 2**53 - 1),
)
def test_a_sealed_body_is_the_canonical_json_of_the_envelope(data, command, rolls, kind, version):
    # `seal` writes the body while hashing, from the halves either side of `hash`: the same
    # bytes as the canonical JSON of the whole envelope, and the same hash.
    envelope = sealed(data=data, command=command, rolls=rolls, type=kind, version=version)
    whole = envelope.to_dict()
    assert envelope.body() == canonical_json(whole).encode()
    assert envelope.hash == envelope_hash(whole)
    assert Envelope.from_body(envelope.body()).body() == envelope.body()


def test_an_envelope_read_back_computes_its_body():
    envelope = sealed()
    read = Envelope.from_dict(envelope.to_dict())
    assert read.sealed_body is None
    assert read.body() == envelope.body() and read == envelope
