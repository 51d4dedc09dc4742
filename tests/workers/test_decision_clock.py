"""fifty-two §4.5 through `fray worker`: a decision clock that runs out ends the turn and
forfeits the points left; an action in time restarts it, and the stale deadline does nothing."""

from __future__ import annotations

import time
from typing import Any

from service.domain.context import GM
from service.domain.timefmt import parse_iso
from service.engine import Engine
from tests.engine_helpers import send
from tests.workers.conftest import fray_worker, of_type, wait_until, with_engine


async def two_fighters(engine: Engine, encounter_id: str, seconds: float) -> None:
    """Four heroes (the first, "hero", acts first) and an orc, dealt; the hero's decision
    clock is running. Four Allies, so §4.5 adds nothing to their `seconds`."""
    options = {"dice": "mixed", "decision_seconds": seconds}
    await engine.create("fifty-two", options, encounter_id=encounter_id, actor=GM)
    fighters = [("hero", "allies"), ("h2", "allies"), ("h3", "allies"), ("h4", "allies")]
    for cid, side in (*fighters, ("orc", "orcs")):
        add = {"type": "add-combatant", "combatant_id": cid, "name": cid, "side": side,
               "stats": {"hp": 20, "attack_bonus": 3}}  # fmt: skip
        await send(engine, encounter_id, add)
    await send(engine, encounter_id, {"type": "start-encounter"}, dice=[20, 5, 4, 3, 1])
    await send(engine, encounter_id, {"type": "choose-columns", "modifier": 0})
    await send(engine, encounter_id, {"type": "deal"})


def test_a_decision_clock_that_runs_out_ends_the_turn_and_forfeits_the_points(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> None:
        await two_fighters(engine, encounter_id, 1)

    with fray_worker(redis_url, queue_url):
        with_engine(redis_url, queue_url, body)
        (ended, *_) = wait_until(lambda: of_type(redis_url, encounter_id, "turn-ended"))
    (started, *_) = of_type(redis_url, encounter_id, "turn-started")
    assert ended["data"] == {"combatant_id": "hero", "reason": "timeout",
                             "forfeited": started["data"]["points"]}  # fmt: skip
    (clock, *_) = of_type(redis_url, encounter_id, "clock-started")
    assert clock["data"]["duration_ms"] == 1000
    assert parse_iso(ended["at"]) >= parse_iso(clock["data"]["deadline"])


def test_an_action_in_time_restarts_the_clock_and_the_old_deadline_does_nothing(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> Any:
        await two_fighters(engine, encounter_id, 2)
        await send(engine, encounter_id, {"type": "step", "combatant_id": "hero"})
        return None

    with fray_worker(redis_url, queue_url):
        with_engine(redis_url, queue_url, body)
        clocks = of_type(redis_url, encounter_id, "clock-started")
        assert [c["data"]["generation"] for c in clocks] == [1, 2]
        assert [c["data"]["owner"] for c in clocks] == ["hero", "hero"]
        wait_until(lambda: of_type(redis_url, encounter_id, "turn-ended"))
        time.sleep(2)  # the first deadline's job has run too
    (ended,) = [e for e in of_type(redis_url, encounter_id, "turn-ended")
                if e["data"]["combatant_id"] == "hero"]  # fmt: skip
    assert ended["data"]["reason"] == "timeout"
    assert parse_iso(ended["at"]) >= parse_iso(clocks[1]["data"]["deadline"])
    # The first deadline (generation 1) was moved by the restart: the first expiry is the
    # second generation's, and it ended the hero's turn.
    (expiry, *_) = of_type(redis_url, encounter_id, "clock-expired")
    assert expiry["data"]["generation"] == 2 and expiry["data"]["owner"] == "hero"
