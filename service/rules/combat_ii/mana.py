"""Combat II's mana: spell points (Mana System I) or reusable spell slots (Mana System II).

combat-ii §5 replaces AD&D's forget-on-casting memorization. Under System I a caster holds one
pool of points (one point per spell level per spell the PH progression allows) and any known
spell draws its level in points; under System II the PH progression gives slots per spell level
that any known spell of that level may fill. Both recover by study after a night's rest.

Pool names, shared with the rest of the ruleset:

* points: `mana`, `specialist-mana`, and `free-<L>` boxes for bonus spells kept as free spells;
* slots: `slots-<L>`, `specialist-<L>` and `bonus-<L>`.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from service.domain.table import Frozen, Pool

CasterKind = Literal["priest", "wizard", "ranger", "paladin"]
ManaSystem = Literal["none", "points", "slots"]
BonusSpells = Literal["add", "free"]
StartingMana = Literal["standard", "con", "con-added", "con-prime", "con-prime-added"]
Recovery = Literal["flat", "by-level"]

SpellLevel = Annotated[int, Field(ge=1, le=9)]
SpellCount = Annotated[int, Field(ge=0, le=50)]
MAX_LEVEL = 20


class InnateSpell(Frozen):
    """A monster's spell-like power that matches a priest or wizard spell (combat-ii §5 INNATE
    SPELLS); `per_day=None` is at will, which the seed accounts for "separately": not pooled."""

    name: str = Field(min_length=1)
    level: SpellLevel
    per_day: Annotated[int, Field(ge=1, le=50)] | None = 1


class Caster(Frozen):
    """The `caster` part of a combat-ii stat block."""

    kind: CasterKind
    level: Annotated[int, Field(ge=1, le=MAX_LEVEL)]
    slots: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """The PH spell progression: spell level -> spells memorizable (Mana System II)."""
    bonus: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """Bonus spells by spell level (a priest's Wisdom and the like)."""
    specialist: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """A specialist's extra spells by spell level."""
    innate: tuple[InnateSpell, ...] = ()


# combat-ii §5 Mana System I: base mana by caster level (index 0 is level 1); None is "--".
# The priest and wizard columns are the PH progressions in points. The ranger and paladin
# columns appear to count the PH's spells instead (a 12th-level ranger's 2/2/1 is 5 there, 9
# in points); Fray keeps the seed's numbers as printed.
BASE_MANA: dict[CasterKind, tuple[int | None, ...]] = {
    "priest": (1, 2, 4, 7, 12, 15, 19, 26, 34, 43, 53, 65, 74, 90, 99, 111, 127, 148, 151, 165),
    "wizard": (1, 2, 4, 7, 11, 14, 20, 27, 32, 39, 51, 66, 78, 85, 94, 115, 130, 139, 147, 162),
    "ranger": (*(None,) * 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9),
    "paladin": (*(None,) * 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9),
}

# combat-ii §5 Mana System I: the table's "*" marks ("a new castable spell level"). The first
# level with any mana casts 1st-level spells without a mark.
NEW_SPELL_LEVEL_AT: dict[CasterKind, tuple[int, ...]] = {
    "priest": (3, 5, 7, 9, 11, 14),
    "wizard": (3, 5, 7, 9, 12, 14, 16, 18),
    "ranger": (10, 12),
    "paladin": (11, 13, 15),
}


def _row(kind: CasterKind, level: int) -> int | None:
    if not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"caster level must be 1 to {MAX_LEVEL}, not {level}")
    return BASE_MANA[kind][level - 1]


def highest_spell_level(kind: CasterKind, level: int) -> int:
    """The highest spell level the caster may cast; 0 before the first spell (combat-ii §5
    Mana System I: "may not cast spells of a higher level than the PH progression charts")."""
    if _row(kind, level) is None:
        return 0
    return 1 + sum(1 for at in NEW_SPELL_LEVEL_AT[kind] if at <= level)


def base_mana(kind: CasterKind, level: int) -> int:
    """combat-ii §5 Mana System I table; 0 where it prints "--"."""
    return _row(kind, level) or 0


def points_of(counts: dict[int, int]) -> int:
    """combat-ii §5 Mana System I: "one point per spell level per spell"."""
    return sum(level * count for level, count in counts.items())


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def starting_mana(base: int, con: int, prime: int, option: StartingMana) -> int:
    """combat-ii §5 STARTING MANA: CON / 3 (round up) in place of a smaller base (`con`), or
    added to it at every level (`con-added`, Option 1). Option 2 uses the average of CON and the
    prime requisite, rounded down, in place of CON (`con-prime`, `con-prime-added`)."""
    if option == "standard":
        return base
    score = con if option in ("con", "con-added") else (con + prime) // 2
    bonus = _ceil_div(max(0, score), 3)
    return base + bonus if option.endswith("-added") else max(base, bonus)


