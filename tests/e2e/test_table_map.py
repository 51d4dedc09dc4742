"""The table view's map (clients/table/src/map.ts) in a real browser against a real `fray
serve`, `fray worker` and redis: a GM and a player, each in their own browser context, see the
map Fray sends (`state.table.map`, the summary's positions, the move action's overlays) and
move by clicking cells: hex-tactical's move, delvers-deep's on a square map (by mouse, then by
keyboard alone), and the GM's `move-token` in fifty-two (the token, then the cell). Each move
is checked on the page and in the API's state (issue 24)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer
from tests.e2e.table_pages import Gm, opened, pick_on_map, screenshots, table_service


def create(client: httpx.Client, encounter_id: str, ruleset: str) -> Gm:
    created = client.post(
        "/v1/encounters", headers=bearer(KEY),
        json={"encounter_id": encounter_id, "ruleset": ruleset},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    return Gm(client, encounter_id, created.json()["gm_token"])


def player_token(gm: Gm, combatant: str) -> str:
    minted = gm.client.post(
        f"/v1/encounters/{gm.encounter_id}/tokens", headers=bearer(gm.token),
        json={"role": "player", "combatants": [combatant], "subject": "pat"},
    )  # fmt: skip
    assert minted.status_code == 201, minted.text
    token: str = minted.json()["token"]
    return token


def position(gm: Gm, combatant: str) -> dict[str, int]:
    found: dict[str, int] = next(
        c["position"] for c in gm.state()["summary"]["combatants"] if c["id"] == combatant
    )
    return found


def legal(gm: Gm, token: str) -> list[dict[str, Any]]:
    got = gm.client.get(f"/v1/encounters/{gm.encounter_id}/legal-actions", headers=bearer(token))
    assert got.status_code == 200, got.text
    actions: list[dict[str, Any]] = got.json()["actions"]
    return actions


@contextmanager
def pages(
    browser: Browser, fray: str, gm: Gm, token: str
) -> Iterator[tuple[Page, Page, list[str]]]:
    """The GM's page, and the player's on a phone-width screen; the errors both collect."""
    errors: list[str] = []
    table = f"{fray}/table/{gm.encounter_id}"
    gm_page = opened(browser, f"{table}#token={gm.token}", errors)
    player = opened(browser, f"{table}#token={token}", errors, width=390)
    try:
        yield gm_page, player, errors
    finally:
        for page in (gm_page, player):
            page.goto("about:blank")  # closes the follow: `fray serve` waits for it


def fits_the_screen(page: Page) -> None:
    """The map is no wider than the page: it scales (viewBox, width 100%)."""
    width = page.evaluate("() => document.querySelector('#map svg.board').clientWidth")
    assert 0 < width <= page.evaluate("() => document.documentElement.clientWidth"), width


def pointy_top_axial(page: Page) -> None:
    """service/domain/grid.py's hexes: pointy-top (taller than wide), axial: a column right
    (q + 1) is one hex's width right, a row down (r + 1) half a width right and √3/2 widths
    lower (1.5 times the centre-to-corner)."""
    # Measured in one go: the map is drawn again as each event comes.
    origin, right, down = page.evaluate(
        """() => ["0,0", "1,0", "0,1"].map((k) => {
            const polygon = document.querySelector(`#map [data-cell="${k}"] polygon.ground`);
            const r = polygon.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2, r.width, r.height];
        })"""
    )
    assert origin[3] > origin[2]
    across = right[0] - origin[0]
    assert across > 0 and abs(right[1] - origin[1]) < 0.5
    assert abs(down[0] - origin[0] - across / 2) < 0.5
    assert abs(down[1] - origin[1] - across * 3**0.5 / 2) < 0.5


@pytest.mark.table_screenshots
def test_hex_tactical_the_player_moves_by_clicking_a_reachable_hex(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    with table_service(redis_url, queue_url) as (fray, client):
        gm = create(client, encounter_id, "hex-tactical")
        gm.send({"type": "set-map", "map": {"kind": "hex", "width": 8, "height": 6, "terrain": [
            {"cell": [2, 3], "terrain": {"kind": "difficult"}},
            {"cell": [5, 4], "terrain": {"kind": "impassable"}}]}})  # fmt: skip
        maul = {"name": "maul", "damage": "1d6"}
        for cid, name, side, cell in (
            ("hero", "Hero", "pcs", [1, 1]),
            ("brute", "Brute", "foes", [5, 1]),
        ):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": name, "side": side,
                     "stats": {"hp": 20, "weapons": [maul]}, "position": cell})  # fmt: skip
        gm.send({"type": "place-cover", "cell": [3, 2], "name": "crate", "kind": "partial"})
        token = player_token(gm, "hero")
        gm.send({"type": "start-encounter"})
        if gm.state()["summary"]["acting"] == ["brute"]:  # server dice: the brute may go first
            gm.send({"type": "end-turn", "combatant_id": "brute"})
        move = next(a for a in legal(gm, token) if a["type"] == "move")
        reachable = {(r["cell"]["x"], r["cell"]["y"]): r for r in move["params"]["reachable"]}
        threatened = {(c["x"], c["y"]) for c in move["params"]["threatened"]["foes"]}
        goal = (1, 3)
        assert goal in reachable and not reachable[goal]["provokes"], reachable
        with pages(browser, fray, gm, token) as (gm_page, player, errors):
            board = player.locator("#map svg.board")
            expect(board).to_have_attribute("aria-label", "hex map, 8 by 6")
            expect(player.locator("#map .cell")).to_have_count(48)
            pointy_top_axial(player)
            expect(player.locator("#map .cell.reachable")).to_have_count(len(reachable))
            expect(player.locator("#map .cell.threatened")).to_have_count(len(threatened))
            expect(player.locator('#map [data-cell="2,3"]')).to_have_class(re.compile("difficult"))
            expect(player.locator('#map [data-cell="5,4"]')).to_have_class(re.compile("impassable"))
            expect(player.locator('#map [data-cover="3,2"]')).to_have_count(1)
            expect(player.locator("#map .map-legend")).to_contain_text("partial cover")
            hero = player.locator('#map [data-token="hero"]')
            expect(hero).to_have_attribute("data-at", "1,1")
            expect(hero).to_have_class(re.compile("acting"))
            expect(hero.locator("title")).to_have_text("Hero")
            expect(player.locator('#map [data-token="brute"] .initials')).to_have_text("BR")
            fits_the_screen(player)

            cost = reachable[goal]["cost"]
            cell = player.get_by_role(
                "button", name=f"cell 1, 3: reachable, cost {cost} ({cost * 5} ft)"
            )
            cell.click()  # chosen: the move's form has the cell
            form = player.locator("form.action", has=player.locator("[data-action=move]"))
            expect(form.get_by_label("to", exact=True)).to_have_value("1, 3")
            expect(form.locator("[data-action=move]")).to_be_focused()
            screenshots("hex-tactical-map", {"gm": gm_page, "player": player})
            player.locator('#map [data-cell="1,3"]').click()  # again: sent
            expect(hero).to_have_attribute("data-at", "1,3")
            expect(gm_page.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "1,3")
            assert position(gm, "hero") == {"x": 1, "y": 3}
        assert errors == [], errors


def reading_order(cells: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return sorted({(r["cell"]["x"], r["cell"]["y"]) for r in cells}, key=lambda c: (c[1], c[0]))


@pytest.mark.table_screenshots
def test_delvers_deep_the_player_moves_on_a_square_map_by_mouse_then_by_keyboard(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """Two moves in one turn (delvers-deep 4.1: the move action twice): the first chosen with
    the mouse and sent with the walk's button, the second with Tab and Enter alone."""
    with table_service(redis_url, queue_url) as (fray, client):
        gm = create(client, encounter_id, "delvers-deep")
        gm.send({"type": "set-map", "map": {"kind": "square", "width": 8, "height": 6, "terrain": [
            {"cell": [3, 1], "terrain": {"kind": "difficult"}},
            {"cell": [4, 4], "terrain": {"kind": "impassable"}}]}})  # fmt: skip
        sword = {"name": "sword", "kind": "melee", "reach": 1, "damage": "d6"}
        for cid, side, stats, cell in (
            ("hero", "pcs", {"kind": "pc", "fort": 4, "ref": 4, "will": 4}, [1, 1]),
            ("orc", "monsters", {"fort": 4, "ref": 2, "will": 2}, [7, 5]),
        ):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                     "side": side, "stats": {"health": 10, "weapons": [sword], **stats},
                     "position": cell})  # fmt: skip
        token = player_token(gm, "hero")
        gm.send({"type": "start-encounter"})  # the reflex roll, then the GM fixes the order
        gm.send({"type": "fix-order"})
        walk = next(a for a in legal(gm, token) if a["type"] == "move")
        assert walk["label"] == 'Move 4"'
        assert {"cell": {"x": 2, "y": 3}, "cost": 2} in walk["params"]["reachable"]
        with pages(browser, fray, gm, token) as (gm_page, player, errors):
            expect(player.locator("#map svg.board")).to_have_attribute(
                "aria-label", "square map, 8 by 6"
            )
            expect(player.locator("#map .cell")).to_have_count(48)
            expect(player.locator('#map [data-cell="3,1"]')).to_have_class(re.compile("difficult"))
            expect(player.locator("#map .map-legend")).to_contain_text("impassable")
            fits_the_screen(player)
            # Mouse: the cell, then the walk's button.
            player.get_by_role("button", name='cell 2, 3: reachable, cost 2, by Move 4"').click()
            form = player.locator(
                "form.action", has=player.get_by_role("button", name='Move 4"', exact=True)
            )
            expect(form.get_by_label("to", exact=True)).to_have_value("2, 3")
            form.get_by_role("button", name='Move 4"', exact=True).click()
            hero = player.locator('#map [data-token="hero"]')
            expect(hero).to_have_attribute("data-at", "2,3")
            assert position(gm, "hero") == {"x": 2, "y": 3}
            screenshots("delvers-deep-map", {"gm": gm_page, "player": player})

            # Keyboard: a fresh page, Tab to the cell (the map's reachable cells come first,
            # in reading order: those of the walk, the jog and the sprint), Enter chooses it
            # and moves the focus to the walk's button, Enter sends.
            moves = [a for a in legal(gm, token) if a["type"] == "move"]
            goal = (4, 3)
            order = reading_order([r for a in moves for r in a["params"]["reachable"]])
            player.goto("about:blank")  # a new load: the same address with a fragment is not
            player.goto(f"{fray}/table/{encounter_id}#token={token}")
            expect(player.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "2,3")
            head = gm.state()["version"]
            expect(player.locator("#live")).to_contain_text(f"version {head}")
            for _ in range(order.index(goal) + 1):
                player.keyboard.press("Tab")
            cell = player.locator(f'#map [data-cell="{goal[0]},{goal[1]}"]')
            expect(cell).to_be_focused()
            player.keyboard.press("Enter")
            expect(player.get_by_role("button", name='Move 4"', exact=True)).to_be_focused()
            player.keyboard.press("Enter")
            expect(player.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "4,3")
            expect(gm_page.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "4,3")
            assert position(gm, "hero") == {"x": 4, "y": 3}
        assert errors == [], errors


