"""Before combat: the marching order, the surprise check and the Monster Reaction Chart, the
party's approach (ambush, evasion, negotiation), beginning the combat and ending the
encounter (d20-action-points Marching Order, Setting Up An Encounter, Evading Monsters,
Ambush, Negotiation)."""

from __future__ import annotations

from service.domain.clocks import stop_clock
from service.domain.common import EncounterEnded
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.d20_action_points.combatants import fighting, stats_of
from service.rules.d20_action_points.commands import (
    ChooseApproach,
    RecordMonsterReaction,
    RuleNegotiation,
    SetMarchingOrder,
)
from service.rules.d20_action_points.events import (
    AmbushRolled,
    ApproachChosen,
    CombatBegan,
    Evading,
    EvasionResolved,
    MarchingOrderSet,
    MonsterReactionRecorded,
    NegotiationRuled,
    RoundStarted,
    SurpriseChecked,
)
from service.rules.d20_action_points.state import D20State, D20Stats

MARCHING = "d20-action-points Marching Order"
SETTING_UP = "d20-action-points Setting Up An Encounter"
EVADING = "d20-action-points Evading Monsters"
AMBUSH = "d20-action-points Ambush"
NEGOTIATION = "d20-action-points Negotiation"
# d20-action-points Evading Monsters: "they can only move at 1/10 of their usual speed".
EVADING_FRACTION = 10
BEFORE_COMBAT = ("before", "negotiating", "evading", "paused")


