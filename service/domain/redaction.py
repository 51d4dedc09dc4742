"""What a viewer may see: the summary, the state and each event, per role.

GMs, the system and auditors see everything. Players and observers do not see hidden GM
notes; when `gm_overrides` is hidden they are not told of GM adjustments; when
`hide_enemy_health` is on they see other sides' health only as a word. What is health is
declared on the models (`Hidden`, `Shape` and `Event.health_of`, see hidden.py); every view
below derives from those declarations, so REST, SSE, exports and GraphQL all agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any, Protocol

from pydantic import BaseModel

from service.domain.common import GM_OVERRIDE_EVENTS
from service.domain.context import Actor
from service.domain.encounter import EncounterState
from service.domain.envelope import ENVELOPE_FIELDS, Envelope
from service.domain.hidden import Fields, Hides, hide
from service.domain.messages import Command, Event
from service.domain.table import Combatant, Table
from service.domain.views import (
    ClockView,
    CombatantSummary,
    ConditionView,
    EncounterSummary,
    PoolView,
    WindowView,
)


class RulesetShape(Protocol):
    """What redaction and the summary read of a ruleset (`RulesetBase` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def trigger_model(self) -> type[BaseModel]: ...

    @property
    def event_models(self) -> Mapping[str, type[Event]]: ...

    @property
    def command_models(self) -> Mapping[str, type[Command]]: ...

    def hidden_in(self, model: type[BaseModel]) -> Fields | None: ...

    def phase_label(self, state: Any) -> str: ...

    def round(self, state: Any) -> int: ...

    def acting(self, state: Any) -> list[str]: ...


def sees_everything(viewer: Actor | None) -> bool:
    return viewer is None or viewer.role in ("gm", "system", "auditor")


def viewer_sides(table: Table, viewer: Actor) -> set[str]:
    return {c.side for c in table.combatants.values() if c.id in viewer.combatants}


def enemy_health(state: EncounterState, viewer: Actor | None) -> Hides | None:
    """Whether `viewer` may not see the health of a combatant, by id; None when it may see
    everyone's. A combatant the state cannot place (removed since, or no id) is hidden."""
    if sees_everything(viewer) or not state.options.hide_enemy_health:
        return None
    assert viewer is not None
    table = state.table
    sides: list[set[str]] = []  # the viewer's sides, looked up once when first needed

    def hides(combatant_id: object) -> bool:
        found = table.combatants.get(combatant_id) if isinstance(combatant_id, str) else None
        if found is None:
            return True
        if not sides:
            sides.append(viewer_sides(table, viewer))
        return found.side not in sides[0]

    return hides


def health_word(combatant: Combatant) -> str:
    hp = combatant.pools.get("hp")
    if combatant.out_of_fight:
        return "down"
    if hp is None or hp.max is None or hp.max <= 0:
        return "fighting"
    share = hp.current / hp.max
    return "unhurt" if share >= 1 else "wounded" if share > 0.5 else "bloodied"


def summarize(
    ruleset: RulesetShape,
    state: EncounterState,
    viewer: Actor | None,
    version: int,
    details: dict[str, Any] | None = None,
) -> EncounterSummary:
    table = state.table
    hides = enemy_health(state, viewer)
    trigger_plan = ruleset.hidden_in(ruleset.trigger_model) if hides is not None else None
    return EncounterSummary(
        ruleset=ruleset.name,
        version=version,
        phase=ruleset.phase_label(state),
        round=ruleset.round(state),
        acting=ruleset.acting(state),
        combatants=[_combatant(c, hides) for c in table.combatants.values()],
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
            WindowView(
                window_id=w.id,
                id=w.id,
                trigger=w.trigger if hides is None else hide(w.trigger, trigger_plan, hides)[0],
                eligible={c: list(w.eligible[c]) for c in w.waiting_for()},
                waiting_for=w.waiting_for(),
                deadline=w.deadline,
            )
            for w in table.open_windows()
        ],
        details=details,
    )


