"""Physical attacks, reloading, damage and the reactions they call for
(delvers-deep 4.1 Physical Attacks, Reloading, Reactions, Dodge, Opportunity Attack)."""

from __future__ import annotations

from service.domain import reactions
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.table_rules import adjust_pool
from service.rules.delvers_deep.events import (
    AttackRolled,
    CheckRolled,
    DamageTaken,
    Dodged,
    DodgeFailed,
    InteractionAnswered,
    ReactionRefused,
    Reloaded,
)
from service.rules.delvers_deep.evolve import evolve
from service.rules.delvers_deep.points import affordable, current, dc, pay, stats_of
from service.rules.delvers_deep.state import DODGEABLE, DelversState, Pending, Weapon

ATTACKS = "delvers-deep 4.1 Physical Attacks"
RELOADING = "delvers-deep 4.1 Reloading"
DODGE = "delvers-deep 4.1 Dodge"
OPPORTUNITY = "delvers-deep 4.1 Opportunity Attack"


def weapon_of(state: DelversState, cid: str, name: str) -> Weapon:
    combatant = state.table.combatant(cid)
    weapon = stats_of(combatant).weapon(name)
    if weapon is None:
        raise RuleViolation(
            "attack/unknown-weapon", f"{combatant.name} has no weapon '{name}'", rule=ATTACKS
        )
    return weapon


def attack_cost(weapon: Weapon, extra: int) -> dict[str, int]:
    """1 point of the weapon's pool (FORT for melee, REF for ranged, unless it `uses` the
    other) and 1 per extra: +1 damage per extra FORT, +1 die per extra REF."""
    return {weapon.pool: 1 + extra}


def in_reach(state: DelversState, attacker: str, target: str, weapon: Weapon) -> bool:
    table = state.table
    here, there = table.combatants[attacker].position, table.combatants[target].position
    if table.map is None or here is None or there is None:
        return True  # without a map the table judges reach and range
    limit = weapon.reach if weapon.kind == "melee" else weapon.range
    return limit is None or distance(table.map, here, there) <= limit


def attack(
    state: DelversState,
    attacker: str,
    weapon: Weapon,
    target: str,
    extra: int,
    ctx: DecideContext,
    reaction: bool = False,
) -> list[Event]:
    """Check, pay and roll one attack; a hit waits in the queue for the target's dodge."""
    table = state.table
    victim = table.combatant(target)
    if weapon.loading and weapon.name in state.unloaded.get(attacker, ()):
        raise RuleViolation(
            "attack/not-loaded", f"the {weapon.name} must be reloaded first", rule=RELOADING
        )
    if not in_reach(state, attacker, target, weapon):
        what = "reach" if weapon.kind == "melee" else "range"
        raise RuleViolation(
            "attack/out-of-reach",
            f"{victim.name} is beyond the {weapon.name}'s {what}",
            rule=ATTACKS,
        )
    cost = attack_cost(weapon, extra)
    paid = pay(state, attacker, cost, ctx, rule=ATTACKS)
    name = table.combatants[attacker].name
    count = 1 + extra if weapon.pool == "ref" else 1
    faces = tuple(
        ctx.die(6, purpose=f"{name}'s {weapon.name}", roller=attacker) for _ in range(count)
    )
    hit = any(face >= weapon.hit for face in faces)
    damage = 0
    if hit:
        dealt = ctx.roll(weapon.damage, purpose=f"{weapon.name} damage", roller=attacker)
        damage = max(0, dealt.total)
        if weapon.pool == "fort":
            damage += extra
    rolled = ctx.emit_ahead(
        AttackRolled(
            attacker=attacker,
            target=target,
            weapon=weapon.name,
            dice=faces,
            hit_on=weapon.hit,
            hit=hit,
            damage=damage,
            tags=weapon.tags,
            cost=cost,
            reaction=reaction,
            unloads=weapon.loading,
        ),
        of=paid,
    )
    return [rolled, *paid]


