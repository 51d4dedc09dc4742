"""Spells (fifty-two §5.2) and the Reflex saves against them (§8).

A spell is cast one round at a time, one action point a round; a spell begun in an earlier
round may be continued or suspended for one action point. Removing cards abandons a
casting that is neither complete nor suspended. A complete spell takes effect immediately
before the caster's next action (at the start of its next turn), or at once when it is
instantaneous. A spell that allows a Reflex save waits for its target's decision
(`reflex-save`); the save's action points are owed and paid at the target's next turn.
"""

from __future__ import annotations

from service.domain.common import ConditionApplied
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.fifty_two import armor, reflex
from service.rules.fifty_two.events import SpellCast, SpellPending, SpellSuspended, SpellTookEffect
from service.rules.fifty_two.reflex import PRONE
from service.rules.fifty_two.sides import damage_purpose, stats_of
from service.rules.fifty_two.state import FiftyTwoState, Spell
from service.rules.fifty_two.turns import acting, hold_for_save, pay

SPELLS = "fifty-two §5.2"
REFLEX = "fifty-two §8"


def cast(
    state: FiftyTwoState, cid: str, name: str, target: str | None, ctx: DecideContext
) -> list[Event]:
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    spell = stats_of(me).spell(name)
    if spell is None:
        known = ", ".join(s.name for s in stats_of(me).spells) or "none"
        raise RuleViolation(
            "spell/unknown", f"{me.name} does not know '{name}' (knows: {known})", rule=SPELLS
        )
    if target is not None:
        state.table.combatant(target)
    casting = state.castings.get(cid)
    if casting is not None and casting.complete:
        raise RuleViolation(
            "spell/waiting-to-land",
            f"{me.name}'s {casting.spell} is complete and lands before {me.name}'s next action; "
            "a new spell waits until then",
            rule=SPELLS,
        )
    pay(turn, 1, f"a round of {name}")
    abandoned = None
    if casting is not None and casting.spell == name and not casting.complete:
        if casting.cast_in_round == state.round:
            raise RuleViolation(
                "spell/one-round-a-round",
                f"{me.name} has already cast a round of {name} this round",
                rule=SPELLS,
            )
        done, target = casting.rounds_done + 1, casting.target if target is None else target
    else:
        abandoned = casting.spell if casting is not None and not casting.complete else None
        done = 1
    complete = done >= spell.rounds
    events: list[Event] = [
        ctx.emit(
            SpellCast(
                combatant_id=cid,
                spell=name,
                target=target,
                round_cast=state.round,
                rounds_done=done,
                rounds=spell.rounds,
                complete=complete,
                abandoned=abandoned,
            )
        )
    ]
    if complete and spell.instantaneous:
        events += take_effect(state, cid, spell, target, ctx)
    return events


