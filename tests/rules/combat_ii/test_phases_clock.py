"""The intentions clock (option `intention_seconds`): when it runs out, whoever has not
declared stands and defends and the phase resolves."""

from __future__ import annotations

from tests.rules.combat_ii.given import ARCHER, ORC, add, encounter, line_map, start, state_of


def test_the_intentions_clock_runs_out_and_the_undeclared_stand() -> None:
    table = encounter(intention_seconds=30)
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(4, 0))
    start(table, initiative=[7, 3])
    clock = state_of(table).table.clocks["intentions"]
    assert clock.status == "running"

    table.send({"type": "move", "combatant_id": "orc", "to": [2, 0]})
    table.wait(31)
    expired = table.send(
        {"type": "expire-clock", "clock_id": "intentions", "generation": clock.generation}
    )

    declared = [e for e in expired if e.type == "intention-declared"]
    assert [(e.data["combatant_id"], e.data["intention"]["kind"]) for e in declared] == [
        ("archer", "stand")
    ]
    assert any(e.type == "moved" for e in expired)  # the phase resolved
    assert state_of(table).phase == 2
    assert table.replayed() == table.state


def test_without_the_option_no_clock_runs() -> None:
    table = encounter()
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(4, 0))
    start(table, initiative=[7, 3])
    assert "intentions" not in state_of(table).table.clocks


def test_a_phase_whose_last_declarer_goes_down_resolves_at_once() -> None:
    """When the GM downs the only combatant still to declare, everyone left has declared:
    the phase resolves then rather than waiting for a command that cannot come."""
    table = encounter()
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(4, 0))
    add(table, "orc2", "orcs", ORC, at=(5, 0), name="Second orc")
    start(table, initiative=[3, 7])  # the orcs win: the archer declares first
    table.send({"type": "stand", "combatant_id": "archer"})
    table.send({"type": "stand", "combatant_id": "orc"})

    downed = table.send(
        {"type": "adjust-resource", "combatant_id": "orc2", "resource": "hp", "delta": -20}
    )

    assert "phase-ended" in table.types(downed)
    assert state_of(table).phase == 2
    assert table.replayed() == table.state
