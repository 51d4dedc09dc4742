"""Hostile commands through the REST API, every command type of every ruleset.

Each command is drawn from its own JSON schema, with any field swapped for something a
hostile or careless client sends: huge and negative integers, floats for integers, long and
unicode strings, nulls, deep objects. Each answer is either 2xx, after which a fresh engine
folds the stream to the same state and the audit passes, or 4xx with nothing appended;
never a 5xx. Bounded and derandomized in the suite; `make fuzz` (FRAY_FUZZ=1) runs longer.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.server import create_app
from service.audit import audit
from service.demos.scripts import examples
from service.domain.envelope import Envelope
from service.domain.ids import stream_id
from service.engine import Engine
from service.rules.registry import RULESETS
from tests.api.conftest import KEY, bearer, settings_for
from tests.engine_helpers import COMBATANTS

FUZZ = os.environ.get("FRAY_FUZZ") == "1"
TENANT = "acme"  # KEY's

HOSTILE_INTS = [2**31, -(2**31), 2**53, -(2**53) - 1, 2**63, 2**64, -(2**63) - 2, 10**30]
HOSTILE_TEXT = ["", "\u0000", "\ud800", "😀" * 300, "../../etc/passwd", "a" * 3000, "{x}"]
HOSTILE_DICE = ["1d6*9999999999*9999999999", "99999999999999999999", "-9223372036854775807-2"]


def deep(levels: int) -> Any:
    nested: Any = {"x": 1}
    for _ in range(levels):
        nested = [nested]
    return nested


HOSTILE: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(HOSTILE_INTS),
    st.sampled_from(HOSTILE_DICE),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(HOSTILE_TEXT + HOSTILE_DICE),
    st.text(max_size=50),
    st.none(),
    st.booleans(),
    st.integers(1, 60).map(deep),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


def combatants(ruleset: str) -> list[dict[str, Any]]:
    """Two combatants of different sides: the seed examples' stat blocks, or freeform's."""
    if ruleset == "freeform":
        return [dict(c) for c in COMBATANTS]
    chosen: dict[str, dict[str, Any]] = {}
    files = sorted(examples(ruleset).iterdir(), key=lambda p: p.name)
    for path in (p for p in files if p.name.endswith(".json") and p.name != "encounter.json"):
        block = json.loads(path.read_text())
        if block.get("side") in chosen:
            continue
        keys = ("combatant_id", "name", "side", "stats")
        chosen[block["side"]] = {k: block[k] for k in keys if k in block}
    return list(chosen.values())[:2]


def _plausible(schema: dict[str, Any], defs: dict[str, Any], ids: list[str], depth: int) -> Any:
    if "$ref" in schema:
        return _plausible(defs[schema["$ref"].rsplit("/", 1)[1]], defs, ids, depth)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_plausible(s, defs, ids, depth) for s in schema[key]])
    kind = schema.get("type")
    if kind == "integer":
        return st.integers(-3, 30)
    if kind == "number":
        return st.floats(0, 30)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "string":
        return st.sampled_from([*ids, *ids, "hp", "1d6", "melee"]) | st.text(max_size=8)
    if kind == "array":
        items = schema.get("items") or {}
        if depth > 3:
            return st.just([])
        return st.lists(_plausible(items, defs, ids, depth + 1), max_size=3)
    if kind == "object" and "properties" in schema and depth <= 3:
        return _fields(schema, defs, ids, depth + 1)
    return st.fixed_dictionaries({})


def _fields(schema: dict[str, Any], defs: dict[str, Any], ids: list[str], depth: int) -> Any:
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    strategies = {k: _plausible(v, defs, ids, depth) for k, v in properties.items() if k != "type"}
    return st.fixed_dictionaries(
        {k: s for k, s in strategies.items() if k in required},
        optional={k: s for k, s in strategies.items() if k not in required},
    )


def command(ruleset: str, kind: str, ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A `kind` command drawn from its schema, often with one field made hostile: the way
    one careless or malicious value arrives."""
    schema = RULESETS[ruleset].command_models[kind].model_json_schema()
    fields = _fields(schema, schema.get("$defs", {}), ids, 0)
    names = sorted(set(schema.get("properties", {})) - {"type"}) or ["type"]
    swap = st.none() | st.tuples(st.sampled_from(names), HOSTILE)
    return st.tuples(fields, swap).map(
        lambda drawn: {"type": kind, **drawn[0], **(dict([drawn[1]]) if drawn[1] else {})}
    )


COMMAND_TYPES = [
    pytest.param(ruleset, kind, id=f"{ruleset} {kind}")
    for ruleset in sorted(RULESETS)
    for kind in RULESETS[ruleset].command_types()
]


