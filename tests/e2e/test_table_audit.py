"""A player's audit badge (clients/table/src/audit.ts, `auditRedacted`) in a real browser,
against a real `fray serve`, `fray worker` and redis: a freeform fight with
`hide_enemy_health`, where the goblin's hit points are blanked in the player's export and a
hidden GM roll and the GM's adjustment of the goblin's hit points are left out of it. The
player's badge verifies what it can and counts what it took as signed and what it was not
shown; after one event the player sees whole is edited in Redis, the reloaded badge says
not verified and names its version."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.e2e.table_pages import opened, table_service
from tests.e2e.test_table_prompts import created, player_of, tamper


def test_a_players_badge_verifies_a_redacted_export_and_names_an_edited_event(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm = created(client, encounter_id, "freeform", hide_enemy_health=True)
        for cid, name, side, hp in (
            ("bramli", "Bramli", "heroes", 20),
            ("goblin", "Goblin", "goblins", 7),
        ):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": name, "side": side,
                     "stats": {"hp": hp, "initiative_modifier": 1}})  # fmt: skip
        gm.send({"type": "roll-initiative"})
        gm.send({"type": "start-encounter"})
        gm.send({"type": "roll", "expression": "1d20", "hidden": True, "purpose": "ambush"})
        gm.send({"type": "adjust-resource", "combatant_id": "goblin", "delta": -3})
        gm.send({"type": "roll", "expression": "2d6", "purpose": "in the open"})
        head = gm.state()["version"]
        table = f"{fray}/table/{encounter_id}#token={player_of(gm, 'bramli')}"

        player = opened(browser, table, errors, width=390)
        try:
            expect(player.locator("#audit .verdict")).to_have_text(
                f"verified: {head} events in order up to the signed head; {head - 3} "
                "recomputed, 1 with hidden parts taken as signed, 2 not shown to you"
            )
            expect(player.locator("#audit")).to_have_attribute("data-state", "verified")
            notes = player.locator("#audit details li")
            expect(notes.nth(0)).to_have_text(
                "not proven: the contents of 1 event with hidden parts (the parts you see "
                "included), only their place in the chain that Fray signed"
            )
            expect(notes.nth(1)).to_have_text(
                "not proven: the contents of 2 events not shown to you; 3 links next to "
                "them cannot be checked"
            )
        finally:
            player.goto("about:blank")

        tamper(redis_url, encounter_id, 2)  # Bramli's combatant-added: the player sees it whole
        again = opened(browser, table, errors, width=390)
        try:
            expect(again.locator("#audit .verdict")).to_have_text(
                "not verified: chain: version 2: hash does not match its contents (edited), "
                "and the export does not mark it redacted"
            )
            expect(again.locator("#audit")).to_have_attribute("data-state", "failed")
        finally:
            again.goto("about:blank")
    assert errors == [], errors
