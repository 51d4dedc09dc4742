"""fifty-two through the table view (issue 24): a GM and a player, each in their own browser
context, play the seed's opening (docs/rules/fifty-two.md §2 to §5.4) for two combatants:
the initiative from table dice, the Allies' player choosing the columns from a list, the GM
dealing from the page, the field of cards on both pages, a pair removed for a critical
opportunity and the critical attack executed, a condition, the §4.5 decision clock, no
combatant offered to add once the field is dealt (§4), a refusal, the turn ended. The
dice and the deck come from the encounter's own seed (given at creation), so the fight is
the same on every run. Evans's health is hidden
from the player (`hide_enemy_health`): it is a number found nowhere else in the fight, and
the player's whole DOM is searched for it and for what the blow left. Evans's Fireball at
Alice waits for her Reflex save (§8), which her player answers from its prompt."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer
from tests.e2e.table_pages import Gm, opened, screenshots, table_service

EXAMPLES = Path(__file__).parents[2] / "service" / "demos" / "examples" / "fifty-two"
SEED = "52" * 32  # the deal and every die the table does not roll
HP = 6173  # Evans's: in no other number of the fight
INITIATIVE = [9, 3]  # §2: Alice 9 + 5 = 14, Evans 3 + 6 = 9: the Allies choose the columns


def combatant(name: str, **stats: Any) -> dict[str, Any]:
    command: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    command["stats"] |= stats
    return command


def set_up(
    client: httpx.Client,
    encounter_id: str,
    initiative: list[int] = INITIATIVE,
    evans: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[Gm, str]:
    """Alice (the player's) and Evans (with `evans` added to his stats) in each other's
    range, Evans's health hidden from the player; the initiative rolled. Returns the GM and
    the player's token."""
    options = {"hide_enemy_health": True, "dice": "mixed", "decision_seconds": 600, **options}
    created = client.post(
        "/v1/encounters", headers=bearer(KEY),
        json={"encounter_id": encounter_id, "ruleset": "fifty-two", "options": options,
              "seed": SEED},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    gm = Gm(client, encounter_id, created.json()["gm_token"])
    gm.send(combatant("alice"))
    gm.send(combatant("evans", hp=HP, surprise=False, **(evans or {})))  # no surprise (§4.1)
    for cid, opponent in (("alice", "evans"), ("evans", "alice")):
        gm.send({"type": "set-range", "combatant_id": cid, "opponents": [opponent]})
    minted = player_token(client, gm, "alice")
    answer = client.post(
        f"/v1/encounters/{encounter_id}/commands", headers=bearer(gm.token),
        json={"command": {"type": "start-encounter"}, "dice": initiative},
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    return gm, minted


def player_token(client: httpx.Client, gm: Gm, combatant: str, subject: str = "pat") -> str:
    """A player's token for one combatant."""
    minted = client.post(
        f"/v1/encounters/{gm.encounter_id}/tokens", headers=bearer(gm.token),
        json={"role": "player", "combatants": [combatant], "subject": subject},
    )  # fmt: skip
    assert minted.status_code == 201, minted.text
    token: str = minted.json()["token"]
    return token


def evans_health(gm: Gm) -> int:
    found: int = next(
        c["health"]["current"] for c in gm.state()["summary"]["combatants"] if c["id"] == "evans"
    )
    return found


def test_the_player_watches_the_decision_clock_run_out_and_the_turn_pass(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """§4.5: two seconds to decide. Evans wins the initiative (Alice 1 + 5, Evans 20 + 6),
    his clock runs out on the player's page, the worker ends his turn, and Alice's begins;
    one timeout with nobody acting pauses the clocks. (Alice alone has 30 seconds more:
    "Allies get an extra 10 seconds for each Ally below 4".)"""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(
            client, encounter_id, [1, 20], decision_seconds=2, idle_timeouts=1
        )
        gm.send({"type": "choose-columns", "modifier": 0})
        gm.send({"type": "deal"})
        player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors)
        try:
            clock = player.locator("#clocks li")
            expect(clock).to_contain_text("Evans's decision (running) 0:0")
            expect(player.locator("#log")).to_contain_text("Time ran out on the clock")
            expect(player.locator("#turn")).to_contain_text("acting: Alice")
            expect(clock).to_contain_text("Alice's decision (paused)")
        finally:
            player.goto("about:blank")
    assert errors == [], errors


@pytest.mark.table_screenshots
def test_a_gm_and_a_player_play_the_opening_of_fifty_two_through_the_table_view(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id)
        table = f"{fray}/table/{encounter_id}"
        gm_page = opened(browser, f"{table}#token={gm.token}", errors)
        player = opened(browser, f"{table}#token={player_token}", errors, width=390)
        try:
            # §4.1: the Allies won the initiative; their player chooses the columns from the
            # modifiers on offer (a list, not a number to type).
            expect(player.locator("#turn")).to_contain_text("the allies choose the columns")
            columns = player.locator("form.action", has=player.locator(
                "[data-action=choose-columns]"))  # fmt: skip
            columns.get_by_label("Modifier").select_option("1")
            columns.get_by_role("button").click()
            # §4.2: the GM shuffles and deals from the page; the field is on both pages.
            expect(gm_page.locator("#turn")).to_contain_text("the GM deals")
            gm_page.get_by_role("button", name="Shuffle and deal").click()
            expect(gm_page.locator("#turn")).to_contain_text("acting: Alice")
            field = gm.state()["state"]["field"]
            assert len(field["columns"]) == gm.state()["state"]["columns"]
            for page in (gm_page, player):
                expect(page.locator("#turn")).to_contain_text("acting: Alice")
                expect(page.locator("#field .column")).to_have_count(len(field["columns"]))
                expect(page.locator("#field .pool-size")).to_contain_text(
                    f"pool: {field['pool_size']} cards face down"
                )
                expect(
                    page.locator("[data-combatant=alice] progress[aria-label^=hp]")
                ).to_have_attribute("max", "83")
                expect(page.locator("#clocks li")).to_contain_text("Alice's decision (running)")
            top = field["columns"][0][-1]
            expect(player.locator("#field [data-column='1'] .card").first).to_have_attribute(
                "data-card", top
            )
            # The GM sees Evans's health; the player a word instead of a bar.
            expect(
                gm_page.locator("[data-combatant=evans] [data-pool=hp] .pool-value")
            ).to_have_text(f"{HP} / {HP}")
            expect(player.locator("[data-combatant=evans] .health-word")).to_have_text("unhurt")
            expect(player.locator("[data-combatant=evans] progress")).to_have_count(0)

            # §5.2: a pair is a critical opportunity, taken from its button (the two cards
            # are the action's own); §5.3: the critical attack, Evans chosen from a list.
            points = gm.state()["state"]["turn"]["points"]
            expect(player.locator("#field .points")).to_have_text(
                f"Alice: {points} action points left"
            )
            player.locator("[data-action=remove-pair]").first.click()
            expect(player.locator("#field .points")).to_have_text(
                f"Alice: {points - 1} action points left"
            )
            attack = player.locator("form.action", has=player.get_by_role(
                "button", name=re.compile("Execute a critical attack")))  # fmt: skip
            expect(attack.get_by_label("Target")).to_have_value("evans")
            attack.get_by_role("button").click()
            evans_hp = gm_page.locator("[data-combatant=evans] [data-pool=hp] .pool-value")
            expect(evans_hp).not_to_have_text(f"{HP} / {HP}")  # the seed's critical gets through
            left = evans_health(gm)
            expect(evans_hp).to_have_text(f"{left} / {HP}")

            # A condition the GM applies shows on both pages.
            gm.send({"type": "apply-condition", "combatant_id": "alice", "condition": "shaken",
                     "rounds": 2})  # fmt: skip
            for page in (gm_page, player):
                expect(page.locator("[data-combatant=alice] .conditions")).to_contain_text("shaken")

            # fifty-two deals the field for the combatants at the start (§4): once it has,
            # the GM is not offered a combatant to add. A refusal shows its message and code:
            # the GM rewinds to a version that is not past.
            expect(gm_page.locator("[data-action=add-combatant]")).to_have_count(0)
            head = gm.state()["version"]
            gm_page.get_by_label("Rewind to version").fill(str(head + 5))
            gm_page.get_by_role("button", name="Rewind").click()
            expect(gm_page.locator("#refusal .code")).to_have_text("rewind/not-in-past")
            expect(gm_page.locator("#refusal strong")).not_to_be_empty()

            # An optional field, folded under "more options" and sent only when filled in:
            # a cost other than one point is the GM's to set (§5.2), so the player's is
            # refused, with its rule; the kind alone goes through at Fray's default cost.
            other = player.locator("form.action", has=player.locator(
                "[data-action=other-action]"))  # fmt: skip
            other.get_by_label("Description").fill("Hunter's mark")
            other.get_by_text("more options").click()
            expect(other.get_by_label("Kind")).to_have_value("")
            other.get_by_label("Kind").select_option("class-ability")
            other.get_by_label("Cost").fill("2")
            other.get_by_role("button", name=re.compile("^Another action")).click()
            expect(player.locator("#refusal .code")).to_have_text("action/gm-sets-cost")
            expect(player.locator("#refusal .rule")).to_have_text("(fifty-two §5.2)")
            points = gm.state()["state"]["turn"]["points"]
            other.locator("details.more").evaluate("(more) => { more.open = true; }")
            other.get_by_label("Description").fill("Hunter's mark")
            other.get_by_label("Kind").select_option("class-ability")
            other.get_by_label("Cost").fill("")
            other.get_by_role("button", name=re.compile("^Another action")).click()
            expect(player.locator("#log")).to_contain_text("Alice: Hunter's mark.")
            expect(player.locator("#field .points")).to_have_text(
                f"Alice: {points - 1} action points left"
            )
            (taken,) = [e["data"] for e in gm.events() if e["type"] == "other-action-taken"]
            assert (taken["kind"], taken["cost"]) == ("class-ability", 1)

            # The player ends Alice's turn: Evans acts, on both pages.
            player.get_by_role("button", name="End the turn").click()
            for page in (gm_page, player):
                expect(page.locator("#turn")).to_contain_text("acting: Evans")
            expect(player.locator("[data-action=end-turn]")).to_have_count(0)

            head = gm.state()["version"]
            for page in (gm_page, player):
                expect(page.locator("#log li").first).to_have_attribute("data-version", str(head))
            screenshots("fifty-two", {"gm": gm_page, "player": player})
            dom = player.content()
            assert str(HP) not in dom
            assert str(left) not in dom
            assert str(HP) in gm_page.content()
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors


FIREBALL = {"name": "Fireball", "instantaneous": True, "damage": "6d6", "reflex_dc": 15}


def fireball_at_alice(client: httpx.Client, encounter_id: str) -> tuple[Gm, str]:
    """Evans wins the initiative (Alice 1 + 5, Evans 20 + 6) and casts his Fireball at Alice
    on his first action: it waits for her Reflex save (§8). Returns the GM and Alice's
    player's token."""
    gm, alices = set_up(client, encounter_id, [1, 20], evans={"spells": [FIREBALL]})
    gm.send({"type": "choose-columns", "modifier": 0})
    gm.send({"type": "deal"})
    gm.send({"type": "cast", "combatant_id": "evans", "spell": "Fireball", "target": "alice"})
    pending = gm.state()["state"]["pending_spell"]
    assert pending == {"caster": "evans", "spell": "Fireball", "target": "alice"}, pending
    return gm, alices


@pytest.mark.table_screenshots
def test_the_player_answers_a_reflex_save_from_the_prompt_diving_to_cover(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """§8: Evans (the GM's) wins the initiative and casts his Fireball at Alice; it waits for
    her Reflex save. Alice's player sees the prompt in words, with what it costs (§8.1, §8.2)
    and the cover field (§8.3); cover 15 feet away is out of her reach (STR +4: a dive of 10
    feet at most) and Fray's refusal shows in the prompt; 10 feet is a dive, and the spell
    lands with Alice prone. The GM's page waits for Alice; the page of a player who controls
    only the caster shows no prompt. The save's d20 and the damage come from the seed."""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, alices = fireball_at_alice(client, encounter_id)
        table = f"{fray}/table/{encounter_id}"
        gm_page = opened(browser, f"{table}#token={gm.token}", errors)
        player = opened(browser, f"{table}#token={alices}", errors, width=390)
        casters = opened(
            browser, f"{table}#token={player_token(client, gm, 'evans', 'quinn')}", errors
        )
        try:
            heading = "Reflex save: Evans casts Fireball at Alice (DC 15)"
            prompt = player.get_by_role("dialog", name=heading)
            expect(prompt).to_be_visible()
            expect(prompt.locator(".cost")).to_have_text(
                "Attempting costs 1 action point, and 1 more if the save succeeds, from "
                "Alice's points this round (Alice has not acted yet, §8.2); cover in reach "
                "takes 1 off (§8.3). Taking it costs nothing: the spell lands in full."
            )
            # §8: the save is not timed, and Evans's decision clock (§4.5) stops while the
            # spell waits (fifty-two 1.3.0): no clock runs.
            expect(player.locator("#clocks li")).to_have_count(0)
            expect(prompt.locator(".untimed")).to_have_text(
                "Not timed: the fight waits for this answer."
            )
            expect(prompt.locator(".waiting")).to_have_count(0)
            expect(prompt.get_by_role("button", name="Attempt the save")).to_be_visible()
            expect(prompt.get_by_role("button", name="Take it")).to_be_visible()
            cover = prompt.get_by_label("Cover, in feet away")
            expect(cover).to_have_accessible_description(
                "Cover 5 ft away or nearer is a step; further, up to 10 ft, a dive that "
                "leaves Alice prone (standing up costs an action point)."
            )
            expect(player.locator("#actions [data-action=reflex-save]")).to_have_count(0)

            # The GM sees whom the spell waits for (and may answer for Alice).
            gm_prompt = gm_page.get_by_role("dialog", name=heading)
            expect(gm_prompt.locator(".waiting")).to_have_text("waiting for: Alice")
            expect(gm_prompt.get_by_role("button", name="Take it")).to_be_visible()
            # The caster's player: the spell is in the log, no prompt.
            expect(casters.locator("#log")).to_contain_text(
                "Fireball is about to strike Alice: a Reflex save (DC 15) may be attempted."
            )
            expect(casters.locator("#prompts .prompt")).to_have_count(0)
            expect(casters.locator("#blocked")).to_have_text(
                "Evans: Fireball waits for Alice's Reflex save (§8)"
            )

            screenshots("fifty-two-reflex", {"gm": gm_page, "player": player})

            cover.fill("15")
            prompt.get_by_role("button", name="Attempt, with cover 15 ft away").click()
            expect(prompt.locator(".refusal")).to_contain_text(
                "the cover is 15 feet away; a medium defender with STR +4 can dive at most "
                "10 feet reflex/cover-out-of-reach"
            )
            cover.fill("10")
            prompt.get_by_role("button", name="Attempt, with cover 10 ft away").click()

            # The seed's d20 fails the save: the full 25 damage, and the dive leaves Alice
            # prone (a failed save in cover costs 1 - 1 = 0 points, §8.3). The caster's side
            # is not told Alice's damage (`hide_enemy_health`).
            took = "Evans's Fireball takes effect on Alice{} (Reflex save failed)."
            for page, damage in ((gm_page, " for 25 damage"), (player, " for 25 damage"),
                                 (casters, "")):  # fmt: skip
                expect(page.locator("#prompts .prompt")).to_have_count(0)
                expect(page.locator("#log")).to_contain_text(took.format(damage))
                expect(page.locator("#log")).to_contain_text("Alice is now prone.")
                expect(page.locator("[data-combatant=alice] .conditions")).to_contain_text("prone")
            expect(
                player.locator("[data-combatant=alice] [data-pool=hp] .pool-value")
            ).to_have_text("58 / 83")
            # The spell has landed: Evans's turn goes on, with the clock afresh.
            expect(player.locator("#clocks li")).to_contain_text("Evans's decision (running)")
            assert str(HP) not in player.content()
            assert str(HP) in gm_page.content()
        finally:
            for page in (gm_page, player, casters):
                page.goto("about:blank")
    assert errors == [], errors
