"""The table view's log in Fray's words (clients/table/src/narrate.ts): each line is the
ruleset's sentence that `GET .../narration` serves for the token's copy of the event, newest
first, fetched in batches; the event's own words only when that request fails. A hex-tactical
fight with table dice and the brute's health hidden from the player: the GM's log tells the
blow's damage, the player's tells the hit and no number of the brute's health."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, Page, Route, expect

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer, fray_serving
from tests.e2e.table_pages import opened

HP = 7331  # the brute's: in no other number of the fight
DAMAGE = 4321  # the maul's 1d6+4315, rolled at the table as a 6
HIDDEN = (HP, DAMAGE, HP - DAMAGE)
MAUL = {"name": "maul", "damage": "1d6+4315"}
HIT = "Hero tries the maul on Brute: 10 vs 20: success; hits."


class Table:
    """The GM's side of the fight, over the API, with the dice the table rolled."""

    def __init__(self, client: httpx.Client, encounter_id: str) -> None:
        self.client, self.encounter_id = client, encounter_id
        options = {"hide_enemy_health": True, "dice": "table"}
        created = client.post(
            "/v1/encounters", headers=bearer(KEY),
            json={"encounter_id": encounter_id, "ruleset": "hex-tactical", "options": options},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        self.gm: str = created.json()["gm_token"]

    def send(self, command: dict[str, Any], dice: list[int] | None = None) -> None:
        body: dict[str, Any] = {"command": command, **({"dice": dice} if dice else {})}
        answer = self.client.post(
            f"/v1/encounters/{self.encounter_id}/commands", json=body, headers=bearer(self.gm)
        )
        assert answer.status_code == 201, answer.text

    def player(self) -> str:
        minted = self.client.post(
            f"/v1/encounters/{self.encounter_id}/tokens", headers=bearer(self.gm),
            json={"role": "player", "combatants": ["hero"], "subject": "pat"},
        )  # fmt: skip
        assert minted.status_code == 201, minted.text
        token: str = minted.json()["token"]
        return token

    def versions(self, token: str) -> list[int]:
        """The versions of the events `token` is sent, newest first (as the log lists them)."""
        got = self.client.get(
            f"/v1/encounters/{self.encounter_id}/events", headers=bearer(token),
            params={"limit": 1000},
        )  # fmt: skip
        assert got.status_code == 200, got.text
        return [e["version"] for e in reversed(got.json()["events"])]


def set_up(t: Table) -> str:
    t.send({"type": "set-map", "map": {"kind": "hex", "width": 8, "height": 8}})
    for cid, side, hp, cell in (("hero", "pcs", 24, [1, 1]), ("brute", "foes", HP, [2, 1])):
        t.send({"type": "add-combatant", "combatant_id": cid, "name": cid.title(), "side": side,
                "stats": {"hp": hp, "weapons": [MAUL]}, "position": cell})  # fmt: skip
    player = t.player()
    t.send({"type": "start-encounter"}, dice=[1, 2])  # the hero acts first
    return player


def strike(t: Table) -> None:
    """The hero's blow: 10 to hit, the brute lets it land, 6 on the maul's die."""
    t.send({"type": "attack", "combatant_id": "hero", "target": "brute", "weapon": "maul"}, [10])
    window = next(
        w["window_id"]
        for w in t.client.get(f"/v1/encounters/{t.encounter_id}", headers=bearer(t.gm)).json()[
            "summary"
        ]["reaction_windows"]
    )
    answer = {"type": "answer-reaction", "window_id": window, "combatant_id": "brute",
              "option": "pass"}  # fmt: skip
    t.send(answer, dice=[6])


def lines(page: Page) -> list[str]:
    return page.locator("#log li").all_inner_texts()


def test_the_log_tells_each_event_in_the_rulesets_words_as_the_viewer_may_see_it(
    redis_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with (
        fray_serving(redis_url) as [fray],
        httpx.Client(base_url=fray, timeout=30) as client,
    ):
        t = Table(client, encounter_id)
        player_token = set_up(t)
        url = f"{fray}/table/{encounter_id}"
        asked: list[str] = []
        gm_page = opened(browser, f"{url}#token={t.gm}", errors)
        player = opened(browser, "about:blank", errors, width=390)
        player.on("request", lambda r: asked.append(r.url) if "/narration" in r.url else None)
        player.goto(f"{url}#token={player_token}")
        try:
            for page in (gm_page, player):
                expect(page.locator("#log")).to_contain_text("Initiative order: Hero, Brute.")
            strike(t)
            expect(gm_page.locator("#log")).to_contain_text(f"Brute takes {DAMAGE} damage.")
            expect(gm_page.locator("#log")).to_contain_text(f"Brute's hp went from {HP} to")
            expect(player.locator("#log")).to_contain_text(HIT)
            expect(player.locator("#log")).to_contain_text("The reaction window closed.")
            # Every line is told, newest first, each with its version.
            for page, token in ((gm_page, t.gm), (player, player_token)):
                expect(page.locator("#log [aria-busy]")).to_have_count(0)
                versions = t.versions(token)
                expect(page.locator("#log li")).to_have_count(len(versions))
                shown = page.locator("#log li").evaluate_all(
                    "items => items.map(i => Number(i.dataset.version))"
                )
                assert shown == versions
                assert [line.split(" ", 1)[0] for line in lines(page)] == [
                    f"#{v}" for v in versions
                ]
            hit = next(line for line in lines(player) if HIT in line)
            assert hit.startswith("#12 "), hit  # the version of attack-rolled
            # Batched: the page asked for the sentences of many events at once.
            assert 1 <= len(asked) < len(lines(player)), asked
            dom = player.content()
            assert [n for n in HIDDEN if str(n) in dom] == []
            assert str(DAMAGE) in gm_page.content()
        finally:
            for page in (gm_page, player):
                page.goto("about:blank")
    assert errors == [], errors


def test_when_the_sentences_cannot_be_had_the_log_falls_back_to_the_events_words(
    redis_url: str, encounter_id: str, browser: Browser
) -> None:
    errors: list[str] = []
    with (
        fray_serving(redis_url) as [fray],
        httpx.Client(base_url=fray, timeout=30) as client,
    ):
        t = Table(client, encounter_id)
        set_up(t)

        def refuse(route: Route) -> None:
            error = {"code": "internal/test", "message": "no sentences today"}
            route.fulfill(status=500, json={"error": error})

        page = opened(browser, "about:blank", errors)
        page.route("**/narration*", refuse)
        page.goto(f"{fray}/table/{encounter_id}#token={t.gm}")
        try:
            expect(page.locator("#log")).to_contain_text("order set")
            expect(page.locator("#log [aria-busy]")).to_have_count(0)
            expect(page.locator("#log li").first).to_have_attribute(
                "data-version", str(t.versions(t.gm)[0])
            )
            expect(page.locator("#log")).not_to_contain_text("Initiative order: Hero, Brute.")
        finally:
            page.goto("about:blank")
    assert errors == [], errors
