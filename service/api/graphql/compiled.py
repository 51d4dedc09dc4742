"""`submitCommand` compiled: the hot mutation without strawberry's view or graphql-core's
executor, for the documents where that changes nothing but the cost.

A client sends the same `submitCommand` text again and again with new variables. The first
time a text arrives it is parsed and validated (the same cache and rules as strawberry's
path) and, if it is simple enough, compiled into a `Plan`: the variables it declares with
their types, the arguments, and for each result type (`CommandAccepted`,
`CommandRejected`) the response keys in graphql-core's order with how to complete each.
A request then costs the variables' coercion, one `submit()` and building a dict.

A text is compiled only when it is one mutation whose one root field is `submitCommand`,
with no directives, no variable defaults, no variables inside literals, and selections
(fields, inline fragments, fragment spreads) that read plain fields of the result types.
Anything else, and any request the plan cannot take as it is (variables that do not
coerce, an unknown operation name, a body that is not one JSON object), goes to
strawberry's view unchanged, which answers it as it always has: errors included.
`tests/api/test_graphql_compiled.py` sends the same requests both ways and compares the
answers.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson
from graphql import (
    GraphQLError,
)
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.bodies import read_body
from service.api.graphql.completion import Broken
from service.api.graphql.context import Context
from service.api.graphql.mutation import submit_with
from service.api.graphql.plans import Plan, plan_for
from service.api.graphql.schema import MASKED
from service.domain.errors import FrayError

_log = logging.getLogger("fray.api")
_STREAMING = ("multipart/", "text/event-stream")
NOT_AN_OBJECT = "The GraphQL request body must be a JSON object"


class CompiledGraphQL:
    """The ASGI app at /graphql: a POSTed JSON `submitCommand` whose text compiles runs its
    plan; everything else (GraphiQL, other operations, websockets, anything unusual) goes
    to `app`, strawberry's view, with the body it was sent. A POSTed body is read within
    the size limit (also when it is sent without a length), and a JSON body that is
    neither an object nor a list is answered 400 here (strawberry's view fails on it)."""

    def __init__(self, app: ASGIApp, *, compiled: bool = True) -> None:
        self.app = app
        self.compiled = compiled  # False: strawberry's view answers everything

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await read_body(request)
        response = await self._answer(request, body)
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _answer(self, request: Request, body: bytes) -> Response | None:
        headers = request.headers
        if "application/json" not in headers.get("content-type", ""):
            return None
        try:
            # The standard library's parser, as strawberry's: orjson reads an integer
            # beyond 64 bits as a float, which a JSON scalar would see.
            data = json.loads(body)
        except (ValueError, RecursionError):  # strawberry's view answers (FrayGraphQL)
            return None
        if not isinstance(data, dict | list):
            return PlainTextResponse(NOT_AN_OBJECT, status_code=400)
        if not isinstance(data, dict) or not self.compiled:
            return None
        accept = headers.get("accept", "")
        if any(kind in accept for kind in _STREAMING):
            return None
        query, variables = data.get("query"), data.get("variables")
        operation_name, extensions = data.get("operationName"), data.get("extensions")
        if (
            not isinstance(query, str)
            or not isinstance(variables, dict | None)
            or not isinstance(extensions, dict | None)
            or not isinstance(operation_name, str | None)
        ):
            return None
        plan = plan_for(query, operation_name)
        if plan is None:
            return None
        arguments = plan.arguments(variables or {})
        if arguments is None:
            return None
        return await _run(plan, Context(request=request), arguments)


async def _run(plan: Plan, context: Context, arguments: dict[str, Any]) -> Response:
    try:
        answer = plan.complete(await submit_with(context, arguments))
    except Exception as error:  # graphql-core's answer to a resolver's or a result's fault
        path = error.path if isinstance(error, Broken) else [plan.key]
        located = [plan.location] if plan.location else []
        if isinstance(error, GraphQLError) and isinstance(error.original_error, FrayError):
            # Raised on purpose (the store is away): its text and code, as strawberry shows it.
            failure = {
                "message": error.message,
                "locations": located,
                "path": path,
                "extensions": error.extensions,
            }
        else:
            _log.exception("submitCommand failed")
            failure = {"message": MASKED, "locations": located, "path": path}
        answer = {"data": None, "errors": [failure]}
    return Response(orjson.dumps(answer), media_type="application/json")


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for an app that reads a body this one has already read."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
