"""The table view's prompts, GM clock controls and audit badge (clients/table/src/prompts.ts,
gm.ts, audit.ts) in a real browser, against a real `fray serve`, `fray worker` and redis: a
GM and a player, each in their own browser context.

- hex-tactical and delvers-deep: a hit opens the target's defence window (hex-tactical
  "Defending", delvers-deep 4.1 Reactions); the player answers it from the prompt, which
  says what triggered it and counts its deadline down. The player's page never shows the
  other side's window. The GM pauses and resumes the clocks from the page; the audit badge
  verifies, and after one event is edited in Redis, a new page's badge names the version.
  A player's badge verifies the player's export as far as it can: every event recomputed
  where nothing was hidden (hex-tactical), an enemy's blanked health taken as signed
  (delvers-deep; tests/e2e/test_table_audit.py says more).
- fifty-two has no reaction window (neither its rules nor a common command open one): its
  prompt is the dice prompt, in `dice: prompt`, where starting the fight asks each side for
  its initiative d20 (fifty-two §1.1). The player types its face (a face off the die first,
  refused by Fray); the GM lets the browser roll.

Dice are table dice (`mixed`: the GM sends the faces that decide whether a blow lands) and
windows and roll requests are given ten minutes, so the worker closes nothing before the
page answers it."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
import redis
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer
from tests.e2e.table_pages import Gm, opened, screenshots, table_service

TEN_MINUTES = {"reaction_window": 600, "roll_request_window": 600}
# A countdown from ten minutes, seen once it has ticked below 10:00.
COUNTING_DOWN = re.compile(r"answer within 9:5\d")


def created(client: httpx.Client, encounter_id: str, ruleset: str, **options: Any) -> Gm:
    answer = client.post(
        "/v1/encounters", headers=bearer(KEY),
        json={"encounter_id": encounter_id, "ruleset": ruleset,
              "options": {**TEN_MINUTES, **options}},
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    return Gm(client, encounter_id, answer.json()["gm_token"])


def with_dice(gm: Gm, command: dict[str, Any], dice: list[int]) -> dict[str, Any]:
    answer = gm.client.post(
        f"/v1/encounters/{gm.encounter_id}/commands",
        json={"command": command, "dice": dice}, headers=bearer(gm.token),
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def player_of(gm: Gm, combatant_id: str) -> str:
    minted = gm.client.post(
        f"/v1/encounters/{gm.encounter_id}/tokens", headers=bearer(gm.token),
        json={"role": "player", "combatants": [combatant_id], "subject": "pat"},
    )  # fmt: skip
    assert minted.status_code == 201, minted.text
    token: str = minted.json()["token"]
    return token


def pages(
    browser: Browser, fray: str, gm: Gm, player_token: str, errors: list[str]
) -> tuple[Page, Page]:
    table = f"{fray}/table/{gm.encounter_id}"
    return (
        opened(browser, f"{table}#token={gm.token}", errors),
        opened(browser, f"{table}#token={player_token}", errors, width=390),
    )


def logged(page: Page, version: int) -> None:
    """Wait until the page has logged the event at `version` (and so read what followed it)."""
    expect(page.locator(f"#log li[data-version='{version}']")).to_have_count(1)


def settled(*pages: Page) -> None:
    """Wait until each page's audit badge has its verdict (for a screenshot that shows it)."""
    for page in pages:
        expect(page.locator("#audit[data-state=checking]")).to_have_count(0)


def tamper(redis_url: str, encounter_id: str, version: int) -> None:
    """Edit one stored event's data in place, keeping its hash (service/store/keys.py: the
    stream `fray:{<id>}:events`, entry "<version>-0", field e the body). A stream cannot
    rewrite an entry, so it is written again whole, with the same entry ids."""
    store = redis.Redis.from_url(redis_url)
    try:
        (key,) = store.keys(f"fray:{{*{encounter_id}}}:events")
        entries = store.xrange(key)
        store.delete(key)
        for entry_id, fields in entries:
            if entry_id == f"{version}-0".encode():
                body = json.loads(fields[b"e"])
                body["data"]["tampered"] = True
                fields = {**fields, b"e": json.dumps(body, separators=(",", ":")).encode()}
            store.xadd(key, fields, id=entry_id)
    finally:
        store.close()


