"""The table view's map for the two other rulesets with maps, in a real browser against a
real `fray serve`, `fray worker` and redis (as test_table_map.py does for hex-tactical,
delvers-deep and fifty-two): d20-action-points, whose move and run list the cells they reach
(the acting player moves by clicking one twice; an idle player's page marks none), and
combat-ii, whose move is a phase's intention with no cells listed (every cell a path reaches
may be its goal; the walk takes a third of MV a phase, §1 F), so the player picks the cell
with the `to` field's "pick on map" and the phase resolves on the last intention."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.e2e.table_pages import opened, pick_on_map, table_service
from tests.e2e.test_table_map import fits_the_screen, legal, pages, player_token, position
from tests.e2e.test_table_prompts import created


def drawn(page: Page, tokens: dict[str, tuple[str, str]]) -> None:
    """Each token (id: its name and "x,y") at its cell, named in its label."""
    for cid, (name, at) in tokens.items():
        token = page.locator(f'#map [data-token="{cid}"]')
        expect(token).to_have_attribute("data-at", at)
        x, y = at.split(",")
        expect(token).to_have_attribute("aria-label", re.compile(rf"^{name}, .*at {x}, {y}"))


def test_d20_action_points_the_acting_player_moves_by_clicking_a_reachable_square(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """d20-action-points Action Points: the hero's move (30 feet, 2 points) and run (60
    feet) list the squares they reach, 5 feet a square, difficult terrain costing more; the
    map marks them on the pages of those who may move the hero (its player and the GM), not
    on the page of the scout's player, who waits for its turn."""
    with table_service(redis_url, queue_url) as (fray, client):
        gm = created(client, encounter_id, "d20-action-points", dice="table")
        gm.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 6, "terrain": [
            {"cell": [3, 1], "terrain": {"kind": "difficult"}},
            {"cell": [5, 4], "terrain": {"kind": "impassable"}}]}})  # fmt: skip
        sword = {"name": "sword", "damage": "1d8"}
        for cid, side, stats, cell in (
            ("hero", "party", {"kind": "pc"}, [1, 1]),
            ("scout", "party", {"kind": "pc"}, [1, 4]),
            ("goblin", "monsters", {}, [9, 5]),
        ):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                     "side": side, "stats": {"hp": 12, "ac": 12, "weapons": [sword], **stats},
                     "position": cell})  # fmt: skip
        token, scout = player_token(gm, "hero"), player_token(gm, "scout")
        gm.send({"type": "start-encounter"})
        gm.send({"type": "begin-combat"})
        gm.send({"type": "roll-initiative"}, dice=[15, 5, 10])  # hero, scout, the goblins
        assert gm.state()["summary"]["acting"] == ["hero"]
        walk, run = (a for a in legal(gm, token) if a["type"] == "move")
        assert (walk["label"], run["label"]) == ("Move 30 feet", "Run 60 feet")
        walked = {(r["cell"]["x"], r["cell"]["y"]): r["cost"] for r in walk["params"]["reachable"]}
        listed = walked.keys() | {
            (r["cell"]["x"], r["cell"]["y"]) for r in run["params"]["reachable"]
        }
        cost = walked[(4, 3)]
        far = (8, 1)  # 7 squares: past the walk's 6, in the run's 12
        assert far not in walked and far in listed
        assert not listed & {(1, 1), (1, 4), (9, 5), (5, 4)}  # taken or impassable
        assert not [a for a in legal(gm, scout) if a["type"] == "move"]
        with pages(browser, fray, gm, token) as (gm_page, player, errors):
            idle = opened(browser, f"{fray}/table/{encounter_id}#token={scout}", errors, width=390)
            try:
                everyone = {"hero": ("Hero", "1,1"), "scout": ("Scout", "1,4"),
                            "goblin": ("Goblin", "9,5")}  # fmt: skip
                for page in (gm_page, player, idle):
                    expect(page.locator("#map svg.board")).to_have_attribute(
                        "aria-label", "square map, 10 by 6"
                    )
                    expect(page.locator("#map .cell")).to_have_count(60)
                    drawn(page, everyone)
                # The map is drawn with the legal actions it was read with: now it is there,
                # the idle page's marks are final.
                expect(idle.locator("#map .cell.reachable")).to_have_count(0)
                for page in (gm_page, player):
                    expect(page.locator("#map .cell.reachable")).to_have_count(len(listed))
                    by_walk = page.locator('#map .cell.reachable[aria-label$="by Move 30 feet"]')
                    expect(by_walk).to_have_count(len(walked))
                expect(player.locator('#map [data-cell="3,1"]')).to_have_class(
                    re.compile("difficult")
                )
                fits_the_screen(player)

                cell = player.get_by_role(
                    "button", name=f"cell 4, 3: reachable, cost {cost}, by Move 30 feet"
                )
                cell.click()  # chosen: the walk's form has the cell
                form = player.locator(
                    "form.action", has=player.get_by_role("button", name="Move 30 feet", exact=True)
                )
                expect(form.get_by_label("to", exact=True)).to_have_value("4, 3")
                player.locator('#map [data-cell="4,3"]').click()  # again: sent
                for page in (player, gm_page, idle):
                    expect(page.locator('#map [data-token="hero"]')).to_have_attribute(
                        "data-at", "4,3"
                    )
                assert position(gm, "hero") == {"x": 4, "y": 3}
                moved = [e for e in gm.events() if e["type"] == "moved"]
                assert [(e["data"]["how"], e["data"]["feet"]) for e in moved] == [
                    ("move", cost * 5)
                ]
            finally:
                idle.goto("about:blank")  # closes the follow, as `pages` does
        assert errors == [], errors


