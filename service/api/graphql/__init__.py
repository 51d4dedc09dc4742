"""GraphQL at /graphql (strawberry): types generated from the pydantic models."""

from __future__ import annotations

from service.api.graphql.app import graphql_routes, make_graphql_app
from service.api.graphql.schema import sdl

__all__ = ["graphql_routes", "make_graphql_app", "sdl"]