def hex_fight(client: httpx.Client, encounter_id: str) -> tuple[Gm, str]:
    """A hero (the player's) next to a brute on a hex map, a turn clock of ten minutes; the
    brute wins initiative (the GM's d100s: 90 fails the hero's, 10 makes the brute's)."""
    gm = created(client, encounter_id, "hex-tactical", dice="mixed", turn_time_limit=600)
    gm.send({"type": "set-map", "map": {"kind": "hex", "width": 8, "height": 8}})
    sides = (("hero", "Hero", "pcs", [1, 1]), ("brute", "Brute", "foes", [2, 1]))
    for cid, name, side, cell in sides:
        gm.send({"type": "add-combatant", "combatant_id": cid, "name": name, "side": side,
                 "stats": {"hp": 20, "skills": {"melee": 60},
                           "weapons": [{"name": "maul", "damage": "1d6"}]},
                 "position": cell})  # fmt: skip
    token = player_of(gm, "hero")
    with_dice(gm, {"type": "start-encounter"}, [90, 10])
    return gm, token


@pytest.mark.table_screenshots
def test_hex_tactical_the_player_answers_a_hit_from_the_prompt_and_the_gm_pauses_the_clocks(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = hex_fight(client, encounter_id)
        gm_page, player = pages(browser, fray, gm, player_token, errors)
        try:
            # The brute hits (the GM's d100: 5 under its melee 60): the hero may defend.
            hit = with_dice(gm, {"type": "attack", "combatant_id": "brute", "target": "hero"}, [5])
            prompt = player.locator("#prompts [data-window]")
            expect(prompt.get_by_role("heading")).to_have_text(
                "Reaction: Brute attacks Hero with the maul (damage 1d6)"
            )
            expect(prompt.locator(".deadline")).to_have_text(COUNTING_DOWN)
            expect(prompt.get_by_role("button")).to_have_text(["dodge", "parry", "pass"])
            # One control per action: the answer is not in the action list too.
            expect(player.locator("#actions [data-action=answer-reaction]")).to_have_count(0)
            # The GM sees the window and who is still to answer.
            expect(gm_page.locator("#prompts [data-window] .waiting")).to_have_text(
                "waiting for: Hero"
            )
            settled(gm_page, player)
            screenshots("hex-tactical-prompt", {"gm": gm_page, "player": player})
            prompt.get_by_role("button", name="pass").click()
            for page in (gm_page, player):
                expect(page.locator("#prompts [data-window]")).to_have_count(0)
                expect(page.locator("#log")).to_contain_text("Hero chose pass.")
            assert gm.state()["summary"]["reaction_windows"] == []
            assert hit["events"][-1]["type"] == "reaction-window-opened"

            # The hero's blow opens the brute's window: the GM's prompt, never the player's.
            gm.send({"type": "end-turn", "combatant_id": "brute"})
            blow = with_dice(gm, {"type": "attack", "combatant_id": "hero", "target": "brute"}, [5])
            expect(gm_page.locator("#prompts [data-window]")).to_contain_text(
                "Hero attacks Brute with the maul"
            )
            logged(player, blow["version"])
            expect(player.locator("#prompts [data-window]")).to_have_count(0)
            expect(player.locator("#prompts")).to_be_hidden()
            gm_page.locator("#prompts [data-window]").get_by_role("button", name="pass").click()
            expect(gm_page.locator("#prompts [data-window]")).to_have_count(0)

            # The GM pauses the clocks from its page, and resumes them.
            clock = gm_page.locator("#clocks li").first
            expect(clock).to_contain_text("(running)")
            gm_page.locator("#gm-clocks").get_by_role("button", name="Pause clocks").click()
            expect(clock).to_contain_text("(paused)")
            expect(player.locator("#clocks li").first).to_contain_text("(paused)")
            gm_page.locator("#gm-clocks").get_by_role("button", name="Resume clocks").click()
            expect(clock).to_contain_text("(running)")
            expect(player.locator("#gm")).to_be_hidden()

            # The badge verifies the GM's export: chain, seed, draws, the signed head.
            head = gm.state()["version"]
            badge = gm_page.locator("#audit .verdict")
            expect(badge).to_have_text(re.compile(
                rf"^verified: {head} events, hash chain, seed commitment, \d+ draws and the "
                r"head's signed receipt$"
            ))  # fmt: skip
            # No health is hidden here: the player's export is every event whole; the seed
            # is not the player's to read, so its draws are not checked.
            expect(player.locator("#audit .verdict")).to_have_text(
                f"verified: {head} events in order up to the signed head; {head} recomputed"
            )
            expect(player.locator("#audit details")).to_contain_text(
                "not checked: seed: the seed is not yours to read"
            )
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")

        tamper(redis_url, encounter_id, 5)
        again = opened(browser, f"{fray}/table/{encounter_id}#token={gm.token}", errors)
        try:
            expect(again.locator("#audit .verdict")).to_have_text(
                "not verified: chain: version 5: hash does not match its contents (edited)"
            )
            expect(again.locator("#audit")).to_have_attribute("data-state", "failed")
        finally:
            again.goto("about:blank")
    assert errors == [], errors


@pytest.mark.table_screenshots
def test_delvers_deep_the_player_answers_a_hit_from_the_prompt(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm = created(
            client, encounter_id, "delvers-deep",
            dice="mixed", first_side="gm", hide_enemy_health=True,
        )  # fmt: skip
        for command in (
            {"combatant_id": "daerion", "name": "Daerion", "side": "delvers",
             "stats": {"kind": "pc", "health": 10, "fort": 3, "ref": 3, "will": 2,
                       "weapons": [{"name": "rapier", "damage": "d6", "hit": 4}]}},
            {"combatant_id": "troll", "name": "Troll", "side": "monsters",
             "stats": {"kind": "creature", "health": 24, "fort": 8, "ref": 0, "will": 1,
                       "weapons": [{"name": "greatclub", "damage": "6", "hit": 4,
                                    "reach": 2}]}},
        ):  # fmt: skip
            gm.send({"type": "add-combatant", **command})
        player_token = player_of(gm, "daerion")
        with_dice(gm, {"type": "start-encounter"}, [4])  # Daerion's reflex d6
        gm.send({"type": "fix-order"})
        gm.send({"type": "pick", "combatant_ids": ["troll"]})
        gm_page, player = pages(browser, fray, gm, player_token, errors)
        try:
            # The troll hits (the GM's d6: 5 against hit 4): Daerion may dodge, paying REF.
            with_dice(gm, {"type": "attack", "combatant_id": "troll", "target": "daerion",
                           "weapon": "greatclub"}, [5])  # fmt: skip
            prompt = player.locator("#prompts [data-window]")
            expect(prompt.get_by_role("heading")).to_have_text(
                "Reaction: Troll attacks Daerion with the greatclub (damage 6)"
            )
            expect(prompt.locator(".deadline")).to_have_text(COUNTING_DOWN)
            expect(prompt.get_by_role("button")).to_have_text(
                ["dodge", "dodge+1", "dodge+2", "pass"]
            )
            expect(gm_page.locator("#prompts [data-window] .waiting")).to_have_text(
                "waiting for: Daerion"
            )
            settled(gm_page, player)
            screenshots("delvers-deep-prompt", {"gm": gm_page, "player": player})
            prompt.get_by_role("button", name="pass").click()
            for page in (gm_page, player):
                expect(page.locator("#prompts [data-window]")).to_have_count(0)
                expect(page.locator("#log")).to_contain_text("Daerion takes")
            assert gm.state()["summary"]["reaction_windows"] == []

            # The troll's health is hidden from the player: its export blanks it and marks
            # it, so the troll's combatant-added (version 3) is taken as signed (docs/audit.md,
            # "A player's export"); the GM's badge verifies the stream whole.
            expect(player.locator("#audit .verdict")).to_contain_text(
                "in order up to the signed head; "
            )
            expect(player.locator("#audit .verdict")).to_contain_text(
                " with hidden parts taken as signed"
            )
            expect(player.locator("#audit")).to_have_attribute("data-state", "verified")
            expect(gm_page.locator("#audit .verdict")).to_contain_text("verified: ")
            expect(gm_page.locator("#audit .verdict")).not_to_contain_text("not verified")
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors


@pytest.mark.table_screenshots
def test_fifty_two_initiative_is_rolled_from_the_dice_prompt(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm = created(client, encounter_id, "fifty-two", dice="prompt")
        for name in ("able", "eckhart"):
            with open(f"service/demos/examples/fifty-two/{name}.json") as stats:
                gm.send(json.load(stats))
        player_token = player_of(gm, "able")
        held = gm.send({"type": "start-encounter"})
        assert [e["type"] for e in held["events"]] == ["command-held", "roll-requested"]
        gm_page, player = pages(browser, fray, gm, player_token, errors)
        try:
            dice = player.locator("#prompts .dice-prompt")
            expect(dice.get_by_role("heading")).to_have_text("Roll 1d20 for Able: initiative: Able")
            expect(dice.locator(".deadline")).to_have_text(COUNTING_DOWN)
            # In fifty-two nobody reads the seed before the end, the GM neither: the GM's
            # badge checks what a player's does, and says why not the draws.
            expect(gm_page.locator("#audit details")).to_contain_text(
                "not checked: seed: the seed is not yours to read (a fifty-two seed orders "
                "the face-down cards"
            )
            face = dice.get_by_label("d20 #1")
            expect(face).to_have_attribute("max", "20")
            settled(gm_page, player)
            screenshots("fifty-two-prompt", {"gm": gm_page, "player": player})
            # A face the die does not have: Fray refuses it, and the prompt says why.
            face.fill("25")
            dice.get_by_role("button", name="Submit").click()
            expect(dice.locator(".refusal")).to_contain_text("cannot show 25")
            expect(dice.locator(".refusal")).to_contain_text("dice/table-die-out-of-range")
            face.fill("17")
            dice.get_by_role("button", name="Submit").click()
            expect(dice).to_have_count(0)
            expect(player.locator("#log")).to_contain_text("rolled 17.")

            # Eckhart's d20 is the GM's to roll: the GM's prompt, never the player's.
            gms = gm_page.locator("#prompts .dice-prompt")
            expect(gms.get_by_role("heading")).to_have_text(
                "Roll 1d20 for Eckhart: initiative: Eckhart"
            )
            expect(player.locator("#log")).to_contain_text("(initiative: Eckhart)")
            expect(player.locator("#prompts .dice-prompt")).to_have_count(0)
            gms.get_by_role("button", name="Roll for me").click()
            expect(gms.get_by_label("d20 #1")).to_have_value(re.compile(r"^([1-9]|1\d|20)$"))
            rolled = gms.get_by_label("d20 #1").input_value()
            gms.get_by_role("button", name="Submit").click()
            expect(gms).to_have_count(0)
            expect(gm_page.locator("#log")).to_contain_text(f"rolled {rolled}.")
            expect(gm_page.locator("#log")).to_contain_text("Every die is in.")
            summary = gm.state()["summary"]
            assert summary["phase"] != "setup", summary["phase"]
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors
