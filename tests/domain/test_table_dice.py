"""Table dice still needed (docs/api.md, "Table dice"): the Roller lists every die a command
certainly needs, hands the rules a provisional face for each, and the first read of one ends
the listing. Whom each die is rolled for, and who may supply it."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel

from service.deciding import CommandRequest, Loaded, decide_envelopes
from service.domain.common import AddNote, DiceRolled, NoteAdded
from service.domain.context import GM, Actor, DecideContext
from service.domain.draws import DieNotYours, MissingTableDice, NeededDie, Roller
from service.domain.errors import RuleViolation
from service.domain.holding import default_roller, may_roll
from service.domain.messages import Command, Event
from service.domain.provisional import Provisional
from service.rules.freeform import RULESET
from tests.rules.harness import Table

SEED = bytes(range(32))
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def listing(dice: list[int] | None = None, default: str = "hero") -> DecideContext:
    roller = Roller(
        seed=SEED,
        version=1,
        mode="table",
        table_dice=list(dice or []),
        default_roller=default,
        listing=True,
    )
    return DecideContext(GM, NOW, roller)


def needed(error: pytest.ExceptionInfo[MissingTableDice]) -> list[tuple[int, str, str, str]]:
    return [(d.sides, d.expression, d.purpose, d.roller) for d in error.value.needed]


# --- the listing ------------------------------------------------------------------------------


def test_dice_asked_for_before_any_face_is_read_are_all_listed_in_order() -> None:
    ctx = listing()
    ctx.die(20, "attack")
    ctx.die(20, "attack, advantage")
    ctx.die(6, "morale", roller="goblin")

    assert [d.to_dict() for d in ctx.roller.needed] == [
        {"sides": 20, "expression": "d20", "purpose": "attack", "roller": "hero"},
        {"sides": 20, "expression": "d20", "purpose": "attack, advantage", "roller": "hero"},
        {"sides": 6, "expression": "d6", "purpose": "morale", "roller": "goblin"},
    ]


def test_reading_a_provisional_face_refuses_with_the_dice_listed_so_far() -> None:
    ctx = listing()
    first = ctx.die(20, "attack")
    second = ctx.die(20, "attack, advantage")

    with pytest.raises(MissingTableDice) as caught:
        max(first, second)

    assert needed(caught) == [
        (20, "d20", "attack", "hero"),
        (20, "d20", "attack, advantage", "hero"),
    ]
    assert caught.value.code == "dice/table-dice-missing"
    assert caught.value.details == {"needed": [d.to_dict() for d in caught.value.needed]}


def test_a_die_asked_for_after_a_read_is_never_listed() -> None:
    """The damage after a hit depends on the hit: once the rules read the attack die, no
    later die is certainly needed, even if the rules swallow the refusal and go on."""
    ctx = listing()
    attack = ctx.die(20, "attack")
    with pytest.raises(MissingTableDice):
        if attack >= 12:
            ctx.die(8, "damage")
    ctx.die(8, "damage")

    assert [d.purpose for d in ctx.roller.needed] == ["attack"]
    assert ctx.roller.read is True


def test_supplied_dice_are_used_first_and_only_the_rest_are_listed() -> None:
    ctx = listing([17])
    hit = ctx.die(20, "attack")
    damage = ctx.roll("2d6+1", "damage", roller="hero")

    assert hit == 17
    assert [(d.sides, d.expression) for d in ctx.roller.needed] == [(6, "2d6+1"), (6, "2d6+1")]
    with pytest.raises(MissingTableDice):
        damage.total + 0


def test_every_die_of_an_expression_is_listed_together() -> None:
    """service/domain/dice.py rolls every die of an expression whatever the faces: 3d6,
    advantage's 2d20kh1 and a repeat's dice are all needed at once."""
    ctx = listing([4])
    ctx.roll("3d6", "fireball")
    ctx.roll("2d20kh1", "advantage")
    ctx.roll("(2 x 1d4) + 1", "critical")

    assert [(d.sides, d.expression) for d in ctx.roller.needed] == [
        (6, "3d6"),
        (6, "3d6"),
        (20, "2d20kh1"),
        (20, "2d20kh1"),
        (4, "(2 x 1d4) + 1"),
        (4, "(2 x 1d4) + 1"),
    ]
    assert [r.value for r in ctx.roller.records] == [4]


def test_an_expression_with_every_die_supplied_rolls_as_ever() -> None:
    ctx = listing([3, 5, 6])
    result = ctx.roll("3d6+1", "damage")

    assert result.total == 15
    assert ctx.roller.needed == []


def test_a_bad_expression_is_refused_before_any_die_is_listed() -> None:
    ctx = listing()
    with pytest.raises(RuleViolation) as caught:
        ctx.roll("2d", "damage")
    assert caught.value.code == "dice/bad-expression"
    assert ctx.roller.needed == []


READS: list[Any] = [
    pytest.param(lambda p: p == 1, id="=="),
    pytest.param(lambda p: 1 == p, id="== reflected"),  # noqa: SIM300
    pytest.param(lambda p: p < 3, id="<"),
    pytest.param(lambda p: 10 >= p, id=">= reflected"),  # noqa: SIM300
    pytest.param(lambda p: p + 1, id="+"),
    pytest.param(lambda p: 1 + p, id="+ reflected"),
    pytest.param(lambda p: 2 * p, id="* reflected"),
    pytest.param(lambda p: p // 2, id="//"),
    pytest.param(lambda p: -p, id="unary -"),
    pytest.param(lambda p: sum([p, 1]), id="sum"),
    pytest.param(lambda p: max(p, 0), id="max"),
    pytest.param(lambda p: sorted([p, 2]), id="sorted"),
    pytest.param(lambda p: bool(p), id="truth"),
    pytest.param(lambda p: hash(p), id="hash"),
    pytest.param(lambda p: {p: 1}, id="dict key"),
    pytest.param(lambda p: p in (1, 2), id="membership"),
    pytest.param(lambda p: int(p), id="int()"),
    pytest.param(lambda p: operator.index(p), id="index"),
    pytest.param(lambda p: ["a", "b", "c"][p], id="list index"),
    pytest.param(lambda p: range(p), id="range"),
    pytest.param(lambda p: math.floor(p), id="floor"),
    pytest.param(lambda p: str(p), id="str"),
    pytest.param(lambda p: f"{p}", id="f-string"),
    pytest.param(lambda p: "%d" % p, id="%d"),  # noqa: UP031
    pytest.param(lambda p: (p, 1) == (3, 1), id="inside a tuple compared"),
]


@pytest.mark.parametrize("read", READS)
def test_every_way_of_reading_a_provisional_face_ends_the_listing(
    read: Callable[[int], object],
) -> None:
    ctx = listing()
    face = ctx.die(20, "attack")

    with pytest.raises(MissingTableDice):
        read(face)


def test_passing_a_provisional_face_around_reads_nothing() -> None:
    ctx = listing()
    face = ctx.die(20, "attack")
    kept = (face, [face], {"face": face})
    assert kept[0] is face and face is not None
    assert isinstance(face, Provisional)
    ctx.die(6, "damage")

    assert ctx.roller.read is False
    assert len(ctx.roller.needed) == 2


def test_a_model_built_from_a_provisional_face_cannot_carry_it() -> None:
    """pydantic refuses a provisional face outright, never copies a made-up value."""

    class Rolled(BaseModel):
        roll: int

    ctx = listing()
    with pytest.raises(ValueError, match="valid integer"):
        Rolled(roll=ctx.die(20, "attack"))


def test_without_listing_a_missing_die_refuses_at_once() -> None:
    roller = Roller(seed=SEED, version=1, mode="table")
    with pytest.raises(MissingTableDice) as caught:
        roller.die(20, "attack", roller="hero")
    assert needed(caught) == [(20, "d20", "attack", "hero")]


def test_mixed_dice_run_out_into_server_dice_and_list_nothing() -> None:
    roller = Roller(seed=SEED, version=1, mode="mixed", table_dice=[5], listing=True)
    assert roller.die(20, "attack") == 5
    assert 1 <= roller.die(20, "again") <= 20
    assert roller.needed == []


# --- through deciding: nothing provisional reaches an event -----------------------------------


def scripted(
    monkeypatch: pytest.MonkeyPatch, script: Callable[[DecideContext], list[Event]]
) -> None:
    def decide(self: Any, state: Any, command: Command, ctx: DecideContext) -> list[Event]:
        return script(ctx)

    monkeypatch.setattr(type(RULESET), "decide", decide)


def decide(table: Table, dice: list[int], actor: Actor = GM) -> list[Any]:
    loaded: Loaded = table.loaded()
    request = CommandRequest(command={"type": "add-note", "text": "x"}, dice=dice)
    command = AddNote(text="x")
    _, envelopes = decide_envelopes(loaded, command, request, actor, "c", table.seed, table.now)
    return envelopes


def test_an_event_built_from_a_provisional_face_is_never_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Building the event is a read (pydantic refuses the face): the command is refused with
    the dice listed up to then."""

    def script(ctx: DecideContext) -> list[Event]:
        roll = ctx.die(20, "roll")
        ctx.die(6, "also")
        rolled = DiceRolled(expression="1d20", total=roll, text="", purpose="roll", by="gm")
        return [ctx.emit(rolled)]

    table = Table(RULESET, {"dice": "table"})
    scripted(monkeypatch, script)
    with pytest.raises(MissingTableDice) as caught:
        decide(table, [])
    assert [d.purpose for d in caught.value.needed] == ["roll", "also"]


