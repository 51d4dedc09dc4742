"""Reaction windows closed by `fray worker` at their deadline (delvers-deep: a dodge),
and windows that close early never closing twice."""

from __future__ import annotations

import time
from typing import Any

from service.domain.context import GM, Actor
from service.domain.timefmt import parse_iso
from service.engine import Engine
from tests.engine_helpers import send
from tests.workers.conftest import fray_worker, of_type, wait_until, with_engine

PLAYER = Actor("p1", "player", frozenset({"hero"}))
CLUB = {"name": "greatclub", "kind": "melee", "reach": 2, "damage": "6"}


async def troll_swings(engine: Engine, encounter_id: str, window_seconds: float) -> dict[str, Any]:
    """delvers-deep: the troll hits the hero (REF 3), who may dodge; the window's event."""
    options = {"dice": "table", "reaction_window": window_seconds}
    await engine.create("delvers-deep", options, encounter_id=encounter_id, actor=GM)
    hero = {"health": 10, "kind": "pc", "fort": 4, "ref": 3, "will": 4, "dodge_dc": 4}
    troll = {"health": 10, "fort": 4, "ref": 2, "will": 2, "weapons": [CLUB]}
    for cid, side, stats in (("hero", "pcs", hero), ("troll", "monsters", troll)):
        add = {"type": "add-combatant", "combatant_id": cid, "name": cid, "side": side,
               "controller": "p1" if side == "pcs" else None, "stats": stats}  # fmt: skip
        await send(engine, encounter_id, add)
    await send(engine, encounter_id, {"type": "start-encounter"}, dice=[3])
    loaded = await engine.load(encounter_id)
    if getattr(loaded.state, "phase", None) == "reflex":
        await send(engine, encounter_id, {"type": "fix-order"})
    await send(engine, encounter_id, {"type": "end-turn", "combatant_id": "hero"}, PLAYER)
    await send(engine, encounter_id, {"type": "pick", "combatant_ids": ["troll"]})
    attack = {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "hero"}
    blow = await send(engine, encounter_id, attack, dice=[5])
    (opened,) = [e for e in blow.events if e.type == "reaction-window-opened"]
    return opened.data


def closed(store_url: str, encounter_id: str) -> list[dict[str, Any]]:
    return of_type(store_url, encounter_id, "reaction-window-closed")


def test_an_unanswered_dodge_window_closes_at_its_deadline_and_the_blow_lands(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with fray_worker(redis_url, queue_url):
        window = with_engine(
            redis_url, queue_url, lambda engine: troll_swings(engine, encounter_id, 1.0)
        )
        (event,) = wait_until(lambda: closed(redis_url, encounter_id))
    assert event["data"]["reason"] == "deadline"
    assert parse_iso(event["at"]) >= parse_iso(window["deadline"])
    (damage,) = of_type(redis_url, encounter_id, "damage-taken")
    assert damage["data"]["combatant_id"] == "hero" and damage["data"]["amount"] == 6


def test_a_window_answered_in_time_closes_once_and_its_deadline_is_spent(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    async def swing_and_pass(engine: Engine) -> dict[str, Any]:
        window = await troll_swings(engine, encounter_id, 1.0)
        answer = {"type": "answer-reaction", "window_id": window["window_id"],
                  "combatant_id": "hero", "option": "pass"}  # fmt: skip
        await send(engine, encounter_id, answer, PLAYER)
        assert await engine.store.pending_deadlines(encounter_id) == []
        return window

    with fray_worker(redis_url, queue_url):
        window = with_engine(redis_url, queue_url, swing_and_pass)
        # The job scheduled for the deadline still runs, finds the outbox changed, and
        # does nothing; the sweeper finds nothing either.
        time.sleep(max(0.0, parse_iso(window["deadline"]).timestamp() - time.time()) + 4)
    (event,) = closed(redis_url, encounter_id)
    assert event["data"]["reason"] == "all-answered"


def test_a_window_of_zero_seconds_leaves_it_to_the_policies_and_sets_no_deadline(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    async def swing(engine: Engine) -> list[Any]:
        await troll_swings(engine, encounter_id, 0)
        return await engine.store.pending_deadlines(encounter_id)

    assert with_engine(redis_url, queue_url, swing) == []
    (event,) = closed(redis_url, encounter_id)
    assert event["data"]["reason"] == "deadline"
