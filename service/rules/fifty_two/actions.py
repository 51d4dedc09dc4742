"""The actions of a fifty-two turn (§5.2): the card actions that create opportunities, the
attacks that spend them against armor (§5.3), and the actions the seed leaves to the GM."""

from __future__ import annotations

from typing import Literal, NamedTuple

from service.domain.common import ConditionRemoved
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.fifty_two import armor, card_actions, layout, reflex, spells
from service.rules.fifty_two.cards import Card
from service.rules.fifty_two.events import (
    AttackExecuted,
    CardsAdded,
    CardsRemoved,
    DiscardReshuffled,
    FoeChosen,
    Moved,
    OpportunityAttacked,
    OtherActionTaken,
    PairRemoved,
    RangeSet,
    StoodUp,
)
from service.rules.fifty_two.sides import as_ally, damage_purpose, opposes, side_of, stats_of
from service.rules.fifty_two.state import ALLIES, FiftyTwoState, Turn
from service.rules.fifty_two.turns import acting, pay

ACTIONS = "fifty-two §5.2"
SIDES = "fifty-two §0"
ARMOR = "fifty-two §5.3.3"
PRONE_RULE = "fifty-two §8.3"
BOTTOM_COST, ELSEWHERE_COST, CARD_COST = 1, 2, 1


def _field(state: FiftyTwoState) -> layout.Battlefield:
    assert state.field is not None
    return state.field


