"""The table view (service/api/table.py, clients/table) in a real browser: a GM and a player,
each in their own browser context (no shared storage), open /table/{id}#token=… from a real
`fray serve`, with a `fray worker` and redis behind it, and play a short hex-tactical fight
through the page's buttons. The test asserts on what each page shows: the acting combatant,
health as bars or, for the enemy the player may not see, as a word; running clocks; the
log, newest first; a refusal's message; a turn clock the player watches run out. The
brute's health is a number found nowhere else, and the player's whole DOM is searched for it
and for what the blow left (issue 24)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer
from tests.e2e.table_pages import Gm, opened, screenshots, table_service

HP = 7331  # the brute's: in no other number of the fight
MAUL = {"name": "maul", "damage": "1d6+4315"}  # a blow of 4316..4321 leaves 3010..3015


def set_up(client: httpx.Client, encounter_id: str, **options: Any) -> tuple[Gm, str]:
    """A hero (the player's) and a brute on a hex map, the brute's health hidden from the
    player, a turn clock of ten minutes; started. Returns the GM and the player's token."""
    options = {"hide_enemy_health": True, "turn_time_limit": 600, **options}
    created = client.post(
        "/v1/encounters", headers=bearer(KEY),
        json={"encounter_id": encounter_id, "ruleset": "hex-tactical", "options": options},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    gm = Gm(client, encounter_id, created.json()["gm_token"])
    gm.send({"type": "set-map", "map": {"kind": "hex", "width": 8, "height": 8}})
    for cid, name, side, hp, cell in (
        ("hero", "Hero", "pcs", 24, [1, 1]),
        ("brute", "Brute", "foes", HP, [2, 1]),
    ):
        gm.send({"type": "add-combatant", "combatant_id": cid, "name": name, "side": side,
                 "stats": {"hp": hp, "weapons": [MAUL]}, "position": cell})  # fmt: skip
    minted = client.post(
        f"/v1/encounters/{encounter_id}/tokens", headers=bearer(gm.token),
        json={"role": "player", "combatants": ["hero"], "subject": "pat"},
    )  # fmt: skip
    assert minted.status_code == 201, minted.text
    gm.send({"type": "start-encounter"})
    return gm, minted.json()["token"]


def acting(gm: Gm) -> list[str]:
    found: list[str] = gm.state()["summary"]["acting"]
    return found


def test_the_player_watches_a_turn_clock_run_out_and_the_turn_pass(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """Two seconds a turn; one timeout with nobody acting pauses the clocks (idle_timeouts),
    so the table settles on the next turn with its clock paused."""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id, turn_time_limit=2, idle_timeouts=1)
        first = acting(gm)
        (second,) = {"hero", "brute"} - set(first)
        player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors)
        try:
            clock = player.locator("#clocks li")
            expect(clock).to_contain_text(f"{first[0].title()}'s turn (running) 0:0")
            # The worker fires the clock: its expiry is logged and the turn moves on.
            expect(player.locator("#log")).to_contain_text("Time ran out on the clock")
            expect(player.locator("#turn")).to_contain_text(f"acting: {second.title()}")
            expect(clock).to_contain_text(f"{second.title()}'s turn (paused)")
        finally:
            player.goto("about:blank")
    assert errors == [], errors


@pytest.mark.table_screenshots
def test_a_gm_and_a_player_play_a_hex_fight_through_the_table_view(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id)
        table = f"{fray}/table/{encounter_id}"
        gm_page = opened(browser, f"{table}#token={gm.token}", errors)
        # The player on a phone-width screen.
        player = opened(browser, f"{table}#token={player_token}", errors, width=390)
        try:
            # The token leaves the address bar once read.
            expect(player).to_have_url(table)
            for page in (gm_page, player):
                expect(page.locator("#turn")).to_contain_text("round 1")
                expect(
                    page.locator("[data-combatant=hero] progress[aria-label^=hp]")
                ).to_have_attribute("max", "24")
            # The GM sees the brute's health; the player a word instead of a bar.
            expect(
                gm_page.locator("[data-combatant=brute] [data-pool=hp] .pool-value")
            ).to_have_text(f"{HP} / {HP}")
            expect(player.locator("[data-combatant=brute] .health-word")).not_to_be_empty()
            expect(player.locator("[data-combatant=brute] progress")).to_have_count(0)
            # The turn clock counts down on both pages.
            for page in (gm_page, player):
                expect(page.locator("#clocks .remaining").first).to_have_text(
                    re.compile(r"^(9|10):\d\d$")
                )

            # The brute first, if it won initiative: the GM ends its turn from the page.
            if acting(gm) == ["brute"]:
                expect(gm_page.locator("[data-combatant=brute]")).to_have_class(
                    re.compile("acting")
                )
                gm_page.get_by_role("button", name="End Brute's turn").click()
            expect(player.locator("[data-combatant=hero]")).to_have_class(re.compile("acting"))
            expect(player.locator("#turn")).to_contain_text("acting: Hero")

            # The player attacks the brute from a form: the target chosen from a list.
            attack = player.locator("form.action", has=player.get_by_role(
                "button", name="Attack with the maul"))  # fmt: skip
            expect(attack.get_by_label("Target")).to_have_value("brute")
            attack.get_by_role("button").click()
            expect(player.locator("#log")).to_contain_text("attack")
            # The brute may answer the attack from a reaction window: the GM passes, from
            # the prompt at the top of its page (one button per option).
            if gm.state()["summary"]["reaction_windows"]:
                prompt = gm_page.locator("#prompts [data-window]")
                prompt.get_by_role("button", name="pass").click()
                expect(prompt).to_have_count(0)
            # Server dice: the blow may miss. A hit leaves 3010..3015, a number the
            # player's page must not show either.
            left = next(
                c["health"]["current"]
                for c in gm.state()["summary"]["combatants"]
                if c["id"] == "brute"
            )
            assert left == HP or HP - 4321 <= left <= HP - 4316, left
            expect(
                gm_page.locator("[data-combatant=brute] [data-pool=hp] .pool-value")
            ).to_have_text(f"{left} / {HP}")
            expect(gm_page.locator("#log")).to_contain_text("attack")
            expect(player.locator("#log")).to_contain_text("attack")

            # The player ends the hero's turn; the page shows whose turn it is now.
            player.get_by_role("button", name="End Hero's turn").click()
            expect(gm_page.locator("#turn")).to_contain_text("acting: Brute")
            expect(player.get_by_role("button", name="End Hero's turn")).to_have_count(0)

            # A refusal shows its message: the GM rewinds to a version that is not past.
            head = gm.state()["version"]
            gm_page.get_by_label("Rewind to version").fill(str(head + 5))
            gm_page.get_by_role("button", name="Rewind").click()
            expect(gm_page.locator("#refusal .code")).to_have_text("rewind/not-in-past")
            expect(gm_page.locator("#refusal strong")).not_to_be_empty()
            expect(player.locator("#gm")).to_be_hidden()

            # Newest first: the top line of the log is the last event.
            head = gm.state()["version"]
            expect(player.locator("#log li").first).to_have_attribute("data-version", str(head))
            screenshots("hex-tactical", {"gm": gm_page, "player": player})
            dom = player.content()
            assert str(HP) not in dom
            assert str(left) not in dom
            assert str(HP) in gm_page.content()
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")  # closes the follow: `fray serve` waits for it
    assert errors == [], errors


def test_an_observer_watches_the_fight_live_with_no_controls_and_no_hidden_health(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """An observer's token opens the same page: the fight, live, as observers may see it
    (docs/api.md, roles): no action, no GM section, no prompt, and with `hide_enemy_health`
    every side's health a word, since an observer is on none."""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, _ = set_up(client, encounter_id)
        minted = client.post(
            f"/v1/encounters/{encounter_id}/tokens", headers=bearer(gm.token),
            json={"role": "observer", "subject": "rail"},
        )  # fmt: skip
        assert minted.status_code == 201, minted.text
        watcher = opened(browser, f"{fray}/table/{encounter_id}#token={minted.json()['token']}",
                         errors)  # fmt: skip
        try:
            (first,) = acting(gm)
            expect(watcher.locator("#turn")).to_contain_text(f"acting: {first.title()}")
            for cid in ("hero", "brute"):
                expect(watcher.locator(f"[data-combatant={cid}] .health-word")).not_to_be_empty()
                expect(watcher.locator(f"[data-combatant={cid}] progress")).to_have_count(0)
            expect(watcher.locator("#actions form")).to_have_count(0)
            expect(watcher.locator("#gm")).to_be_hidden()
            # Live: the GM ends the turn over the API, and the observer's page follows.
            gm.send({"type": "end-turn", "combatant_id": first})
            (second,) = {"hero", "brute"} - {first}
            expect(watcher.locator("#turn")).to_contain_text(f"acting: {second.title()}")
            expect(watcher.locator("#log li").first).to_have_attribute(
                "data-version", str(gm.state()["version"])
            )
            expect(watcher.locator("#prompts > *")).to_have_count(0)
            expect(watcher.locator("[data-combatant=hero]")).not_to_contain_text("24")
            assert str(HP) not in watcher.content()
        finally:
            watcher.goto("about:blank")
    assert errors == [], errors
