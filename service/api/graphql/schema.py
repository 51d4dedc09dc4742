"""The strawberry schema: queries, mutations, subscriptions, and the limits on a document."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from graphql import ASTValidationRule, GraphQLError
from strawberry import Schema
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxTokensLimiter,
    ParserCache,
    SchemaExtension,
    ValidationCache,
)
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule

from service.api.graphql.mutation import Mutation
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
LIMIT_RULES: list[type[ASTValidationRule]] = [
    depth_rule(MAX_DEPTH, None, None),
    aliases_rule(MAX_ALIASES),
]


def _unexpected(error: GraphQLError) -> bool:
    """Mask errors Fray did not raise on purpose: their text may leak internals."""
    original = error.original_error
    return original is not None and not isinstance(original, GraphQLError | FrayError)


def build_schema() -> Schema:
    # Factories: strawberry builds fresh extensions per request; the parser and validation
    # caches live at module level, keyed by maxsize, so they are shared all the same.
    extensions: list[Callable[[], SchemaExtension]] = [
        partial(AddValidationRules, LIMIT_RULES),
        partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
        partial(ParserCache, maxsize=256),
        partial(ValidationCache, maxsize=256),
        partial(
            MaskErrors, should_mask_error=_unexpected, error_message="an internal error occurred"
        ),
    ]
    return Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
    )


SCHEMA = build_schema()


def sdl() -> str:
    """The schema in SDL: what `fray schema` prints and schema/schema.graphql holds."""
    return SCHEMA.as_str() + "\n"