class Table:
    """The app in this process, on an event loop kept across hypothesis's examples."""

    def __init__(self, redis_url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = create_app(settings_for(redis_url, max_body=65_536))
        self._lifespan = self.app.router.lifespan_context(self.app)
        self.run(self._lifespan.__aenter__())
        transport = httpx.ASGITransport(app=self.app)
        self.client = httpx.AsyncClient(transport=transport, base_url="http://fray")

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def close(self) -> None:
        self.run(self.client.aclose())
        self.run(self._lifespan.__aexit__(None, None, None))
        self.loop.close()

    def post(self, path: str, body: Any, credential: str) -> httpx.Response:
        content = json.dumps(body).encode()  # integers of any size, as a hostile client
        headers = {**bearer(credential), "Content-Type": "application/json"}
        response: httpx.Response = self.run(
            self.client.post(path, content=content, headers=headers)
        )
        return response

    def version(self, encounter_id: str) -> int:
        head = self.run(self.app.state.engine.store.head(stream_id(TENANT, encounter_id)))
        assert head is not None
        return int(head.version)


@pytest.fixture
def table(redis_url: str) -> Iterator[Table]:
    served = Table(redis_url)
    yield served
    served.close()


def _counter() -> Iterator[int]:
    n = 0
    while True:
        n += 1
        yield n


_ids = _counter()


# What the GM sends after the two add-combatants to bring each ruleset to its first turn.
# `{0}` and `{1}` stand for the two combatants' ids.
OPENINGS: dict[str, list[dict[str, Any]]] = {
    "combat-ii": [{"type": "start-encounter"}],
    "d20-action-points": [
        {"type": "start-encounter"},
        {"type": "begin-combat"},
        {"type": "roll-initiative"},
    ],
    "delvers-deep": [{"type": "start-encounter"}, {"type": "fix-order"}],
    "fifty-two": [{"type": "start-encounter"}],
    "freeform": [{"type": "roll-initiative"}, {"type": "start-encounter"}],
    "hex-tactical": [
        {"type": "set-map", "map": {"kind": "hex", "width": 6, "height": 6}},
        {"type": "place-token", "combatant_id": "{0}", "cell": [2, 2]},
        {"type": "place-token", "combatant_id": "{1}", "cell": [3, 2]},
        {"type": "start-encounter"},
    ],
}


def _filled(value: Any, ids: list[str]) -> Any:
    if isinstance(value, str) and value in ("{0}", "{1}"):
        return ids[int(value[1])]
    if isinstance(value, dict):
        return {k: _filled(v, ids) for k, v in value.items()}
    return value


def _set_up(table: Table, ruleset: str, stage: int) -> tuple[str, str, str, list[str]]:
    """A fresh encounter of `ruleset` with two combatants, taken `stage` steps into its
    opening (all of them: the first turn); its id, GM and player tokens, combatant ids."""
    encounter_id = f"hostile-{ruleset}-{os.getpid()}-{next(_ids)}"
    created = table.post("/v1/encounters", {"ruleset": ruleset, "encounter_id": encounter_id}, KEY)
    assert created.status_code == 201, created.text
    gm = created.json()["gm_token"]
    ids = []
    for combatant in combatants(ruleset):
        added = table.post(
            f"/v1/encounters/{encounter_id}/commands",
            {"command": {"type": "add-combatant", **combatant}},
            gm,
        )
        assert added.status_code == 201, added.text
        ids.append(added.json()["events"][0]["data"]["combatant_id"])
    for step in OPENINGS[ruleset][:stage]:
        played = table.post(
            f"/v1/encounters/{encounter_id}/commands", {"command": _filled(step, ids)}, gm
        )
        assert played.status_code == 201, (step, played.text)
    minted = table.post(
        f"/v1/encounters/{encounter_id}/tokens", {"role": "player", "combatants": ids[:1]}, gm
    )
    assert minted.status_code == 201, minted.text
    return encounter_id, gm, minted.json()["token"], ids


def _check_stream(table: Table, encounter_id: str) -> None:
    """A fresh engine (no cache: another process) folds the same state; the audit passes."""
    engine: Engine = table.app.state.engine
    encounter_id = stream_id(TENANT, encounter_id)
    served = table.run(engine.load(encounter_id))
    fresh = table.run(Engine(engine.store).load(encounter_id))
    assert fresh.version == served.version
    assert fresh.state.model_dump(mode="json") == served.state.model_dump(mode="json")
    stored = table.run(engine.store.read(encounter_id))
    seed = table.run(engine.store.seed(encounter_id))
    report = audit([Envelope.from_body(s.body) for s in stored], seed)
    assert report.ok, report.problems


def _play(table: Table, ruleset: str, kind: str, data: st.DataObject) -> None:
    opening = len(OPENINGS[ruleset])
    # Mostly from the first turn on; sometimes in setup or part-way into the opening.
    stage = data.draw(st.just(opening) | st.integers(0, opening), label="stage")
    encounter_id, gm, player, ids = _set_up(table, ruleset, stage)
    path = f"/v1/encounters/{encounter_id}/commands"
    sent = data.draw(st.lists(command(ruleset, kind, ids), min_size=1, max_size=3), label="sent")
    for body in sent:
        credential = data.draw(st.sampled_from([gm, player]), label="as")
        before = table.version(encounter_id)
        response = table.post(path, {"command": body}, credential)
        assert response.status_code < 500, (body, response.text)
        if response.status_code >= 400:
            assert table.version(encounter_id) == before, (body, response.text)
            assert "code" in response.json()["error"]
    _check_stream(table, encounter_id)


@pytest.mark.parametrize(("ruleset", "kind"), COMMAND_TYPES)
@settings(
    max_examples=200 if FUZZ else 6,
    derandomize=not FUZZ,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(data=st.data())
def test_no_command_a_client_sends_poisons_the_stream(
    table: Table, ruleset: str, kind: str, data: st.DataObject
) -> None:
    _play(table, ruleset, kind, data)
