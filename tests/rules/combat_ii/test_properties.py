"""Random legal play folds back to the live state, and the rules refuse nothing except with
a RuleViolation.

Two to four combatants with random stat blocks meet on a small map under random options
(phase system, criticals, incremental movement); the server rolls every die (seeded by the
harness). Whoever the rules wait for declares an intention drawn from what the legal
actions offer it: stand, attack a listed foe, move somewhere (at a random speed and mode),
charge a listed foe, set its weapon or cast a spell. A declaration the rules refuse must
store nothing, and the combatant then stands. After the phases have run, the fold of the
stored envelopes equals the live state."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.combat_ii import RULESET, views
from service.rules.combat_ii.phases import waiting
from tests.rules.combat_ii.given import (
    AXE,
    LONG_SWORD,
    LONGBOW,
    SHORT_SWORD,
    add,
    line_map,
    state_of,
)
from tests.rules.harness import Table

WIDTH, HEIGHT = 8, 5
CELLS = [(x, y) for x in range(WIDTH) for y in range(HEIGHT)]
SPELLS = [
    {"name": "spark", "level": 1, "ct": 1, "components": "V", "damage": "1d4"},
    {"name": "bolt", "level": 3, "ct": 5, "components": "VS", "damage": "2d6"},
]
STATS = st.fixed_dictionaries(
    {
        "hp": st.integers(3, 20),
        "thac0": st.integers(8, 20),
        "ac": st.integers(0, 8),
        "mv": st.sampled_from((6, 9, 12)),
        "attacks": st.sampled_from(("1", "3/2", "2", "3")),
        "dexterity": st.integers(6, 18),
        "weapons": st.lists(
            st.sampled_from((LONG_SWORD, SHORT_SWORD, AXE, LONGBOW)),
            min_size=1,
            max_size=2,
            unique_by=lambda w: str(w["name"]),
        ),
        "spells": st.sampled_from(((), SPELLS)),
    }
)
OPTIONS = st.fixed_dictionaries(
    {
        "phase_system": st.sampled_from(("I", "II")),
        "criticals": st.sampled_from(("none", "tables", "severity")),
        "incremental_movement": st.booleans(),
    }
)
DECLARATIONS = 24


def declaration(data: st.DataObject, table: Table, cid: str) -> dict[str, Any]:
    """An intention for `cid` drawn from the legal actions it is offered."""
    offered = {a.type: a for a in views.intentions(state_of(table), cid)}
    kinds = sorted(k for k in offered if k in ("stand", "attack", "move", "charge", "cast"))
    kind = data.draw(st.sampled_from([*kinds, "set-weapon"]), label="kind")
    command: dict[str, Any] = {"type": kind, "combatant_id": cid}
    if kind in ("attack", "charge"):
        target = data.draw(st.sampled_from(offered[kind].targets or []), label="target")
        command |= {"targets": [target]} if kind == "attack" else {"target": target}
        if kind == "charge":
            command["speed"] = data.draw(st.integers(2, 3), label="speed")
    elif kind == "move":
        command["to"] = list(data.draw(st.sampled_from(CELLS), label="to"))
        command["mode"] = data.draw(st.sampled_from(("normal", "withdraw", "flee")), label="mode")
        command["speed"] = data.draw(st.sampled_from((None, 0, 1, 2, 3)), label="speed")
    elif kind == "cast":
        spells = [a for a in views.intentions(state_of(table), cid) if a.type == "cast"]
        spell = data.draw(st.sampled_from(spells), label="spell")
        command["spell"] = spell.params["spell"]
        command["target"] = data.draw(st.sampled_from(spell.targets or [cid]), label="target")
    return command


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    options=OPTIONS,
    pcs=st.lists(STATS, min_size=1, max_size=2),
    foes=st.lists(STATS, min_size=1, max_size=2),
    cells=st.permutations(CELLS),
    data=st.data(),
)
def test_random_legal_play_folds_back_to_the_live_state(
    options: dict[str, Any],
    pcs: list[dict[str, Any]],
    foes: list[dict[str, Any]],
    cells: list[tuple[int, int]],
    data: st.DataObject,
) -> None:
    table = Table(RULESET, {"dice": "server", **options})
    line_map(table, width=WIDTH, height=HEIGHT)
    roster = [("pc", "pcs", s) for s in pcs] + [("foe", "foes", s) for s in foes]
    for i, (prefix, side, stats) in enumerate(roster):
        add(table, f"{prefix}{i}", side, stats, at=cells[i])
    table.send({"type": "start-encounter"})

    for _ in range(DECLARATIONS):
        state = state_of(table)
        due = waiting(state)
        if not due or state.table.phase != "running":
            break
        cid = data.draw(st.sampled_from(due), label="who")
        command = declaration(data, table, cid)
        before = list(table.envelopes)
        try:
            table.send(command)
        except RuleViolation:
            assert table.envelopes == before  # a refusal stores nothing
            table.send({"type": "stand", "combatant_id": cid})

    assert state_of(table).round >= 1
    assert table.replayed() == table.state
