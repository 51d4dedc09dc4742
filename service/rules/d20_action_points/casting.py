"""Casting a declared spell in d20-action-points: d20 + casting modifier against DC 10 + the
spell's level, the mana spent either way, and the spell's damage (d20-action-points Casting
Spells, Declaring Actions)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import spells
from service.rules.d20_action_points.combatants import stats_of
from service.rules.d20_action_points.commands import CastSpell
from service.rules.d20_action_points.damage import hurt
from service.rules.d20_action_points.events import SpellCast
from service.rules.d20_action_points.evolve import applied
from service.rules.d20_action_points.state import D20State
from service.rules.d20_action_points.turns import begin_action


def cast_spell(state: D20State, command: CastSpell, ctx: DecideContext) -> list[Event]:
    """Casting Spells: d20 + casting modifier (WIS/INT + focus) against DC 10 + the spell's
    level; the mana goes either way. The spell must have been declared this round."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    spell = stats.spell(command.spell)
    if spell is None:
        raise RuleViolation(
            "spell/unknown",
            f"{combatant.name} knows no spell '{command.spell}'",
            rule=spells.CASTING,
        )
    declared = state.declared.get(cid)
    if declared is None or declared.spell != spell.name:
        raise RuleViolation(
            "spell/not-declared",
            f"{combatant.name} did not declare {spell.name} this round; spells are declared "
            "before initiative (declare)",
            rule=spells.DECLARING,
        )
    if command.target is not None:
        state.table.combatant(command.target)
    paid = begin_action(state, cid, "cast-spell", ctx)
    mana = combatant.pools.get("mana")
    pool = spells.ManaPool(mana.current, mana.max or 0) if mana else spells.ManaPool(0, 0)
    entry = spells.Spell(spell.name, spell.level, spell.mana)
    spells.spend_mana(pool, entry)
    natural = ctx.die(20, purpose=f"{combatant.name} casts {spell.name}", roller=cid)
    ability = stats.intelligence if stats.casting_ability == "intelligence" else stats.wisdom
    modifier = spells.casting_modifier(ability, stats.focus)
    casting = spells.cast(natural, modifier, entry, pool)
    damage = None
    if casting.outcome == "cast" and spell.damage is not None and command.target is not None:
        rolled = ctx.roll(spell.damage, purpose=f"damage: {spell.name}", roller=cid)
        damage = max(0, rolled.total)
    cast = ctx.emit(
        SpellCast(
            combatant_id=cid,
            spell=spell.name,
            target=command.target,
            natural=natural,
            modifier=modifier,
            total=natural + modifier,
            dc=spells.casting_dc(entry),
            outcome="cast" if casting.outcome == "cast" else "failed",
            mana=entry.cost,
            damage=damage,
        )
    )
    events: list[Event] = [*paid, cast]
    if entry.cost:
        events += adjust_pool(
            state.table, cid, "mana", -entry.cost, None, None, spell.name, ctx, gm_override=False
        )
    if damage and command.target is not None:
        events += hurt(applied(state, events), command.target, damage, ctx, spell.name)
    return events
