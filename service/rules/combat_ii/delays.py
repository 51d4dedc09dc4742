"""combat-ii §3 Phase System II: the delay schedules of Tables 5, 6 and 7 (with a warrior's
rapid row against creatures below 1 HD, §2 C), and where each combatant stands in its own
after every phase."""

from __future__ import annotations

from fractions import Fraction

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.rules.combat_ii.events import SequenceSet
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState
from service.rules.combat_ii.stats import CombatIIStats, Weapon, parse_rate, stats_of

# §3 C Table 6 (attacks per round) and Table 7 (attack forms): attacks in each phase of the
# repeating sequence, 0 for a delay phase.
ATTACK_SEQUENCES: dict[tuple[int, int], tuple[int, ...]] = {
    (1, 1): (1, 0, 0),
    (3, 2): (1, 0),
    (2, 1): (1, 1, 0),
    (5, 2): (1, 1, 1, 0, 1, 1),
    (3, 1): (1,),
    (4, 1): (1, 2, 1),
    (5, 1): (2, 2, 1),
    (6, 1): (2,),
}
FORM_SEQUENCES: dict[int, tuple[int, ...]] = {
    1: (1, 0, 0), 2: (1, 1, 0), 3: (1,), 4: (1, 2, 1), 5: (2, 2, 1), 6: (2,),
}  # fmt: skip
AFTER_ATTACK_CASTING_DELAY = 2
"""§3 C: "casters MUST delay two phases after a physical attack"."""
AFTER_SPELL_ATTACK_DELAY = 2
"""§3 B: "If either a priest or mage wishes to physically attack after casting, the delay is
automatically 2 phases"."""


def sequence_for(rate: str, fire_rate: str | None = None) -> tuple[int, ...]:
    """Table 6 for a rate of attacks per round; a missile weapon's fire rate multiplies it
    (§3 C Missile Fire). Rates between the table's rows take the row below them."""
    num, den = parse_rate(rate)
    if fire_rate is not None:
        f_num, f_den = parse_rate(fire_rate)
        num, den = num * f_num, den * f_den
    value = num / den
    if value >= 6:
        return ATTACK_SEQUENCES[(6, 1)]
    rows = sorted(ATTACK_SEQUENCES, key=lambda r: r[0] / r[1])
    best = rows[0]
    for row in rows:
        if row[0] / row[1] <= value + 1e-9:
            best = row
    return ATTACK_SEQUENCES[best]


def caster_delay(state: CombatIIState, level: int, spells_in_row: int) -> tuple[int, int]:
    """§3 B Table 5 (option `caster_delay: by-level`), else the flat 2 phases: the phases to
    wait after a spell, and the spells cast in a row so far."""
    if state.options.caster_delay == "flat" or level <= 6:
        return 2, 0
    if level <= 12:
        return 1, 0
    # 13+: "cast spell, cast spell, delay 1 phase".
    return (0, spells_in_row) if spells_in_row < 2 else (1, 0)


def sequence_of(
    state: CombatIIState, cid: str, targets: tuple[str, ...] = (), weapons: tuple[str, ...] = ()
) -> tuple[int, ...]:
    """The combatant's row for an attack at `targets` with `weapons` (none: its usual row):
    Table 7 by forms, else the rapid row against creatures below 1 HD, else Table 6."""
    stats = stats_of(state.table.combatant(cid))
    if state.options.split_attack_forms and stats.routine:
        forms = {_form(stats.weapon(w)) or w for w in stats.routine}
        return FORM_SEQUENCES[min(len(forms), 6)]
    faster = rapid_row(state, cid, targets, weapons)
    return faster if faster is not None else _rate_row(state, cid)