def choose_foe(state: FiftyTwoState, cid: str, foe: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §0: an Enemy may attack another Enemy faction "as though they were a PC"."""
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    if side_of(me) != "enemies":
        raise RuleViolation(
            "foe/allies-fight-enemies", "Allies always fight the Enemies", rule=SIDES
        )
    if turn.acted:
        raise RuleViolation(
            "foe/after-acting", f"{me.name} chooses a foe before acting this turn", rule=SIDES
        )
    factions = {c.side for c in state.table.combatants.values() if c.side != me.side}
    if foe == me.side or foe not in factions:
        valid = ", ".join(sorted(factions))
        raise RuleViolation(
            "foe/unknown-faction",
            f"'{foe}' is not a faction {me.name} can fight; the others are: {valid}",
            rule=SIDES,
        )
    return [ctx.emit(FoeChosen(combatant_id=cid, foe=foe))]


def remove_card(state: FiftyTwoState, cid: str, card: Card, ctx: DecideContext) -> list[Event]:
    """A bottom-row card for 1 AP, or a card elsewhere for 2 AP: the card's row decides."""
    turn = _remover(state, cid, ctx)
    field = _field(state)
    _, row = layout.locate(field, card, ACTIONS)
    if row == 0:
        pay(turn, BOTTOM_COST, "removing a bottom-row card")
        outcome = card_actions.remove_from_bottom(field, card)
        how, cost = "bottom", BOTTOM_COST
    else:
        pay(turn, ELSEWHERE_COST, "removing a card from above the bottom row")
        outcome = card_actions.remove_elsewhere(field, card)
        how, cost = "elsewhere", ELSEWHERE_COST
    return [
        ctx.emit(
            CardsRemoved(
                combatant_id=cid,
                abandoned=spells.abandoned_by_removal(state, cid),
                how=how,
                card=card,
                cards=outcome.cards,
                cost=cost,
                normal=outcome.normal,
                critical=outcome.critical,
            )
        )
    ]


def _remover(state: FiftyTwoState, cid: str, ctx: DecideContext) -> Turn:
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    if not as_ally(me, turn.foe):
        raise RuleViolation(
            "cards/allies-remove",
            f"only Allies, and Enemies fighting another Enemy faction, remove cards; {me.name} "
            "is fighting the Allies and adds cards instead",
            rule=ACTIONS,
        )
    return turn


def add_cards(
    state: FiftyTwoState,
    cid: str,
    column: int,
    count: int,
    reshuffle: list[Card] | None,
    ctx: DecideContext,
) -> list[Event]:
    """Enemies attacking the Allies place pool cards, 1 AP each; an empty pool is the
    discard stack shuffled (by the seed, or in the table's order)."""
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    if side_of(me) != "enemies" or turn.foe != ALLIES:
        raise RuleViolation(
            "cards/enemies-add",
            "only Enemies attacking the Allies add cards from the pool",
            rule=ACTIONS,
        )
    pay(turn, count * CARD_COST, f"adding {count} card{'s' if count != 1 else ''}")
    field = _field(state)
    layout.check_column(field, column - 1, ACTIONS)
    events: list[Event] = []
    needed = layout.to_shuffle(field, count)
    if needed and count <= len(field.pool) + len(field.discard):
        order = _reshuffled(needed, reshuffle, ctx)
        events.append(
            ctx.emit(DiscardReshuffled(pool=order, source="table" if reshuffle else "server"))
        )
        field = layout.Battlefield(field.columns, (*field.pool, *order), (), field.depth)
    elif reshuffle is not None:
        raise RuleViolation(
            "cards/no-reshuffle", "the pool holds enough cards: nothing is reshuffled", rule=ACTIONS
        )
    outcome = card_actions.add_cards(
        field, column - 1, count, placed_before=turn.placed.get(column, 0)
    )
    events.append(
        ctx.emit(
            CardsAdded(
                combatant_id=cid,
                column=column,
                cards=outcome.cards,
                cost=count * CARD_COST,
                normal=outcome.normal,
                critical=outcome.critical,
            )
        )
    )
    return events


def _reshuffled(
    needed: tuple[Card, ...], reshuffle: list[Card] | None, ctx: DecideContext
) -> tuple[Card, ...]:
    if reshuffle is None:
        return tuple(ctx.shuffle(needed, "reshuffle the discard stack"))
    if sorted(c.text for c in reshuffle) != sorted(c.text for c in needed):
        raise RuleViolation(
            "cards/reshuffle-mismatch",
            f"the new pool must be the {len(needed)} cards of the discard stack, each once",
            rule=ACTIONS,
        )
    return tuple(reshuffle)


def remove_pair(
    state: FiftyTwoState, cid: str, cards: tuple[Card, Card], ctx: DecideContext
) -> list[Event]:
    """Anyone, any faction (§5.2), 1 AP: an immediate critical opportunity."""
    turn = acting(state, cid, ctx)
    pay(turn, CARD_COST, "removing a pair")
    outcome = card_actions.remove_pair(_field(state), *cards)
    return [
        ctx.emit(
            PairRemoved(combatant_id=cid, cards=cards, cost=CARD_COST, critical=outcome.critical)
        )
    ]


def execute_attack(
    state: FiftyTwoState, cid: str, target_id: str, critical: bool, ctx: DecideContext
) -> list[Event]:
    """fifty-two §5.2: one attack per opportunity, automatically a success; §5.3: 1 AP, 0
    against a vulnerable armor; §5.3.3: it registers when the hits reach the rating."""
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    target = state.table.combatant(target_id)
    kind = "critical" if critical else "normal"
    if (turn.critical if critical else turn.normal) < 1:
        raise RuleViolation(
            "attack/no-opportunity",
            f"{me.name} has no {kind} opportunity to execute: card actions this turn create them",
            rule=ACTIONS,
            details={"normal": turn.normal, "critical": turn.critical},
        )
    if not opposes(me, target, turn.foe):
        raise RuleViolation(
            "attack/not-an-opponent",
            f"{target.name} is not an opponent {me.name} is fighting this turn",
            rule=SIDES,
        )
    if target.out_of_fight:
        raise RuleViolation("attack/target-down", f"{target.name} is already down", rule=ACTIONS)
    cost = armor.execute_cost(stats_of(me).weapon, stats_of(target))
    pay(turn, cost, f"executing a {kind} attack")
    blow = strike(state, me, target, "critical" if critical else "ordinary", ctx)
    attack = ctx.emit(
        AttackExecuted(
            combatant_id=cid,
            target=target_id,
            critical=critical,
            cost=cost,
            rating=blow.rating,
            hits_before=blow.before,
            hits_after=blow.after,
            registered=blow.registered,
            damage=blow.damage,
        )
    )
    return [attack, *blow.hurt(state, f"{me.name}'s {kind} attack", ctx)]


class Blow(NamedTuple):
    """A successful attack against armor (§5.3.3): the rating, the defender's hit count
    before and after, whether it registered, and the damage it did."""

    target: str
    rating: int
    before: int
    after: int
    registered: bool
    damage: int

    def hurt(self, state: FiftyTwoState, reason: str, ctx: DecideContext) -> list[Event]:
        if not self.damage:
            return []
        return adjust_pool(
            state.table, self.target, "hp", -self.damage, None, None, reason, ctx, gm_override=False
        )


def strike(
    state: FiftyTwoState,
    attacker: Combatant,
    target: Combatant,
    kind: Literal["ordinary", "critical"],
    ctx: DecideContext,
) -> Blow:
    mine, theirs = stats_of(attacker), stats_of(target)
    rating = armor.rating(theirs, mine.weapon.enchantment, state.options.shield_magic)
    before = state.hits.get(target.id, 0)
    registered, after = armor.register_hit(before, kind, rating, state.options.armor_hits)
    damage = 0
    if registered:
        expression = mine.critical_damage if kind == "critical" else mine.normal_damage
        purpose = damage_purpose("critical" if kind == "critical" else "normal", attacker, target)
        damage = ctx.roll(expression, purpose, roller=attacker.id).total
    return Blow(target.id, rating, before, after, registered, damage)


def other_action(
    state: FiftyTwoState, cid: str, kind: str, description: str, cost: int, ctx: DecideContext
) -> list[Event]:
    """fifty-two §5.2: a magic item, a class ability or "any other action that seems
    reasonable to the GM"; a cost other than one action point is the GM's to set."""
    turn = acting(state, cid, ctx)
    if cost != 1 and not ctx.actor.is_gm:
        raise RuleViolation(
            "action/gm-sets-cost",
            "only the GM sets a cost other than one action point",
            rule=ACTIONS,
        )
    pay(turn, cost, description)
    return [
        ctx.emit(OtherActionTaken(combatant_id=cid, kind=kind, description=description, cost=cost))
    ]


def stand_up(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §8.3: a defender who dived to cover lies prone, "requiring an action point
    to stand up before they can do anything else"; §5.2 lists "getting back up after being
    knocked prone" among the actions of a turn. Any prone combatant stands the same way."""
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    if not me.has_condition(reflex.PRONE):
        raise RuleViolation("stand/not-prone", f"{me.name} is not prone", rule=PRONE_RULE)
    pay(turn, reflex.STAND_UP_COST, "standing up")
    return [
        ctx.emit(StoodUp(combatant_id=cid, cost=reflex.STAND_UP_COST)),
        ctx.emit(ConditionRemoved(combatant_id=cid, condition=reflex.PRONE, gm_override=False)),
    ]


def must_stand_first(state: FiftyTwoState, cid: str) -> None:
    """fifty-two §8.3: nothing else until a prone combatant has stood up."""
    me = state.table.combatants[cid]
    if me.has_condition(reflex.PRONE):
        raise RuleViolation(
            "turn/prone",
            f"{me.name} is prone and must stand up first (stand-up, "
            f"{reflex.STAND_UP_COST} action point)",
            rule=PRONE_RULE,
        )


def set_range(
    state: FiftyTwoState, cid: str, opponents: list[str], ctx: DecideContext
) -> list[Event]:
    """fifty-two §5.1: who is "currently placed within attack range of the character"."""
    me = state.table.combatant(cid)
    ctx.require_control(cid, me.name)
    for other in opponents:
        them = state.table.combatant(other)
        if them.side == me.side:
            raise RuleViolation(
                "range/not-an-opponent", f"{them.name} is on {me.name}'s side", rule=SIDES
            )
    return [ctx.emit(RangeSet(combatant_id=cid, opponents=tuple(dict.fromkeys(opponents))))]


def move(
    state: FiftyTwoState,
    cid: str,
    how: str,
    leaves: list[str],
    enters: list[str],
    ctx: DecideContext,
) -> list[Event]:
    """fifty-two §5.2: a move (once a turn, 1 AP) draws an attack of opportunity from every
    opponent whose melee range it leaves; a 5-foot step (the first free) draws none."""
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    left, entered = tuple(dict.fromkeys(leaves)), tuple(dict.fromkeys(enters))
    for other in (*left, *entered):
        if state.table.combatant(other).side == me.side:
            raise RuleViolation(
                "move/not-an-opponent",
                f"{state.table.combatants[other].name} is on {me.name}'s side",
                rule=ACTIONS,
            )
    if how == "move":
        if turn.moved:
            raise RuleViolation(
                "move/once-a-turn",
                f"{me.name} has already moved this turn; 5-foot steps remain",
                rule=ACTIONS,
            )
        cost = 1
    else:
        cost = 0 if turn.free_step else 1
    pay(turn, cost, "moving" if how == "move" else "another 5-foot step")
    events: list[Event] = [
        ctx.emit(Moved(combatant_id=cid, how=how, cost=cost, left=left, entered=entered))
    ]
    if how == "move":
        for other in left:
            events += opportunity_attack(state, other, cid, ctx)
    return events


def opportunity_attack(
    state: FiftyTwoState, attacker_id: str, target_id: str, ctx: DecideContext
) -> list[Event]:
    """Interpretation: every opponent left takes its attack of opportunity at once, an
    ordinary hit at no cost to it, counted against the armor (§5.3.3)."""
    attacker = state.table.combatants[attacker_id]
    target = state.table.combatants[target_id]
    if attacker.out_of_fight:
        return []
    blow = strike(state, attacker, target, "ordinary", ctx)
    attack = ctx.emit(
        OpportunityAttacked(
            combatant_id=attacker_id,
            target=target_id,
            rating=blow.rating,
            hits_before=blow.before,
            hits_after=blow.after,
            registered=blow.registered,
            damage=blow.damage,
        )
    )
    return [attack, *blow.hurt(state, f"{attacker.name}'s attack of opportunity", ctx)]
