"""Reading a request: a JSON body within the size limit, parsed into a model; query
parameters, one by one or into a model."""

from __future__ import annotations

from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from service.api.errors import BodyTooLarge, InvalidRequest, MalformedJSON

M = TypeVar("M", bound=BaseModel)


async def read_body(request: Request) -> bytes:
    limit: int = request.app.state.settings.max_body
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the body is over the limit of {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request, model: type[M]) -> M:
    raw = await read_body(request)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise MalformedJSON(f"the body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise InvalidRequest("the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise invalid_request(error) from None


def invalid_request(error: ValidationError) -> InvalidRequest:
    problems = [
        {"field": ".".join(str(p) for p in e["loc"]) or "(body)", "message": e["msg"]}
        for e in error.errors(include_url=False, include_input=False)
    ]
    first = problems[0]
    return InvalidRequest(
        f"field '{first['field']}': {first['message']}", details={"problems": problems}
    )


# Versions and counts stay within JSON's safe integers (and Redis stream ids).
MAX_QUERY_INT = 2**53 - 1


def query_int(request: Request, name: str, default: int, low: int, high: int | None) -> int:
    high = MAX_QUERY_INT if high is None else high
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRequest(f"query parameter '{name}' must be an integer") from None
    if value < low or value > high:
        raise InvalidRequest(f"query parameter '{name}' must be between {low} and {high}")
    return value


def query_model(request: Request, model: type[M], ints: dict[str, tuple[int, int]]) -> M:
    """The query parameters `model` names (empty ones left out), `ints` read as integers
    within their bounds, parsed into `model`; parameters it does not name are ignored."""
    values: dict[str, object] = {}
    for name in model.model_fields:
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            continue
        values[name] = query_int(request, name, 0, *ints[name]) if name in ints else raw
    try:
        return model.model_validate(values)
    except ValidationError as error:
        raise invalid_request(error) from None
