"""What fifty-two shows: legal actions with their costs and the cards they would take, one
sentence per event, and the sealed pool (§5.2: the Enemies' cards are face down)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.views import ActionOption, Blocked
from service.rules.fifty_two import armor, card_actions, layout
from service.rules.fifty_two.cards import Card, parse_card
from service.rules.fifty_two.reflex import (
    ATTEMPT_COST,
    COVER_DISCOUNT,
    PRONE,
    STAND_UP_COST,
    STEP_FEET,
    SUCCESS_COST,
    dive_limit,
)
from service.rules.fifty_two.sides import as_ally, opposes, side_of, stats_of
from service.rules.fifty_two.state import ALLIES, FiftyTwoState, PendingSpell, Turn
from service.rules.fifty_two.turns import later_to_act

SHUFFLES = frozenset({"shuffle the deck", "padding", "reshuffle the discard stack"})
SEALED_EVENTS = frozenset({"field-dealt", "discard-reshuffled"})
SEALED_COMMAND_FIELDS = ("deck", "reshuffle")
DASH = "\u2013"  # an en dash, as in "the 10♠ to 10♦ pair"
_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def sealed(state: FiftyTwoState) -> bool:
    """The pool's order is seen by nobody, GM and auditors included, until the end."""
    return state.phase != "ended"


def seal(
    envelope: Envelope, shown: dict[str, Any] | None, viewer: Actor | None, state: FiftyTwoState
) -> dict[str, Any] | None:
    """The event as shown (the shared redaction), less the sealed pool's order."""
    if shown is None or viewer is None or viewer.role == "system" or not sealed(state):
        return shown
    if envelope.type in SEALED_EVENTS:
        data = dict(shown["data"])
        data["pool"] = None
        data["pool_size"] = len(envelope.data.get("pool") or ())
        shown["data"] = data
    command = shown.get("command")
    if isinstance(command, dict) and any(k in command for k in SEALED_COMMAND_FIELDS):
        shown["command"] = {
            k: ("sealed" if k in SEALED_COMMAND_FIELDS else v) for k, v in command.items()
        }
    shown["rolls"] = [r for r in shown["rolls"] if r.get("purpose") not in SHUFFLES]
    return shown


def sealed_state(
    dumped: dict[str, Any], state: FiftyTwoState, viewer: Actor | None
) -> dict[str, Any]:
    """The state as shown (the shared redaction), less the sealed pool."""
    field = dumped.get("field")
    if field is not None:
        field["pool_size"] = len(field["pool"])
        if sealed(state) and viewer is not None and viewer.role != "system":
            field["pool"] = None
    return dumped


def symbol(card: Card | str) -> str:
    """ "10S" as a player reads it on a card: 10♠ (padding cards keep their prime)."""
    text = card.text if isinstance(card, Card) else parse_card(card).text
    body = text.rstrip("'")
    primes = text[len(body) :]
    return f"{body[:-1]}{_SYMBOL[body[-1]]}{primes}"


def blocked(state: FiftyTwoState, viewer: Actor) -> list[Blocked]:
    """While a spell waits for a Reflex save (§8) the fight waits with it: the viewer's
    combatant whose turn it is (the caster, as a rule) is offered nothing until the target
    decides, and is told so. The target is offered the save itself, so it is not blocked."""
    pending, turn = state.pending_spell, state.turn
    if pending is None or turn is None or viewer.role in ("observer", "auditor"):
        return []
    cid = turn.combatant_id
    if cid == pending.target or not viewer.controls(cid):
        return []
    target = state.table.combatants[pending.target].name
    reason = f"{pending.spell} waits for {target}'s Reflex save (§8)"
    return [Blocked(actor=cid, reason=reason, blocked_by=[pending.target])]


