"""`hide_enemy_health` as an outsider tests it (issue 21, item 3).

In each ruleset a hero fights a brute whose health (and every other hidden stat) is a number
that appears nowhere else; the hero lands a blow of distinctive damage. Then every document
the hero's player and an observer can fetch, over every channel, is searched for those
numbers. The GM and auditors must still find every one of them, and an auditor's export
must still audit.

What counts as health, per ruleset (docs/api.md, "Hidden information"): hit points
everywhere (`hp`, delvers-deep's `health`), the pools and the stats they start from
(delvers-deep's FORT, REF and WILL; d20-action-points' mana), d20's hit points a level, the
damage of a blow on the brute and the hit points it leaves. d20's Heroic Points are hidden
too but can be no more than 20, too small to search for; tests/domain/test_hidden.py
checks them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import pytest

from service.audit import audit, parse_lines
from tests.api.conftest import Api, served, settings_for
from tests.api.outsider import documents, shows

pytestmark = pytest.mark.anyio

HP = 7331
DAMAGE = 4321  # a maul of 1d6+4315, rolled at the table as a 6
LEFT = HP - DAMAGE
MAUL = "1d6+4315"
BLOW = {"hp": HP, "damage": DAMAGE, "hp after the blow": LEFT}
# d20-action-points' brute: the blow leaves it above half, so no morale check follows, whose
# d20 the hero's player could not supply (dice/not-yours).
D20_HP = 9337


@dataclass
class Fight:
    api: Api
    encounter_id: str
    gm: str = ""
    player: str = ""
    answers: list[str] = field(default_factory=list)

    async def create(self, ruleset: str, **options: Any) -> None:
        options = {"hide_enemy_health": True, **options}
        self.gm = await self.api.create(self.encounter_id, ruleset=ruleset, options=options)

    async def gm_sends(self, command: dict[str, Any], dice: list[int] | None = None) -> Any:
        return await self._send(self.gm, command, dice)

    async def player_sends(self, command: dict[str, Any], dice: list[int] | None = None) -> Any:
        body = await self._send(self.player, command, dice)
        self.answers.append(orjson.dumps(body).decode())
        return body

    async def _send(self, credential: str, command: dict[str, Any], dice: list[int] | None) -> Any:
        extra = {"dice": dice} if dice is not None else {}
        response = await self.api.send(self.encounter_id, credential, command, **extra)
        assert response.status_code == 201, response.text
        return response.json()

    async def add(self, cid: str, side: str, stats: dict[str, Any], **more: Any) -> None:
        command = {"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                   "side": side, "stats": stats, **more}  # fmt: skip
        await self.gm_sends(command)
        if cid == "hero":
            self.player = await self.api.mint(self.encounter_id, "player", "hero")

    async def restat(self, cid: str, stats: dict[str, Any]) -> None:
        """The GM rewrites a stat block (`update-combatant` echoes it in full)."""
        await self.gm_sends({"type": "update-combatant", "combatant_id": cid, "stats": stats})

    async def window_for(self, cid: str) -> str:
        view = (await self.api.get(f"/v1/encounters/{self.encounter_id}", self.gm)).json()
        windows = view["state"]["table"]["windows"].values()
        return next(w["id"] for w in windows if w["open"] and cid in w["order"])


async def freeform(f: Fight) -> dict[str, int]:
    await f.create("freeform")
    await f.add("hero", "heroes", {"hp": 24, "initiative_modifier": 3})
    brute = {"hp": HP, "initiative_modifier": 1}
    await f.add("brute", "goblins", brute)
    await f.restat("brute", brute)
    await f.gm_sends({"type": "roll-initiative"})
    await f.gm_sends({"type": "start-encounter"})
    await f.player_sends({"type": "roll", "expression": "1d20", "combatant_id": "hero"})
    await f.gm_sends({"type": "adjust-resource", "combatant_id": "brute", "delta": -DAMAGE})
    return BLOW


async def delvers_deep(f: Fight) -> dict[str, int]:
    await f.create("delvers-deep", dice="table")
    maul = {"name": "maul", "kind": "melee", "reach": 1, "damage": MAUL}
    hero = {"kind": "pc", "health": 24, "fort": 4, "ref": 4, "will": 4, "weapons": [maul]}
    # REF 71 offers dodge+1 to dodge+70, so no other pool may be 70 or less.
    brute = {"health": HP, "fort": 83, "ref": 71, "will": 97, "weapons": [maul]}
    await f.add("hero", "pcs", hero, controller="bob")
    await f.add("brute", "monsters", brute)
    await f.restat("brute", brute)
    await f.gm_sends({"type": "start-encounter"}, dice=[3])
    await f.gm_sends({"type": "fix-order"})
    attack = {"type": "attack", "combatant_id": "hero", "weapon": "maul", "target": "brute"}
    await f.player_sends(attack, dice=[6, 6])
    window = await f.window_for("brute")
    await f.gm_sends(
        {"type": "answer-reaction", "window_id": window, "combatant_id": "brute", "option": "pass"}
    )
    return {**BLOW, "FORT": 83, "REF": 71, "WILL": 97}


async def fifty_two(f: Fight) -> dict[str, int]:
    await f.create("fifty-two", dice="mixed", decision_seconds=None)
    hero = {"hp": 50, "surprise": True, "normal_damage": MAUL, "dex": 18}
    await f.add("hero", "allies", hero)
    await f.add("brute", "enemies", {"hp": HP})
    await f.restat("brute", {"hp": HP})
    await f.gm_sends({"type": "start-encounter"}, dice=[20, 5])
    await f.player_sends(
        {"type": "surprise-attack", "combatant_id": "hero", "target": "brute"}, dice=[6]
    )
    return BLOW


async def d20_action_points(f: Fight) -> dict[str, int]:
    await f.create("d20-action-points", dice="table")
    hero = {"kind": "pc", "hp": 24, "ac": 14, "weapons": [{"name": "maul", "damage": MAUL}]}
    brute = {"hp": D20_HP, "ac": 12, "level": 10, "hp_per_level": 733, "mana": 683,
             "heroic_points": 17, "weapons": [{"name": "spear", "damage": "1d6"}]}  # fmt: skip
    await f.add("hero", "party", hero)
    await f.add("brute", "monsters", brute)
    await f.restat("brute", brute)
    await f.gm_sends({"type": "start-encounter"})
    await f.gm_sends({"type": "begin-combat"})
    await f.gm_sends({"type": "roll-initiative"}, dice=[15, 5])
    # To hit 15 against AC 12, damage 6 + 4315.
    await f.player_sends(
        {"type": "attack", "combatant_id": "hero", "target": "brute"}, dice=[15, 6]
    )
    blow = {"hp": D20_HP, "damage": DAMAGE, "hp after the blow": D20_HP - DAMAGE}
    return {**blow, "hit points a level": 733, "mana": 683}


async def hex_tactical(f: Fight) -> dict[str, int]:
    await f.create("hex-tactical", dice="table")
    await f.gm_sends({"type": "set-map", "map": {"kind": "hex", "width": 8, "height": 8}})
    maul = {"name": "maul", "damage": MAUL}
    await f.add("hero", "pcs", {"hp": 24, "weapons": [maul]}, position=[1, 1])
    brute = {"hp": HP, "weapons": [maul]}
    await f.add("brute", "foes", brute, position=[2, 1])
    await f.restat("brute", brute)
    await f.gm_sends({"type": "start-encounter"}, dice=[1, 2])
    attack = {"type": "attack", "combatant_id": "hero", "target": "brute", "weapon": "maul"}
    await f.player_sends(attack, dice=[10])
    window = await f.window_for("brute")
    answer = {"type": "answer-reaction", "window_id": window, "combatant_id": "brute",
              "option": "pass"}  # fmt: skip
    await f.gm_sends(answer, dice=[6])
    return BLOW


async def combat_ii(f: Fight) -> dict[str, int]:
    await f.create("combat-ii", dice="table")
    grid = {"kind": "square", "width": 10, "height": 3, "diagonals": "chebyshev"}
    await f.gm_sends({"type": "set-map", "map": grid})
    maul = {"name": "maul", "speed": 5, "damage": MAUL}
    hero = {"hp": 24, "thac0": 10, "ac": 5, "weapons": [maul]}
    brute = {"hp": HP, "thac0": 15, "ac": 5, "weapons": [{"name": "club", "speed": 4}]}
    await f.add("hero", "pcs", hero, position=[0, 0])
    await f.add("brute", "ogres", brute, position=[1, 0])
    await f.restat("brute", brute)
    await f.gm_sends({"type": "start-encounter"}, dice=[7, 3])  # the ogres lose: they declare first
    await f.gm_sends({"type": "stand", "combatant_id": "brute"})
    await f.player_sends(
        {"type": "attack", "combatant_id": "hero", "targets": ["brute"]}, dice=[15, 6]
    )
    return BLOW


SCENARIOS: dict[str, Callable[[Fight], Awaitable[dict[str, int]]]] = {
    "freeform": freeform,
    "delvers-deep": delvers_deep,
    "fifty-two": fifty_two,
    "d20-action-points": d20_action_points,
    "hex-tactical": hex_tactical,
    "combat-ii": combat_ii,
}


def leaks(found: dict[str, str], secrets: dict[str, int]) -> list[str]:
    return [
        f"{channel}: {label} ({number})"
        for channel, text in found.items()
        for label, number in secrets.items()
        if shows(text, number)
    ]


@pytest.mark.parametrize("ruleset", SCENARIOS)
async def test_no_document_a_player_or_observer_can_fetch_shows_an_enemys_health(
    redis_url: str, encounter_id: str, ruleset: str
) -> None:
    async with served(settings_for(redis_url)) as url, httpx.AsyncClient(base_url=url) as client:
        fight = Fight(Api(client), encounter_id)
        secrets = await SCENARIOS[ruleset](fight)
        observer = await fight.api.mint(encounter_id, "observer")
        found = {
            "player": await documents(client, ruleset, encounter_id, fight.player),
            "observer": await documents(client, ruleset, encounter_id, observer),
        }
    found["player"]["command answers"] = "\n".join(fight.answers)
    problems = [f"{role} {leak}" for role, texts in found.items() for leak in leaks(texts, secrets)]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("ruleset", SCENARIOS)
async def test_the_gm_and_auditors_see_every_hidden_number_and_the_export_audits(
    redis_url: str, encounter_id: str, ruleset: str
) -> None:
    async with served(settings_for(redis_url)) as url, httpx.AsyncClient(base_url=url) as client:
        fight = Fight(Api(client), encounter_id)
        secrets = await SCENARIOS[ruleset](fight)
        # The end reveals the seed (fifty-two seals its pool from everyone until then).
        await fight.gm_sends({"type": "end-encounter"})
        auditor = await fight.api.mint(encounter_id, "auditor")
        path = f"/v1/encounters/{encounter_id}"
        for credential in (fight.gm, auditor):
            events = (await fight.api.get(f"{path}/events", credential, limit=1000)).text
            view = (await fight.api.get(path, credential)).text
            assert [label for label, n in secrets.items() if not shows(events, n)] == []
            assert shows(view, secrets["hp"])
        export = (await fight.api.get(f"{path}/export", auditor)).content
    envelopes, problems = parse_lines(export.splitlines())
    report = audit(envelopes)
    assert problems == [] and report.problems == [], report
