"""deploy/grafana/fray-dashboard.json asks only for what Fray's /metrics exposes: every metric
each panel's PromQL names, and every label it groups or selects by, is read from a real
app's scrape (parsed as Prometheus parses it), so the dashboard cannot drift from the code."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.deadline_metrics import DeadlineMetrics
from service.embedded_redis import RedisServer
from tests.api.conftest import running, settings_for

pytestmark = pytest.mark.anyio

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "fray-dashboard.json"
METRIC = re.compile(r"\bfray_[a-z0-9_]+\b")
GROUPED = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
SELECTED = re.compile(r"[{,]\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
# Labels Prometheus adds to every series it scrapes.
TARGET_LABELS = {"job", "instance"}

Exposed = dict[str, set[str]]  # series name as queried -> its label names


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))  # a collapsed row's


def _queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, PromQL) of every query of every panel."""
    return [
        (panel["title"], target["expr"])
        for panel in _panels(dashboard["panels"])
        for target in panel.get("targets", [])
    ]


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


@pytest.fixture
async def exposed(encounter_id: str) -> AsyncIterator[Exposed]:
    """What a real app's /metrics exposes once it has seen a little of everything."""
    with RedisServer() as server:  # its own: the deadline firing below is counted globally
        async with running(settings_for(server.url)) as api:
            gm = await api.skirmish(encounter_id)
            await api.send(
                encounter_id, gm, {"type": "roll", "expression": "1d4"}, command_id="again"
            )
            await api.send(
                encounter_id, gm, {"type": "roll", "expression": "1d4"}, command_id="again"
            )
            await api.send(encounter_id, gm, {"type": "fly"})
            app = api.client.app  # type: ignore[attr-defined]
            await DeadlineMetrics(app.state.redis).fired("fired", 0.4)
            text = (await api.client.get("/metrics")).text
    series: Exposed = {}
    for family in text_string_to_metric_families(text):
        names = {
            "counter": [f"{family.name}_total"],
            "histogram": [f"{family.name}_{s}" for s in ("bucket", "sum", "count")],
        }.get(family.type, [family.name])
        for name in names:
            series.setdefault(name, set())
        for sample in family.samples:
            series.setdefault(sample.name, set()).update(sample.labels)
    yield series


async def test_every_metric_a_panel_asks_for_is_exposed(
    dashboard: dict[str, Any], exposed: Exposed
) -> None:
    missing = [
        (title, name)
        for title, expr in _queries(dashboard)
        for name in METRIC.findall(expr)
        if name not in exposed
    ]
    assert missing == []


async def test_every_label_a_panel_groups_or_selects_by_is_one_of_its_metrics(
    dashboard: dict[str, Any], exposed: Exposed
) -> None:
    wrong = []
    for title, expr in _queries(dashboard):
        labels = set(TARGET_LABELS)
        for name in METRIC.findall(expr):
            labels |= exposed.get(name, set())
        used = {label.strip() for group in GROUPED.findall(expr) for label in group.split(",")}
        used |= set(SELECTED.findall(expr))
        wrong += [(title, label) for label in used - {""} if label not in labels]
    assert wrong == []


def test_the_panels_cover_what_an_operator_watches(dashboard: dict[str, Any]) -> None:
    queries = [expr for _, expr in _queries(dashboard)]
    used = {name for expr in queries for name in METRIC.findall(expr)}
    assert {
        "fray_commands_total",  # command rate
        "fray_rejections_total",  # refusals by code
        "fray_command_seconds_bucket",  # latency
        "fray_deadline_lateness_seconds_bucket",
        "fray_audits_total",
        "fray_open_subscriptions",
        "fray_webhook_deliveries_total",
    } <= used
    latency = [q for q in queries if "fray_command_seconds_bucket" in q]
    for quantile in ("0.5", "0.99"):
        assert any(q.startswith(f"histogram_quantile({quantile},") for q in latency)
    assert any("sum by (code)" in q and "fray_rejections_total" in q for q in queries)


def test_every_panel_queries_the_chosen_prometheus(dashboard: dict[str, Any]) -> None:
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert dashboard["schemaVersion"] == 42  # Grafana's last classic JSON model
    panels = [p for p in _panels(dashboard["panels"]) if p["type"] != "row"]
    assert len({p["id"] for p in _panels(dashboard["panels"])}) == len(
        list(_panels(dashboard["panels"]))
    )
    for panel in panels:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}"
            assert target["expr"].count("(") == target["expr"].count(")"), target["expr"]
