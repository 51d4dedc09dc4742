"""The ASGI app mounted at /graphql: HTTP queries and mutations, GraphiQL in a browser
(service.api.graphiql: served from Fray's own origin), subscriptions over
graphql-transport-ws."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphql import OperationType, get_operation_ast, parse
from graphql.error import GraphQLError, GraphQLSyntaxError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.types import ExecutionResult

from service.api.graphiql import asset_route, page_response
from service.api.graphql.compiled import CompiledGraphQL
from service.api.graphql.context import Context, graphql_error
from service.api.graphql.schema import SCHEMA
from service.domain.errors import FrayError

if TYPE_CHECKING:
    from cross_web import AsyncHTTPRequestAdapter
    from strawberry.http import GraphQLRequestData

PROTOCOLS = ("graphql-transport-ws",)


class FrayGraphQL(GraphQL[Context, None]):
    assets = "/graphql/assets"  # where the GraphiQL page finds its assets

    def decode_json(self, data: str | bytes) -> object:
        """JSON nested too deeply for Python's parser is malformed JSON: a 400 for a body
        ("Unable to parse request body as JSON"), a 4400 close for a websocket message,
        where strawberry lets the RecursionError escape (a 500, a crashed connection)."""
        try:
            return json.loads(data)
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """A subscription sent over HTTP is refused with its own code: it runs over a
        websocket (graphql-transport-ws). Strawberry would run its resolver as a plain
        field and answer "an internal error occurred" (a null it cannot return)."""
        query, name = request_data.query, request_data.operation_name
        if query is not None and "subscription" in query and _is_subscription(query, name):
            error = FrayError(
                "a subscription runs over a websocket at /graphql (the graphql-transport-ws "
                "protocol), not in an HTTP request; queries and mutations run over HTTP",
                code="request/subscription-over-http",
            )
            return ExecutionResult(data=None, errors=[graphql_error(error)])
        return await super().execute_single(
            request, request_adapter, sub_response, context, root_value, request_data
        )

    async def render_graphql_ide(self, request: Request) -> Response:
        """Fray's GraphiQL page, not strawberry's (which loads everything from a CDN)."""
        return page_response(self.assets)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        return Context(request=request, response=response)


def _is_subscription(query: str, operation_name: str | None) -> bool:
    """Whether the operation a request runs is a subscription (a query that does not parse,
    or names no operation it has, is left to strawberry's own errors)."""
    try:
        operation = get_operation_ast(parse(query), operation_name)
    except (GraphQLSyntaxError, GraphQLError):
        return False
    return operation is not None and operation.operation == OperationType.SUBSCRIPTION


def make_graphql_app(origins: Sequence[str] = (), assets: str = "/graphql/assets") -> FrayGraphQL:
    """A new ASGI app; it reads the engine, hub and auth from the Starlette app's state.

    CORS does not cover websockets, so strawberry refuses a handshake whose `Origin` is
    another site's unless it is one of `origins` (FRAY_CORS_ORIGINS, or `*`): a browser
    page may subscribe from the origins that may call the REST API, and from no other."""
    app = FrayGraphQL(
        SCHEMA,
        subscription_protocols=PROTOCOLS,
        graphql_ide="graphiql",
        allowed_origins=origins,
    )
    app.assets = assets
    return app


def graphql_routes(path: str = "/graphql", origins: Sequence[str] = ()) -> list[BaseRoute]:
    """The routes to list in `create_app`: HTTP and websocket at one path. (A `Mount` would
    answer a POST to /graphql with a redirect to /graphql/.) A POSTed `submitCommand` runs
    compiled when it can (service.api.graphql.compiled). GraphiQL's assets are under
    `<path>/assets/`."""
    app = make_graphql_app(origins, assets=path + "/assets")
    return [
        Route(path, CompiledGraphQL(app)),
        WebSocketRoute(path, app),
        asset_route(app.assets),
    ]
