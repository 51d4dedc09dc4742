"""What a viewer may see: the summary, the state and each event, per role.

GMs, the system and auditors see everything. Players and observers do not see hidden GM
notes; when `gm_overrides` is hidden they are not told of GM adjustments; when
`hide_enemy_health` is on they see other sides' health only as a word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.domain.common import GM_OVERRIDE_EVENTS
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.table import Combatant, Table
from service.domain.views import (
    ClockView,
    CombatantSummary,
    ConditionView,
    EncounterSummary,
    PoolView,
    WindowView,
)

if TYPE_CHECKING:
    from service.domain.ruleset import EncounterState, RulesetBase


def sees_everything(viewer: Actor | None) -> bool:
    return viewer is None or viewer.role in ("gm", "system", "auditor")


def viewer_sides(table: Table, viewer: Actor) -> set[str]:
    return {c.side for c in table.combatants.values() if c.id in viewer.combatants}


def health_hidden(state: EncounterState, combatant: Combatant, viewer: Actor | None) -> bool:
    if sees_everything(viewer) or not state.options.hide_enemy_health:
        return False
    assert viewer is not None
    return combatant.side not in viewer_sides(state.table, viewer)


def health_word(combatant: Combatant) -> str:
    hp = combatant.pools.get("hp")
    if combatant.out_of_fight:
        return "down"
    if hp is None or hp.max is None or hp.max <= 0:
        return "fighting"
    share = hp.current / hp.max
    return "unhurt" if share >= 1 else "wounded" if share > 0.5 else "bloodied"


def summarize(
    ruleset: RulesetBase[Any],
    state: EncounterState,
    viewer: Actor | None,
    version: int,
    details: dict[str, Any] | None = None,
) -> EncounterSummary:
    table = state.table
    return EncounterSummary(
        ruleset=ruleset.name,
        version=version,
        phase=ruleset.phase_label(state),
        round=ruleset.round(state),
        acting=ruleset.acting(state),
        combatants=[_combatant(state, c, viewer) for c in table.combatants.values()],
        clocks=[
            ClockView(
                id=c.id,
                label=c.label,
                owner=c.owner,
                status=c.status,
                deadline=c.deadline,
                remaining_ms=c.remaining_ms,
            )
            for c in table.clocks.values()
            if c.status in ("running", "paused")
        ],
        reaction_windows=[
            WindowView(id=w.id, trigger=w.trigger, waiting_for=w.waiting_for(), deadline=w.deadline)
            for w in table.open_windows()
        ],
        details=details,
    )


def _combatant(state: EncounterState, c: Combatant, viewer: Actor | None) -> CombatantSummary:
    hidden = health_hidden(state, c, viewer)
    pools = (
        {} if hidden else {k: PoolView(current=p.current, max=p.max) for k, p in c.pools.items()}
    )
    return CombatantSummary(
        id=c.id,
        name=c.name,
        side=c.side,
        controller=c.controller,
        health=pools.get("hp"),
        pools=pools,
        position=c.position,
        conditions=[ConditionView(name=x.name, rounds_left=x.rounds) for x in c.conditions],
        out_of_fight=c.out_of_fight,
        health_word=health_word(c) if hidden else None,
    )


def redact_event(
    envelope: Envelope,
    viewer: Actor | None,
    state: EncounterState,
    health_events: frozenset[str] = frozenset({"resource-adjusted"}),
) -> dict[str, Any] | None:
    """The envelope as this viewer may see it, or None when the viewer is not told of it.

    `health_events` are the event types that reveal a combatant's health (its
    `combatant_id`): hidden from players when the encounter hides other sides' health.
    """
    if sees_everything(viewer):
        return envelope.to_dict()
    assert viewer is not None
    data = envelope.data
    if data.get("hidden") is True:
        return None
    if (
        envelope.type in GM_OVERRIDE_EVENTS
        and data.get("gm_override", True)
        and state.options.gm_overrides == "hidden"
    ):
        return None
    combatant = state.table.combatants.get(str(data.get("combatant_id", "")))
    if (
        envelope.type in health_events
        and combatant is not None
        and health_hidden(state, combatant, viewer)
    ):
        return None
    return envelope.to_dict()


def hide_damage(
    shown: dict[str, Any], viewer: Actor | None, state: EncounterState, damage_purpose: str
) -> dict[str, Any]:
    """With `hide_enemy_health`, an attack on another side shows that it hit, not the
    damage: neither the number (`damage` becomes null) nor the rolls whose purpose starts
    with `damage_purpose`."""
    target = state.table.combatants.get(str(shown["data"].get("target")))
    if target is None or not health_hidden(state, target, viewer):
        return shown
    return {
        **shown,
        "data": {**shown["data"], "damage": None},
        "rolls": [
            r for r in shown["rolls"] if not str(r.get("purpose")).startswith(damage_purpose)
        ],
    }


def redact_state(state: EncounterState, viewer: Actor | None) -> dict[str, Any]:
    """The full ruleset state as JSON, less what this viewer may not see."""
    dumped: dict[str, Any] = state.model_dump(mode="json")
    if sees_everything(viewer):
        return dumped
    table = dumped["table"]
    table["notes"] = [n for n in table["notes"] if not n["hidden"]]
    for cid, combatant in state.table.combatants.items():
        if health_hidden(state, combatant, viewer):
            table["combatants"][cid]["pools"] = {}
            table["combatants"][cid]["health_word"] = health_word(combatant)
    return dumped