def legal_actions(state: FiftyTwoState, viewer: Actor) -> list[ActionOption]:
    actions = common_actions(state.table, viewer)
    if state.phase != "setup":
        # §4: the field is dealt for the combatants at the start, so none joins after it
        # (decide refuses `combatant/after-start`): the GM is not offered one to add.
        actions = [a for a in actions if a.type != "add-combatant"]
    if viewer.role in ("observer", "auditor"):
        return actions
    table = state.table
    pending = state.pending_spell
    if pending is not None:
        if viewer.controls(pending.target):
            actions.append(
                ActionOption(
                    type="reflex-save",
                    label=f"Reflex save against {pending.spell}",
                    actor=pending.target,
                    params=_reflex_params(state, pending),
                )
            )
        return actions
    match state.phase:
        case "surprise" if state.surprise_left:
            cid = state.surprise_left[0]
            if viewer.controls(cid):
                me = table.combatants[cid]
                targets = [
                    c.id
                    for c in table.combatants.values()
                    if c.side != me.side and not c.out_of_fight
                ]
                actions.append(
                    ActionOption(
                        type="surprise-attack", label="Surprise attack", actor=cid, targets=targets
                    )
                )
                actions.append(
                    ActionOption(type="pass-surprise", label="No surprise attack", actor=cid)
                )
        case "columns" if state.chooser is not None:
            mine = any(
                viewer.controls(c.id)
                for c in table.combatants.values()
                if side_of(c) == state.chooser
            )
            if viewer.is_gm or (state.chooser == ALLIES and mine):
                actions.append(
                    ActionOption(
                        type="choose-columns",
                        label=f"Choose the columns ({state.columns} before the modifier)",
                        params={"modifier": [-1, 0, 1], "columns": state.columns},
                    )
                )
        case "deal" if viewer.is_gm:
            actions.append(ActionOption(type="deal", label="Shuffle and deal"))
        case "surprise-cards" if state.field is not None:
            actions += _surprise_cards(state, viewer)
        case "running" if state.turn is not None and viewer.controls(state.turn.combatant_id):
            actions += turn_actions(state, state.turn)
    return actions


def _reflex_params(state: FiftyTwoState, pending: PendingSpell) -> dict[str, Any]:
    """What the target decides on, and what each answer costs (fifty-two §8): the spell and
    its caster and DC; 1 action point to attempt the save and 1 more if it succeeds (§8.1),
    from this round's points if the target has not acted yet, else the next round's (§8.2);
    cover 5 feet away or nearer is a step, further a dive up to `dive_limit` feet that leaves
    the target prone, and either takes 1 point off (§8.3). Declining costs nothing."""
    target = state.table.combatants[pending.target]
    caster = state.table.combatants.get(pending.caster)
    spell = stats_of(caster).spell(pending.spell) if caster is not None else None
    stats = stats_of(target)
    return {
        "attempt": [True, False],
        "cover_feet": "optional",
        "caster": pending.caster,
        "spell": pending.spell,
        "dc": spell.reflex_dc if spell is not None else None,
        "attempt_cost": ATTEMPT_COST,
        "success_cost": SUCCESS_COST,
        "cover_discount": COVER_DISCOUNT,
        "charged_to": "next-round" if pending.target in state.acted else "this-round",
        "step_feet": STEP_FEET,
        "dive_limit": dive_limit(stats.str_mod, stats.size),
    }


def _surprise_cards(state: FiftyTwoState, viewer: Actor) -> list[ActionOption]:
    assert state.field is not None
    found: list[ActionOption] = []
    for cid in state.surprise_left:
        if not viewer.controls(cid):
            continue
        if side_of(state.table.combatants[cid]) == ALLIES:
            cards = [c.text for column in state.field.columns for c in column]
            found.append(
                ActionOption(
                    type="take-card", label="Take a card", actor=cid, params={"cards": cards}
                )
            )
        else:
            columns = [
                n + 1 for n in range(len(state.field.columns)) if n not in state.surprise_columns
            ]
            found.append(
                ActionOption(
                    type="add-surprise-card",
                    label="Add a card",
                    actor=cid,
                    params={"columns": columns},
                )
            )
        found.append(ActionOption(type="pass-surprise", label="No surprise card", actor=cid))
    return found


