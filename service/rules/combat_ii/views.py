"""What combat-ii shows: the intentions each combatant may declare this phase, the
half-segment timeline of the phase (who acts when) for a front end to draw, the phase label
and one sentence per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.context import Actor
from service.domain.errors import RuleViolation
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.redaction import sees_everything
from service.domain.views import ActionOption, Blocked
from service.rules.combat_ii import attacks, casting, initiative
from service.rules.combat_ii.abilities import perception
from service.rules.combat_ii.allowance import attacks_left, default_weapons, stationary
from service.rules.combat_ii.combatants import (
    adjusted_sf,
    armor_class,
    can_attack,
    can_move,
    enemies,
    squares,
    within,
)
from service.rules.combat_ii.declared_attacks import favoured_alone
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.phases import waiting
from service.rules.combat_ii.schedule import half_segment
from service.rules.combat_ii.schedule import phase_label as label_of
from service.rules.combat_ii.state import CombatIIState, Intention
from service.rules.combat_ii.stats import stats_of


def phase_label(state: CombatIIState) -> str:
    if state.stage == "setup":
        return "setup"
    if state.stage == "ended":
        return "ended"
    label = label_of(state.options.phase_system, state.phase)
    if state.options.phase_system == "II":
        return f"phase {label} (cycle {state.round}): intentions"
    return f"round {state.round}, phase {label}: intentions"


def legal_actions(state: CombatIIState, viewer: Actor) -> list[ActionOption]:
    actions = common_actions(state.table, viewer)
    if viewer.role in ("observer", "auditor") or state.stage != "intentions":
        if viewer.is_gm and state.stage == "setup":
            actions.append(ActionOption(type="surprise", label="Set surprise and ambushers"))
        return actions
    if viewer.is_gm:
        actions.append(ActionOption(type="ambush", label="Spring an ambush on a combatant"))
        for cid in sorted(state.fighters):
            thief = state.table.combatant(cid)
            if stats_of(thief).thief and not thief.out_of_fight:
                label = f"Call for a thief skill check by {thief.name}"
                actions.append(ActionOption(type="skill-check", label=label, actor=cid))
    for cid in waiting(state):
        if viewer.controls(cid):
            actions += intentions(state, cid)
    for cid in sorted(state.fighters):
        if viewer.controls(cid) and _cancellable(state, cid):
            name = state.table.combatant(cid).name
            actions.append(ActionOption(type="cancel", label=f"{name} cancels", actor=cid))
    return actions


def blocked(state: CombatIIState, viewer: Actor) -> list[Blocked]:
    """The viewer's combatants still to declare this phase that must wait for the initiative
    losers to declare first (§1 C): legal actions offer them nothing until then."""
    if viewer.role in ("observer", "auditor") or state.stage != "intentions":
        return []
    now = waiting(state)
    undeclared = [c.id for c in initiative.fighting(state) if c.id not in state.intentions]
    names = ", ".join(state.table.combatant(c).name for c in now)
    return [
        Blocked(
            actor=cid,
            reason=f"initiative losers state their intentions first: waiting for {names} (§1 C)",
            blocked_by=now,
        )
        for cid in undeclared
        if cid not in now and viewer.controls(cid)
    ]


def _cancellable(state: CombatIIState, cid: str) -> bool:
    """§1 E: a declared attack, touch or cast, or a spell being cast or held (decide.cancel)."""
    combatant = state.table.combatants.get(cid)
    intention = state.intentions.get(cid)
    declared = intention is not None and intention.kind in ("attack", "touch", "cast")
    return (
        combatant is not None
        and not combatant.out_of_fight
        and (declared or fighter(state, cid).casting is not None)
    )


def intentions(state: CombatIIState, cid: str) -> list[ActionOption]:
    """The intentions `cid` may declare now (§1 C): one of attack, cast, move, or a brief
    action; each with its targets."""
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    mine = fighter(state, cid)
    name = combatant.name
    options: list[ActionOption] = []
    foes = enemies(state, combatant)
    if can_attack(state, cid) and not mine.casting:
        # §2 C: a warrior's level of attacks below 1 HD; a defenceless target each phase.
        reachable = [
            f.id
            for f in foes
            if _reachable(state, cid, f.id)
            and (attacks_left(state, cid, (f.id,)) > 0 or stationary(state, (f.id,)))
        ]
        options += _attacks(state, cid, reachable)
    if mine.charged is not None:
        options.append(
            ActionOption(
                type="touch", label=f"{name} delivers {mine.charged}", actor=cid,
                targets=[f.id for f in foes],
            )
        )  # fmt: skip
    for spell in stats.spells:
        if not _castable(state, cid, spell.name):
            continue
        options.append(
            ActionOption(
                type="cast", label=f"{name} casts {spell.name}", actor=cid,
                targets=[c.id for c in initiative.fighting(state)],
                params={
                    "spell": spell.name, "ct": spell.ct, "rounds": spell.rounds,
                    "range": spell.range, "area": spell.area,
                },
            )
        )  # fmt: skip
    if can_move(state, cid) and combatant.position is not None:
        options.append(ActionOption(type="move", label=f"{name} moves", actor=cid))
        if stats.mv and foes:
            options.append(
                ActionOption(
                    type="charge", label=f"{name} charges", actor=cid, targets=[f.id for f in foes]
                )
            )
    if mine.casting is not None and 0 < mine.casting.left <= mine.casting.hold:
        timings = ["before", "midpoint", "after"] if state.tracks.get(cid) == "winner" else []
        options.append(
            ActionOption(
                type="release", label=f"{name} releases {mine.casting.spell}", actor=cid,
                params={"timing": timings or ["after"]},
            )
        )  # fmt: skip
    if any(w.kind == "missile" and mine.ammunition_left(w) != 0 for w in stats.weapons):
        options.append(ActionOption(type="cover-area", label=f"{name} covers an area", actor=cid))
    options += [
        ActionOption(type="set-weapon", label=f"{name} sets a weapon", actor=cid),
        ActionOption(type="prepare", label=f"{name} prepares", actor=cid),
        ActionOption(type="stand", label=f"{name} stands and defends", actor=cid),
    ]
    return options


def _attacks(state: CombatIIState, cid: str, targets: list[str]) -> list[ActionOption]:
    """The attack option, split by the routine it may use: in a phase where a System II
    two-weapon routine's favoured weapon strikes alone (§3 C), `params.weapons` names it for
    the targets it applies to (not against creatures a warrior attacks at its level's rate)."""
    name = state.table.combatant(cid).name
    stats = stats_of(state.table.combatant(cid))
    routine = default_weapons(state, cid, stats)
    alone: dict[str, list[str]] = {}
    whole: list[str] = []
    for target in targets:
        favoured = (
            favoured_alone(state, cid, routine, (target,))
            if state.options.phase_system == "II"
            and not (state.options.split_attack_forms and stats.routine)
            else None
        )
        if favoured is None:
            whole.append(target)
        else:
            alone.setdefault(favoured, []).append(target)
    options = [
        ActionOption(
            type="attack", label=f"{name} attacks with the {weapon} alone", actor=cid,
            targets=foes, params={"weapons": [weapon]},
        )
        for weapon, foes in alone.items()
    ]  # fmt: skip
    if whole:
        options.insert(
            0, ActionOption(type="attack", label=f"{name} attacks", actor=cid, targets=whole)
        )
    return options


def _castable(state: CombatIIState, cid: str, spell: str) -> bool:
    try:
        casting.check_cast(state, cid, Intention(kind="cast", spell=spell))
    except RuleViolation:
        return False
    return True


def _reachable(state: CombatIIState, cid: str, target: str) -> bool:
    """Within the longest reach, or within the long range (PH) of a missile weapon with
    ammunition left."""
    attacker, foe = state.table.combatant(cid), state.table.combatant(target)
    stats = stats_of(attacker)
    apart = (
        squares(state, attacker.position, foe.position) if attacker.position and foe.position else 0
    )
    mine = fighter(state, cid)
    ranged = any(
        w.kind == "missile" and w.in_range(apart) and mine.ammunition_left(w) != 0
        for w in stats.weapons
    )
    reach = max((w.reach for w in stats.weapons), default=1)
    return ranged or within(state, attacker, foe, reach)


def timeline(state: CombatIIState) -> list[dict[str, Any]]:
    """The current phase's half-segments and what the declared intentions put in each: an
    attack's strike, a spell's CT unit or completion (§1 Table 1). Movement follows them."""
    system = state.options.phase_system
    rows: list[dict[str, Any]] = [
        {"half_segment": half_segment(state.phase, k, system), "offset": k, "actions": []}
        for k in range(1, 7)
    ]
    routine = 0
    for cid, intention in sorted(state.intentions.items()):
        if intention.kind in ("attack", "touch"):
            for strike in attacks.plan(state, cid, intention, routine):
                rows[strike.offset - 1]["actions"].append(
                    {
                        "combatant_id": cid, "kind": "strike", "target": strike.target,
                        "weapon": strike.weapon, "sf": strike.sf,
                        "track": state.tracks.get(cid, "loser"),
                    }
                )  # fmt: skip
            routine += 3
    for cid in sorted(state.fighters):
        offset = casting.completion_offset(state, cid)
        spell = fighter(state, cid).casting
        if offset is not None and spell is not None:
            rows[offset - 1]["actions"].append(
                {"combatant_id": cid, "kind": "spell", "spell": spell.spell, "target": spell.target}
            )
    return rows


def _speed(d: dict[str, Any]) -> str:
    """ " (SF 7, loser)" for a scheduled strike; a charge or counter has no SF of its own."""
    if d.get("sf") is None:
        return f" ({d['kind']})"
    track = f", {d['track']}" if d.get("track") else ""
    return f" (SF {d['sf']}{track})"


def _squares(count: int) -> str:
    return f"{count} square{'s' * (count != 1)}"


def _hs(d: dict[str, Any]) -> str:
    return f"half-segment {d['half_segment']}"


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "round-began": lambda d, n: f"Round {d['round']} begins.",
    "initiative-rolled": lambda d, n: (
        "Initiative: "
        + ", ".join(f"{g} {r}" for g, r in sorted(d["rolls"].items()))
        + (f"; {d['winner']} win." if d["winner"] else ".")
    ),
    "phase-began": lambda d, n: f"Phase {d['label']} begins.",
    "phase-ended": lambda d, n: (
        "The endphase ends." if d["phase"] == 4 else f"Phase {d['phase']} ends."
    ),
    "intention-declared": lambda d, n: (
        f"{n(d['combatant_id'])} will {d['intention']['kind'].replace('-', ' ')}."
    ),
    "attack-rolled": lambda d, n: (
        f"{_hs(d)}: {n(d['attacker'])}'s {d['weapon']}{_speed(d)} "
        f"{'hits' if d['hit'] else 'misses'} {n(d['target'])} ({d['roll']} vs {d['needed']})."
    ),
    "damage-rolled": lambda d, n: (
        f"{_hs(d)}: {d['source']} deals {d['amount']} to {n(d['target'])}."
    ),
    "critical-rolled": lambda d, n: (
        f"Critical {d['kind']} for {n(d['combatant_id'])}: {d['result']}."
    ),
    "check-rolled": lambda d, n: (
        f"{n(d['combatant_id'])} {'passes' if d['check']['passed'] else 'fails'} a "
        f"{d['check']['ability']} check ({d['check']['purpose']})."
    ),
    "effect-applied": lambda d, n: f"{n(d['combatant_id'])} is {d['effect']['name']}.",
    "effect-ended": lambda d, n: f"{n(d['combatant_id'])} is no longer {d['name']}.",
    "spell-begun": lambda d, n: (
        f"{n(d['combatant_id'])} begins {d['casting']['spell']}; it completes {d['completes']}."
    ),
    "spell-completed": lambda d, n: (
        f"{_hs(d)}: {n(d['combatant_id'])}'s {d['spell']} completes"
        + (" out of range: it is wasted." if d.get("out_of_range") else ".")
    ),
    "intention-cancelled": lambda d, n: (
        f"{n(d['combatant_id'])} "
        + ("interrupts " + str(d["spell"]) if d["what"] == "spell" else f"cancels its {d['what']}")
        + "."
    ),
    "shot-into-melee": lambda d, n: (
        f"{n(d['attacker'])} shoots into the melee around {n(d['intended'])}: the shot goes at "
        f"{n(d['target'])}."
    ),
    "tangent-established": lambda d, n: (
        f"{n(d['combatant_id'])} establishes a tangent with {n(d['target'])} ({d['tangents']} of 3"
        + ("): contact." if d["contact"] else ").")
    ),
    "save-rolled": lambda d, n: (
        f"{n(d['combatant_id'])} {'saves' if d['saved'] else 'fails to save'} against "
        f"{d['spell']} ({d['roll']}{d['bonus']:+} vs {d['needed']})."
    ),
    "spell-ruined": lambda d, n: (
        f"{n(d['combatant_id'])}'s {d['spell']} is ruined ({d['reason']})."
    ),
    "casting-delayed": lambda d, n: f"{n(d['combatant_id'])}'s {d['spell']} is delayed a phase.",
    "casting-progressed": lambda d, n: f"{n(d['combatant_id'])} keeps casting.",
    "moved": lambda d, n: (
        f"{n(d['combatant_id'])} moves {_squares(len(d['path']) - 1)} ({d['mode']})."
    ),
    "speed-changed": lambda d, n: f"{n(d['combatant_id'])} now moves at {d['factor']}x MV.",
    "weapon-dropped": lambda d, n: f"{n(d['combatant_id'])} loses {d['weapon']} ({d['how']}).",
    "weapon-readied": lambda d, n: f"{n(d['combatant_id'])} readies {d['weapon'] or d['what']}.",
    "ready-ended": lambda d, n: f"{n(d['combatant_id'])} is no longer ready.",
    "sequence-set": lambda d, n: f"{n(d['combatant_id'])}'s attack sequence moves on.",
    "ambush-set": lambda d, n: "Surprise: " + ", ".join(n(c) for c in d["surprised"]) + ".",
    "interposed": lambda d, n: (
        f"{n(d['combatant_id'])} interposes: {', '.join(n(c) for c in d['foes'])} cannot strike "
        f"the fleeing {n(d['fleer'])}."
    ),
    "return-ready": lambda d, n: (
        f"{n(d['combatant_id'])} keeps its wits and will return the attack of "
        + ", ".join(n(c) for c in d["against"])
        + "."
    ),
    "rested": lambda d, n: (
        f"{n(d['combatant_id'])} rests {d['hours']} hours"
        + (
            f"; an interruption ends the study after {d['interrupted_after']} minutes."
            if d.get("interrupted_after") is not None
            else "."
        )
    ),
}