@pytest.mark.table_screenshots
def test_fifty_two_the_gm_moves_a_token_by_clicking_it_then_a_cell(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """fifty-two has no move action with overlays: the GM sets a map (`set-map`) and moves a
    token with the common `move-token`, the token chosen on the map, then the cell; the
    player's page follows."""
    with table_service(redis_url, queue_url) as (fray, client):
        gm = create(client, encounter_id, "fifty-two")
        gm.send({"type": "set-map", "map": {"kind": "square", "width": 6, "height": 4}})
        for cid, side, cell in (("hero", "allies", [0, 0]), ("ogre", "enemies", [5, 3])):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                     "side": side, "stats": {"hp": 50}, "position": cell})  # fmt: skip
        token = player_token(gm, "hero")
        with pages(browser, fray, gm, token) as (gm_page, player, errors):
            expect(player.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "0,0")
            # The player is offered no move-token: its tokens are not buttons.
            expect(player.locator("#map [data-token][role=button]")).to_have_count(0)
            expect(player.locator("#map .cell[role=button]")).to_have_count(0)
            ogre = gm_page.get_by_role("button", name=re.compile(r"^Ogre, side enemies, at 5, 3"))
            ogre.click()
            expect(ogre).to_have_attribute("aria-pressed", "true")
            gm_page.keyboard.press("Escape")  # let go of it, and choose it again
            expect(ogre).to_have_attribute("aria-pressed", "false")
            expect(gm_page.locator("#map .cell[role=button]")).to_have_count(0)
            ogre.click()
            expect(ogre).to_have_attribute("aria-pressed", "true")
            expect(gm_page.locator("#map .map-hint")).to_contain_text("Moving Ogre")
            gm_page.get_by_role("button", name="cell 3, 2: choose").click()
            form = gm_page.locator("form.action", has=gm_page.locator("[data-action=move-token]"))
            expect(form.get_by_label("combatant id")).to_have_value("ogre")
            expect(form.get_by_label("to", exact=True)).to_have_value("3, 2")
            screenshots("fifty-two-map", {"gm": gm_page, "player": player})
            form.locator("[data-action=move-token]").click()
            for page in (gm_page, player):
                expect(page.locator('#map [data-token="ogre"]')).to_have_attribute("data-at", "3,2")
            assert position(gm, "ogre") == {"x": 3, "y": 2}

            # A cell field's own "pick on map": every cell can be chosen, the one clicked
            # fills the field.
            form = gm_page.locator("form.action", has=gm_page.locator("[data-action=move-token]"))
            form.get_by_label("combatant id").select_option("ogre")
            pick_on_map(gm_page, form, "to", (2, 1))
            form.locator("[data-action=move-token]").click()
            expect(player.locator('#map [data-token="ogre"]')).to_have_attribute("data-at", "2,1")
            # Typed, the text fallback: "x, y".
            form = gm_page.locator("form.action", has=gm_page.locator("[data-action=move-token]"))
            form.get_by_label("combatant id").select_option("hero")
            form.get_by_label("to", exact=True).fill("1, 1")
            form.locator("[data-action=move-token]").click()
            expect(player.locator('#map [data-token="hero"]')).to_have_attribute("data-at", "1,1")
            assert position(gm, "hero") == {"x": 1, "y": 1}
        assert errors == [], errors