def _combatant(c: Combatant, hides: Hides | None) -> CombatantSummary:
    hidden = hides is not None and hides(c.id)
    pools = (
        {} if hidden else {k: PoolView(current=p.current, max=p.max) for k, p in c.pools.items()}
    )
    return CombatantSummary(
        id=c.id,
        name=c.name,
        epithet=c.epithet,
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
    ruleset: RulesetShape, envelope: Envelope, viewer: Actor | None, state: EncounterState
) -> dict[str, Any] | None:
    """The envelope as this viewer may see it, or None when the viewer is not told of it."""
    if sees_everything(viewer):
        return envelope.to_dict()
    data = envelope.data
    if data.get("hidden") is True:
        return None
    if (
        envelope.type in GM_OVERRIDE_EVENTS
        and data.get("gm_override", True)
        and state.options.gm_overrides == "hidden"
    ):
        return None
    hides = enemy_health(state, viewer)
    if hides is None:
        return envelope.to_dict()
    return without_health(ruleset, envelope.to_dict(), hides)


def unsalted(envelope: Envelope, shown: dict[str, Any] | None) -> dict[str, Any] | None:
    """`shown` (the envelope as a viewer sees it) less its `salt` when anything of it was
    blanked: its stored `hash` is all it keeps of the hidden parts, and without the salt no
    guess at them (an enemy's hp: a thousand tries) can be checked against that hash. An
    event shown whole keeps its salt, so its hash can be recomputed (docs/audit.md)."""
    if shown is None or envelope.salt is None or _whole(envelope, shown):
        return shown
    return {k: v for k, v in shown.items() if k != "salt"}


def _whole(envelope: Envelope, shown: dict[str, Any]) -> bool:
    """Whether `shown` is every member of `envelope`, unchanged (most are the very objects)."""
    if len(shown) != len(ENVELOPE_FIELDS):
        return False
    for name in ENVELOPE_FIELDS:
        stored = getattr(envelope, name)
        if name not in shown:
            return False
        value = shown[name]
        if value is not stored and value != stored:
            return False
    return True


def without_health(
    ruleset: RulesetShape, shown: dict[str, Any], hides: Hides
) -> dict[str, Any] | None:
    """The envelope less the health `hides` names: None for an event wholly about it, else
    its hidden fields blanked in `data` and in the echoed `command`, and the draws that made
    them left out of `rolls`."""
    model = ruleset.event_models.get(shown["type"])
    command = shown["command"]
    commanded = ruleset.command_models.get(command.get("type")) if command else None
    in_data = ruleset.hidden_in(model) if model is not None else None
    in_command = ruleset.hidden_in(commanded) if commanded is not None else None
    health_of = model.health_of if model is not None else None
    if health_of is None and in_data is None and in_command is None:
        return shown  # most events: nothing of them is health
    data = shown["data"]
    if health_of is not None and hides(data.get(health_of)):
        return None
    new_data, rolls = hide(data, in_data, hides)
    if in_command is not None:
        # An add-combatant without an id belongs to the combatant its event names.
        command, more = hide(command, in_command, hides, data.get("combatant_id"))
        rolls += more
    drawn = [r for r in shown["rolls"] if not _made_by(r, rolls)] if rolls else shown["rolls"]
    if new_data is data and command is shown["command"] and len(drawn) == len(shown["rolls"]):
        return shown
    return {**shown, "data": new_data, "command": command, "rolls": drawn}


def _made_by(roll: dict[str, Any], globs: list[str]) -> bool:
    purpose = str(roll.get("purpose"))
    return any(fnmatchcase(purpose, glob) for glob in globs)


def redact_state(
    ruleset: RulesetShape, state: EncounterState, viewer: Actor | None
) -> dict[str, Any]:
    """The full ruleset state as JSON, less what this viewer may not see."""
    dumped: dict[str, Any] = state.model_dump(mode="json")
    if sees_everything(viewer):
        return dumped
    table = dumped["table"]
    table["notes"] = [n for n in table["notes"] if not n["hidden"]]
    if table["held"] is not None and table["held"]["hidden"]:
        table["held"] = None  # a hidden roll waiting for the GM's dice
    hides = enemy_health(state, viewer)
    if hides is None:
        return dumped
    shown: dict[str, Any] = hide(dumped, ruleset.hidden_in(type(state)), hides)[0]
    combatants = shown["table"]["combatants"]
    for cid, combatant in state.table.combatants.items():
        if hides(cid):
            combatants[cid] = {**combatants[cid], "health_word": health_word(combatant)}
    return shown