def _innate_by_level(caster: Caster) -> dict[int, int]:
    """combat-ii §5 INNATE SPELLS: daily uses by spell level; at-will powers are not pooled."""
    by_level: dict[int, int] = {}
    for spell in caster.innate:
        if spell.per_day is not None:
            by_level[spell.level] = by_level.get(spell.level, 0) + spell.per_day
    return by_level


def _full(sizes: dict[str, int]) -> dict[str, Pool]:
    return {name: Pool(current=size, max=size) for name, size in sizes.items() if size > 0}


def _per_level(prefix: str, counts: dict[int, int]) -> dict[str, int]:
    return {f"{prefix}-{level}": count for level, count in sorted(counts.items())}


def _point_pools(
    caster: Caster, bonus_spells: BonusSpells, starting: StartingMana, con: int, prime: int
) -> dict[str, Pool]:
    base = base_mana(caster.kind, caster.level)
    # Interpretation: the CON option aids "low level casters"; one with no castable spell level
    # yet (a ranger below 8th) is no caster, so CON gives it nothing.
    mana = starting_mana(base, con, prime, starting) if base > 0 else 0
    # combat-ii §5 INNATE SPELLS I: "total all its possible points for the day".
    mana += points_of(_innate_by_level(caster))
    sizes = {"mana": mana}
    if bonus_spells == "add":
        # combat-ii §5 Mana System I, bonus spells way 1: their points join the mana total.
        sizes["mana"] += points_of(caster.bonus)
    else:
        # Way 2: one box per free spell, checked off before mana is drawn.
        sizes |= _per_level("free", caster.bonus)
    # combat-ii §5: "Specialists gain a separate mana pool dedicated to their specialty".
    sizes["specialist-mana"] = points_of(caster.specialist)
    return _full(sizes)


def _slot_pools(caster: Caster) -> dict[str, Pool]:
    slots = dict(caster.slots)
    # combat-ii §5 INNATE SPELLS II: "reserve a slot for each spell based on its level".
    for level, uses in _innate_by_level(caster).items():
        slots[level] = slots.get(level, 0) + uses
    # combat-ii §5 Mana System II: bonus, specialist and normal slots are kept apart.
    return _full(
        _per_level("slots", slots)
        | _per_level("bonus", caster.bonus)
        | _per_level("specialist", caster.specialist)
    )


def pools_for(
    caster: Caster,
    system: ManaSystem,
    bonus_spells: BonusSpells,
    starting: StartingMana,
    con: int,
    prime: int,
) -> dict[str, Pool]:
    """The caster's full pools under the encounter's mana system; empty pools are left out."""
    if system == "points":
        return _point_pools(caster, bonus_spells, starting, con, prime)
    if system == "slots":
        return _slot_pools(caster)
    return {}


def _beyond(spell_level: int, highest: int) -> str:
    if highest < 1:
        return f"a level-{spell_level} spell is beyond this caster (no castable spell level yet)"
    return f"a level-{spell_level} spell is beyond this caster (highest level {highest})"


def _spend_points(pools: dict[str, int], spell_level: int, specialty: bool) -> dict[str, int] | str:
    free = f"free-{spell_level}"
    if pools.get(free, 0) > 0:
        return {free: 1}
    # combat-ii §5: specialist mana "MUST be used for specialty spells", so only they draw it.
    sources = ("specialist-mana", "mana") if specialty else ("mana",)
    has = sum(max(0, pools.get(name, 0)) for name in sources)
    if has < spell_level:
        return f"needs {spell_level} mana, has {has}"
    draw: dict[str, int] = {}
    owed = spell_level
    for name in sources:
        taken = min(owed, max(0, pools.get(name, 0)))
        if taken:
            draw[name] = taken
            owed -= taken
    return draw


def _spend_slot(pools: dict[str, int], spell_level: int, specialty: bool) -> dict[str, int] | str:
    kinds = ("specialist", "bonus", "slots") if specialty else ("bonus", "slots")
    for kind in kinds:
        name = f"{kind}-{spell_level}"
        if pools.get(name, 0) > 0:
            return {name: 1}
    return f"no level-{spell_level} spell slot left"


def spend(
    pools: dict[str, int],
    system: ManaSystem,
    spell_level: int,
    specialty: bool,
    highest: int,
) -> dict[str, int] | str:
    """What casting a spell draws, by pool name, or why it cannot be cast.

    `pools` holds current values. Under `none` nothing is drawn: Fray does not track AD&D's
    memorized spells."""
    if spell_level < 1:
        return f"spell levels start at 1, not {spell_level}"
    if spell_level > highest:
        return _beyond(spell_level, highest)
    if system == "points":
        return _spend_points(pools, spell_level, specialty)
    if system == "slots":
        return _spend_slot(pools, spell_level, specialty)
    return {}