def reload(state: DelversState, cid: str, weapon: Weapon, ctx: DecideContext) -> list[Event]:
    if not weapon.loading:
        raise RuleViolation(
            "reload/not-loading", f"the {weapon.name} needs no reloading", rule=RELOADING
        )
    if weapon.name not in state.unloaded.get(cid, ()):
        raise RuleViolation(
            "reload/already-loaded", f"the {weapon.name} is already loaded", rule=RELOADING
        )
    cost = {"fort": weapon.reload_fort}
    paid = pay(state, cid, cost, ctx, rule=RELOADING)
    reloaded = Reloaded(combatant_id=cid, weapon=weapon.name, cost=cost)
    return [ctx.emit_ahead(reloaded, of=paid), *paid]


def take_damage(
    state: DelversState,
    cid: str,
    amount: int,
    ctx: DecideContext,
    source: str | None,
    attacker: str | None,
    resolves: int | None,
) -> list[Event]:
    """Damage lowers "hp" (never below zero); with the halve-damage option a Health check
    made against the (braced) Health DC halves it (interpretation, see the rules page)."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return [ctx.emit(DamageTaken(combatant_id=cid, amount=0, rolled=amount, resolves=resolves))]
    events: list[Event] = []
    taken, halved = amount, False
    if state.options.health_check == "halve-damage" and amount > 0:
        target = dc(state, cid, "health")
        roll = ctx.die(6, purpose=f"{combatant.name}'s health check", roller=cid)
        halved = roll >= target
        events.append(
            ctx.emit(
                CheckRolled(
                    combatant_id=cid,
                    check="health",
                    roll=roll,
                    dc=target,
                    success=halved,
                    reason=f"hit by {source or 'an attack'}",
                )
            )
        )
        taken = amount // 2 if halved else amount
    taken = min(taken, current(combatant, "hp"))
    events.append(
        ctx.emit(
            DamageTaken(
                combatant_id=cid,
                amount=taken,
                rolled=amount,
                source=source,
                attacker=attacker,
                halved=halved,
                resolves=resolves,
            )
        )
    )
    if taken:
        events += adjust_pool(
            state.table, cid, "hp", -taken, None, None, source or "damage", ctx, gm_override=False
        )
    return events


def open_next(state: DelversState, item: Pending, ctx: DecideContext) -> list[Event]:
    """Open the reaction window the head of the queue calls for (or settle it at once)."""
    table = state.table
    trigger: dict[str, object] = {"resolves": item.id, "actor": item.actor, "target": item.target}
    match item.kind:
        case "hit":
            victim = table.combatants.get(item.target)
            ref = current(victim, "ref") if victim is not None else 0
            down = victim is None or victim.out_of_fight
            # A combatant already out of the fight cannot dodge (4.1 Reactions).
            if down or ref < 1 or not DODGEABLE & set(item.tags):
                return take_damage(
                    state, item.target, item.damage, ctx, item.weapon, item.actor, item.id
                )
            options = ("dodge", *(f"dodge+{k}" for k in range(1, ref)))
            trigger |= {"kind": "attack", "weapon": item.weapon, "damage": item.damage}
            eligible = {item.target: options}
            order: list[str] = [item.target]
        case "opportunity":
            order = [c for c in item.attackers if c in table.combatants]
            trigger |= {"kind": "opportunity-attack"}
            eligible = {c: ("opportunity-attack",) for c in order}
        case "interact":
            order = [item.target] if item.target in table.combatants else []
            trigger |= {"kind": "interact", "description": item.description}
            eligible = {c: ("participate",) for c in order}
    return reactions.open_window(
        window_id=f"w{table.windows_opened + 1}",
        trigger=trigger,
        eligible=eligible,
        order=order,
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=table.policies,
        resources=table.resources_of,
    )


def resolve(state: DelversState, closed: ReactionWindowClosed, ctx: DecideContext) -> list[Event]:
    """A closed window's reactions, in the window's order."""
    trigger = closed.trigger
    kind = trigger.get("kind")
    actor, target = str(trigger.get("actor")), str(trigger.get("target"))
    if kind == "attack":
        choice = next((option for cid, option in closed.reactions if cid == target), None)
        return _dodge(state, trigger, choice, ctx)
    if kind == "opportunity-attack":
        return _opportunity_attacks(state, target, [c for c, _ in closed.reactions], ctx)
    if kind == "interact":
        took_part = any(cid == target for cid, _ in closed.reactions)
        return [
            ctx.emit(InteractionAnswered(combatant_id=target, actor=actor, participated=took_part))
        ]
    return []


def reaction_cost(state: DelversState, cid: str, option: str) -> dict[str, int]:
    """What answering a window with `option` costs `cid` (4.1 Reactions): a dodge 1 REF and
    1 more per extra die (`dodge+k`), an opportunity attack its longest-reach melee weapon's
    attack; passing and taking part in an interaction, nothing."""
    if option == "dodge" or option.startswith("dodge+"):
        return {"ref": 1 + (int(option.removeprefix("dodge+")) if option != "dodge" else 0)}
    combatant = state.table.combatants.get(cid)
    if option == "opportunity-attack" and combatant is not None:
        weapon = stats_of(combatant).opportunity_weapon()
        if weapon is not None:
            return attack_cost(weapon, 0)
    return {}


def _dodge(
    state: DelversState, trigger: dict[str, object], choice: str | None, ctx: DecideContext
) -> list[Event]:
    """delvers-deep 4.1 Dodge: 1 REF (+1 per extra die of a stacked roll); any die at or
    above the Dodge DC avoids all damage of the attack."""
    target, attacker = str(trigger["target"]), str(trigger["actor"])
    weapon = trigger.get("weapon")
    weapon_name = str(weapon) if weapon is not None else None
    damage = int(str(trigger.get("damage", 0)))
    victim = state.table.combatants.get(target)
    if choice is not None and victim is not None:
        cost = reaction_cost(state, target, choice)
        extra = cost["ref"] - 1
        if not affordable(victim, cost):
            refused = ctx.emit(
                ReactionRefused(
                    combatant_id=target,
                    reaction="dodge",
                    reason=f"needs {1 + extra} REF and has {current(victim, 'ref')}",
                )
            )
            return [refused, *take_damage(state, target, damage, ctx, weapon_name, attacker, None)]
        paid = pay(state, target, cost, ctx, rule=DODGE)
        needed = dc(state, target, "dodge")
        # DODGE: the character who is hit "makes a dodge check".
        faces = tuple(
            ctx.die(6, purpose=f"{victim.name}'s dodge", roller=target) for _ in range(1 + extra)
        )
        common = {
            "combatant_id": target,
            "attacker": attacker,
            "weapon": weapon_name,
            "dice": faces,
            "dc": needed,
            "cost": cost,
        }
        if any(face >= needed for face in faces):
            return [ctx.emit_ahead(Dodged.model_validate(common), of=paid), *paid]
        failed = ctx.emit_ahead(DodgeFailed.model_validate(common), of=paid)
        after = _apply_pool_events(state, paid)
        return [
            failed,
            *paid,
            *take_damage(after, target, damage, ctx, weapon_name, attacker, None),
        ]
    return take_damage(state, target, damage, ctx, weapon_name, attacker, None)


def _opportunity_attacks(
    state: DelversState, mover: str, takers: list[str], ctx: DecideContext
) -> list[Event]:
    """delvers-deep 4.1 Opportunity Attack: longer reach strikes first (the window's order)."""
    events: list[Event] = []
    for cid in takers:
        combatant = state.table.combatants.get(cid)
        if combatant is None or combatant.out_of_fight or mover not in state.table.combatants:
            continue
        weapon = stats_of(combatant).opportunity_weapon()
        if weapon is None:
            continue
        if not affordable(combatant, attack_cost(weapon, 0)):
            pool = weapon.pool
            events.append(
                ctx.emit(
                    ReactionRefused(
                        combatant_id=cid,
                        reaction="opportunity-attack",
                        reason=f"needs 1 {pool.upper()} and has {current(combatant, pool)}",
                    )
                )
            )
            continue
        made = attack(state, cid, weapon, mover, 0, ctx, reaction=True)
        for event in made:
            state = evolve(state, event)
        events += made
    return events


def _apply_pool_events(state: DelversState, events: list[Event]) -> DelversState:
    for event in events:
        state = evolve(state, event)
    return state