def test_a_command_decided_without_reading_a_missing_face_is_still_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        ctx.die(20, "unread")
        return [ctx.emit(NoteAdded(text="x", hidden=False))]

    table = Table(RULESET, {"dice": "table"})
    scripted(monkeypatch, script)
    with pytest.raises(MissingTableDice) as caught:
        decide(table, [])
    assert [d.purpose for d in caught.value.needed] == ["unread"]


def test_a_rule_broken_whatever_the_dice_is_refused_as_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        ctx.die(20, "unread")
        raise RuleViolation("turn/not-your-turn", "not now")

    table = Table(RULESET, {"dice": "table"})
    scripted(monkeypatch, script)
    with pytest.raises(RuleViolation) as caught:
        decide(table, [])
    assert caught.value.code == "turn/not-your-turn"


# --- whom a die is rolled for, and who may supply it ------------------------------------------


def test_the_default_roller_is_the_commands_combatant_else_the_gm() -> None:
    class Attack(Command):
        combatant_id: str

    assert default_roller(Attack(combatant_id="hero")) == "hero"
    assert default_roller(AddNote(text="x")) == "gm"


@pytest.mark.parametrize(
    ("actor", "roller", "may"),
    [
        pytest.param(GM, "goblin", True, id="the GM supplies any die"),
        pytest.param(GM, "gm", True, id="the GM supplies its own"),
        pytest.param(Actor("p", "player", frozenset({"hero"})), "hero", True, id="own combatant"),
        pytest.param(Actor("p", "player", frozenset({"hero"})), "goblin", False, id="a foe's"),
        pytest.param(Actor("p", "player", frozenset({"hero"})), "gm", False, id="the GM's"),
        pytest.param(Actor("p", "player"), "p", True, id="a roll for no combatant is the sender's"),
    ],
)
def test_who_may_supply_a_table_die(actor: Actor, roller: str, may: bool) -> None:
    assert may_roll(actor, roller) is may


def test_a_die_supplied_for_someone_else_is_named_in_the_refusal() -> None:
    roller = Roller(seed=SEED, version=1, mode="table", table_dice=[20], listing=True)
    roller.die(20, "morale: Goblin", roller="goblin")

    with pytest.raises(DieNotYours) as caught:
        roller.check_authority(lambda who: who == "hero")

    assert caught.value.code == "dice/not-yours"
    assert caught.value.details == {
        "die": NeededDie(20, "d20", "morale: Goblin", "goblin").to_dict(),
        "face": 20,
    }
    assert "goblin" in caught.value.message and "morale: Goblin" in caught.value.message
