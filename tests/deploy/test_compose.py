"""deploy/compose.yaml: valid against the Compose Specification's JSON Schema (vendored in
tests/deploy/compose-spec/), wired with the variables Fray reads, the store's Redis durable
and apart from the queue's, two API instances on their own host ports and two workers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from service.config import Settings
from tests.deploy.tools import COMPOSE, fray_variables

SCHEMA = Path(__file__).parent / "compose-spec" / "compose-spec.json"
# ${NAME:-default} and ${NAME:?error}: the interpolations compose.yaml uses.
INTERPOLATION = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}")
FRAY_SERVICES = ("api-1", "api-2", "worker")


def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def validator() -> Any:
    return jsonschema_rs.validator_for(json.loads(SCHEMA.read_text()))


def command(service: dict[str, Any]) -> list[str]:
    value: list[str] = service["command"]
    return value


def test_compose_yaml_is_valid_against_the_compose_specification():
    errors = [f"{e.instance_path}: {e.message}" for e in validator().iter_errors(compose())]
    assert errors == []


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param({"servces": {}}, id="a misspelt top-level key"),
        pytest.param({"services": {"api": {"ports": {"8001": 8000}}}}, id="ports not a list"),
        pytest.param({"services": {"api": {"imag": "fray:local"}}}, id="a misspelt key"),
        pytest.param({"services": {"api": {"volumes": "data:/data"}}}, id="volumes not a list"),
    ],
)
def test_the_schema_refuses_a_broken_compose_file(broken):
    assert not validator().is_valid(broken)


def test_the_store_redis_is_durable_and_apart_from_the_queue_redis():
    services = compose()["services"]
    store = " ".join(services["redis-store"]["command"])
    assert "--appendonly yes" in store and "--appendfsync everysec" in store
    assert "--maxmemory-policy noeviction" in store  # an evicted event would break a chain
    (volume,) = services["redis-store"]["volumes"]
    name, path = volume.split(":")
    assert path == "/data" and name in compose()["volumes"]
    for name in FRAY_SERVICES:
        environment = services[name]["environment"]
        assert environment["FRAY_REDIS_URL"].startswith("redis://redis-store:")
        assert environment["FRAY_QUEUE_REDIS_URL"].startswith("redis://redis-queue:")


def test_two_api_instances_on_their_own_host_ports_and_two_workers():
    services = compose()["services"]
    apis = [services[name] for name in services if name.startswith("api-")]
    assert len(apis) == 2
    host_ports = [port.split(":")[0] for api in apis for port in api["ports"]]
    assert len(host_ports) == 2 and len(set(host_ports)) == 2
    for api in apis:
        assert command(api)[0] == "serve"
        # The three secrets are required (compose refuses to start without them) and the
        # same for both: a token minted by one instance is checked by the other.
        for name in ("FRAY_API_KEYS", "FRAY_TOKEN_SECRET", "FRAY_SIGNING_KEY"):
            assert re.fullmatch(rf"\$\{{{name}:\?[^}}]+\}}", api["environment"][name])
    assert apis[0]["environment"] == apis[1]["environment"]
    workers = [s for s in services.values() if command(s) == ["worker"]]
    assert sum(w.get("deploy", {}).get("replicas", 1) for w in workers) == 2


def test_every_variable_is_one_fray_reads():
    named = {
        variable
        for name in FRAY_SERVICES
        for variable in compose()["services"][name]["environment"]
        if variable.startswith("FRAY_")
    }
    assert named <= fray_variables(), named - fray_variables()
    everything = COMPOSE.read_text()
    interpolated = {m[1] for m in INTERPOLATION.finditer(everything) if m[1].startswith("FRAY_")}
    assert interpolated - {"FRAY_IMAGE"} <= fray_variables()


def test_compose_defaults_are_frays_own(monkeypatch):
    """With nothing set but the three required secrets, the values compose passes make the
    same settings as the variables left unset."""
    for variable in fray_variables():
        monkeypatch.delenv(variable, raising=False)
    required = {"FRAY_API_KEYS": "k", "FRAY_TOKEN_SECRET": "s", "FRAY_SIGNING_KEY": "x"}
    for name, value in required.items():
        monkeypatch.setenv(name, value)
    unset = Settings.from_env()
    for name in FRAY_SERVICES:
        environment = compose()["services"][name]["environment"]
        with monkeypatch.context() as patched:
            for variable, value in environment.items():
                if variable.startswith("FRAY_") and "REDIS_URL" not in variable:
                    patched.setenv(variable, INTERPOLATION.sub(default_of(required), value))
            assert Settings.from_env() == unset, name


def default_of(given: dict[str, str]) -> Any:
    def substitute(match: re.Match[str]) -> str:
        name, kind, default = match[1], match[2], match[3]
        if kind == "-":
            return default
        return given[name]

    return substitute
