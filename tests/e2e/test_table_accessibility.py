"""The table view is usable without a mouse and on a phone (issue 24: "accessible
(keyboard, labels) and usable on a phone-width screen"), checked mid-fight in a real
browser against a real `fray serve`:

- axe-core (clients/table's pinned devDependency) finds no serious or critical violation on
  a GM's page and a player's, in delvers-deep (four pools, a reaction window) and in
  fifty-two (the field of cards);
- a player ends a turn and submits an attack form with Tab, Shift+Tab and Enter only, and
  the focused control is drawn with a visible focus (a :focus-visible style that applies);
- fifty-two's Reflex save prompt: no serious violation, answered with Tab and Enter;
- at 390 px no page scrolls sideways and every action button is inside the viewport."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e import test_table_delvers_deep as delvers
from tests.e2e import test_table_fifty_two as fifty_two
from tests.e2e.helpers import fray_serving
from tests.e2e.table_pages import Gm, opened
from tests.node import npm_ci
from tests.workers.conftest import fray_worker

TABLE = Path(__file__).parents[2] / "clients" / "table"
SERIOUS = ("serious", "critical")
MOST_TABS = 80  # more stops than the page has controls: a control never reached is a failure


@pytest.fixture(scope="module")
def axe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return npm_ci(TABLE, tmp_path_factory) / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture
def fray(redis_url: str, queue_url: str) -> Iterator[str]:
    with (
        fray_serving(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as [url],
        fray_worker(redis_url, queue_url),
    ):
        yield url


def violations(page: Page, axe: Path) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it stands."""
    page.add_script_tag(path=str(axe))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document)).violations.map((v) => ({
             id: v.id, impact: v.impact, help: v.help,
             nodes: v.nodes.map((n) => n.target.join(" ")) }))"""
    )
    return [v for v in found if v["impact"] in SERIOUS]


@pytest.fixture
def client(fray: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fray, timeout=30) as client:
        yield client


def delvers_mid_fight(
    client: httpx.Client, encounter_id: str, orc: dict[str, Any] | None = None
) -> tuple[Gm, str]:
    """Bramli's turn, the order fixed: the player has every action of a turn."""
    gm, player_token = delvers.set_up(client, encounter_id, orc)
    gm.send({"type": "fix-order"})
    return gm, player_token


def test_axe_finds_no_serious_violation_on_a_gm_page_and_a_player_page_mid_fight(
    fray: str, client: httpx.Client, encounter_id: str, browser: Browser, axe: Path
) -> None:
    errors: list[str] = []
    gm, player_token = delvers_mid_fight(client, encounter_id)
    gm.send({"type": "brace", "combatant_id": "bramli"})
    gm.send({"type": "end-turn", "combatant_id": "bramli"})
    gm.send({"type": "pick", "combatant_ids": ["orc"]})
    # A reaction window open for the player: its prompt is on the page too.
    gm.send({"type": "attack", "combatant_id": "orc", "weapon": "axe", "target": "bramli"},
            dice=[6])  # fmt: skip
    table = f"{fray}/table/{encounter_id}"
    pages = {
        "gm": opened(browser, f"{table}#token={gm.token}", errors, bypass_csp=True),
        "player": opened(browser, f"{table}#token={player_token}", errors, 390, True),
    }
    try:
        expect(pages["player"].locator("#prompts [data-window]")).to_have_count(1)
        expect(pages["gm"].locator("[data-action=call-check]")).to_have_count(1)
        for role, page in pages.items():
            assert violations(page, axe) == [], role
    finally:
        for page in pages.values():
            page.goto("about:blank")
    assert errors == [], errors


def test_axe_finds_no_serious_violation_on_the_field_of_cards(
    fray: str, client: httpx.Client, encounter_id: str, browser: Browser, axe: Path
) -> None:
    errors: list[str] = []
    gm, player_token = fifty_two.set_up(client, encounter_id)
    gm.send({"type": "choose-columns", "modifier": 0})
    gm.send({"type": "deal"})
    player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors,
                    bypass_csp=True)  # fmt: skip
    try:
        expect(player.locator("#field .card").first).to_be_visible()
        expect(player.locator("[data-action=remove-card]").first).to_be_visible()
        assert violations(player, axe) == []
    finally:
        player.goto("about:blank")
    assert errors == [], errors


