"""The opening of a fifty-two fight: initiative (§2, §2.1), the surprise round (§1), the
columns (§4, §4.1), the shuffle and the deal (§3, §3.1, §4.2) and the surprise cards
(§4.3, §4.4)."""

from __future__ import annotations

from collections import Counter

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.fifty_two import initiative, layout
from service.rules.fifty_two.cards import Card, deck_for, full_deck, padding_count, padding_source
from service.rules.fifty_two.events import (
    CardTaken,
    ColumnChoiceBegan,
    ColumnsChosen,
    FieldDealt,
    InitiativeRolled,
    InitiativeSet,
    RolledOff,
    RoundStarted,
    SurpriseAttacked,
    SurpriseCardAdded,
    SurpriseCardsBegan,
    SurprisePassed,
    SurpriseRoundBegan,
    TieBroken,
)
from service.rules.fifty_two.sides import SideName, damage_purpose, side_of, standing, stats_of
from service.rules.fifty_two.state import FiftyTwoState

SIDES = "fifty-two §0"
ROUND_0 = "fifty-two §1"
SHUFFLE = "fifty-two §3"


def entry(state: FiftyTwoState, cid: str) -> initiative.InitiativeEntry:
    combatant = state.table.combatants[cid]
    stats = stats_of(combatant)
    rank = state.ranks[cid]
    return initiative.InitiativeEntry(
        combatant_id=cid,
        name=combatant.name,
        side=side_of(combatant),
        dex_mod=stats.dex_mod,
        initiative_modifier=stats.initiative_modifier,
        magical_attack_modifier=stats.magical_attack,
        circumstantial=stats.initiative_circumstantial,
        die_roll=rank.die_roll,
        surprise=stats.surprise,
        dex=stats.dex_score,
        int_=stats.int_score,
        str_=stats.str_value,
        roll_off=rank.roll_off,
    )


