"""The schema's one extension (service.api.graphql.schema.Documents): cached parsing and
validation keyed by the document's text, strawberry's own rules kept, unexpected errors
masked; and submitCommand resolved by graphql-core directly."""

from __future__ import annotations

import strawberry
from graphql import specified_rules

from service.api.graphql.mutation import resolve_submit_command
from service.api.graphql.schema import MASKED, SCHEMA, Documents, parsed, validated
from service.domain.errors import RuleViolation


@strawberry.type
class _Query:
    @strawberry.field
    def secret(self) -> str:
        raise RuntimeError("redis password is hunter2")

    @strawberry.field
    def refused(self) -> str:
        raise RuleViolation("turn/not-your-turn", "it is Bramli's turn")

    @strawberry.field
    def fine(self) -> str:
        return "ok"


TINY = strawberry.Schema(query=_Query, extensions=[Documents])


def test_an_error_fray_did_not_raise_on_purpose_is_masked():
    result = TINY.execute_sync("{ secret }")

    assert result.errors is not None
    assert [e.message for e in result.errors] == [MASKED]
    assert result.errors[0].path == ["secret"]


def test_a_fray_error_keeps_its_message():
    result = TINY.execute_sync("{ refused }")

    assert result.errors is not None and result.errors[0].message == "it is Bramli's turn"


def test_a_document_is_parsed_and_validated_once_per_text():
    query = "{ fine  }"  # a text no other test sends
    parses, validations = parsed.cache_info(), validated.cache_info()

    assert TINY.execute_sync(query).data == {"fine": "ok"}
    assert TINY.execute_sync(query).data == {"fine": "ok"}

    assert parsed.cache_info().misses == parses.misses + 1
    assert validated.cache_info().misses == validations.misses + 1
    assert validated.cache_info().hits == validations.hits + 1


def test_a_syntax_error_is_reported_each_time():
    for _ in range(2):
        result = TINY.execute_sync("{ fine ")
        assert result.errors is not None and "Syntax Error" in result.errors[0].message


def test_validation_keeps_strawberrys_one_of_rule():
    # graphql-core alone lets two members of a @oneOf literal through; strawberry's rule,
    # which the cached validation must keep, refuses them before any resolver runs.
    query = (
        'mutation { submitCommand(encounterId: "e", command: '
        "{freeform: {endEncounter: {}}, fiftyTwo: {endTurn: {}}}) { __typename } }"
    )
    errors = validated(SCHEMA._schema, query, tuple(specified_rules))

    assert errors and "exactly one" in errors[0].message


def test_submit_command_is_resolved_by_graphql_core_directly():
    mutations = SCHEMA._schema.mutation_type
    assert mutations is not None

    assert mutations.fields["submitCommand"].resolve is resolve_submit_command