def rapid_row(
    state: CombatIIState, cid: str, targets: tuple[str, ...], weapons: tuple[str, ...]
) -> tuple[int, ...] | None:
    """§2 C Multiple Attacks: "Fighters gain such a rapid attacking capability when fighting
    creatures below 1 HD" (PH: a warrior attacks once per level a round in melee with them):
    Table 6's row for the level a round (6 and above: 2 attacks each phase), when a warrior's
    melee attack has only such targets and the row gives more attacks than its usual one."""
    stats = stats_of(state.table.combatant(cid))
    if not rapid(state, stats, targets) or not _melee(stats, weapons):
        return None
    row = sequence_for(str(max(stats.level, 1)))
    return row if _per_phase(row) > _per_phase(_rate_row(state, cid)) else None


def rapid(state: CombatIIState, stats: CombatIIStats, targets: tuple[str, ...]) -> bool:
    """§2 C Multiple Attacks: "Fighters gain such a rapid attacking capability when fighting
    creatures below 1 HD"; PH: a warrior attacks once per level a round in melee with
    creatures of less than one Hit Die (less than d8). Every target must be one."""
    return stats.warrior and bool(targets) and all(_below_one_hd(state, t) for t in targets)


def _below_one_hd(state: CombatIIState, tid: str) -> bool:
    combatant = state.table.combatants.get(tid)
    if combatant is None:
        return False
    hit_dice = stats_of(combatant).hit_dice
    return hit_dice is not None and hit_dice < 1


def _melee(stats: CombatIIStats, weapons: tuple[str, ...]) -> bool:
    return all(in_melee(stats, name) for name in weapons)


def in_melee(stats: CombatIIStats, name: str) -> bool:
    """PH: the per-level attacks are melee attacks; a missile weapon keeps its rate of fire."""
    weapon = stats.weapon(name)
    return weapon is None or weapon.kind != "missile"


def _per_phase(row: tuple[int, ...]) -> Fraction:
    return Fraction(sum(row), len(row))


def _rate_row(state: CombatIIState, cid: str) -> tuple[int, ...]:
    """Table 6 by the stat block's `attacks`, a missile's rate of fire, or the favoured
    weapon's rate (§3 C)."""
    stats = stats_of(state.table.combatant(cid))
    held = [stats.weapon(w) for w in fighter(state, cid).in_hand]
    missile = next((w for w in held if w is not None and w.kind == "missile"), None)
    rate = missile.attacks if missile is not None and missile.attacks else None
    chosen, _ = favoured(state, cid)
    favourite = stats.weapon(chosen) if chosen is not None else None
    if favourite is not None and favourite.attacks and rate is None:
        return sequence_for(favourite.attacks)  # "use the schedule of the FAVORED weapon"
    return sequence_for(stats.attacks, rate)


def favoured(state: CombatIIState, cid: str) -> tuple[str | None, str | None]:
    """§3 C: of two melee weapons in hand with different attack rates, (the favoured one, the
    other): the favoured weapon is the one with more attacks a round. (None, None) without
    such a pair."""
    stats = stats_of(state.table.combatant(cid))
    held = [
        w
        for name in fighter(state, cid).in_hand
        if (w := stats.weapon(name)) is not None and w.kind == "melee"
    ]
    if len(held) != 2:
        return None, None
    rates = [Fraction(*parse_rate(w.attacks or stats.attacks)) for w in held]
    if rates[0] == rates[1]:
        return None, None
    first, second = (held[0], held[1]) if rates[0] > rates[1] else (held[1], held[0])
    return first.name, second.name


def attack_number(state: CombatIIState, cid: str) -> int:
    """How many attack phases of the current sequence came before this one (0 for its first)."""
    sequence = sequence_of(state, cid)
    position = place(sequence, fighter(state, cid).sequence)
    return sum(1 for entry in sequence[:position] if entry)


def place(sequence: tuple[int, ...], stored: int) -> int:
    """Where a combatant stands in `sequence`: its stored place, or the start if that is a
    delay entry, which only a change of row (a warrior turning from kobolds to an ogre) can
    reach: the delays it earned are kept by `rest_until`, and the new row starts over (§3 C
    "The sequence may begin on any phase")."""
    position = stored % len(sequence)
    return position if sequence[position] else 0


