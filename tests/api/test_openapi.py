"""The OpenAPI spec: generated from the models and the route table, checked in, served,
valid, and describing exactly the app's routes."""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
import yaml
from starlette.routing import Route

from service.api.openapi import OPERATIONS, build_openapi, openapi_yaml
from service.api.server import create_app
from tests.api.conftest import Api, settings_for

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
# The index, GraphQL (described by schema/schema.graphql) and GraphiQL's assets.
# Pages for a browser and their assets: GraphiQL's, the table view's (service/api/table.py).
NOT_IN_SPEC = {
    "/",
    "/graphql",
    "/graphql/assets/{digest}/{name}",
    "/table/",
    "/table/{encounter_id}",
    "/table/assets/{digest}/{name}",
}
METHODS = {"get", "post", "put", "patch", "delete"}


def test_the_checked_in_spec_is_the_generated_one() -> None:
    assert SPEC_FILE.read_text() == openapi_yaml(), (
        "openapi/openapi.yaml drifted: run `fray openapi > openapi/openapi.yaml`"
    )


def test_the_yaml_reads_back_as_the_document() -> None:
    assert yaml.safe_load(openapi_yaml()) == build_openapi()


def test_the_spec_is_a_valid_openapi_3_1_document() -> None:
    # schemathesis validates against the OpenAPI 3.1 meta-schema (jsonschema_rs).
    document = build_openapi()
    assert document["openapi"].startswith("3.1")
    schemathesis.openapi.from_dict(document).validate()


def app_routes(redis_url: str) -> dict[str, set[str]]:
    routes: dict[str, set[str]] = {}
    for route in create_app(settings_for(redis_url)).routes:
        if route.path in NOT_IN_SPEC:  # type: ignore[attr-defined]
            continue
        assert isinstance(route, Route), route
        # Starlette answers HEAD wherever it answers GET; the spec describes GET.
        routes[route.path] = {m.lower() for m in route.methods or ()} - {"head"}
    return routes


def test_the_spec_describes_exactly_the_apps_routes(redis_url: str) -> None:
    spec = {
        path: {m for m in item if m in METHODS} for path, item in build_openapi()["paths"].items()
    }
    app = app_routes(redis_url)
    assert sorted(set(app) - set(spec)) == [], "routes of the app missing from the spec"
    assert sorted(set(spec) - set(app)) == [], "paths of the spec the app does not serve"
    for path, methods in app.items():
        assert spec[path] == methods, path


def test_every_operation_has_an_id_and_documents_its_errors() -> None:
    document = build_openapi()
    ids = [op.operation_id for op in OPERATIONS]
    assert len(ids) == len(set(ids))
    for path, item in document["paths"].items():
        for method, operation in item.items():
            statuses = set(operation["responses"])
            if operation["security"]:
                assert "401" in statuses and "403" in statuses, (method, path)
            if "{encounter_id}" in path:
                assert "404" in statuses, (method, path)
            if "requestBody" in operation:
                assert {"400", "413"} <= statuses, (method, path)


def test_links_chain_a_created_encounter_to_every_encounter_route() -> None:
    document = build_openapi()
    created = document["paths"]["/v1/encounters"]["post"]["responses"]["201"]
    targets = {link["operationId"] for link in created["links"].values()}
    encounter_ops = {
        op["operationId"]
        for path, item in document["paths"].items()
        if path.startswith("/v1/encounters/{encounter_id}")
        for op in item.values()
    }
    assert targets == encounter_ops


@pytest.mark.anyio
async def test_openapi_json_serves_the_document(api: Api) -> None:
    response = await api.client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == build_openapi()
