"""Shapes declared once (issue 26, item 6): the envelope and the error catalogue are each
declared in one place, and the OpenAPI document, the GraphQL schema and the tables of
docs/api.md are derived from them."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLObjectType

from service.api import catalogue, doctables
from service.api.errors import status_of
from service.api.graphql.schema import build_schema
from service.api.openapi import OPERATIONS, build_openapi
from service.demos.runner import StepRefused
from service.domain.envelope import ENVELOPE_FIELDS, REQUIRED_FIELDS, seal
from service.domain.errors import FrayError, RuleViolation
from service.store.errors import StoreError

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
    assert sorted(event["required"]) == sorted(REQUIRED_FIELDS)  # all but `salt`
    assert all(p.get("description") for p in event["properties"].values())


def test_the_graphql_event_has_the_envelopes_fields_and_descriptions_then_its_receipt() -> None:
    event = build_schema()._schema.type_map["Event"]
    assert isinstance(event, GraphQLObjectType)
    camel = [
        f.split("_")[0] + "".join(p.title() for p in f.split("_")[1:]) for f in ENVELOPE_FIELDS
    ]
    assert list(event.fields) == [*camel, "receipt"]
    assert all(field.description for field in event.fields.values())


@pytest.mark.parametrize("salt", [None, "0f" * 16], ids=["unsalted", "salted"])
def test_a_sealed_envelope_validates_against_the_openapi_event(salt: str | None) -> None:
    from service.api.shapes import Event

    envelope = seal(
        version=1, type="encounter-created", schema=1, data={"ruleset": "freeform"},
        at="2026-11-26T00:00:00.000Z", command_id="c-1", actor={"id": "gm", "role": "gm"},
        command=None, rolls=[], prev_hash="0" * 64, salt=salt,
    )  # fmt: skip
    assert ("salt" in envelope.to_dict()) == (salt is not None)
    validated = Event.model_validate(envelope.to_dict())
    assert validated.model_dump(by_alias=True, exclude_unset=True) == envelope.to_dict()


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


# A code is a string literal of this shape; what Fray's source holds in this shape and is
# not a code an answer carries is named here, with the reason.
CODE = re.compile(r"^[a-z][a-z0-9-]*/[a-z0-9-]+$")
SOURCE = Path(__file__).parents[2]
NOT_ANSWERED = {
    FrayError.code: "the base class's default; every error names its own code",
    StepRefused.code: "`fray demo` prints it; no HTTP or GraphQL answer carries it",
    **{code: "a media type" for code in ("application/json", "application/x-ndjson")},
    **{code: "a media type" for code in ("text/event-stream", "text/plain")},
    **{code: "a media type" for code in ("text/css", "text/javascript")},
}


def _store_codes(kind: type[StoreError]) -> set[str]:
    """The store's own codes: the engine turns each into an API error before it answers."""
    return {kind.code}.union(*(_store_codes(sub) for sub in kind.__subclasses__()))


def _code_literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value)
    }


def _sources() -> list[Path]:
    return sorted((SOURCE / "service").rglob("*.py")) + sorted((SOURCE / "workers").rglob("*.py"))


def _ruleset_of(path: Path) -> str | None:
    """The ruleset whose package holds `path` (`fifty-two`), or None outside one."""
    parts = path.relative_to(SOURCE).parts
    inside = parts[:2] == ("service", "rules") and len(parts) > 3
    return parts[2].replace("_", "-") if inside else None


def test_every_code_the_source_holds_outside_a_ruleset_is_in_the_catalogue() -> None:
    """Issue 23 item 7: `encounter/busy` and the `dice/*` codes were missing from the table."""
    catalogued = {code for kind in catalogue.CATALOGUE for code in kind.codes}
    skipped = set(NOT_ANSWERED) | _store_codes(StoreError)
    missing = {
        f"{path.relative_to(SOURCE)}: {code}"
        for path in _sources()
        if _ruleset_of(path) is None
        for code in _code_literals(path) - catalogued - skipped
    }
    assert not missing, "add these to service/api/catalogue.py, then `make docs`"


def test_every_code_a_ruleset_raises_is_on_its_page_or_in_the_catalogue() -> None:
    catalogued = {code for kind in catalogue.CATALOGUE for code in kind.codes}
    missing = set()
    for path in _sources():
        ruleset = _ruleset_of(path)
        if ruleset is None:
            continue
        page = (SOURCE / "docs" / "rules" / f"{ruleset}.md").read_text()
        missing |= {
            f"{path.relative_to(SOURCE)}: {code}"
            for code in _code_literals(path) - catalogued
            if f"`{code}`" not in page
        }
    assert not missing, "list these in the ruleset's docs/rules page"


def test_the_code_scan_finds_codes_the_rules_raise_through_helpers() -> None:
    """The scan reads literals, not calls, so a code passed through a helper
    (`_refuse("gift/one-point", ...)`) or named by a constant counts too."""
    found = set().union(*map(_code_literals, _sources()))
    assert {"gift/one-point", "dice/bad-expression", "encounter/busy"} <= found
    assert "store/version-conflict" in _store_codes(StoreError)


@pytest.mark.parametrize(
    "kind", [k for k in catalogue.CATALOGUE if k.status == 422 and not k.examples],
    ids=lambda k: k.codes[0],
)  # fmt: skip
def test_a_rule_code_the_catalogue_lists_answers_422_as_the_rules_raise_it(kind: Any) -> None:
    for code in kind.codes:
        assert status_of(RuleViolation(code, "no")) == 422