def _form(weapon: Weapon | None) -> str | None:
    return weapon.form if weapon is not None else None


def allowed(
    state: CombatIIState, cid: str, targets: tuple[str, ...] = (), weapons: tuple[str, ...] = ()
) -> int:
    """Attacks this System II phase at `targets` with `weapons`: 0 while delaying."""
    mine = fighter(state, cid)
    if state.tick <= mine.rest_until:
        return 0
    sequence = sequence_of(state, cid, targets, weapons)
    return sequence[place(sequence, mine.sequence)]


def after_phase(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    """§3 C: after an attack the sequence moves on (delays included); a phase in which one
    could have attacked and did not starts the sequence over ("in the event of an unexpected
    or even voluntary phase delay, the sequence starts over"). §3 B: a completed spell and a
    physical attack each start a casting delay."""
    if state.options.phase_system != "II":
        return []
    events: list[Event] = []
    for cid in sorted(state.fighters):
        if cid not in state.table.combatants:
            continue
        event = _next(state, cid, ctx)
        if event is not None:
            events.append(event)
    return events


def _next(state: CombatIIState, cid: str, ctx: DecideContext) -> SequenceSet | None:
    mine = fighter(state, cid)
    tick = state.tick
    sequence = sequence_of(state, cid, *_declared(state, cid))
    position, rest, cast_rest, in_row = (
        mine.sequence, mine.rest_until, mine.cast_rest_until, mine.spells_in_row,
    )  # fmt: skip
    stats = stats_of(state.table.combatant(cid))
    if mine.fumbled_tick == tick:
        # §4 Critical Miss: "Automatic loss of remainder of attack sequence. If Crit Miss delay
        # is LESS than regular delay, complete regular delay instead before next attack."
        rest = tick + sequence.count(0)
        position = 0
        if stats.spells:
            cast_rest = max(cast_rest, tick + AFTER_ATTACK_CASTING_DELAY)
    elif mine.attacked_tick == tick:
        position = (place(sequence, position) + 1) % len(sequence)
        zeros = 0
        while sequence[(position + zeros) % len(sequence)] == 0 and zeros < len(sequence):
            zeros += 1
        rest = tick + zeros
        position = (position + zeros) % len(sequence)
        if stats.spells:
            cast_rest = max(cast_rest, tick + AFTER_ATTACK_CASTING_DELAY)
    elif tick > rest and position != 0:
        position = 0
    if mine.completed_tick == tick:
        level = stats.caster.level if stats.caster is not None else stats.level
        delay, in_row = caster_delay(state, level, in_row + 1)
        cast_rest = max(cast_rest, tick + delay)
        if mine.enhanced_tick != tick:  # §2 B: blows enhanced, physical attacks allowed
            rest = max(rest, tick + AFTER_SPELL_ATTACK_DELAY)
    if mine.tangent_tick == tick:  # §2 B: a tangent precludes attacks as a spell does
        rest = max(rest, tick + AFTER_SPELL_ATTACK_DELAY)
    changed = (position, rest, cast_rest, in_row) != (
        mine.sequence, mine.rest_until, mine.cast_rest_until, mine.spells_in_row,
    )  # fmt: skip
    if not changed:
        return None
    return ctx.emit(
        SequenceSet(
            combatant_id=cid,
            sequence=position,
            rest_until=rest,
            cast_rest_until=cast_rest,
            spells_in_row=in_row,
        )
    )


def _declared(state: CombatIIState, cid: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The targets and weapons of the attack declared this phase (a charge's and a move's
    blow too; a touch spell's touch is no weapon attack): the row it was declared on."""
    declared = state.intentions.get(cid)
    if declared is None or declared.kind not in ("attack", "charge", "move"):
        return (), ()
    return declared.targets, declared.weapons
