"""Folding fifty-two events into the state: one exhaustive match, no validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace as replace_field

from service.domain.common import EncounterEnded, EncounterStarted
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.ruleset import with_table
from service.rules.fifty_two.cards import Card
from service.rules.fifty_two.events import (
    ActionHeld,
    AttackExecuted,
    CardsAdded,
    CardsRemoved,
    CardTaken,
    ColumnChoiceBegan,
    ColumnsChosen,
    DiscardReshuffled,
    FieldDealt,
    FoeChosen,
    InitiativeRaised,
    InitiativeRolled,
    InitiativeSet,
    Moved,
    OpportunityAttacked,
    OtherActionTaken,
    PairRemoved,
    RangeSet,
    RolledOff,
    RoundStarted,
    RowAdded,
    SpellCast,
    SpellPending,
    SpellSuspended,
    SpellTookEffect,
    StoodUp,
    SurpriseAttacked,
    SurpriseCardAdded,
    SurpriseCardsBegan,
    SurprisePassed,
    SurpriseRoundBegan,
    TieBroken,
    TurnEnded,
    TurnStarted,
)
from service.rules.fifty_two.layout import Battlefield
from service.rules.fifty_two.state import Casting, FiftyTwoState, PendingSpell, Rank, Turn


def evolve(state: FiftyTwoState, event: Event) -> FiftyTwoState:
    return evolve_own(with_table(state, event), event)


def evolve_own(state: FiftyTwoState, event: Event) -> FiftyTwoState:
    match event:
        case EncounterStarted():
            return state
        case EncounterEnded():
            return replace(state, {"phase": "ended", "turn": None})
        case InitiativeRolled():
            rank = Rank(die_roll=event.die_roll, total=event.total)
            return replace(state, {"ranks": {**state.ranks, event.combatant_id: rank}})
        case RolledOff():
            old = state.ranks[event.combatant_id]
            rank = replace(old, {"roll_off": (*old.roll_off, event.roll)})
            return replace(state, {"ranks": {**state.ranks, event.combatant_id: rank}})
        case TieBroken():
            return state
        case InitiativeSet():
            resequenced = state.resequenced or event.reason == "resequenced"
            return replace(state, {"chart": event.chart, "resequenced": resequenced})
        case SurpriseRoundBegan():
            return replace(state, {"phase": "surprise", "surprise_left": event.order})
        case SurpriseAttacked():
            return replace(
                _surprise_done(state, event.combatant_id),
                {"last_attacker": {**state.last_attacker, event.target: event.combatant_id}},
            )
        case SurprisePassed():
            return _surprise_done(state, event.combatant_id)
        case ColumnChoiceBegan():
            return replace(
                state, {"phase": "columns", "chooser": event.side, "columns": event.columns}
            )
        case ColumnsChosen():
            return replace(state, {"phase": "deal", "columns": event.columns})
        case FieldDealt():
            field = Battlefield(tuple(event.columns), pool=event.pool, depth=event.depth)
            return replace(state, {"field": field})
        case SurpriseCardsBegan():
            return replace(state, {"phase": "surprise-cards", "surprise_left": event.order})
        case CardTaken():
            return _surprise_done(_discard(state, (event.card,)), event.combatant_id)
        case SurpriseCardAdded():
            laid = _place(state, event.column - 1, (event.card,))
            used = (*state.surprise_columns, event.column - 1)
            return replace(_surprise_done(laid, event.combatant_id), {"surprise_columns": used})
        case RoundStarted():
            return replace(
                state, {"phase": "running", "round": event.round, "acted": (), "turn": None}
            )
        case RowAdded():
            for column, card in enumerate(event.cards):
                state = _place(state, column, (card,))
            field = _field(state)
            return replace(state, {"field": replace_field(field, depth=field.depth + 1)})
        case DiscardReshuffled():
            field = _field(state)
            pool = (*field.pool, *event.pool)
            return replace(state, {"field": replace_field(field, pool=pool, discard=())})
        case TurnStarted():
            turn = Turn(combatant_id=event.combatant_id, points=event.points, bonus=event.bonus)
            debts = {k: v for k, v in state.debts.items() if k != event.combatant_id}
            return replace(state, {"turn": turn, "debts": debts})
        case FoeChosen():
            return _turn(state, foe=event.foe)
        case CardsRemoved():
            state = _discard(state, event.cards)
            if event.abandoned is not None:
                state = _uncast(state, event.combatant_id)
            return _spend(state, event.cost, event.normal, event.critical)
        case CardsAdded():
            state = _place(state, event.column - 1, event.cards)
            turn = _current(state)
            placed = {
                **turn.placed,
                event.column: turn.placed.get(event.column, 0) + len(event.cards),
            }
            state = _turn(state, placed=placed)
            return _spend(state, event.cost, event.normal, event.critical)
        case PairRemoved():
            return _spend(_discard(state, event.cards), event.cost, 0, event.critical)
        case AttackExecuted():
            state = _spend(state, event.cost, -int(not event.critical), -int(event.critical))
            return _hit(state, event.combatant_id, event.target, event.hits_after)
        case InitiativeRaised():
            chart = _rechart(state.chart, event.combatant_id, event.after)
            return _spend(replace(state, {"chart": chart}), event.cost, 0, 0)
        case ActionHeld():
            chart = _rechart(state.chart, event.combatant_id, event.after)
            return replace(state, {"chart": chart, "turn": None})
        case OtherActionTaken() | StoodUp():
            return _spend(state, event.cost, 0, 0)
        case Moved():
            state = _spend(state, event.cost, 0, 0)
            if event.how == "move":
                state = _turn(state, moved=True)
            elif event.cost == 0:
                state = _turn(state, free_step=False)
            return _engage(state, event.combatant_id, event.left, event.entered)
        case OpportunityAttacked():
            return _hit(state, event.combatant_id, event.target, event.hits_after)
        case SpellCast():
            casting = Casting(
                spell=event.spell,
                target=event.target,
                rounds_done=event.rounds_done,
                cast_in_round=event.round_cast,
                complete=event.complete,
            )
            state = replace(state, {"castings": {**state.castings, event.combatant_id: casting}})
            return _spend(state, event.cost, 0, 0)
        case SpellSuspended():
            casting = replace(state.castings[event.combatant_id], {"suspended": True})
            state = replace(state, {"castings": {**state.castings, event.combatant_id: casting}})
            return _spend(state, event.cost, 0, 0)
        case SpellPending():
            pending = PendingSpell(
                caster=event.combatant_id, spell=event.spell, target=event.target
            )
            return replace(state, {"pending_spell": pending})
        case SpellTookEffect():
            state = replace(_uncast(state, event.combatant_id), {"pending_spell": None})
            if event.target is None:
                return state
            target = event.target
            owed = state.debts.get(target, 0) + event.save_cost
            state = replace(state, {"debts": {**state.debts, target: owed}})
            return _hit(state, event.combatant_id, target, event.hits_after)
        case RangeSet():
            return replace(
                state, {"engaged": {**state.engaged, event.combatant_id: event.opponents}}
            )
        case TurnEnded():
            acted = state.acted
            if event.combatant_id not in acted:
                acted = (*acted, event.combatant_id)
            return replace(state, {"turn": None, "acted": acted})
    return state


def _hit(state: FiftyTwoState, attacker: str, target: str, hits: int) -> FiftyTwoState:
    """A successful attack: the target's count against its armor, and who attacked it last
    (§5.3.3, §6)."""
    return replace(
        state,
        {
            "hits": {**state.hits, target: hits},
            "last_attacker": {**state.last_attacker, target: attacker},
        },
    )


def _uncast(state: FiftyTwoState, caster: str) -> FiftyTwoState:
    castings = {k: v for k, v in state.castings.items() if k != caster}
    return replace(state, {"castings": castings})


def _field(state: FiftyTwoState) -> Battlefield:
    assert state.field is not None
    return state.field


def _current(state: FiftyTwoState) -> Turn:
    assert state.turn is not None
    return state.turn


def _turn(state: FiftyTwoState, **changes: object) -> FiftyTwoState:
    return replace(state, {"turn": replace(_current(state), changes)})


def _spend(state: FiftyTwoState, cost: int, normal: int, critical: int) -> FiftyTwoState:
    turn = _current(state)
    return _turn(
        state,
        points=turn.points - cost,
        normal=turn.normal + normal,
        critical=turn.critical + critical,
        acted=True,
    )


def _surprise_done(state: FiftyTwoState, combatant_id: str) -> FiftyTwoState:
    left = tuple(c for c in state.surprise_left if c != combatant_id)
    return replace(state, {"surprise_left": left})


def _discard(state: FiftyTwoState, cards: Sequence[Card]) -> FiftyTwoState:
    """The cards leave their columns (those above drop down) for the discard stack."""
    field = _field(state)
    gone = set(cards)
    columns = tuple(tuple(c for c in column if c not in gone) for column in field.columns)
    discard = (*field.discard, *cards)
    return replace(state, {"field": replace_field(field, columns=columns, discard=discard)})


def _place(state: FiftyTwoState, column: int, cards: Sequence[Card]) -> FiftyTwoState:
    """The next pool cards go on top of a column."""
    field = _field(state)
    columns = list(field.columns)
    columns[column] = (*columns[column], *cards)
    pool = field.pool[len(cards) :]
    return replace(state, {"field": replace_field(field, columns=tuple(columns), pool=pool)})


def _rechart(
    chart: tuple[tuple[str, int], ...], combatant_id: str, to: int
) -> tuple[tuple[str, int], ...]:
    moved = [(c, to if c == combatant_id else n) for c, n in chart]
    return tuple(sorted(moved, key=lambda slot: -slot[1]))


def _engage(
    state: FiftyTwoState, mover: str, left: Sequence[str], entered: Sequence[str]
) -> FiftyTwoState:
    """Melee ranges are mutual: leaving or entering one changes both combatants' lists."""
    engaged = dict(state.engaged)

    def update(cid: str, drop: Sequence[str], add: Sequence[str]) -> None:
        kept = [o for o in engaged.get(cid, ()) if o not in drop]
        engaged[cid] = (*kept, *(o for o in add if o not in kept))

    update(mover, left, entered)
    for other in left:
        update(other, (mover,), ())
    for other in entered:
        update(other, (), (mover,))
    return replace(state, {"engaged": engaged})