def suspend(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    turn = acting(state, cid, ctx)
    me = state.table.combatants[cid]
    casting = state.castings.get(cid)
    if casting is None or casting.complete or casting.cast_in_round == state.round:
        raise RuleViolation(
            "spell/nothing-to-suspend",
            f"{me.name} has no spell begun in an earlier round to suspend",
            rule=SPELLS,
        )
    pay(turn, 1, "suspending a spell")
    return [ctx.emit(SpellSuspended(combatant_id=cid, spell=casting.spell))]


def abandoned_by_removal(state: FiftyTwoState, cid: str) -> str | None:
    """fifty-two §5.2: removing cards "abandons the casting of any incomplete spell unless
    the combatant has already suspended the casting"."""
    casting = state.castings.get(cid)
    if casting is None or casting.complete or casting.suspended:
        return None
    return casting.spell


def due(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """A complete spell lands "immediately before the character's next action"."""
    casting = state.castings.get(cid)
    if casting is None or not casting.complete:
        return []
    spell = stats_of(state.table.combatants[cid]).spell(casting.spell)
    if spell is None:
        return []
    return take_effect(state, cid, spell, casting.target, ctx)


def take_effect(
    state: FiftyTwoState, cid: str, spell: Spell, target: str | None, ctx: DecideContext
) -> list[Event]:
    if target is not None and spell.reflex_dc is not None:
        defender = state.table.combatants.get(target)
        if defender is not None and not defender.out_of_fight:
            limit = reflex.dive_limit(stats_of(defender).str_mod, stats_of(defender).size)
            pending = ctx.emit(
                SpellPending(
                    combatant_id=cid,
                    spell=spell.name,
                    target=target,
                    dc=spell.reflex_dc,
                    dive_limit=limit,
                )
            )
            return [pending, *hold_for_save(state, ctx)]
    return resolve(state, cid, spell, target, ctx)


def resolve(
    state: FiftyTwoState,
    cid: str,
    spell: Spell,
    target: str | None,
    ctx: DecideContext,
    *,
    attempt: bool = False,
    cover_feet: int | None = None,
) -> list[Event]:
    """The spell lands: damage (halved by a successful save), one hit that always
    registers (§5.3.3), and the save's cost owed by the defender (§8)."""
    me = state.table.combatants[cid]
    if target is None or target not in state.table.combatants:
        return [ctx.emit(SpellTookEffect(combatant_id=cid, spell=spell.name, target=target))]
    defender = state.table.combatants[target]
    stats = stats_of(defender)
    save, roll, cost, charged, prone = "none", None, 0, None, False
    if spell.reflex_dc is not None:
        save = "declined"
        if attempt:
            # fifty-two §8: the targeted combatant takes the Reflex Save.
            roll = ctx.die(20, f"Reflex save: {defender.name} against {spell.name}", roller=target)
            ok = reflex.save_succeeds(roll, stats.reflex_save, spell.reflex_dc)
            paid = reflex.reflex_cost(
                stats, ok, acted_this_round=target in state.acted, cover_feet=cover_feet
            )
            save, cost, charged, prone = (
                "succeeded" if ok else "failed",
                paid.points,
                paid.charged_to,
                paid.prone,
            )
    damage = 0
    if spell.damage is not None:
        purpose = damage_purpose(spell.name, me, defender)
        damage = ctx.roll(spell.damage, purpose, roller=cid).total
        damage = reflex.saved_damage(damage, save == "succeeded")
    before = state.hits.get(target, 0)
    # fifty-two §5.3.3: the spell always registers, and counts one attack towards the next
    # weapon's (the rating with no weapon magic against it).
    rating = armor.rating(stats, 0, state.options.shield_magic)
    _, after = armor.register_hit(before, "spell", rating, state.options.armor_hits)
    events: list[Event] = [
        ctx.emit(
            SpellTookEffect(
                combatant_id=cid,
                spell=spell.name,
                target=target,
                damage=damage,
                save=save,
                save_roll=roll,
                save_cost=cost,
                charged_to=charged,
                prone=prone,
                hits_before=before,
                hits_after=after,
            )
        )
    ]
    if prone:
        events.append(
            ctx.emit(
                ConditionApplied(
                    combatant_id=target, condition=PRONE, source=cid, note="dived to cover"
                )
            )
        )
    if damage:
        events += adjust_pool(
            state.table, target, "hp", -damage, None, None, spell.name, ctx, gm_override=False
        )
    return events


def reflex_save(
    state: FiftyTwoState, cid: str, attempt: bool, cover_feet: int | None, ctx: DecideContext
) -> list[Event]:
    pending = state.pending_spell
    defender = state.table.combatant(cid)
    ctx.require_control(cid, defender.name)
    if pending is None or pending.target != cid:
        raise RuleViolation(
            "reflex/nothing-to-save", f"no spell is waiting for {defender.name}'s save", rule=REFLEX
        )
    spell = stats_of(state.table.combatants[pending.caster]).spell(pending.spell)
    assert spell is not None
    return resolve(state, pending.caster, spell, cid, ctx, attempt=attempt, cover_feet=cover_feet)
