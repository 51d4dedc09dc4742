"""Shapes declared once (issue 26, item 6): the envelope and the error catalogue are each
declared in one place, and the OpenAPI document, the GraphQL schema and the tables of
docs/api.md are derived from them."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLObjectType

from service.api import catalogue, doctables
from service.api.errors import status_of
from service.api.graphql.schema import build_schema
from service.api.openapi import OPERATIONS, build_openapi
from service.domain.envelope import ENVELOPE_FIELDS, seal
from service.domain.errors import FrayError, RuleViolation

GUIDE = doctables.GUIDE.read_text()


def test_the_derived_tables_of_the_guide_are_rendered_from_code() -> None:
    """`make docs` writes them; run it when this fails."""
    standing = doctables.regions(GUIDE)
    assert sorted(standing) == sorted(doctables.TABLES)
    assert standing == doctables.regions(doctables.rendered(GUIDE))


def test_a_changed_description_shows_as_drift() -> None:
    tampered = GUIDE.replace("64 zeros for version 1", "zeros")
    assert doctables.regions(tampered) != doctables.regions(doctables.rendered(tampered))


def test_the_openapi_event_has_the_envelopes_fields_and_descriptions() -> None:
    event = build_openapi()["components"]["schemas"]["Event"]
    assert list(event["properties"]) == list(ENVELOPE_FIELDS)
    assert sorted(event["required"]) == sorted(ENVELOPE_FIELDS)
    assert all(p.get("description") for p in event["properties"].values())


def test_the_graphql_event_has_the_envelopes_fields_and_descriptions_then_its_receipt() -> None:
    event = build_schema()._schema.type_map["Event"]
    assert isinstance(event, GraphQLObjectType)
    camel = [
        f.split("_")[0] + "".join(p.title() for p in f.split("_")[1:]) for f in ENVELOPE_FIELDS
    ]
    assert list(event.fields) == [*camel, "receipt"]
    assert all(field.description for field in event.fields.values())


def test_a_sealed_envelope_validates_against_the_openapi_event() -> None:
    from service.api.shapes import Event

    envelope = seal(
        version=1, type="encounter-created", schema=1, data={"ruleset": "freeform"},
        at="2026-11-26T00:00:00.000Z", command_id="c-1", actor={"id": "gm", "role": "gm"},
        command=None, rolls=[], prev_hash="0" * 64,
    )  # fmt: skip
    assert Event.model_validate(envelope.to_dict()).model_dump(by_alias=True) == (
        envelope.to_dict()
    )


@pytest.mark.parametrize(
    "kind", [k for k in catalogue.CATALOGUE if not k.examples], ids=lambda k: k.codes[0]
)
def test_every_code_the_catalogue_names_answers_with_its_status(kind: Any) -> None:
    for code in kind.codes:
        assert status_of(FrayError("x", code=code)) == kind.status


def test_a_rule_code_the_catalogue_gives_as_an_example_answers_by_its_kind() -> None:
    (rules,) = [k for k in catalogue.CATALOGUE if k.examples]
    for code in rules.codes:
        assert status_of(RuleViolation(code, "no")) == rules.status
        assert code not in catalogue.STATUSES


def test_every_code_an_operation_documents_is_in_the_catalogue_with_that_status() -> None:
    for operation in OPERATIONS:
        for reply in operation.replies:
            for code in reply.codes:
                assert code in catalogue.codes_of(reply.status), (operation.path, code)
