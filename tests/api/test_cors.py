"""CORS (FRAY_CORS_ORIGINS): preflights for every route from an allowed origin, nothing for
another origin or when unset, and the response headers a browser client reads exposed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from service.api.cors import EXPOSED_HEADERS
from tests.api.conftest import KEY, bearer, running, settings_for

PAGE = "http://table.example:5173"
OTHER = "https://evil.example"
ROUTES = [
    pytest.param("POST", "/v1/encounters", id="create"),
    pytest.param("POST", "/v1/encounters/ford/commands", id="commands"),
    pytest.param("GET", "/v1/encounters/ford/events", id="events (SSE)"),
    pytest.param("POST", "/v1/encounters/ford/stream-tickets", id="stream tickets"),
    pytest.param("POST", "/graphql", id="GraphQL"),
    pytest.param("GET", "/v1/rulesets", id="rulesets"),
    pytest.param("DELETE", "/v1/encounters/ford", id="delete"),
]


def preflight(method: str, *headers: str, origin: str = PAGE) -> dict[str, str]:
    asked = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers:
        asked["Access-Control-Request-Headers"] = ", ".join(headers)
    return asked


def cors_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.startswith("access-control-")}


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with running(settings_for(redis_url, cors_origins=(PAGE,))) as api:
        yield api.client


@pytest.mark.anyio
@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_a_preflight_from_an_allowed_origin_is_answered(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    asked = preflight(method, "authorization", "content-type", "last-event-id")
    response = await client.options(path, headers=asked)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == PAGE
    assert method in response.headers["access-control-allow-methods"].split(", ")
    allowed = response.headers["access-control-allow-headers"].lower().split(", ")
    assert {"authorization", "content-type", "last-event-id"} <= set(allowed)
    assert "access-control-allow-credentials" not in response.headers
    assert "Origin" in response.headers["vary"]


@pytest.mark.anyio
@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_a_preflight_from_another_origin_gets_no_cors_header(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    response = await client.options(path, headers=preflight(method, origin=OTHER))
    assert response.status_code == 403
    assert cors_headers(response) == {}
    error = response.json()["error"]
    assert error["code"] == "cors/refused"
    assert error["message"] == (
        f"CORS preflight refused: origin '{OTHER}' is not in FRAY_CORS_ORIGINS"
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("asked", "words"),
    [
        pytest.param(preflight("PUT"), "method 'PUT' is not one of GET, POST, DELETE", id="PUT"),
        pytest.param(
            preflight("POST", "authorization", "x-debug"),
            "header 'x-debug' is not one Fray takes",
            id="an unknown header",
        ),
    ],
)
async def test_a_preflight_for_what_fray_does_not_take_is_refused_in_words(
    client: httpx.AsyncClient, asked: dict[str, str], words: str
) -> None:
    response = await client.options("/v1/encounters", headers=asked)
    assert response.status_code == 403 and cors_headers(response) == {}
    assert words in response.json()["error"]["message"]


@pytest.mark.anyio
async def test_a_preflight_to_a_private_address_is_answered(client: httpx.AsyncClient) -> None:
    asked = {**preflight("POST"), "Access-Control-Request-Private-Network": "true"}
    response = await client.options("/v1/encounters", headers=asked)
    assert response.status_code == 200
    assert response.headers["access-control-allow-private-network"] == "true"


@pytest.mark.anyio
async def test_an_actual_request_exposes_the_headers_a_client_reads(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/v1/encounters", json={"ruleset": "freeform"}, headers={**bearer(KEY), "Origin": PAGE}
    )
    assert response.status_code == 201
    assert response.headers["access-control-allow-origin"] == PAGE
    exposed = response.headers["access-control-expose-headers"].split(", ")
    assert exposed == list(EXPOSED_HEADERS)
    assert {"Location", "Retry-After", "WWW-Authenticate"} <= set(exposed)
    assert response.headers["location"].startswith("/v1/encounters/")


@pytest.mark.anyio
async def test_an_error_is_readable_by_the_allowed_origin(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/encounters", json={}, headers={"Origin": PAGE})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == PAGE
    assert "WWW-Authenticate" in response.headers["access-control-expose-headers"]


@pytest.mark.anyio
async def test_an_actual_request_from_another_origin_gets_no_cors_header(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/v1/rulesets", headers={"Origin": OTHER})
    assert response.status_code == 200
    assert cors_headers(response) == {}
    assert "Origin" in response.headers["vary"]


@pytest.mark.anyio
async def test_without_fray_cors_origins_there_is_no_cors_at_all(redis_url: str) -> None:
    async with running(settings_for(redis_url)) as api:
        refused = await api.client.options("/v1/encounters", headers=preflight("POST"))
        answered = await api.client.get("/v1/rulesets", headers={"Origin": PAGE})
    assert refused.status_code == 405 and cors_headers(refused) == {}
    assert answered.status_code == 200 and cors_headers(answered) == {}


@pytest.mark.anyio
async def test_any_origin_is_answered_with_a_star_and_no_credentials(redis_url: str) -> None:
    async with running(settings_for(redis_url, cors_origins=("*",))) as api:
        asked = preflight("POST", "authorization", origin=OTHER)
        response = await api.client.options("/v1/encounters", headers=asked)
        actual = await api.client.get("/v1/rulesets", headers={"Origin": OTHER})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    assert actual.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in {**response.headers, **actual.headers}