def details(state: CombatIIState, viewer: Actor | None) -> dict[str, Any]:
    """The summary's `details`: the current phase's timeline (empty outside the intentions
    stage) and the sheets of the combatants still fighting that the viewer may read (its
    own; the GM and auditors, everyone's)."""
    table = state.table
    readable = [
        cid
        for cid, c in sorted(table.combatants.items())
        if not c.out_of_fight and (sees_everything(viewer) or (viewer and viewer.controls(cid)))
    ]
    return {
        "timeline": timeline(state) if state.stage == "intentions" else [],
        "sheets": {cid: sheet(state, cid) for cid in readable},
    }


def sheet(state: CombatIIState, cid: str) -> dict[str, Any]:
    """One combatant's numbers as the rules read them now: track, AC, each weapon's adjusted
    SF, attacks left, speed, the spell in progress, where dropped weapons lie (§4), each
    counted missile weapon's missiles left, spent and broken (§4 MW) and §4 Perception."""
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    mine = fighter(state, cid)
    return {
        "track": state.tracks.get(cid),
        "ac": armor_class(state, combatant),
        "sf": {w.name: adjusted_sf(state, combatant, w) for w in stats.weapons},
        "attacks_left": attacks_left(state, cid),
        "speed": mine.factor,
        "casting": mine.casting.spell if mine.casting is not None else None,
        "effects": [e.name for e in mine.effects],
        "dropped": {
            w: [c.x, c.y] if (c := mine.dropped_at.get(w)) is not None else None
            for w in mine.dropped
        },
        "ammunition": {
            w.name: {
                "left": mine.ammunition_left(w), "spent": mine.missiles_spent.get(w.name, 0),
                "broken": mine.missiles_broken.get(w.name, 0),
            }
            for w in stats.weapons
            if w.ammunition is not None
        },
        "perception": perception(
            stats.intelligence, stats.wisdom, stats.level, stats.thief,
            state.options.perception_thieves,
        ),
    }  # fmt: skip
