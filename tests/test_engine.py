"""The command pipeline on the in-memory store: validate, load, decide, append, retry."""

from __future__ import annotations

import asyncio
from itertools import pairwise

import pytest

from service.deciding import CommandRequest
from service.domain.canonical import ZERO_HASH
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.domain.errors import (
    Conflict,
    Forbidden,
    FrayError,
    InvalidCommand,
    NotFound,
    RuleViolation,
)
from service.domain.fold import replay
from service.engine import Engine
from service.rules.freeform import RULESET
from tests.engine_helpers import run, send, skirmish

PLAYER = Actor("p1", "player", frozenset({"bramli"}))


async def stream(engine: Engine, encounter_id: str) -> list[Envelope]:
    return [Envelope.from_body(s.body) for s in await engine.store.read(encounter_id)]


def test_create_records_ruleset_version_options_and_seed_commitment(encounter_id):
    async def scenario(engine: Engine) -> Envelope:
        await engine.create(
            "freeform", {"turn_time_limit": 30}, encounter_id=encounter_id, actor=GM
        )
        return (await stream(engine, encounter_id))[0]

    first = run(scenario)
    assert first.version == 1 and first.type == "encounter-created"
    assert first.data["ruleset"] == "freeform" and first.data["ruleset_version"] == RULESET.version
    assert first.data["options"]["turn_time_limit"] == 30
    assert len(first.data["seed_commitment"]) == 64
    assert first.prev_hash == ZERO_HASH and first.hash == first.computed_hash()


def test_commands_append_chained_events_with_their_command(encounter_id):
    async def scenario(engine: Engine) -> list[Envelope]:
        await skirmish(engine, encounter_id)
        return await stream(engine, encounter_id)

    events = run(scenario)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    for before, after in pairwise(events):
        assert after.prev_hash == before.hash
    starts = [e for e in events if e.type == "encounter-started"]
    assert starts[0].command == {"type": "start-encounter"}
    following = events[events.index(starts[0]) + 1]
    assert following.command is None and following.command_id == starts[0].command_id


@pytest.mark.parametrize(
    ("command", "error", "code", "words"),
    [
        pytest.param({"type": "fly"}, InvalidCommand, "command/unknown-type", "end-turn",
                     id="unknown type lists the valid ones"),
        pytest.param({"type": "set-initiative", "combatant_id": "bramli", "total": "high"},
                     InvalidCommand, "command/invalid", "total", id="wrong field type names it"),
        pytest.param({"type": "end-turn", "combatant_id": "goblin"}, RuleViolation,
                     "turn/not-your-turn", "turn", id="rule violation"),
        pytest.param({"type": "adjust-resource", "combatant_id": "nobody", "delta": -3},
                     RuleViolation, "combatant/unknown", "nobody", id="unknown combatant"),
    ],
)  # fmt: skip
def test_a_rejected_command_appends_nothing(encounter_id, command, error, code, words):
    async def scenario(engine: Engine) -> tuple[int, int, Exception]:
        await skirmish(engine, encounter_id)
        state = (await engine.load(encounter_id)).state
        if command.get("combatant_id") == "goblin" and state.current == "goblin":
            command["combatant_id"] = "bramli"
        before = len(await stream(engine, encounter_id))
        with pytest.raises(error) as caught:
            await send(engine, encounter_id, command)
        return before, len(await stream(engine, encounter_id)), caught.value

    before, after, raised = run(scenario)
    assert before == after
    assert raised.code == code  # type: ignore[attr-defined]
    assert words in raised.message  # type: ignore[attr-defined]


def test_rule_violations_cite_the_rule(encounter_id):
    async def scenario(engine: Engine) -> RuleViolation:
        await engine.create("freeform", {}, encounter_id=encounter_id, actor=GM)
        await send(engine, encounter_id, {"type": "add-combatant", "name": "Bramli"})
        with pytest.raises(RuleViolation) as caught:
            await send(engine, encounter_id, {"type": "start-encounter"})
        return caught.value

    violation = run(scenario)
    assert violation.code == "initiative/missing" and violation.rule == "freeform §1"
    assert "Bramli" in violation.message


def test_same_command_id_again_returns_the_first_outcome_and_writes_nothing(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        roll = {"type": "roll", "expression": "3d6"}
        first = await send(engine, encounter_id, roll, command_id="c-1", expected_version=None)
        length = len(await stream(engine, encounter_id))
        stale = first.version - 1
        again = await send(engine, encounter_id, roll, command_id="c-1", expected_version=stale)
        return first, again, length, len(await stream(engine, encounter_id))

    first, again, length, length_after = run(scenario)
    assert again.duplicate and not first.duplicate
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in first.events]
    assert length == length_after


def test_same_command_id_with_a_different_command_is_refused(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        await send(engine, encounter_id, {"type": "roll", "expression": "3d6"}, command_id="c-1")
        length = len(await stream(engine, encounter_id))
        with pytest.raises(Conflict) as caught:
            await send(
                engine, encounter_id, {"type": "roll", "expression": "1d4"}, command_id="c-1"
            )
        return caught.value, length, len(await stream(engine, encounter_id))

    error, before, after = run(scenario)
    assert error.code == "command/id-reused" and "c-1" in error.message
    assert before == after


def test_the_actor_is_part_of_a_command_id_fingerprint(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        note = {"type": "add-note", "text": "hold the door"}
        first = await send(engine, encounter_id, note, command_id="c-1")
        retry = await send(engine, encounter_id, note, command_id="c-1")
        length = len(await stream(engine, encounter_id))
        with pytest.raises(Conflict) as caught:
            await send(engine, encounter_id, note, actor=Actor("gm-2", "gm"), command_id="c-1")
        return first, retry, caught.value, length, len(await stream(engine, encounter_id))

    first, retry, error, before, after = run(scenario)
    assert retry.duplicate and retry.version == first.version
    assert error.code == "command/id-reused" and "c-1" in error.message
    assert before == after


def test_a_stale_expected_version_is_a_conflict_with_expected_and_actual(encounter_id):
    async def scenario(engine: Engine) -> Conflict:
        await skirmish(engine, encounter_id)
        with pytest.raises(Conflict) as caught:
            await send(
                engine, encounter_id, {"type": "roll", "expression": "d6"}, expected_version=2
            )
        return caught.value

    error = run(scenario)
    assert error.details["expected"] == 2 and error.details["actual"] > 2
    assert "expected version 2" in error.message


def test_fifty_concurrent_writers_get_versions_without_gap_or_duplicate(encounter_id):
    async def scenario(engine: Engine) -> list[Envelope]:
        await engine.create("freeform", {}, encounter_id=encounter_id, actor=GM)
        # Five engines stand in for five API processes: each has its own cache.
        engines = [Engine(engine.store) for _ in range(5)]
        await asyncio.gather(
            *(
                send(engines[i % 5], encounter_id, {"type": "add-note", "text": f"note {i}"},
                     command_id=f"note-{i}")
                for i in range(50)
            )
        )  # fmt: skip
        return await stream(engine, encounter_id)

    events = run(scenario)
    assert [e.version for e in events] == list(range(1, 52))
    notes = sorted(e.data["text"] for e in events if e.type == "note-added")
    assert notes == sorted(f"note {i}" for i in range(50))
    for before, after in pairwise(events):
        assert after.prev_hash == before.hash


@pytest.mark.parametrize(
    ("actor", "command", "error"),
    [
        pytest.param(Actor("o", "observer"), {"type": "add-note", "text": "hi"}, Forbidden,
                     id="observers do not send commands"),
        pytest.param(PLAYER, {"type": "expire-clock", "clock_id": "turn", "generation": 1},
                     Forbidden, id="players do not send system commands"),
        pytest.param(PLAYER, {"type": "adjust-resource", "combatant_id": "goblin", "delta": -5},
                     RuleViolation, id="players do not adjudicate"),
    ],
)  # fmt: skip
def test_authorization(encounter_id, actor, command, error):
    async def scenario(engine: Engine) -> None:
        await skirmish(engine, encounter_id)
        with pytest.raises(error):
            await send(engine, encounter_id, command, actor=actor)

    run(scenario)


def test_unknown_encounter_is_not_found():
    async def scenario(engine: Engine) -> None:
        with pytest.raises(NotFound):
            await send(engine, "no-such-encounter", {"type": "start-encounter"})

    run(scenario)


def test_a_fresh_engine_loads_from_a_snapshot_to_the_same_state(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        for i in range(30):
            await send(engine, encounter_id, {"type": "add-note", "text": f"n{i}"})
        snapshot = await engine.store.load_snapshot(encounter_id)
        fresh = await Engine(engine.store).load(encounter_id)
        return snapshot, fresh, replay(RULESET, await stream(engine, encounter_id))

    snapshot, fresh, replayed = run(scenario, snapshot_every=10)
    assert snapshot is not None and snapshot[0] >= 30
    assert fresh.state == replayed


def test_the_state_as_of_a_version_is_what_was_seen_then(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        at = (await engine.load(encounter_id)).version
        await send(
            engine, encounter_id, {"type": "adjust-resource", "combatant_id": "goblin", "delta": -4}
        )
        return (await engine.load_at(encounter_id, at)).state, (
            await engine.load(encounter_id)
        ).state

    then, now = run(scenario)
    assert then.table.combatants["goblin"].pools["hp"].current == 7
    assert now.table.combatants["goblin"].pools["hp"].current == 3


def test_a_turn_timer_writes_its_deadline_and_moves_it_when_the_turn_passes(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id, {"turn_time_limit": 60})
        before = await engine.store.pending_deadlines(encounter_id)
        await send(engine, encounter_id, {"type": "end-turn"})
        return before, await engine.store.pending_deadlines(encounter_id)

    before, after = run(scenario)
    assert [d.key for d in before] == ["clock:turn"] and [d.key for d in after] == ["clock:turn"]
    assert b'"generation":1' in before[0].payload and b'"generation":2' in after[0].payload


def test_table_dice_are_used_and_marked_when_the_encounter_takes_them(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id, {"dice": "mixed"})
        outcome = await send(
            engine, encounter_id, {"type": "roll", "expression": "2d6+1"}, dice=[6, 3]
        )
        return outcome.events[0]

    event = run(scenario)
    assert event.data["total"] == 10
    assert [r["source"] for r in event.rolls] == ["table", "table"]


def test_server_dice_encounters_refuse_table_dice(encounter_id):
    async def scenario(engine: Engine) -> RuleViolation:
        await skirmish(engine, encounter_id)
        with pytest.raises(RuleViolation) as caught:
            await send(engine, encounter_id, {"type": "roll", "expression": "d20"}, dice=[20])
        return caught.value

    assert run(scenario).code == "dice/table-dice-not-allowed"


def test_a_client_seed_is_committed_and_marked(encounter_id):
    async def scenario(engine: Engine) -> Envelope:
        await engine.create("freeform", {}, encounter_id=encounter_id, seed=b"\x01" * 32, actor=GM)
        return (await stream(engine, encounter_id))[0]

    first = run(scenario)
    assert first.data["seed_source"] == "client"


def test_rewind_makes_the_fold_skip_what_came_after(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        at = (await engine.load(encounter_id)).version
        earlier = (await engine.load(encounter_id)).state
        await send(
            engine, encounter_id, {"type": "adjust-resource", "combatant_id": "goblin", "delta": -7}
        )
        await send(engine, encounter_id, {"type": "rewind", "to_version": at})
        fresh = await Engine(engine.store).load(encounter_id)
        return earlier, (await engine.load(encounter_id)).state, fresh.state

    earlier, live, fresh = run(scenario)
    assert live == earlier and fresh == earlier


def test_ended_encounters_reveal_the_seed(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        await send(engine, encounter_id, {"type": "end-encounter"})
        return (await stream(engine, encounter_id))[-1], await engine.store.seed(encounter_id)

    last, seed = run(scenario)
    assert last.type == "encounter-ended" and last.data["seed"] == seed.hex()


def test_request_fields_are_checked():
    with pytest.raises(ValueError):
        CommandRequest(command={"type": "x"}, expected_version=-1)


def test_a_malformed_encounter_id_is_refused_on_create_and_not_found_on_read():
    async def scenario(engine: Engine):
        with pytest.raises(FrayError) as created:
            await engine.create("freeform", {}, encounter_id="the {bad} id", actor=GM)
        with pytest.raises(NotFound):
            await send(engine, "the {bad} id", {"type": "start-encounter"})
        with pytest.raises(NotFound):
            await engine.load_at("", 3)
        return created.value

    assert run(scenario).code == "request/bad-id"


def test_an_unknown_ruleset_names_the_ones_fray_runs():
    async def scenario(engine: Engine):
        with pytest.raises(FrayError) as caught:
            await engine.create("chess", {}, actor=GM)
        return caught.value

    error = run(scenario)
    assert error.code == "encounter/unknown-ruleset" and "freeform" in error.message


def test_bad_options_name_the_field():
    async def scenario(engine: Engine):
        with pytest.raises(FrayError) as caught:
            await engine.create("freeform", {"turn_time_limit": "soon"}, actor=GM)
        return caught.value

    error = run(scenario)
    assert error.code == "encounter/bad-options" and "turn_time_limit" in error.message


def test_what_a_player_saw_as_of_an_earlier_version(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id, {"hide_enemy_health": True})
        at = (await engine.load(encounter_id)).version
        await send(
            engine, encounter_id, {"type": "adjust-resource", "combatant_id": "goblin", "delta": -5}
        )
        then = await engine.load_at(encounter_id, at)
        now = await engine.load(encounter_id)
        return (
            then.ruleset.summary(then.state, PLAYER, then.version),
            now.ruleset.summary(now.state, PLAYER, now.version),
            then.ruleset.summary(then.state, GM, then.version),
        )

    player_then, player_now, gm_then = run(scenario)
    goblin = {c.id: c for c in player_then.combatants}["goblin"]
    assert goblin.health is None and goblin.health_word == "unhurt"
    assert {c.id: c for c in player_now.combatants}["goblin"].health_word == "bloodied"
    assert {c.id: c for c in gm_then.combatants}["goblin"].health.current == 7
    assert {c.id: c for c in player_then.combatants}["bramli"].health.current == 20
    assert player_then.version < player_now.version


def test_a_command_valid_now_is_not_refused_by_another_process_stale_cache(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        other = Engine(engine.store)  # a second API process: its cache falls behind
        await other.load(encounter_id)
        first = (await engine.load(encounter_id)).state.current
        await send(engine, encounter_id, {"type": "end-turn"})
        second = (await engine.load(encounter_id)).state.current
        head = (await engine.load(encounter_id)).version
        # Against `other`'s stale cache it is still `first`'s turn.
        outcome = await send(
            other, encounter_id, {"type": "end-turn", "combatant_id": second}, expected_version=head
        )
        return first, second, outcome

    first, second, outcome = run(scenario)
    assert first != second
    assert (
        outcome.events[0].type == "turn-ended" and outcome.events[0].data["combatant_id"] == second
    )


def test_a_stale_pinned_version_is_still_a_conflict_after_checking_afresh(encounter_id):
    async def scenario(engine: Engine) -> Conflict:
        await skirmish(engine, encounter_id)
        other = Engine(engine.store)
        stale = (await other.load(encounter_id)).version
        await send(engine, encounter_id, {"type": "add-note", "text": "moved on"})
        with pytest.raises(Conflict) as caught:
            await send(
                other, encounter_id, {"type": "add-note", "text": "late"}, expected_version=stale
            )
        return caught.value

    error = run(scenario)
    assert error.details["actual"] == error.details["expected"] + 1