def set_marching_order(
    state: D20State, command: SetMarchingOrder, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("set the marching order")
    seen: set[str] = set()
    for number, rank in enumerate(command.ranks, start=1):
        if not rank:
            raise RuleViolation("marching/empty-rank", f"rank {number} names nobody", rule=MARCHING)
        if len(rank) > command.width:
            raise RuleViolation(
                "marching/too-wide",
                f"rank {number} has {len(rank)} side by side; the space allows {command.width}",
                rule=MARCHING,
                details={"rank": number, "width": command.width},
            )
        for cid in rank:
            combatant = state.table.combatant(cid)
            if combatant.side != command.side:
                raise RuleViolation(
                    "marching/wrong-side",
                    f"{combatant.name} is on the side '{combatant.side}', not '{command.side}'",
                    rule=MARCHING,
                )
            if cid in seen:
                raise RuleViolation(
                    "marching/twice", f"{combatant.name} stands in two places", rule=MARCHING
                )
            seen.add(cid)
    ranks = tuple(tuple(rank) for rank in command.ranks)
    return [ctx.emit(MarchingOrderSet(side=command.side, width=command.width, ranks=ranks))]


def _before(state: D20State, what: str, rule: str = SETTING_UP) -> None:
    if state.phase not in BEFORE_COMBAT:
        raise RuleViolation(
            "encounter/combat-begun",
            f"{what} comes before combat; the fight is already under way",
            rule=rule,
        )


def surprise_check(state: D20State, monster: str | None, ctx: DecideContext) -> list[Event]:
    """The GM's d20 + the monsters' stealth (else WIS) bonus against the party's highest
    Notice: above it the monsters have the upper hand, below it the party does; a tie
    surprises nobody (interpretation)."""
    ctx.require_gm("make the surprise check")
    if state.phase != "before":
        raise RuleViolation(
            "encounter/combat-begun", "the surprise check comes before combat", rule=SETTING_UP
        )
    if state.surprise is not None:
        raise RuleViolation(
            "surprise/already-checked", "the surprise check has been made", rule=SETTING_UP
        )
    party, foes = fighting(state, True), fighting(state, False)
    if not party or not foes:
        raise RuleViolation(
            "surprise/needs-both",
            "a surprise check needs player characters and monsters",
            rule=SETTING_UP,
        )
    noticer = max(party, key=lambda c: stats_of(c).notice_score)
    if monster is not None:
        sneaker = state.table.combatant(monster)
        if sneaker.id not in {c.id for c in foes}:
            raise RuleViolation(
                "surprise/not-a-monster",
                f"{sneaker.name} is not one of the monsters",
                rule=SETTING_UP,
            )
    else:
        # Interpretation: the band is as stealthy as its clumsiest member, as the party
        # hides as well as its least wise one (Ambush).
        sneaker = min(foes, key=lambda c: _stealth(stats_of(c)))
    notice = stats_of(noticer).notice_score
    bonus = _stealth(stats_of(sneaker))
    # Setting up: "If the DM rolls above the party's Notice".
    roll = ctx.die(20, purpose=f"surprise check: {sneaker.name}", roller="gm")
    total = roll + bonus
    result = "monsters" if total > notice else "party" if total < notice else "neither"
    return [
        ctx.emit(
            SurpriseChecked(
                notice=notice,
                noticer=noticer.id,
                roll=roll,
                bonus=bonus,
                total=total,
                sneaker=sneaker.id,
                result=result,
            )
        )
    ]


def _stealth(stats: D20Stats) -> int:
    return stats.wisdom if stats.stealth is None else stats.stealth


def record_monster_reaction(
    state: D20State, command: RecordMonsterReaction, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("record the monsters' reaction")
    _before(state, "the Monster Reaction Chart")
    if state.surprise != "monsters":
        raise RuleViolation(
            "surprise/not-monsters",
            "the Monster Reaction Chart is rolled when the monsters notice the party first",
            rule=SETTING_UP,
        )
    recorded = ctx.emit(MonsterReactionRecorded(result=command.result, outcome=command.outcome))
    match command.outcome:
        case "fight":
            return [recorded, *begin_combat(state, ctx)]
        case "parley":
            return [recorded, ctx.emit(ApproachChosen(approach="negotiate"))]
        case _:
            return [recorded, *end_encounter(state, f"the monsters leave: {command.result}", ctx)]


def choose_approach(state: D20State, command: ChooseApproach, ctx: DecideContext) -> list[Event]:
    party = fighting(state, True)
    if not ctx.actor.is_gm and not any(ctx.actor.controls(c.id) for c in party):
        raise RuleViolation("auth/not-your-combatant", "only the party or the GM chooses this")
    _before(state, "choosing an approach")
    if state.phase != "before" or state.surprise != "party":
        raise RuleViolation(
            "surprise/not-party",
            "Ambush, Evade or Negotiate is for a party that noticed the monsters first",
            rule=SETTING_UP,
        )
    chosen = ctx.emit(ApproachChosen(approach=command.approach))
    match command.approach:
        case "ambush":
            return [chosen, *ambush(state, ctx)]
        case "evade":
            speeds = {c.id: stats_of(c).speed // EVADING_FRACTION for c in party}
            return [chosen, ctx.emit(Evading(speeds=speeds))]
        case "negotiate":
            return [chosen]
        case _:
            return [chosen, *begin_combat(state, ctx)]


def ambush(state: D20State, ctx: DecideContext) -> list[Event]:
    """d20-action-points Ambush: the party's d20 + its lowest WIS bonus is the hide DC; the
    GM's d20 + the monsters' best WIS bonus (interpretation) equal or above it foils it."""
    wisdom = min(stats_of(c).wisdom for c in fighting(state, True))
    gm_bonus = max(stats_of(c).wisdom for c in fighting(state, False))
    # Ambush: the party rolls (interpretation: the die is rolled for the member whose
    # Wisdom sets the DC, the least wise), and "the DM's roll" is the GM's.
    hider = min(fighting(state, True), key=lambda c: stats_of(c).wisdom)
    roll = ctx.die(20, purpose="ambush: the party hides", roller=hider.id)
    gm_roll = ctx.die(20, purpose="ambush: the monsters look", roller="gm")
    dc, gm_total = roll + wisdom, gm_roll + gm_bonus
    success = gm_total < dc
    rolled = ctx.emit(
        AmbushRolled(
            roll=roll,
            wisdom=wisdom,
            dc=dc,
            gm_roll=gm_roll,
            gm_bonus=gm_bonus,
            gm_total=gm_total,
            success=success,
        )
    )
    return [rolled, *begin_combat(state, ctx, ambush=success)]


def resolve_evasion(state: D20State, outcome: str, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("rule on the evasion")
    if state.phase != "evading":
        raise RuleViolation("evade/not-evading", "the party is not evading", rule=EVADING)
    if outcome == "evaded":
        resolved = ctx.emit(EvasionResolved(outcome="evaded"))
        return [resolved, *end_encounter(state, "the party evaded the monsters", ctx)]
    return [ctx.emit(EvasionResolved(outcome="noticed")), *begin_combat(state, ctx)]


def rule_negotiation(state: D20State, command: RuleNegotiation, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("rule on the negotiation")
    if state.phase not in ("negotiating", "paused"):
        raise RuleViolation(
            "negotiation/not-negotiating", "nobody is negotiating", rule=NEGOTIATION
        )
    ruled = ctx.emit(NegotiationRuled(outcome=command.outcome, terms=command.terms))
    match command.outcome:
        case "agreement":
            reason = f"an agreement: {command.terms}" if command.terms else "an agreement"
            return [ruled, *end_encounter(state, reason, ctx)]
        case "pause":
            return [ruled]
        case _:
            return [ruled, *begin_combat(state, ctx)]


def begin_combat(state: D20State, ctx: DecideContext, ambush: bool = False) -> list[Event]:
    _before(state, "beginning the combat")
    return [ctx.emit(CombatBegan(ambush=ambush)), ctx.emit(RoundStarted(round=1))]


def end_encounter(state: D20State, reason: str, ctx: DecideContext) -> list[Event]:
    stopped = [
        e for cid in sorted(state.table.clocks) for e in stop_clock(state.table.clocks, cid, ctx)
    ]
    return [*stopped, ctx.emit(EncounterEnded(reason=reason, seed=ctx.revealed_seed()))]
