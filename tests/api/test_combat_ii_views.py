"""combat-ii's summary `details` through the API (issue 9, views): the phase's half-segment
timeline for a front end to draw, and each viewer's own sheets (§1 D, §4 Perception)."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api, bearer
from tests.rules.combat_ii.cast import strikes

pytestmark = pytest.mark.anyio

LONGBOW = {"name": "longbow", "kind": "missile", "speed": 8, "damage": "1d6"}
ARCHER = {"hp": 8, "thac0": 20, "ac": 7, "mv": 12, "intelligence": 14, "wisdom": 12,
          "weapons": [LONGBOW]}  # fmt: skip
ORC = {"hp": 6, "thac0": 19, "ac": 6, "mv": 9,
       "weapons": [{"name": "axe", "speed": 7, "damage": "1d8"}]}  # fmt: skip


async def archer_and_orc(api: Api, encounter_id: str) -> tuple[str, str]:
    """The seed's archer and the orc beside it, phase 1 begun with the orc's side the
    loser (table dice: archers 2, orcs 7); the GM's and the archer's player's tokens."""
    gm = await api.create(encounter_id, ruleset="combat-ii", options={"dice": "table"})
    grid = {"kind": "square", "width": 10, "height": 3, "diagonals": "chebyshev"}
    await api.ok(encounter_id, gm, {"type": "set-map", "map": grid})
    for cid, side, stats, cell in (("archer", "archers", ARCHER, [0, 0]),
                                   ("orc", "orcs", ORC, [1, 0])):  # fmt: skip
        await api.ok(encounter_id, gm, {"type": "add-combatant", "combatant_id": cid,
                                        "name": cid.capitalize(), "side": side,
                                        "stats": stats, "position": cell})  # fmt: skip
    started = await api.send(encounter_id, gm, {"type": "start-encounter"}, dice=[2, 7])
    assert started.status_code == 201, started.text
    return gm, await api.mint(encounter_id, "player", "archer")


async def test_the_summary_carries_the_phases_timeline_and_the_viewers_own_sheet(
    api: Api, encounter_id: str
) -> None:
    gm, player = await archer_and_orc(api, encounter_id)

    mine = (await api.get(f"/v1/encounters/{encounter_id}", player)).json()["summary"]
    everyone = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()["summary"]

    assert [row["half_segment"] for row in mine["details"]["timeline"]] == [1, 2, 3, 4, 5, 6]
    assert sorted(mine["details"]["sheets"]) == ["archer"]
    assert sorted(everyone["details"]["sheets"]) == ["archer", "orc"]
    archer = mine["details"]["sheets"]["archer"]
    assert archer["track"] == "winner" and archer["sf"] == {"longbow": 8}
    assert archer["perception"] == (14 + 12) // 2 + 1  # §4 Perception: the average + level


async def test_a_declared_attack_appears_on_the_timeline_at_its_half_segment(
    api: Api, encounter_id: str
) -> None:
    """Table 1 and the issue's narration: "the orc's axe (SF 7, loser) lands at 5"; the
    loser declares first (§1 C), and its strike is on everyone's timeline at once."""
    gm, player = await archer_and_orc(api, encounter_id)
    await api.ok(encounter_id, gm, {"type": "attack", "combatant_id": "orc", "targets": ["archer"]})

    summary = (await api.get(f"/v1/encounters/{encounter_id}", player)).json()["summary"]

    assert strikes(summary["details"]["timeline"]) == [(5, "orc", "archer", 7, "loser")]
    assert summary["acting"] == ["archer"]


async def test_graphql_reads_the_same_details(api: Api, encounter_id: str) -> None:
    _, player = await archer_and_orc(api, encounter_id)
    rest = (await api.get(f"/v1/encounters/{encounter_id}", player)).json()["summary"]
    query = "query($id: String!) { encounter(id: $id) { summary { details } } }"
    response = await api.client.post(
        "/graphql",
        json={"query": query, "variables": {"id": encounter_id}},
        headers=bearer(player),
    )
    body = response.json()
    assert "errors" not in body, body
    assert body["data"]["encounter"]["summary"]["details"] == rest["details"]


async def test_a_winner_waiting_on_losers_is_told_why_in_legal_actions(
    api: Api, encounter_id: str
) -> None:
    """issue 27: the archer (winner) while the orc (loser) declares saw only `roll` and no
    reason; REST's legal actions and GraphQL's `blocked` say why, naming the orc."""
    gm, player = await archer_and_orc(api, encounter_id)

    body = (await api.get(f"/v1/encounters/{encounter_id}/legal-actions", player)).json()
    query = "query($id: String!) { encounter(id: $id) { blocked { actor reason blockedBy } } }"
    response = await api.client.post(
        "/graphql", json={"query": query, "variables": {"id": encounter_id}},
        headers=bearer(player),
    )  # fmt: skip
    await api.ok(encounter_id, gm, {"type": "stand", "combatant_id": "orc"})
    after = (await api.get(f"/v1/encounters/{encounter_id}/legal-actions", player)).json()

    assert [a["type"] for a in body["actions"]] == ["roll"]
    (blocked,) = body["blocked"]
    assert (blocked["actor"], blocked["blocked_by"]) == ("archer", ["orc"])
    assert "losers state their intentions first" in blocked["reason"]
    graphql = response.json()
    assert "errors" not in graphql, graphql
    assert graphql["data"]["encounter"]["blocked"] == [
        {"actor": "archer", "reason": blocked["reason"], "blockedBy": ["orc"]}
    ]
    assert after["blocked"] == [] and "attack" in {a["type"] for a in after["actions"]}