def minutes_per_point(recovery: Recovery, highest: int, hours_slept: int) -> int | None:
    """Study minutes per point regained (combat-ii §5 MANA RECOVERY); None below 4 hours' sleep.

    `flat` is the PH's 10 minutes per spell level; `by-level` is 13 - highest allowable spell
    level (at least 1). Each hour of sleep below 8 adds a minute per point. Interpretation: the
    seed states that penalty after the by-level formula ("This assumes a full night's rest");
    Fray applies it to both options."""
    if hours_slept < 4:
        return None
    base = 10 if recovery == "flat" else max(1, 13 - highest)
    return base + max(0, 8 - hours_slept)


class Recovered(Frozen):
    """What a recovery session gave back."""

    restored: dict[str, int]
    """Pool name -> points (System I) or slots (System II) restored."""
    minutes_used: int
    """Study minutes spent; the automatic refills take none."""
    counted: int = 0
    """Points counted against the 24-hour RECOVERY LIMIT (a level-L slot counts L)."""


def _gap(pools: dict[str, Pool], name: str) -> int:
    pool = pools.get(name)
    if pool is None or pool.max is None:
        return 0
    return max(0, pool.max - pool.current)


def _refill_free(pools: dict[str, Pool]) -> dict[str, int]:
    """combat-ii §5 BONUS SPELL POINTS: "received automatically each day" after 4 hours' sleep."""
    return {name: _gap(pools, name) for name in pools if name.startswith(("free-", "bonus-"))}


def _study_points(
    pools: dict[str, Pool], per_point: int, minutes: int, allowance: int
) -> tuple[dict[str, int], int, int]:
    mana = min(_gap(pools, "mana"), minutes // per_point, allowance)
    left = minutes - mana * per_point
    # combat-ii §5: specialist points at half time, "round up after totaling the minutes".
    special = min(_gap(pools, "specialist-mana"), 2 * left // per_point, allowance - mana)
    used = mana * per_point + _ceil_div(special * per_point, 2)
    return {"mana": mana, "specialist-mana": special}, used, mana + special


def _study_slots(
    pools: dict[str, Pool],
    per_point: int,
    minutes: int,
    allowance: int,
    choose: dict[int, int] | None,
) -> tuple[dict[str, int], int, int]:
    """Highest level first; within a level normal slots before specialist ones. A slot that no
    longer fits the time or the limit is skipped and smaller ones are still tried."""
    restored: dict[str, int] = {}
    normal = halved = counted = 0
    for level in range(9, 0, -1):
        wanted = choose.get(level, 0) if choose is not None else 10**6
        for kind in ("slots", "specialist"):
            name = f"{kind}-{level}"
            for _ in range(min(_gap(pools, name), wanted)):
                cost = level * per_point
                n, h = (normal, halved + cost) if kind == "specialist" else (normal + cost, halved)
                if n + _ceil_div(h, 2) > minutes or counted + level > allowance:
                    break
                normal, halved, counted = n, h, counted + level
                restored[name] = restored.get(name, 0) + 1
                wanted -= 1
    return restored, normal + _ceil_div(halved, 2), counted


def recover(
    pools: dict[str, Pool],
    system: ManaSystem,
    recovery: Recovery,
    highest: int,
    hours_slept: int,
    minutes: int,
    recovered_today: int,
    daily_limit: int,
    choose: dict[int, int] | None = None,
) -> Recovered:
    """One recovery session after a rest of `hours_slept` with `minutes` of study.

    Free boxes and bonus slots refill first, taking no time and not counted against the limit.
    Study then restores `mana` before `specialist-mana` (System I), or spent slots (System II),
    all of them or only the counts `choose` names as {spell level: count} (combat-ii §5 Mana
    System II RECOVERY: "the caster may elect which spell slots to recover"); higher levels go
    first when the time or the limit runs short. combat-ii §5 RECOVERY LIMIT: no more than
    `daily_limit - recovered_today` points are regained; a slot of level L counts L."""
    per_point = minutes_per_point(recovery, highest, hours_slept)
    if per_point is None or system == "none":
        return Recovered(restored={}, minutes_used=0)
    allowance = max(0, daily_limit - recovered_today)
    budget = max(0, minutes)
    if system == "points":
        studied, used, counted = _study_points(pools, per_point, budget, allowance)
    else:
        studied, used, counted = _study_slots(pools, per_point, budget, allowance, choose)
    restored = {n: k for n, k in (_refill_free(pools) | studied).items() if k > 0}
    return Recovered(restored=restored, minutes_used=used, counted=counted)
