"""delvers-deep through the table view (issue 24): a GM and a player, each in their own
browser context, play a short fight of the seed (docs/rules/delvers-deep.md 4.1, 4.2):
the reflex roll and a point of REF spent on it, the GM fixing the order from the page,
Bramli bracing (a FORT) and swinging her warhammer at the orc from a form, the GM choosing
the orc for its slot from a list (and refused, with the rule, when choosing the ghost
too), the orc's axe and the player's answer from the reaction window's prompt, a condition,
the turn clock. Every pool is a bar on the player's own combatant; the creatures' pools
are hidden (`hide_enemy_health` hides all four, 4.1 Movement's Design Note) and their
health is a word. The dice the table does not roll come from the encounter's own seed, so
the fight is the same on every run. The orc's health is a number found nowhere else in the
fight, and the player's whole DOM is searched for it and for what the blow left."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer
from tests.e2e.table_pages import Gm, opened, screenshots, table_service

EXAMPLES = Path(__file__).parents[2] / "service" / "demos" / "examples" / "delvers-deep"
SEED = "dd" * 32  # every die the table does not roll
HP = 4817  # the orc's health: in no other number of the fight


def combatant(name: str, **stats: Any) -> dict[str, Any]:
    command: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    command["stats"] |= stats
    return command


def set_up(
    client: httpx.Client, encounter_id: str, orc: dict[str, Any] | None = None, **options: Any
) -> tuple[Gm, str]:
    """Bramli (the player's), an orc (`orc`: changes to its stats) and a ghost, the
    creatures' pools hidden from the player; started, Bramli's reflex die a 5. Returns the
    GM and the player's token."""
    options = {"hide_enemy_health": True, "dice": "mixed", "reaction_window": 600,
               "turn_time_limit": 600, **options}  # fmt: skip
    created = client.post(
        "/v1/encounters", headers=bearer(KEY),
        json={"encounter_id": encounter_id, "ruleset": "delvers-deep", "options": options,
              "seed": SEED},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    gm = Gm(client, encounter_id, created.json()["gm_token"])
    gm.send(combatant("bramli"))
    gm.send(combatant("orc", **{"health": HP, **(orc or {})}))
    gm.send(combatant("ghost"))  # of no group: it does not share the orc's slot
    minted = client.post(
        f"/v1/encounters/{encounter_id}/tokens", headers=bearer(gm.token),
        json={"role": "player", "combatants": ["bramli"], "subject": "pat"},
    )  # fmt: skip
    assert minted.status_code == 201, minted.text
    started = client.post(
        f"/v1/encounters/{encounter_id}/commands", headers=bearer(gm.token),
        json={"command": {"type": "start-encounter"}, "dice": [5]},
    )  # fmt: skip
    assert started.status_code == 201, started.text
    return gm, minted.json()["token"]


def pool(page: Page, cid: str, name: str) -> Any:
    return page.locator(f"[data-combatant={cid}] [data-pool={name}] .pool-value")


def health(gm: Gm, cid: str) -> int:
    found: int = next(
        c["health"]["current"] for c in gm.state()["summary"]["combatants"] if c["id"] == cid
    )
    return found


def test_the_player_watches_a_turn_clock_run_out_and_the_turn_pass(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """Two seconds a turn: Bramli's runs out on the player's page and the GM's slot comes;
    one timeout with nobody acting pauses the clocks (idle_timeouts)."""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id, turn_time_limit=2, idle_timeouts=1)
        gm.send({"type": "fix-order"})
        player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors)
        try:
            clock = player.locator("#clocks li")
            expect(clock).to_contain_text("(running) 0:0")
            expect(player.locator("#turn")).to_contain_text("acting: Bramli")
            expect(player.locator("#log")).to_contain_text("Time ran out on the clock")
            expect(player.locator("#turn")).to_contain_text("GM's slot")
            expect(player.locator("[data-action=end-turn]")).to_have_count(0)
        finally:
            player.goto("about:blank")
    assert errors == [], errors


@pytest.mark.table_screenshots
def test_a_gm_and_a_player_play_a_delvers_deep_fight_through_the_table_view(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id)
        table = f"{fray}/table/{encounter_id}"
        gm_page = opened(browser, f"{table}#token={gm.token}", errors)
        player = opened(browser, f"{table}#token={player_token}", errors, width=390)
        try:
            # Bramli's four pools are bars on both pages; the orc's, hidden, a word.
            for page in (gm_page, player):
                expect(page.locator("#turn")).to_contain_text("reflex rolls")
                for name, most in (("hp", 16), ("fort", 6), ("ref", 2), ("will", 3)):
                    expect(
                        page.locator(f"[data-combatant=bramli] progress[aria-label^={name}]")
                    ).to_have_attribute("max", str(most))
            expect(pool(gm_page, "orc", "hp")).to_have_text(f"{HP} / {HP}")
            expect(player.locator("[data-combatant=orc] .health-word")).to_have_text("unhurt")
            expect(player.locator("[data-combatant=orc] progress")).to_have_count(0)

            # 4.1 Combat Order: the player spends a REF on the reflex roll, the GM fixes
            # the order from the page.
            player.get_by_role("button", name="Spend REF on reflex").click()
            expect(pool(player, "bramli", "ref")).to_have_text("1 / 2")
            gm_page.get_by_role("button", name="Fix the combat order").click()
            for page in (gm_page, player):
                expect(page.locator("#turn")).to_contain_text("acting: Bramli")
                expect(page.locator("[data-combatant=bramli]")).to_have_class(re.compile("acting"))
                expect(page.locator("#clocks li")).to_contain_text("(running)")

            # Two actions: a brace (1 FORT), then the warhammer, the orc chosen from a list.
            player.get_by_role("button", name="Brace").click()
            expect(pool(player, "bramli", "fort")).to_have_text("5 / 6")
            attack = player.locator("form.action", has=player.get_by_role(
                "button", name="Attack with the warhammer"))  # fmt: skip
            expect(attack.get_by_label("Target")).to_have_value("orc")
            attack.get_by_role("button").click()
            expect(pool(player, "bramli", "fort")).to_have_text("4 / 6")
            # The orc may dodge a hit: the GM passes from the reaction window's prompt.
            if gm.state()["summary"]["reaction_windows"]:
                gm_page.locator("#prompts [data-window]").get_by_role("button", name="pass").click()
            # Both actions spent, the GM's slot: the GM picks the orc from a list.
            expect(gm_page.locator("#turn")).to_contain_text("GM's slot")
            left = health(gm, "orc")
            expect(pool(gm_page, "orc", "hp")).to_have_text(f"{left} / {HP}")
            # A refusal shows its message and its rule: the orc and the ghost are of no one
            # group, so they may not share the slot (4.1 Combat Order).
            pick = gm_page.locator("form.action", has=gm_page.locator("[data-action=pick]"))
            pick.get_by_label("Combatant Ids").select_option(["orc", "ghost"])
            pick.get_by_role("button").click()
            expect(gm_page.locator("#refusal .code")).to_have_text("turn/not-a-group")
            expect(gm_page.locator("#refusal .rule")).to_have_text(
                "(delvers-deep 4.1 Combat Order)"
            )
            expect(gm_page.locator("#refusal strong")).to_have_text(
                "only creatures of the same group share a slot"
            )
            pick.get_by_label("Combatant Ids").select_option(["orc"])
            pick.get_by_role("button").click()
            expect(player.locator("#turn")).to_contain_text("acting: Orc")
            expect(gm_page.locator("#refusal")).to_be_empty()

            # The orc's axe hits (a table die, the GM's); Bramli's player answers the
            # reaction window from its prompt: no dodge, and her Health check halves the blow.
            gm.send({"type": "attack", "combatant_id": "orc", "weapon": "axe",
                     "target": "bramli"}, dice=[6])  # fmt: skip
            prompt = player.locator("#prompts [data-window]")
            expect(prompt.get_by_role("button").first).to_have_text("dodge")
            prompt.get_by_role("button", name="pass").click()
            expect(prompt).to_have_count(0)
            hurt = health(gm, "bramli")
            assert hurt < 16, hurt
            for page in (gm_page, player):
                expect(pool(page, "bramli", "hp")).to_have_text(f"{hurt} / 16")

            # A condition the GM applies shows on both pages.
            gm.send({"type": "apply-condition", "combatant_id": "bramli",
                     "condition": "shaken", "rounds": 2})  # fmt: skip
            for page in (gm_page, player):
                expect(page.locator("[data-combatant=bramli] .conditions")).to_contain_text(
                    "shaken"
                )

            expect(player.locator("#gm")).to_be_hidden()
            expect(gm_page.locator("#gm")).to_be_visible()

            head = gm.state()["version"]
            for page in (gm_page, player):
                expect(page.locator("#log li").first).to_have_attribute("data-version", str(head))
            screenshots("delvers-deep", {"gm": gm_page, "player": player})
            dom = player.content()
            assert str(HP) not in dom
            assert str(left) not in dom
            assert str(HP) in gm_page.content()
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors
