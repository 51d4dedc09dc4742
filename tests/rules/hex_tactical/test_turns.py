"""Whose turn it is on the tactical grid: the Initiative order (base system: degree of success,
then score, then roll), the two actions of a turn and its end, who may end it, the turn timer,
a late joiner, surrender and the downed."""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, SYSTEM, Actor
from service.domain.envelope import Envelope
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    PLAYER,
    add,
    answer,
    encounter,
    first,
    hex_map,
    refused,
    start,
    state_of,
    types,
)

OTHER_PLAYER = Actor("p2", "player", frozenset({"someone-else"}))


def send(
    table: Table, command: dict[str, Any], dice: list[int] | None = None, actor: Actor = GM
) -> list[Envelope]:
    return table.send(command, actor=actor, dice=dice)


def end_turn(cid: str | None = None) -> dict[str, Any]:
    return {"type": "end-turn", "combatant_id": cid}


def move(cid: str, to: tuple[int, int]) -> dict[str, Any]:
    return {"type": "move", "combatant_id": cid, "to": list(to)}


def attack(cid: str, target: str) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": cid, "target": target}


def all_of(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]


def three_in_a_fight(**options: Any) -> Table:
    """The hero (a PC) at (3, 3) beside an orc at (4, 3); a goblin further off. Order: hero,
    orc, goblin; the hero's turn."""
    table = encounter(**options)
    hex_map(table)
    add(table, "hero", (3, 3), side="pcs", skills={"melee": 60})
    add(table, "orc", (4, 3), skills={"melee": 60})
    add(table, "goblin", (8, 8))
    start(table, 1, 2, 3)
    return table


# --- initiative -----------------------------------------------------------------------------------


def test_initiative_orders_by_degree_then_score_then_roll_then_id() -> None:
    table = encounter()
    hex_map(table)
    scores = {"a": 50, "b": 50, "c": 80, "d": 50, "e": 50, "f": 50}
    for i, (cid, score) in enumerate(scores.items()):
        add(table, cid, (i, 0), initiative=score)

    sent = start(table, 30, 20, 45, 60, 30, 26)

    degrees = {d["combatant_id"]: d["degree"] for d in all_of(sent, "initiative-rolled")}
    assert degrees == {"a": 1, "b": 2, "c": 1, "d": 0, "e": 1, "f": 1}
    # b: the only hard success; c: the higher score; f: the lower roll; a before e by id;
    # d failed.
    assert first(sent, "order-set")["order"] == ["b", "c", "f", "a", "e", "d"]
    assert first(sent, "turn-started")["combatant_id"] == "b"


def test_initiative_each_combatant_rolls_one_d100_in_the_order_they_joined() -> None:
    table = encounter()
    hex_map(table)
    add(table, "hero", (0, 0), side="pcs")
    add(table, "orc", (5, 0))

    sent = start(table, 70, 4)

    rolled = all_of(sent, "initiative-rolled")
    assert [(r["combatant_id"], r["check"]["dice"]) for r in rolled] == [
        ("hero", [70]), ("orc", [4]),
    ]  # fmt: skip
    assert rolled[0]["check"]["skill"] == "initiative"
    assert types(sent)[-3:] == ["order-set", "round-started", "turn-started"]
    assert state_of(table).order == ("orc", "hero")


def test_a_fight_needs_a_map_to_start() -> None:
    table = encounter()
    hero = {
        "type": "add-combatant", "combatant_id": "hero", "name": "Hero", "side": "pcs",
        "stats": {"hp": 10},
    }  # fmt: skip
    send(table, hero)

    assert refused(table, {"type": "start-encounter"}, dice=[5]).code == "encounter/no-map"


# --- the turn's two actions and its end -----------------------------------------------------------


def test_a_turn_ends_by_itself_once_both_actions_are_used() -> None:
    table = three_in_a_fight()
    send(table, move("hero", (3, 4)), actor=PLAYER)

    sent = send(table, move("hero", (4, 4)), actor=PLAYER)  # still beside the orc

    assert types(sent)[-2:] == ["turn-ended", "turn-started"]
    assert first(sent, "turn-ended") == {"combatant_id": "hero", "reason": "actions-spent"}
    assert first(sent, "turn-started") == {"combatant_id": "orc", "round": 1}


def test_a_spent_turn_waits_for_the_hit_it_dealt_to_be_answered() -> None:
    table = three_in_a_fight()
    send(table, move("hero", (4, 2)), actor=PLAYER)  # still beside the orc

    sent = send(table, attack("hero", "orc"), dice=[30], actor=PLAYER)

    assert "turn-ended" not in types(sent)
    assert state_of(table).current == "hero"

    answered = answer(table, "orc", "pass", dice=[2])

    assert types(answered)[-2:] == ["turn-ended", "turn-started"]
    assert state_of(table).current == "orc"


def test_end_turn_passes_the_turn_on_and_a_round_follows_the_last() -> None:
    table = three_in_a_fight()
    send(table, end_turn("hero"), actor=PLAYER)
    send(table, end_turn("orc"))

    sent = send(table, end_turn("goblin"))

    assert types(sent) == ["turn-ended", "round-started", "turn-started"]
    assert first(sent, "round-started")["round"] == 2
    assert first(sent, "turn-started") == {"combatant_id": "hero", "round": 2}


def test_a_player_ends_their_own_turn_without_naming_the_combatant() -> None:
    table = three_in_a_fight()

    sent = send(table, end_turn(), actor=PLAYER)

    assert first(sent, "turn-ended")["combatant_id"] == "hero"


def test_a_player_may_not_end_a_turn_of_a_combatant_they_do_not_control() -> None:
    table = three_in_a_fight()
    send(table, end_turn("hero"), actor=PLAYER)

    assert refused(table, end_turn("orc"), actor=PLAYER).code == "auth/not-your-combatant"
    assert refused(table, end_turn(), actor=PLAYER).code == "turn/which-combatant"
    assert refused(table, end_turn("hero"), actor=OTHER_PLAYER).code == "auth/not-your-combatant"


def test_no_one_ends_a_turn_that_is_not_theirs() -> None:
    table = three_in_a_fight()

    assert refused(table, end_turn("orc")).code == "turn/not-your-turn"


def test_no_one_acts_while_an_interruption_waits() -> None:
    table = three_in_a_fight()
    send(table, attack("hero", "orc"), dice=[30], actor=PLAYER)

    error = refused(table, move("hero", (3, 5)), actor=PLAYER)

    assert error.code == "turn/wait-for-reactions"


# --- the turn timer -------------------------------------------------------------------------------


def expire(table: Table, generation: int) -> list[Envelope]:
    return table.send(
        {"type": "expire-clock", "clock_id": "turn", "generation": generation}, actor=SYSTEM
    )


def test_with_a_turn_time_limit_each_turn_starts_the_turn_clock() -> None:
    table = encounter(turn_time_limit=60)
    hex_map(table)
    add(table, "hero", (0, 0), side="pcs")
    add(table, "orc", (5, 0))

    sent = start(table, 1, 2)

    assert types(sent)[-2:] == ["turn-started", "clock-started"]
    clock = first(sent, "clock-started")
    assert (clock["clock_id"], clock["owner"], clock["duration_ms"]) == ("turn", "hero", 60_000)


def test_an_expired_turn_clock_ends_the_turn() -> None:
    table = three_in_a_fight(turn_time_limit=60)
    generation = state_of(table).table.clocks["turn"].generation
    table.wait(60)

    sent = expire(table, generation)

    assert first(sent, "turn-ended") == {"combatant_id": "hero", "reason": "timeout"}
    assert first(sent, "turn-started")["combatant_id"] == "orc"
    assert first(sent, "clock-started")["owner"] == "orc"


def test_a_stale_expiry_of_the_turn_clock_does_nothing() -> None:
    table = three_in_a_fight(turn_time_limit=60)
    generation = state_of(table).table.clocks["turn"].generation
    send(table, end_turn("hero"), actor=PLAYER)

    sent = expire(table, generation)

    assert "turn-ended" not in types(sent)
    assert state_of(table).current == "orc"


def test_with_timeouts_recorded_an_expired_clock_leaves_the_turn_running() -> None:
    table = three_in_a_fight(turn_time_limit=60, on_turn_timeout="record")
    generation = state_of(table).table.clocks["turn"].generation

    sent = expire(table, generation)

    assert "turn-ended" not in types(sent)
    assert state_of(table).current == "hero"


# --- a late joiner --------------------------------------------------------------------------------


def test_a_late_joiner_rolls_initiative_and_takes_its_place_in_the_order() -> None:
    table = three_in_a_fight()
    join = {
        "type": "add-combatant", "combatant_id": "wolf", "name": "Wolf", "side": "foes",
        "stats": {"hp": 6, "initiative": 70}, "position": [9, 9],
    }  # fmt: skip

    sent = send(table, join, dice=[12])

    assert types(sent) == ["combatant-added", "initiative-rolled", "order-set"]
    rolled = first(sent, "initiative-rolled")
    assert (rolled["combatant_id"], rolled["check"]["dice"], rolled["degree"]) == ("wolf", [12], 3)
    assert first(sent, "order-set")["order"] == ["wolf", "hero", "orc", "goblin"]
    assert state_of(table).current == "hero"  # the turn in progress goes on
    sent = send(table, end_turn("hero"), actor=PLAYER)
    assert first(sent, "turn-started") == {"combatant_id": "wolf", "round": 1}


def test_a_late_joiner_acts_in_the_round_it_joined() -> None:
    table = three_in_a_fight()
    join = {
        "type": "add-combatant", "combatant_id": "wolf", "name": "Wolf", "side": "foes",
        "stats": {"hp": 6}, "position": [9, 9],
    }  # fmt: skip
    send(table, join, dice=[40])
    send(table, end_turn("hero"), actor=PLAYER)
    send(table, end_turn("orc"))

    sent = send(table, end_turn("goblin"))

    assert first(sent, "turn-started") == {"combatant_id": "wolf", "round": 1}


# --- surrender and the downed ---------------------------------------------------------------------


def hero_and_orc_in_melee() -> Table:
    """The hero swung at the orc and missed: the two are in melee. The hero's turn goes on."""
    table = three_in_a_fight()
    send(table, attack("hero", "orc"), dice=[95], actor=PLAYER)
    assert state_of(table).melee == (("hero", "orc"),)
    return table


def test_surrender_ends_the_melee() -> None:
    table = hero_and_orc_in_melee()

    sent = send(table, {"type": "surrender", "combatant_id": "orc"})

    assert types(sent) == ["surrendered", "melee-ended"]
    assert first(sent, "melee-ended") == {"combatants": ["hero", "orc"], "reason": "surrendered"}
    assert state_of(table).melee == ()


def test_a_surrendered_combatant_leaves_the_order() -> None:
    table = hero_and_orc_in_melee()
    send(table, {"type": "surrender", "combatant_id": "orc"})

    sent = send(table, end_turn("hero"), actor=PLAYER)

    assert first(sent, "turn-started")["combatant_id"] == "goblin"


def test_surrendering_on_ones_own_turn_ends_it() -> None:
    table = three_in_a_fight()

    sent = send(table, {"type": "surrender", "combatant_id": "hero"}, actor=PLAYER)

    assert types(sent) == ["surrendered", "turn-ended", "turn-started"]
    assert first(sent, "turn-ended") == {"combatant_id": "hero", "reason": "out-of-fight"}


def test_a_surrendered_combatant_is_no_target() -> None:
    table = three_in_a_fight()
    send(table, {"type": "surrender", "combatant_id": "orc"})

    assert refused(table, attack("hero", "orc"), dice=[30], actor=PLAYER).code == (
        "attack/target-down"
    )


def test_a_player_may_not_surrender_a_combatant_they_do_not_control() -> None:
    table = three_in_a_fight()

    error = refused(table, {"type": "surrender", "combatant_id": "orc"}, actor=PLAYER)

    assert error.code == "auth/not-your-combatant"


def test_a_downed_combatant_leaves_the_melee_and_its_turn_is_skipped() -> None:
    table = hero_and_orc_in_melee()

    downed = send(table, {"type": "adjust-resource", "combatant_id": "orc", "set": 0})

    assert "combatant-downed" in types(downed)
    assert first(downed, "melee-ended")["reason"] == "out-of-fight"
    sent = send(table, end_turn("hero"), actor=PLAYER)
    assert first(sent, "turn-started")["combatant_id"] == "goblin"
    sent = send(table, end_turn("goblin"))
    assert first(sent, "round-started")["round"] == 2
    assert first(sent, "turn-started")["combatant_id"] == "hero"
