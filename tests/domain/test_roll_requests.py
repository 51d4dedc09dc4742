"""Roll requests (`dice: "prompt"`), given events, when a command, then events: a command held
for the dice it lacks, the dice gathered round by round, the seed at the deadline, and the
audit's re-run of every command that decides a held one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.audit import audit
from service.domain import holding
from service.domain.common import NoteAdded
from service.domain.context import GM, Actor, DecideContext
from service.domain.deadlines import deadline_changes, table_deadlines
from service.domain.draws import MissingTableDice, NeededDie, Roller
from service.domain.envelope import Envelope
from service.domain.errors import RuleViolation
from service.domain.holding import may_roll
from service.domain.roll_requests import CommandHeld, CommandReleased, RollSubmitted
from service.rules.freeform import RULESET
from tests.rules.harness import Table, refused
from tests.test_audit import rehash

BRAMLI = Actor("p1", "player", frozenset({"bramli"}))
GOBLIN = Actor("p2", "player", frozenset({"goblin"}))


def table(**options: Any) -> Table:
    t = Table(RULESET, {"dice": "prompt", **options})
    for cid, side in (("bramli", "heroes"), ("goblin", "goblins")):
        add = {"type": "add-combatant", "combatant_id": cid, "name": cid.title(), "side": side}
        t.send(add | {"stats": {"hp": 9}})
    return t


def axe(expression: str = "3d6") -> dict[str, Any]:
    return {"type": "roll", "combatant_id": "bramli", "expression": expression, "purpose": "axe"}


def submit(request: Envelope, *faces: int) -> dict[str, Any]:
    return {"type": "submit-roll", "request_id": request.data["request_id"], "faces": list(faces)}


def ended(t: Table) -> list[Envelope]:
    t.send({"type": "end-encounter"})
    return t.envelopes


def test_a_die_past_the_senders_is_asked_of_its_roller_one_at_a_time() -> None:
    t = table()
    held = t.send(axe(), BRAMLI, dice=[2])
    assert t.types(held) == ["command-held", "roll-requested"]
    second = held[1]
    assert second.data["roller"] == "bramli" and second.data["expression"] == "3d6"
    assert t.state is not None and t.state.table.held is not None
    assert t.state.table.held.gathered == (2,)
    third = t.send(submit(second, 5), BRAMLI)
    assert t.types(third) == ["roll-submitted", "roll-requested"]
    assert third[1].data["request_id"] != second.data["request_id"]
    assert t.state.table.held.gathered == (2, 5)
    done = t.send(submit(third[1], 6), GM)  # the GM may roll a player's die
    assert t.types(done) == ["roll-submitted", "command-released", "dice-rolled"]
    assert done[2].data["total"] == 13 and done[2].data["by"] == "p1"  # as Bramli's player sent it
    assert [r["value"] for r in done[2].rolls] == [2, 5, 6]
    assert all(r["source"] == "table" for r in done[2].rolls)
    assert t.state.table.held is None
    assert audit(ended(t)).verdict == "passed"


def test_the_sender_rolls_only_their_own_dice() -> None:
    t = table()
    # A roll for no combatant is the sender's own: the player's face is taken for it.
    rolled = t.send({"type": "roll", "expression": "d20"}, BRAMLI, dice=[20])
    assert t.types(rolled) == ["dice-rolled"]
    # The GM's, sent without its die, waits for the GM: no player may roll it.
    held = t.send({"type": "roll", "expression": "d20"}, GM)
    assert held[1].data["roller"] == "gm"
    assert refused(t, submit(held[1], 20), BRAMLI).code == "dice/not-yours"
    assert refused(t, submit(held[1], 20), GOBLIN).code == "dice/not-yours"


def test_every_die_sent_with_the_command_decides_it_at_once() -> None:
    t = table()
    rolled = t.send(axe("2d6"), BRAMLI, dice=[1, 2])
    assert t.types(rolled) == ["dice-rolled"]


def test_at_the_deadline_the_seed_rolls_the_dice_not_yet_in() -> None:
    t = table()
    held = t.send(axe(), BRAMLI, dice=[2])
    asked = t.send(submit(held[1], 3), BRAMLI)[1]
    t.wait(60)
    expired = t.send({"type": "expire-roll-requests", "request_id": asked.data["request_id"]})
    released, rolled = expired
    assert released.data["reason"] == "deadline"
    assert [r.get("source", r.get("n")) for r in rolled.rolls] == ["table", "table", 0]
    assert rolled.data["total"] == 2 + 3 + rolled.rolls[2]["value"]
    report = audit(ended(t))
    assert report.verdict == "passed"
    assert {c.name: c.count for c in report.checks}["draws"] == 1


def test_a_forged_submission_is_caught_by_the_audit_even_when_re_hashed() -> None:
    t = table()
    held = t.send(axe("1d6"), BRAMLI)
    t.send(submit(held[1], 1), BRAMLI)
    envelopes = ended(t)
    (submitted,) = [e for e in envelopes if e.type == "roll-submitted"]
    forged = rehash(envelopes, submitted.version, data={**submitted.data, "faces": [6]})
    report = audit(forged)
    assert report.verdict == "failed"
    assert any(c.name == "rerun" and c.status == "failed" for c in report.checks)


def test_the_deadline_is_armed_with_the_request_and_cancelled_with_the_release() -> None:
    t = table()
    held = t.send(axe("1d6"), BRAMLI)
    events = [t.ruleset.event_from(e.type, e.schema, e.data) for e in held]
    (armed,) = deadline_changes(events, armed=t.version)
    assert armed.key == "rolls" and armed.due == held[1].data["deadline"]
    assert armed.command == {"type": "expire-roll-requests",
                             "request_id": held[1].data["request_id"]}  # fmt: skip
    done = t.send(submit(held[1], 4), BRAMLI)
    events = [t.ruleset.event_from(e.type, e.schema, e.data) for e in done]
    (cancelled,) = deadline_changes(events, armed=t.version)
    assert cancelled.key == "rolls" and cancelled.due is None


def test_a_rewind_to_a_held_command_arms_its_deadline_again() -> None:
    t = table()
    held = t.send(axe("1d6"), BRAMLI)
    t.send(submit(held[1], 4), BRAMLI)
    before = t.state
    t.send({"type": "rewind", "to_version": held[1].version})
    assert before is not None and t.state is not None and t.state.table.held is not None
    (armed,) = table_deadlines(before.table, t.state.table, t.version)
    assert armed.key == "rolls" and armed.command is not None
    assert armed.command["request_id"] == held[1].data["request_id"]


def test_a_hidden_roll_held_for_dice_is_hidden_from_players_and_asked_of_the_gm() -> None:
    t = table()
    hidden = {"type": "roll", "combatant_id": "bramli", "expression": "d20", "hidden": True}
    held = t.send(hidden | {"purpose": "ambush"})
    assert t.state is not None
    for envelope in held:
        assert envelope.data["hidden"] is True
        assert t.ruleset.redact_event(envelope, BRAMLI, t.state) is None
        assert t.ruleset.redact_event(envelope, GM, t.state) is not None
    assert held[1].data["roller"] == "gm"
    assert t.ruleset.redact_state(t.state, BRAMLI)["table"]["held"] is None
    assert t.ruleset.actions_now(t.state, BRAMLI) == []
    assert t.ruleset.redact_state(t.state, GM)["table"]["held"]["hidden"] is True


@pytest.mark.parametrize(
    ("actor", "roller", "may"),
    [
        pytest.param(GM, "gm", True, id="the GM rolls its own"),
        pytest.param(GM, "bramli", True, id="the GM rolls a player's"),
        pytest.param(BRAMLI, "bramli", True, id="a player rolls its combatant's"),
        pytest.param(BRAMLI, "goblin", False, id="not another's"),
        pytest.param(BRAMLI, "gm", False, id="not the GM's"),
    ],
)
def test_who_may_roll_a_die(actor: Actor, roller: str, may: bool) -> None:
    assert may_roll(actor, roller) is may


def test_the_roller_names_the_next_missing_die_with_its_default_roller() -> None:
    roller = Roller(seed=b"", version=3, mode="prompt", table_dice=[4], default_roller="bramli")
    assert roller.die(6, "axe", expression="2d6") == 4
    with pytest.raises(MissingTableDice) as missing:
        roller.die(6, "axe", expression="2d6")
    assert missing.value.needed == (NeededDie(6, "2d6", "axe", "bramli"),)
    assert missing.value.code == "dice/table-dice-missing"
    assert missing.value.details == {"needed": [
        {"sides": 6, "expression": "2d6", "purpose": "axe", "roller": "bramli"}
    ]}  # fmt: skip


def test_in_table_mode_a_missing_die_is_refused_with_what_is_needed() -> None:
    t = Table(RULESET, {"dice": "table"})
    caught = refused(t, {"type": "roll", "expression": "d8+1", "purpose": "p"}, dice=[])
    assert isinstance(caught, MissingTableDice)
    assert caught.details == {
        "needed": [{"sides": 8, "expression": "d8+1", "purpose": "p", "roller": "gm"}]
    }


DICE = (
    NeededDie(6, "2d6", "damage", "bramli"),
    NeededDie(6, "2d6", "damage", "bramli"),
    NeededDie(20, "d20", "save", "goblin"),
)


class EveryDieNamed:
    """A ruleset whose refusal names every die it still needs, not only the next: their
    requests are asked for together, and the command waits for the whole round."""

    def decide(self, state: Any, command: Any, ctx: DecideContext) -> list[Any]:
        faces = []
        for index, die in enumerate(DICE):
            if not ctx.roller.table_dice:
                raise MissingTableDice(DICE[index:])
            faces.append(ctx.die(die.sides, die.purpose, roller=die.roller))
        return [ctx.emit(NoteAdded(text=str(faces)))]

    def parse_command(self, raw: Any, *, strict: bool = True) -> Any:
        return RULESET.parse_command(raw, strict=strict)


def decided_by(t: Table, command: dict[str, Any], actor: Actor) -> list[Any]:
    assert t.state is not None
    roller = Roller(seed=t.seed, version=t.version + 1, mode="prompt", supplier=None)
    ctx = DecideContext(actor, t.now, roller)
    events = holding.decide(EveryDieNamed(), t.state, RULESET.parse_command(command), ctx)
    t.state = RULESET.apply(t.state, events)
    t.envelopes.append(replace(t.envelopes[-1], version=t.version + len(events)))
    return events


def test_dice_named_together_are_asked_for_together_and_gathered_in_order() -> None:
    t = table()
    held, damage, save = decided_by(t, axe(), GM)
    assert isinstance(held, CommandHeld)
    assert (damage.count, damage.roller, save.count, save.roller) == (2, "bramli", 1, "goblin")
    # The goblin's save comes in first: the command waits for Bramli's damage.
    (submitted,) = decided_by(t, submit_to(save, 17), GOBLIN)
    assert isinstance(submitted, RollSubmitted)
    with pytest.raises(RuleViolation) as again:
        decided_by(t, submit_to(save, 5), GOBLIN)
    assert again.value.code == "dice/roll-already-submitted"
    events = decided_by(t, submit_to(damage, 3, 4), BRAMLI)
    assert [type(e) for e in events] == [RollSubmitted, CommandReleased, NoteAdded]
    assert events[-1].text == "[3, 4, 17]"
    assert t.state is not None and t.state.table.held is None


def submit_to(request: Any, *faces: int) -> dict[str, Any]:
    return {"type": "submit-roll", "request_id": request.request_id, "faces": list(faces)}