def turn_actions(state: FiftyTwoState, turn: Turn) -> list[ActionOption]:
    """Every action the acting combatant can afford, with its cost and its cards."""
    cid = turn.combatant_id
    me = state.table.combatants[cid]
    if not me.has_condition(PRONE):
        found = _actions(state, turn)
    elif turn.points >= STAND_UP_COST:
        # fifty-two §8.3: standing up comes "before they can do anything else".
        cost = {"ap": STAND_UP_COST}
        found = [ActionOption(type="stand-up", label="Stand up", actor=cid, cost=cost)]
    else:
        found = []
    if not turn.acted and later_to_act(state, cid):
        found.append(ActionOption(type="hold-action", label="Hold your action", actor=cid))
    factions = sorted(
        {c.side for c in state.table.combatants.values() if side_of(c) == "enemies"} - {me.side}
    )
    if side_of(me) == "enemies" and not turn.acted and factions:
        found.append(
            ActionOption(
                type="choose-foe",
                label="Fight another Enemy faction",
                actor=cid,
                params={"foe": factions},
            )
        )
    found.append(ActionOption(type="end-turn", label="End the turn", actor=cid))
    return found


def _actions(state: FiftyTwoState, turn: Turn) -> list[ActionOption]:
    """The card actions, attacks, moves, spells and the rest a standing combatant can
    afford."""
    assert state.field is not None
    field, cid = state.field, turn.combatant_id
    me = state.table.combatants[cid]
    found: list[ActionOption] = []

    def offer(kind: str, label: str, cost: int, **params: Any) -> None:
        if cost <= turn.points:
            found.append(
                ActionOption(type=kind, label=label, actor=cid, cost={"ap": cost}, params=params)
            )

    if as_ally(me, turn.foe):
        for column in field.columns:
            for row, card in enumerate(column):
                how = card_actions.remove_from_bottom if row == 0 else card_actions.remove_elsewhere
                outcome = how(field, card)
                offer(
                    "remove-card",
                    f"Remove {symbol(card)}",
                    1 if row == 0 else 2,
                    card=card.text,
                    cards=[c.text for c in outcome.cards],
                    normal=outcome.normal,
                    critical=outcome.critical,
                )
    elif side_of(me) == "enemies":
        for number, column in enumerate(field.columns, start=1):
            most = min(field.depth - len(column), turn.points, len(field.pool + field.discard))
            if most > 0:
                offer("add-cards", f"Add cards to column {number}", 1, column=number, max=most)
    for first, second in card_actions.pairs(field):
        offer(
            "remove-pair",
            f"Remove the {symbol(first)}{DASH}{symbol(second)} pair",
            1,
            cards=[first.text, second.text],
            critical=1,
        )
    weapon = stats_of(me).weapon
    for critical, left in ((False, turn.normal), (True, turn.critical)):
        if not left:
            continue
        costs = {
            t.id: armor.execute_cost(weapon, stats_of(t))
            for t in state.table.combatants.values()
            if not t.out_of_fight and opposes(me, t, turn.foe)
        }
        affordable = sorted(t for t, cost in costs.items() if cost <= turn.points)
        if affordable:
            found.append(
                ActionOption(
                    type="execute-attack",
                    label=f"Execute a {'critical' if critical else 'normal'} attack ({left} left)",
                    actor=cid,
                    cost={"ap": min(costs[t] for t in affordable)},
                    targets=affordable,
                    params={"critical": critical, "costs": {t: costs[t] for t in affordable}},
                )
            )
    if not turn.moved:
        offer("move", "Move (once a turn)", 1)
    offer("step", "5-foot step", 0 if turn.free_step else 1)
    stats = stats_of(me)
    casting = state.castings.get(cid)
    for spell in stats.spells:
        continuing = casting is not None and casting.spell == spell.name
        if continuing and casting is not None and casting.cast_in_round == state.round:
            continue
        label = f"{'Continue' if continuing else 'Cast'} {spell.name}"
        offer("cast", label, 1, spell=spell.name, rounds=spell.rounds)
    if (
        casting is not None
        and not casting.complete
        and not casting.suspended
        and casting.cast_in_round != state.round
    ):
        offer("suspend-spell", f"Suspend {casting.spell}", 1)
    offer("raise-initiative", "+1 initiative", 1)
    offer("other-action", "Another action (item, ability, anything the GM allows)", 1)
    return found


