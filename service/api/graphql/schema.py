"""The strawberry schema: queries, mutations, subscriptions, and the limits on a document."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    parse,
    specified_rules,
)
from strawberry import Schema
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule
from strawberry.schema.schema import validate_document

from service.api.graphql.mutation import Mutation, resolve_submit_command
from service.api.graphql.query import Query
from service.api.graphql.subscription import Subscription
from service.domain.errors import FrayError

# encounter { summary { combatants { position { x } } } } is 5 deep; introspection is
# not counted. A command with a whole map (setMap) is a few thousand tokens at most.
MAX_DEPTH = 8
MAX_ALIASES = 15
MAX_TOKENS = 5000
# The rule classes are built once: the validation cache keys on the rules, and
# QueryDepthLimiter / MaxAliasesLimiter build a new class per request, so with them every
# request missed the cache and was validated in full (2-2.5 ms a command here).
LIMIT_RULES: tuple[type[ASTValidationRule], ...] = (
    depth_rule(MAX_DEPTH, None, None),
    aliases_rule(MAX_ALIASES),
)
# What a document is validated against: graphql-core's rules (strawberry's default) and
# the limits; `validate_document` adds strawberry's @oneOf and Maybe rules.
RULES: tuple[type[ASTValidationRule], ...] = (*specified_rules, *LIMIT_RULES)
CACHED_DOCUMENTS = 256
MASKED = "an internal error occurred"


def _unexpected(error: GraphQLError) -> bool:
    """Mask errors Fray did not raise on purpose: their text may leak internals."""
    original = error.original_error
    return original is not None and not isinstance(original, GraphQLError | FrayError)


@lru_cache(maxsize=CACHED_DOCUMENTS)
def parsed(query: str) -> DocumentNode:
    """A document parsed once per text (a parse error is raised again each time)."""
    return parse(query, max_tokens=MAX_TOKENS)


@lru_cache(maxsize=CACHED_DOCUMENTS)
def validated(
    schema: GraphQLSchema, query: str, rules: tuple[type[ASTValidationRule], ...]
) -> list[GraphQLError]:
    """The validation errors of a text's document, found once per text and rules. Keyed on
    the text: strawberry's ValidationCache keys on the document, whose hash walks the whole
    syntax tree on every request. strawberry's own rules (@oneOf, Maybe) are added to them."""
    return validate_document(schema, parsed(query), rules)


class Documents(SchemaExtension):
    """Fray's limits and caches in one extension (strawberry builds and enters every
    extension per request, so one costs less than the five it replaces: ParserCache,
    ValidationCache, MaxTokensLimiter, AddValidationRules and MaskErrors):

    - a document is at most MAX_TOKENS tokens, MAX_DEPTH deep, with MAX_ALIASES aliases;
    - parsing and validation are cached by the document's text;
    - an error Fray did not raise on purpose is masked: its text may leak internals.
    """

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        context.validation_rules = (*context.validation_rules, *LIMIT_RULES)
        yield
        result = context.result
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = [_masked(e) if _unexpected(e) else e for e in errors]  # type: ignore[union-attr]

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.query is not None and context.graphql_document is None:
            context.graphql_document = parsed(context.query)
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.query is not None:
            context.pre_execution_errors = validated(
                context.schema._schema, context.query, tuple(context.validation_rules)
            )
        yield


def _masked(error: GraphQLError) -> GraphQLError:
    return GraphQLError(
        MASKED,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
    )


def build_schema() -> Schema:
    schema = Schema(
        query=Query, mutation=Mutation, subscription=Subscription, extensions=[Documents]
    )
    mutations = schema._schema.mutation_type
    assert mutations is not None
    mutations.fields["submitCommand"].resolve = resolve_submit_command
    return schema


SCHEMA = build_schema()


def sdl() -> str:
    """The schema in SDL: what `fray schema` prints and schema/schema.graphql holds."""
    return SCHEMA.as_str() + "\n"
