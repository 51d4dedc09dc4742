"""The strawberry schema: queries, mutations, subscriptions, and the limits on a document."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from graphql import GraphQLError
from strawberry import Schema
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)

from service.api.graphql.mutation import Mutation
from service.api.graphql.query import Query
from service.api.graphql.subscription import Subscription
from service.domain.errors import FrayError

# encounter { summary { combatants { position { x } } } } is 5 deep; introspection is
# not counted. A command with a whole map (setMap) is a few thousand tokens at most.
MAX_DEPTH = 8
MAX_ALIASES = 15
MAX_TOKENS = 5000


def _unexpected(error: GraphQLError) -> bool:
    """Mask errors Fray did not raise on purpose: their text may leak internals."""
    original = error.original_error
    return original is not None and not isinstance(original, GraphQLError | FrayError)


def build_schema() -> Schema:
    # Factories: strawberry builds fresh extensions per request; the parser and validation
    # caches live at module level, keyed by maxsize, so they are shared all the same.
    extensions: list[Callable[[], SchemaExtension]] = [
        partial(QueryDepthLimiter, max_depth=MAX_DEPTH),
        partial(MaxAliasesLimiter, max_alias_count=MAX_ALIASES),
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