def _cards(cards: list[str]) -> str:
    return ", ".join(symbol(c) for c in cards)


def _opportunities(d: dict[str, Any]) -> str:
    parts = []
    if d.get("critical"):
        parts.append(
            "critical opportunity"
            if d["critical"] == 1
            else f"{d['critical']} critical opportunities"
        )
    if d.get("normal"):
        parts.append(
            "normal opportunity" if d["normal"] == 1 else f"{d['normal']} normal opportunities"
        )
    return ": " + " and ".join(parts) if parts else ""


def _for_damage(d: dict[str, Any]) -> str:
    """ " for 9 damage", or nothing when the viewer may not see the target's health."""
    return "" if d.get("damage") is None else f" for {d['damage']} damage"


def _attack(d: dict[str, Any], n: Names) -> str:
    kind = "critical attack" if d["critical"] else "attack"
    if d["registered"]:
        who = f"{n(d['combatant_id'])}'s {kind} on {n(d['target'])}"
        return f"{who} gets through{_for_damage(d)}."
    return (
        f"{n(d['combatant_id'])}'s {kind} on {n(d['target'])} is held by the armor "
        f"({d['hits_after']} of {d['rating']} hits)."
    )


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "initiative-rolled": lambda d, n: (
        f"{n(d['combatant_id'])} rolled {d['die_roll']} for initiative: {d['total']}."
    ),
    "rolled-off": lambda d, n: f"{n(d['combatant_id'])} rolled {d['roll']} in a roll-off.",
    "tie-broken": lambda d, n: (
        f"Tie at {d['tied_at']}: {n(d['winner'])} goes before {n(d['loser'])} "
        f"({d['tie_breaker']}); {n(d['moved'])} takes {d['to']}."
    ),
    "initiative-set": lambda d, n: (
        "Initiative: " + ", ".join(f"{n(c)} {v}" for c, v in d["chart"]) + "."
    ),
    "surprise-round-began": lambda d, n: (
        "Surprise round: " + ", ".join(n(c) for c in d["order"]) + "."
    ),
    "surprise-attacked": lambda d, n: (
        f"{n(d['combatant_id'])} surprises {n(d['target'])}{_for_damage(d)}."
    ),
    "surprise-passed": lambda d, n: f"{n(d['combatant_id'])} lets the surprise pass.",
    "column-choice-began": lambda d, n: (
        f"The {d['side']} have the initiative and choose the columns "
        f"({d['columns']}, one more or one fewer)."
    ),
    "columns-chosen": lambda d, n: f"The field will be {d['columns']} columns wide.",
    "field-dealt": lambda d, n: (
        f"The cards are dealt: {len(d['columns'])} columns, {d['depth']} deep."
    ),
    "surprise-cards-began": lambda d, n: f"The {d['side']} make their surprise moves on the field.",
    "card-taken": lambda d, n: (
        f"{n(d['combatant_id'])} takes {symbol(d['card'])} from column {d['column']}."
    ),
    "surprise-card-added": lambda d, n: (
        f"{n(d['combatant_id'])} adds {symbol(d['card'])} to column {d['column']}."
    ),
    "round-started": lambda d, n: f"Round {d['round']} begins.",
    "row-added": lambda d, n: f"A new row is laid: {_cards(d['cards'])}.",
    "discard-reshuffled": lambda d, n: (
        "The pool is empty: the discard stack is shuffled into a new pool."
    ),
    "turn-started": lambda d, n: f"{n(d['combatant_id'])}'s turn: {d['points']} action points.",
    "foe-chosen": lambda d, n: f"{n(d['combatant_id'])} turns on the {d['foe']}.",
    "cards-removed": lambda d, n: (
        f"{n(d['combatant_id'])} removes {_cards(d['cards'])}{_opportunities(d)}."
    ),
    "cards-added": lambda d, n: (
        f"{n(d['combatant_id'])} adds {_cards(d['cards'])} to column {d['column']}"
        f"{_opportunities(d)}."
    ),
    "pair-removed": lambda d, n: (
        f"{n(d['combatant_id'])} removes the "
        f"{symbol(d['cards'][0])}{DASH}{symbol(d['cards'][1])} pair: critical opportunity."
    ),
    "attack-executed": _attack,
    "initiative-raised": lambda d, n: (
        f"{n(d['combatant_id'])} raises initiative from {d['before']} to {d['after']}."
    ),
    "action-held": lambda d, n: (
        f"{n(d['combatant_id'])} holds, dropping from {d['before']} to {d['after']}."
    ),
    "other-action-taken": lambda d, n: f"{n(d['combatant_id'])}: {d['description']}.",
    "stood-up": lambda d, n: f"{n(d['combatant_id'])} stands up.",
    "moved": lambda d, n: (
        f"{n(d['combatant_id'])} {'moves' if d['how'] == 'move' else 'takes a 5-foot step'}"
        + (f", leaving {', '.join(n(o) for o in d['left'])}" if d["left"] else "")
        + (f", closing with {', '.join(n(o) for o in d['entered'])}" if d["entered"] else "")
        + "."
    ),
    "opportunity-attacked": lambda d, n: (
        f"{n(d['combatant_id'])} takes an attack of opportunity on {n(d['target'])}"
        + (f", getting through{_for_damage(d)}." if d["registered"] else ", held by the armor.")
    ),
    "spell-cast": lambda d, n: (
        f"{n(d['combatant_id'])} casts {d['spell']}"
        + (" (complete)" if d["complete"] else f" ({d['rounds_done']} of {d['rounds']} rounds)")
        + (f", abandoning {d['abandoned']}" if d.get("abandoned") else "")
        + "."
    ),
    "spell-suspended": lambda d, n: f"{n(d['combatant_id'])} suspends {d['spell']}.",
    "spell-pending": lambda d, n: (
        f"{d['spell']} is about to strike {n(d['target'])}: a Reflex save (DC {d['dc']}) "
        "may be attempted."
    ),
    "spell-took-effect": lambda d, n: (
        f"{n(d['combatant_id'])}'s {d['spell']} takes effect"
        + (f" on {n(d['target'])}" if d.get("target") else "")
        + (_for_damage(d) if d.get("damage") != 0 else "")
        + (f" (Reflex save {d['save']})" if d.get("save") not in (None, "none") else "")
        + "."
    ),
    "range-set": lambda d, n: (
        f"{n(d['combatant_id'])} is within attack range of "
        + (", ".join(n(o) for o in d["opponents"]) or "no opponent")
        + "."
    ),
    "turn-ended": lambda d, n: (
        f"{n(d['combatant_id'])}'s turn ends"
        + (" (time ran out)" if d["reason"] == "timeout" else "")
        + (
            f", {d['forfeited']} action point{'s' if d['forfeited'] != 1 else ''} unused"
            if d.get("forfeited")
            else ""
        )
        + "."
    ),
}


def columns_text(field: layout.Battlefield) -> str:
    """The field as rows of text, top row first, for a terminal."""
    height = max((len(c) for c in field.columns), default=0)
    lines = []
    for row in reversed(range(height)):
        cells = [symbol(c[row]).rjust(5) if row < len(c) else "    ." for c in field.columns]
        lines.append(" ".join(cells))
    lines.append(" ".join(f"{n:>5}" for n in range(1, len(field.columns) + 1)))
    return "\n".join(lines)
