"""Before combat and the round: the marching order, the surprise check, ambush, evasion and
negotiation, declarations, initiative every round, turns, delaying, gifting a point, the
Heroic Point and the turn timer (d20-action-points Marching Order, Setting Up An Encounter,
Evading Monsters, Ambush, Negotiation, Combat Round, Declaring Actions, Rolling Initiative,
Action Points, Gifting Action Points)."""

from __future__ import annotations

from service.domain.clocks import start_clock, stop_clock
from service.domain.common import EncounterEnded
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import action_points, spells
from service.rules.d20_action_points.action_points import POINTS_PER_ROUND, Budget
from service.rules.d20_action_points.commands import (
    ChooseApproach,
    Declare,
    RecordMonsterReaction,
    RuleNegotiation,
    SetMarchingOrder,
)
from service.rules.d20_action_points.events import (
    ActionDeclared,
    AmbushRolled,
    ApproachChosen,
    CombatBegan,
    Evading,
    EvasionResolved,
    HeroicPointSpent,
    Initiative,
    InitiativeRolled,
    MarchingOrderSet,
    MonsterReactionRecorded,
    NegotiationRuled,
    PointGifted,
    RoundStarted,
    SurpriseChecked,
    TurnDelayed,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from service.rules.d20_action_points.state import D20State, D20Stats, Turn

MARCHING = "d20-action-points Marching Order"
SETTING_UP = "d20-action-points Setting Up An Encounter"
EVADING = "d20-action-points Evading Monsters"
AMBUSH = "d20-action-points Ambush"
NEGOTIATION = "d20-action-points Negotiation"
ROUND = "d20-action-points Combat Round"
DECLARING = "d20-action-points Declaring Actions"
INITIATIVE = "d20-action-points Rolling Initiative"
TURN_CLOCK = "turn"
# d20-action-points Evading Monsters: "they can only move at 1/10 of their usual speed".
EVADING_FRACTION = 10
# Interpretation: a Heroic Point under action points buys one standard action's points.
HEROIC_POINTS = action_points.CATEGORY_COST["standard"]
BEFORE_COMBAT = ("before", "negotiating", "evading", "paused")


def stats_of(combatant: Combatant) -> D20Stats:
    return D20Stats.model_validate(combatant.stats)


def is_pc(combatant: Combatant) -> bool:
    return combatant.stats.get("kind") == "pc"


def party_sides(state: D20State) -> set[str]:
    """The party: every side with a player character on it."""
    return {c.side for c in state.table.combatants.values() if is_pc(c)}


def fighting(state: D20State, party: bool) -> list[Combatant]:
    sides = party_sides(state)
    return [
        c
        for c in state.table.combatants.values()
        if not c.out_of_fight and (c.side in sides) == party
    ]


# --- before combat ----------------------------------------------------------------------


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
    roll = ctx.die(20, purpose=f"surprise check: {sneaker.name}")
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
    roll = ctx.die(20, purpose="ambush: the party hides")
    gm_roll = ctx.die(20, purpose="ambush: the monsters look")
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


# --- the round --------------------------------------------------------------------------


def acts_this_round(state: D20State, combatant: Combatant) -> bool:
    """Everyone in the fight, except the monsters in an ambush round (Ambush: "the party gets
    one round of attacks without the DM taking any actions")."""
    if combatant.out_of_fight:
        return False
    return not state.ambush or combatant.side in party_sides(state)


def declare(state: D20State, command: Declare, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(command.combatant_id)
    ctx.require_control(combatant.id, combatant.name)
    if state.phase != "declaring":
        raise RuleViolation(
            "round/not-declaring",
            "actions are declared at the start of the round, before initiative",
            rule=DECLARING,
        )
    if not acts_this_round(state, combatant):
        raise RuleViolation(
            "round/cannot-act", f"{combatant.name} takes no action this round", rule=ROUND
        )
    stats = stats_of(combatant)
    modifier = 0
    if command.spell is not None:
        spell = stats.spell(command.spell)
        if spell is None:
            raise RuleViolation(
                "spell/unknown",
                f"{combatant.name} knows no spell '{command.spell}'",
                rule=DECLARING,
            )
        mana = combatant.pools.get("mana")
        pool = spells.ManaPool(mana.current, mana.max or 0) if mana else spells.ManaPool(0, 0)
        spells.declare(pool, spells.Spell(spell.name, spell.level, spell.mana))
        modifier = spell.initiative
    if command.weapon is not None:
        weapon = state.arms[combatant.id].weapon(command.weapon)
        if weapon is None:
            raise RuleViolation(
                "attack/unknown-weapon",
                f"{combatant.name} carries no '{command.weapon}'",
                rule=DECLARING,
            )
        modifier += weapon.initiative
    return [
        ctx.emit(
            ActionDeclared(
                combatant_id=combatant.id,
                action=command.action,
                spell=command.spell,
                weapon=command.weapon,
                initiative=modifier,
            )
        )
    ]


def roll_initiative(state: D20State, ctx: DecideContext) -> list[Event]:
    """d20-action-points Rolling Initiative: each player rolls d20 for their character, the
    GM one d20 for each combat group; bonuses are the stat block's and a declared fast or
    slow action's. Highest first; ties to the higher bonus, then the party, then the order
    the combatants joined (interpretation)."""
    ctx.require_gm("roll initiative")
    if state.phase != "declaring":
        raise RuleViolation(
            "round/not-declaring",
            "initiative is rolled once a round, after declarations",
            rule=INITIATIVE,
        )
    rolls: list[Initiative] = []
    group_dice: dict[str, int] = {}
    joined = list(state.table.combatants)
    for combatant in state.table.combatants.values():
        if not acts_this_round(state, combatant):
            continue
        stats = stats_of(combatant)
        declared = state.declared.get(combatant.id)
        bonus = stats.initiative + (declared.initiative if declared else 0)
        group = None if is_pc(combatant) else stats.group or combatant.id
        if group is None:
            roll = ctx.die(20, purpose=f"initiative: {combatant.name}")
        elif group in group_dice:
            roll = group_dice[group]
        else:
            label = stats.group or combatant.name
            roll = group_dice[group] = ctx.die(20, purpose=f"initiative: {label}")
        rolls.append(
            Initiative(
                combatant_id=combatant.id,
                roll=roll,
                bonus=bonus,
                total=roll + bonus,
                group=None if group is None else stats.group,
            )
        )
    party = party_sides(state)

    def key(entry: Initiative) -> tuple[int, int, int, int]:
        side = state.table.combatants[entry.combatant_id].side
        return (
            -entry.total,
            -entry.bonus,
            0 if side in party else 1,
            joined.index(entry.combatant_id),
        )

    order = tuple(e.combatant_id for e in sorted(rolls, key=key))
    return [ctx.emit(InitiativeRolled(rolls=tuple(rolls), order=order, ambush=state.ambush))]


def begin_turn(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    """A turn begins with 5 action points and any gifted since (or one action); a delayed
    turn resumes with what it had when it was delayed, and the gifts made since."""
    combatant = state.table.combatants[cid]
    held = state.held.get(cid)
    gifts = state.gifts.get(cid, 0)
    if state.options.action_points:
        points = (held.points if held is not None else POINTS_PER_ROUND) + gifts
        started = ctx.emit(
            TurnStarted(combatant_id=cid, round=state.round, points=points, actions=0)
        )
    else:
        allowed = held.allowed if held is not None else 1
        started = ctx.emit(
            TurnStarted(combatant_id=cid, round=state.round, points=0, actions=allowed)
        )
    events: list[Event] = [started]
    limit = state.options.turn_time_limit
    if limit is not None:
        events.append(
            start_clock(
                state.table.clocks,
                TURN_CLOCK,
                limit,
                ctx,
                label=f"{combatant.name}'s turn",
                owner=cid,
            )
        )
    return events


def next_turn(state: D20State, ctx: DecideContext) -> list[Event]:
    """What the round does by itself once the table is quiet: the current turn ends when its
    combatant leaves the fight, the next in the order begins, or a new round starts."""
    if state.phase != "acting":
        return []
    if state.current is not None:
        combatant = state.table.combatants.get(state.current)
        if combatant is None:
            return [ctx.emit(TurnEnded(combatant_id=state.current, reason="removed"))]
        if combatant.out_of_fight:
            return [ctx.emit(TurnEnded(combatant_id=state.current, reason="out-of-fight"))]
        return []
    if state.queue:
        cid = state.queue[0]
        combatant = state.table.combatants.get(cid)
        if combatant is None or not acts_this_round(state, combatant):
            return [ctx.emit(TurnSkipped(combatant_id=cid, reason="out of the fight"))]
        return begin_turn(state, cid, ctx)
    return [
        *stop_clock(state.table.clocks, TURN_CLOCK, ctx),
        ctx.emit(RoundStarted(round=state.round + 1)),
    ]


def current_turn(state: D20State, cid: str, ctx: DecideContext, rule: str = ROUND) -> Turn:
    """The turn of a combatant that may act now, or a violation saying why not."""
    if state.phase != "acting":
        raise RuleViolation("turn/not-acting", "no one is taking a turn now", rule=rule)
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if state.current != cid or state.turn is None:
        raise RuleViolation("turn/not-your-turn", f"it is not {combatant.name}'s turn", rule=rule)
    if state.table.open_windows() or state.pending:
        raise RuleViolation(
            "reactions/window-open", "wait until the open reactions are resolved", rule=rule
        )
    return state.turn


def end_turn(state: D20State, cid: str | None, ctx: DecideContext) -> list[Event]:
    if cid is None:
        if state.current is None or not ctx.actor.controls(state.current):
            raise RuleViolation(
                "turn/which-combatant", "name the combatant whose turn ends", rule=ROUND
            )
        cid = state.current
    turn = current_turn(state, cid, ctx)
    return [ctx.emit(TurnEnded(combatant_id=cid, points_left=turn.points))]


def delay(state: D20State, cid: str, until: str | None, ctx: DecideContext) -> list[Event]:
    """d20-action-points Action Points, Delay action: "take their turn at any time after
    their initiative turn". Interpretation: the whole turn, points and all, moves to after
    `until` (or to the end of the round); it costs the five points in that nothing may be
    spent before it."""
    rule = action_points.ACTION_POINTS
    turn = current_turn(state, cid, ctx, rule)
    name = state.table.combatants[cid].name
    if cid in state.grappled:
        raise RuleViolation(
            "grapple/must-break-free",
            f"{name} is grappled: the only action left is to try to break free (break-free)",
            rule=action_points.SPECIAL_MOVES,
        )
    if turn.spent:
        raise RuleViolation(
            "delay/after-acting",
            f"{name} has already acted this turn; a delay takes the whole turn",
            rule=rule,
        )
    if not state.queue:
        raise RuleViolation(
            "delay/nobody-after", f"nobody is left to act after {name} this round", rule=rule
        )
    if until is not None and until not in state.queue:
        who = state.table.combatant(until).name
        raise RuleViolation(
            "delay/not-later",
            f"{who} does not act later this round; {name} can wait for: "
            + ", ".join(state.table.combatants[c].name for c in state.queue),
            rule=rule,
            details={"later": list(state.queue)},
        )
    return [ctx.emit(TurnDelayed(combatant_id=cid, until=until))]


def gift_point(state: D20State, giver: str, to: str, ctx: DecideContext) -> list[Event]:
    rule = action_points.GIFTING
    me = state.table.combatant(giver)
    ctx.require_control(giver, me.name)
    receiver = state.table.combatant(to)
    if not state.options.action_points:
        raise RuleViolation(
            "gift/no-action-points", "points are gifted only with action points on", rule=rule
        )
    if state.phase != "acting":
        raise RuleViolation("turn/not-acting", "no one is taking a turn now", rule=rule)
    if me.out_of_fight:
        raise RuleViolation(
            "gift/out-of-fight", f"{me.name} is out of the fight and gifts nothing", rule=rule
        )
    if receiver.side != me.side or receiver.out_of_fight:
        raise RuleViolation(
            "gift/not-an-ally",
            f"{me.name} can gift a point only to an ally in the fight",
            rule=rule,
        )
    if state.current == giver and state.turn is not None:
        points = state.turn.points
    elif giver in state.acted:
        points = state.leftover.get(giver, 0)
    else:
        raise RuleViolation(
            "gift/not-left-over",
            f"{me.name} has not taken a turn yet this round; only left-over points are gifted",
            rule=rule,
        )
    receiver_acted = to in state.acted or state.current == to
    action_points.gift(
        Budget(giver, me.name, points, True),
        Budget(to, receiver.name, 0, receiver_acted),
        gifted=giver in state.givers,
    )
    return [ctx.emit(PointGifted(combatant_id=giver, to=to))]


def spend_heroic_point(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    """Combat Round 5: "Optional: Spend a Heroic Point to gain an additional action"."""
    current_turn(state, cid, ctx)
    combatant = state.table.combatants[cid]
    heroic = combatant.pools.get("heroic")
    if heroic is None or heroic.current < 1:
        raise RuleViolation(
            "heroic/none-left", f"{combatant.name} has no Heroic Point to spend", rule=ROUND
        )
    if cid in state.heroic_used:
        raise RuleViolation(
            "heroic/once-a-round",
            f"{combatant.name} has already spent a Heroic Point this round",
            rule=ROUND,
        )
    points = HEROIC_POINTS if state.options.action_points else 0
    spent = adjust_pool(
        state.table, cid, "heroic", -1, None, None, "a Heroic Point", ctx, gm_override=False
    )
    spending = HeroicPointSpent(combatant_id=cid, points=points)
    return [ctx.emit_ahead(spending, of=spent), *spent]


def timed_out(state: D20State, ctx: DecideContext) -> list[Event]:
    """The turn clock ran out: `end-turn` ends the turn; `delay` moves it to the end of the
    round if nothing was spent yet and someone is left, else ends it; `record` only notes."""
    cid, turn = state.current, state.turn
    if cid is None or turn is None:
        return []
    match state.options.on_turn_timeout:
        case "record":
            return []
        case "delay" if not turn.spent and state.queue:
            return [ctx.emit(TurnDelayed(combatant_id=cid, until=None))]
        case _:
            return [
                ctx.emit(TurnEnded(combatant_id=cid, reason="timeout", points_left=turn.points))
            ]
