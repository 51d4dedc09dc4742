"""The start of each round: who acts this round (not the monsters in an ambush round),
declaring actions, and initiative rolled every round (d20-action-points Combat Round,
Declaring Actions, Rolling Initiative)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.d20_action_points import spells
from service.rules.d20_action_points.combatants import is_pc, party_sides, stats_of
from service.rules.d20_action_points.commands import Declare
from service.rules.d20_action_points.events import ActionDeclared, Initiative, InitiativeRolled
from service.rules.d20_action_points.state import D20State

ROUND = "d20-action-points Combat Round"
DECLARING = "d20-action-points Declaring Actions"
INITIATIVE = "d20-action-points Rolling Initiative"


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
    # Every die is rolled before any is looked at, so that with table dice a refusal lists
    # them all at once (docs/api.md, "Table dice"); the one event lists them all either way.
    rolled: list[tuple[str, int, str | None, int]] = []
    group_dice: dict[str, int] = {}
    joined = list(state.table.combatants)
    for combatant in state.table.combatants.values():
        if not acts_this_round(state, combatant):
            continue
        stats = stats_of(combatant)
        declared = state.declared.get(combatant.id)
        bonus = stats.initiative + (declared.initiative if declared else 0)
        group = None if is_pc(combatant) else stats.group or combatant.id
        # Rolling Initiative: "Player's roll individually, whereas the DM rolls for each
        # combat group".
        if group is None:
            roll = ctx.die(20, purpose=f"initiative: {combatant.name}", roller=combatant.id)
        elif group in group_dice:
            roll = group_dice[group]
        else:
            label = stats.group or combatant.name
            roll = group_dice[group] = ctx.die(20, purpose=f"initiative: {label}", roller="gm")
        rolled.append((combatant.id, bonus, None if group is None else stats.group, roll))
    rolls = [
        Initiative(combatant_id=cid, roll=roll, bonus=bonus, total=roll + bonus, group=group)
        for cid, bonus, group, roll in rolled
    ]
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