def roll_initiative(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §2: every combatant's total with the encounter's die; §2.1 roll-offs until
    no two are equal on every tie-breaker."""
    table = state.table
    if not standing(table, "allies") or not standing(table, "enemies"):
        raise RuleViolation(
            "encounter/needs-both-sides",
            "a fifty-two fight needs at least one Ally (side 'allies') and one Enemy",
            rule=SIDES,
        )
    events: list[Event] = []
    die = state.options.initiative_die
    for cid, combatant in table.combatants.items():
        stats = stats_of(combatant)
        roll = ctx.roll(die, f"initiative: {combatant.name}", roller=cid).total
        total = (
            stats.dex_mod
            + stats.initiative_modifier
            + stats.magical_attack
            + stats.initiative_circumstantial
            + roll
        )
        events.append(ctx.emit(InitiativeRolled(combatant_id=cid, die_roll=roll, total=total)))
    return events


def roll_offs(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §2.1 #9: one die each for a group equal on tie-breakers 1 to 8."""
    entries = [entry(state, cid) for cid in state.ranks]
    events: list[Event] = []
    for group in initiative.roll_offs_needed(entries):
        for cid in group:
            name = state.table.combatants[cid].name
            roll = ctx.roll(state.options.initiative_die, f"roll-off: {name}", roller=cid).total
            events.append(ctx.emit(RolledOff(combatant_id=cid, roll=roll)))
    return events


def chart(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    entries = [entry(state, cid) for cid in state.ranks]
    slots, steps = initiative.tie_breaks(entries)
    events: list[Event] = [
        ctx.emit(
            TieBroken(
                tied_at=s.at,
                winner=s.winner,
                loser=s.loser,
                decided_by=s.decided_by,
                tie_breaker=initiative.TIE_BREAKERS[s.decided_by - 1],
                moved=s.moved,
                to=s.to,
            )
        )
        for s in steps
    ]
    events.append(
        ctx.emit(InitiativeSet(chart=tuple((s.combatant_id, s.initiative) for s in slots)))
    )
    return events


def after_initiative(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §1: those with a surprise attack resolve it in descending DEX (ties in
    initiative order); then the columns are chosen."""
    place = {cid: n for n, (cid, _) in enumerate(state.chart)}
    surprising = [c.id for c in standing(state.table) if stats_of(c).surprise and c.id in place]
    if surprising:
        order = sorted(surprising, key=lambda cid: (-_dex(state, cid), place[cid]))
        return [ctx.emit(SurpriseRoundBegan(order=tuple(order)))]
    return column_choice(state, ctx)


def _dex(state: FiftyTwoState, cid: str) -> int:
    return stats_of(state.table.combatants[cid]).dex_score


def surprised(state: FiftyTwoState, side: SideName) -> bool:
    """A side was surprised when anyone on the other side had a surprise attack."""
    return any(stats_of(c).surprise for c in state.table.combatants.values() if side_of(c) != side)


def column_choice(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §4, §4.1: the columns before the modifier; the side with the highest net
    initiative (the sum of its numbers; a tie goes to the side at the top) chooses."""
    totals: dict[SideName, int] = {"allies": 0, "enemies": 0}
    for cid, number in state.chart:
        totals[side_of(state.table.combatants[cid])] += number
    top = side_of(state.table.combatants[state.chart[0][0]])
    side: SideName = max(("allies", "enemies"), key=lambda s: (totals[s], s == top))
    allies = len([c for c in state.table.combatants.values() if side_of(c) == "allies"])
    count = layout.column_count(allies, surprised(state, "allies"), surprised(state, "enemies"))
    return [ctx.emit(ColumnChoiceBegan(side=side, columns=count))]


def surprise_attack(
    state: FiftyTwoState, cid: str, target_id: str, ctx: DecideContext
) -> list[Event]:
    """fifty-two §1, §5.3.3: an ordinary hit that ignores the armor rating."""
    attacker = _surprise_turn(state, cid, ctx, "surprise")
    target = state.table.combatant(target_id)
    if target.side == attacker.side:
        raise RuleViolation(
            "attack/not-an-opponent", f"{target.name} is not {attacker.name}'s opponent", rule=SIDES
        )
    if target.out_of_fight:
        raise RuleViolation("attack/target-down", f"{target.name} is already down", rule=ROUND_0)
    purpose = damage_purpose("surprise", attacker, target)
    damage = ctx.roll(stats_of(attacker).normal_damage, purpose, roller=attacker.id).total
    return [
        ctx.emit(SurpriseAttacked(combatant_id=cid, target=target_id, damage=damage)),
        *adjust_pool(
            state.table,
            target_id,
            "hp",
            -damage,
            None,
            None,
            "surprise attack",
            ctx,
            gm_override=False,
        ),
    ]


def pass_surprise(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    if state.phase == "surprise":
        _surprise_turn(state, cid, ctx, "surprise")
    else:
        _surprise_turn(state, cid, ctx, "surprise-cards")
    return [ctx.emit(SurprisePassed(combatant_id=cid))]


def _surprise_turn(state: FiftyTwoState, cid: str, ctx: DecideContext, phase: str) -> Combatant:
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if state.phase != phase or cid not in state.surprise_left:
        raise RuleViolation(
            "surprise/not-yours",
            f"{combatant.name} has no surprise move to make now",
            rule=ROUND_0 if phase == "surprise" else layout.ALLIES_SURPRISE,
        )
    if combatant.out_of_fight:
        raise RuleViolation(
            "surprise/down", f"{combatant.name} is down and makes no surprise move", rule=ROUND_0
        )
    if phase == "surprise" and state.surprise_left[0] != cid:
        first = state.table.combatants[state.surprise_left[0]].name
        raise RuleViolation(
            "surprise/not-your-turn",
            f"surprise attacks go in descending DEX: {first} attacks first",
            rule=ROUND_0,
        )
    return combatant


def choose_columns(state: FiftyTwoState, modifier: int, ctx: DecideContext) -> list[Event]:
    if state.phase != "columns" or state.chooser is None:
        raise RuleViolation(
            "columns/not-now", "the columns are chosen once, before the deal", rule=layout.MODIFIER
        )
    side: SideName = "allies" if state.chooser == "allies" else "enemies"
    mine = any(
        ctx.actor.controls(c.id) for c in state.table.combatants.values() if side_of(c) == side
    )
    if not (ctx.actor.is_gm or (side == "allies" and mine)):
        raise RuleViolation(
            "columns/not-your-choice",
            f"the {side}, who have the highest net initiative, choose the columns",
            rule=layout.MODIFIER,
        )
    columns = state.columns + modifier
    if columns < 1:
        raise RuleViolation(
            "cards/no-columns", f"the field would have {columns} columns", rule=layout.COLUMNS
        )
    return [ctx.emit(ColumnsChosen(side=side, modifier=modifier, columns=columns))]


def deal(state: FiftyTwoState, deck: list[Card] | None, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("deal the cards")
    if state.phase != "deal" or state.field is not None:
        raise RuleViolation(
            "deal/not-now", "the cards are dealt once, after the columns", rule=SHUFFLE
        )
    columns = state.columns
    if deck is not None:
        order = tuple(_table_deck(deck, columns))
        source = "table"
    else:
        if state.options.dice == "table":
            raise RuleViolation(
                "deal/deck-required",
                "this encounter takes its dice from the table: send the deck's cards, top first",
                rule=SHUFFLE,
            )
        source_cards = padding_source(columns)
        padding = ctx.shuffle(source_cards, "padding") if source_cards else []
        order = tuple(ctx.shuffle(deck_for(columns, padding), "shuffle the deck"))
        source = "server"
    field = layout.deal(order, columns, state.options.depth)
    events: list[Event] = [
        ctx.emit(
            FieldDealt(
                columns=field.columns,
                pool=field.pool,
                depth=field.depth,
                padding=padding_count(columns),
                source=source,
            )
        )
    ]
    return events + surprise_cards(state, ctx)


def _table_deck(deck: list[Card], columns: int) -> list[Card]:
    """A real deck: the 52 cards once each, and the §3.1 padding from other decks."""
    counts = Counter(deck)
    twice = sorted(c.text for c, n in counts.items() if n > 1)
    if twice:
        raise RuleViolation(
            "deal/card-twice", f"the deck lists {', '.join(twice)} more than once", rule=SHUFFLE
        )
    missing = [c.text for c in full_deck() if c not in counts]
    if missing:
        raise RuleViolation(
            "deal/card-missing",
            f"the deck is missing {', '.join(missing)}: a deck holds all 52 cards",
            rule=SHUFFLE,
        )
    extra = [c for c in deck if c.deck > 0]
    if len(extra) != padding_count(columns):
        raise RuleViolation(
            "deal/padding",
            f"{columns} columns take {padding_count(columns)} padding cards from a second deck "
            f"(marked ', e.g. 10S'), not {len(extra)}",
            rule="fifty-two §3.1",
        )
    return deck


def surprise_cards(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §4.3, §4.4: the side that surprised the other, and was not surprised,
    takes (Allies) or adds (Enemies) one card per surprising combatant."""
    place = {cid: n for n, (cid, _) in enumerate(state.chart)}
    for side in ("allies", "enemies"):
        other: SideName = "enemies" if side == "allies" else "allies"
        if surprised(state, other) and not surprised(state, side):
            who = [c.id for c in standing(state.table, side) if stats_of(c).surprise]
            order = tuple(sorted(who, key=lambda cid: place.get(cid, len(place))))
            return [ctx.emit(SurpriseCardsBegan(side=side, order=order))]
    return surprise_cards_done(ctx)


def surprise_cards_done(ctx: DecideContext) -> list[Event]:
    return [ctx.emit(RoundStarted(round=1))]


def take_card(state: FiftyTwoState, cid: str, card: Card, ctx: DecideContext) -> list[Event]:
    _surprise_turn(state, cid, ctx, "surprise-cards")
    assert state.field is not None
    if side_of(state.table.combatants[cid]) != "allies":
        raise RuleViolation(
            "surprise/allies-take",
            "only Allies take cards from the field",
            rule=layout.ALLIES_SURPRISE,
        )
    column, _ = layout.locate(state.field, card, layout.ALLIES_SURPRISE)
    return [ctx.emit(CardTaken(combatant_id=cid, card=card, column=column + 1))]


def add_surprise_card(
    state: FiftyTwoState, cid: str, column: int, ctx: DecideContext
) -> list[Event]:
    _surprise_turn(state, cid, ctx, "surprise-cards")
    assert state.field is not None
    if side_of(state.table.combatants[cid]) != "enemies":
        raise RuleViolation(
            "surprise/enemies-add",
            "only Enemies add cards to the field",
            rule=layout.ENEMIES_SURPRISE,
        )
    outcome = layout.surprise_add(state.field, column - 1, state.surprise_columns)
    return [ctx.emit(SurpriseCardAdded(combatant_id=cid, column=column, card=outcome.cards[0]))]