def test_combat_ii_the_player_declares_a_move_by_picking_its_square_on_the_map(
    redis_url: str, queue_url: str, encounter_id: str, browser: Browser
) -> None:
    """combat-ii §1 C, F: the orcs lose the initiative and declare first; the archer's move
    is the phase's last intention, so sending it resolves the phase and the archer walks.
    The move lists no reachable squares (any square a path reaches may be its goal, walked a
    third of MV a phase), so no page marks any: the player picks the square with the `to`
    field's "pick on map"."""
    with table_service(redis_url, queue_url) as (fray, client):
        gm = created(client, encounter_id, "combat-ii", dice="table")
        gm.send({"type": "set-map", "map": {"kind": "square", "width": 8, "height": 6,
                                            "diagonals": "chebyshev"}})  # fmt: skip
        bow = {"name": "longbow", "kind": "missile", "speed": 8, "damage": "1d6", "bow": True}
        axe = {"name": "axe", "speed": 7, "damage": "1d8"}
        for cid, side, stats, cell in (
            ("archer", "pcs", {"hp": 8, "thac0": 20, "ac": 7, "mv": 12, "weapons": [bow]}, [1, 1]),
            ("orc", "orcs", {"hp": 6, "thac0": 19, "ac": 6, "mv": 9, "weapons": [axe]}, [6, 4]),
        ):
            gm.send({"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                     "side": side, "stats": stats, "position": cell})  # fmt: skip
        token = player_token(gm, "archer")
        gm.send({"type": "start-encounter"}, dice=[7, 3])  # orcs 7, pcs 3: the lowest wins
        gm.send({"type": "stand", "combatant_id": "orc"})  # the loser first
        move = next(a for a in legal(gm, token) if a["type"] == "move")
        assert move["label"] == "Archer moves" and "reachable" not in move["params"]
        with pages(browser, fray, gm, token) as (gm_page, player, errors):
            for page in (gm_page, player):
                expect(page.locator("#map svg.board")).to_have_attribute(
                    "aria-label", "square map, 8 by 6"
                )
                expect(page.locator("#map .cell")).to_have_count(48)
                drawn(page, {"archer": ("Archer", "1,1"), "orc": ("Orc", "6,4")})
                expect(page.locator("#map .cell.reachable")).to_have_count(0)
            fits_the_screen(player)

            form = player.locator("form.action", has=player.locator("[data-action=move]"))
            pick_on_map(player, form, "to", (4, 3))
            form.locator("[data-action=move]").click()
            for page in (player, gm_page):
                expect(page.locator('#map [data-token="archer"]')).to_have_attribute(
                    "data-at", "4,3"
                )
            assert position(gm, "archer") == {"x": 4, "y": 3}
            state = gm.state()
            assert state["summary"]["phase"] == "round 1, phase 2: intentions"
        assert errors == [], errors