def test_a_player_answers_fifty_twos_reflex_save_with_the_keyboard_only(
    fray: str, client: httpx.Client, encounter_id: str, browser: Browser, axe: Path
) -> None:
    """The Reflex save prompt (fifty-two §8): no serious violation, and Tab reaches the
    cover field, where Enter sends the save with cover 0 feet away (a step, §8.3). The
    seed's d20 fails the save; a step leaves Alice standing."""
    errors: list[str] = []
    gm, player_token = fifty_two.fireball_at_alice(client, encounter_id)
    player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors,
                    390, True)  # fmt: skip
    try:
        prompt = player.get_by_role("dialog", name=re.compile("^Reflex save: Evans casts"))
        expect(prompt).to_be_visible()
        assert violations(player, axe) == []
        tab_to(player, "Attempt the save")
        player.keyboard.press("Tab")
        expect(player.locator(":focus")).to_have_attribute("name", "cover_feet")
        assert focus_visible(player)
        player.keyboard.press("Control+A")
        player.keyboard.type("0")
        expect(prompt.get_by_role("button", name="Attempt, with cover 0 ft away")).to_be_visible()
        player.keyboard.press("Enter")
        expect(player.locator("#log")).to_contain_text(
            "Evans's Fireball takes effect on Alice for 25 damage (Reflex save failed)."
        )
        expect(player.locator("#prompts .prompt")).to_have_count(0)
        expect(player.locator("[data-combatant=alice] .conditions")).to_have_count(0)
        took = [e["data"] for e in gm.events() if e["type"] == "spell-took-effect"]
        assert [(t["save"], t["prone"], t["save_cost"]) for t in took] == [("failed", False, 0)]
    finally:
        player.goto("about:blank")
    assert errors == [], errors


def tab_to(page: Page, name: str, key: str = "Tab") -> None:
    """Press `key` until the focus is on the button called `name`."""
    for _ in range(MOST_TABS):
        page.keyboard.press(key)
        if page.evaluate("document.activeElement.textContent") == name:
            return
    raise AssertionError(f"{key} never reached the button {name!r}")


def focus_visible(page: Page) -> bool:
    """The focused control matches :focus-visible and is drawn with an outline."""
    shown: bool = page.evaluate(
        """() => { const e = document.activeElement;
             const style = getComputedStyle(e);
             return e.matches(":focus-visible") && style.outlineStyle !== "none"
               && parseFloat(style.outlineWidth) > 0; }"""
    )
    return shown


def test_a_player_attacks_and_ends_the_turn_with_the_keyboard_only(
    fray: str, client: httpx.Client, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    # An orc with no REF to dodge: no reaction window comes between the blow and the turn.
    gm, player_token = delvers_mid_fight(client, encounter_id, {"ref": 0})
    player = opened(browser, f"{fray}/table/{encounter_id}#token={player_token}", errors, 390)
    try:
        expect(player.locator("#turn")).to_contain_text("acting: Bramli")
        # The attack form: Tab past its button to the target, Shift+Tab back, Enter.
        tab_to(player, "Attack with the warhammer")
        player.keyboard.press("Tab")
        expect(player.locator(":focus")).to_have_attribute("name", "target")
        assert focus_visible(player)
        player.keyboard.press("Shift+Tab")
        expect(player.locator(":focus")).to_have_text("Attack with the warhammer")
        assert focus_visible(player)
        player.keyboard.press("Enter")
        expect(player.locator("[data-combatant=bramli] [data-pool=fort] .pool-value")).to_have_text(
            "5 / 6"
        )
        # One action left: the focus stayed on the attack's button through the redraw, and
        # Shift+Tab goes back up to the end of the turn.
        expect(player.locator(":focus")).to_have_text("Attack with the warhammer")
        tab_to(player, "End Bramli's turn", "Shift+Tab")
        assert focus_visible(player)
        player.keyboard.press("Enter")
        expect(player.locator("#turn")).to_contain_text("GM's slot")
        ended = [e["data"] for e in gm.events() if e["type"] == "turn-ended"]
        assert ended == [{"combatant_id": "bramli", "reason": "done"}], ended
    finally:
        player.goto("about:blank")
    assert errors == [], errors


def no_sideways_scroll(page: Page) -> None:
    width: int = page.evaluate("innerWidth")
    assert width == 390
    scroll: int = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, scroll
    # Measured in one go in the page: the page redraws its actions as events come, so a
    # button found by one call may be gone (detached, no box) by the next.
    boxes: list[list[float]] = page.evaluate(
        """Array.from(document.querySelectorAll("#actions button, #gm button"))
            .filter((b) => b.offsetParent !== null)
            .map((b) => { const r = b.getBoundingClientRect(); return [r.left, r.right]; })"""
    )
    assert boxes
    for left, right in boxes:
        assert left >= 0 and right <= width, (left, right)


def test_no_page_scrolls_sideways_at_phone_width(
    fray: str, client: httpx.Client, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    gm, player_token = delvers_mid_fight(client, encounter_id)
    table = f"{fray}/table/{encounter_id}"
    pages = [
        opened(browser, f"{table}#token={token}", errors, 390) for token in (gm.token, player_token)
    ]
    try:
        for page in pages:
            expect(page.locator("[data-action=attack]")).to_be_visible()
            no_sideways_scroll(page)
    finally:
        for page in pages:
            page.goto("about:blank")
    assert errors == [], errors
