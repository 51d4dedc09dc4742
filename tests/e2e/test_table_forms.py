"""A half-filled form outlives what happens at the table meanwhile (clients/table/src/keep.ts).

The table draws its actions afresh after every event. A player who has chosen a target, or
a GM who has typed a dice expression and opened its "more options", must not find the form
emptied because someone else acted; a form that was just sent starts afresh. Checked in a
real browser against a real `fray serve` and `fray worker`, each redraw made sure of (the
old control is gone from the page) before its values are read."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.e2e.table_pages import Gm, opened, table_service
from tests.e2e.test_table_delvers_deep import set_up


def mark(controls: list[tuple[Page, str]]) -> None:
    """Mark each control as drawn now (an attribute the next drawing's control lacks)."""
    for page, selector in controls:
        page.locator(selector).evaluate("element => element.setAttribute('data-before', '')")


def wait_redrawn(controls: list[tuple[Page, str]]) -> None:
    """Wait until each page has drawn its marked control anew."""
    for page, selector in controls:
        expect(page.locator(f"{selector}[data-before]")).to_have_count(0)


def test_a_chosen_target_and_a_typed_expression_survive_another_players_event(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, player_token = set_up(client, encounter_id, {"ref": 0})
        gm.send({"type": "fix-order"})
        table = f"{fray}/table/{encounter_id}"
        gm_page = opened(browser, f"{table}#token={gm.token}", errors)
        player = opened(browser, f"{table}#token={player_token}", errors, width=390)
        try:
            expect(player.locator("#turn")).to_contain_text("acting: Bramli")
            target = '#actions form:has([data-action=attack]) select[name="target"]'
            expect(player.locator(target)).to_have_value("orc")  # the default: the first
            player.locator(target).select_option("ghost")
            expression = '#actions form:has([data-action=roll]) input[name="expression"]'
            gm_page.locator(expression).fill("2d6+1")
            more = gm_page.locator("#actions form:has([data-action=roll]) details.more")
            more.locator("summary").click()
            expect(more).to_have_attribute("open", "")

            # The GM rolls from the API: both pages draw their actions again.
            marked = [(player, target), (gm_page, expression)]
            mark(marked)
            roll(gm)
            wait_redrawn(marked)
            expect(player.locator(target)).to_have_value("ghost")
            expect(gm_page.locator(expression)).to_have_value("2d6+1")
            expect(more).to_have_attribute("open", "")

            # The GM sends the expression: the redraw that follows starts that form afresh,
            # and the player's choice, not sent, is still there.
            mark(marked)
            gm_page.locator("#actions [data-action=roll]").click()
            wait_redrawn(marked)
            expect(gm_page.locator(expression)).to_have_value("")
            expect(more).not_to_have_attribute("open", "")
            expect(player.locator(target)).to_have_value("ghost")
            rolled = [e["data"]["expression"] for e in gm.events() if e["type"] == "dice-rolled"]
            assert rolled == ["1d4", "2d6 + 1"], rolled
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors


def roll(gm: Gm) -> None:
    gm.send({"type": "roll", "expression": "1d4"}, dice=[3])


def test_a_cell_field_armed_for_the_map_stays_armed_through_another_players_event(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """The GM presses "pick on map" for a new combatant's position; an event from elsewhere
    redraws the forms; the field is still the one a map click fills."""
    errors: list[str] = []
    with table_service(redis_url, queue_url) as (fray, client):
        gm, _ = set_up(client, encounter_id)
        gm.send({"type": "set-map", "map": {"kind": "square", "width": 6, "height": 4}})
        gm_page = opened(browser, f"{fray}/table/{encounter_id}#token={gm.token}", errors)
        try:
            position = '#actions form:has([data-action=add-combatant]) input[name="position"]'
            form = gm_page.locator("#actions form:has([data-action=add-combatant])")
            pick = form.get_by_role("button", name='pick on map: the cell for "position"')
            pick.click()
            expect(pick).to_have_attribute("aria-pressed", "true")
            expect(gm_page.locator("#map .cell[role=button]")).to_have_count(24)

            marked = [(gm_page, position)]
            mark(marked)
            roll(gm)
            wait_redrawn(marked)
            expect(pick).to_have_attribute("aria-pressed", "true")
            gm_page.get_by_role("button", name="cell 2, 3: choose").click()
            expect(gm_page.locator(position)).to_have_value("2, 3")
            expect(pick).to_have_attribute("aria-pressed", "false")
        finally:
            gm_page.goto("about:blank")
    assert errors == [], errors
