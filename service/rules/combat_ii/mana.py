"""Combat II's mana: spell points (Mana System I) or reusable spell slots (Mana System II).

combat-ii §5 replaces AD&D's forget-on-casting memorization. Under System I a caster holds one
pool of points (one point per spell level per spell the PH progression allows) and any known
spell draws its level in points; under System II the PH progression gives slots per spell level
that any known spell of that level may fill. Both recover by study after a night's rest.

Pool names, shared with the rest of the ruleset:

* points: `mana`, `specialist-mana`, and `free-<L>` boxes for bonus spells kept as free spells;
* slots: `slots-<L>`, `specialist-<L>` and `bonus-<L>`;
* either system: `hourly-<name>` for an innate power used per hour.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from service.domain.errors import RuleViolation
from service.domain.hidden import Hidden
from service.domain.table import Frozen, Pool

CasterKind = Literal["priest", "wizard", "ranger", "paladin"]
NoClass = Literal["innate"]
"""A monster whose only magic is its innate powers (combat-ii §5 INNATE SPELLS)."""
ManaSystem = Literal["none", "points", "slots"]
BonusSpells = Literal["add", "free"]
StartingMana = Literal["standard", "con", "con-added", "con-prime", "con-prime-added"]
Recovery = Literal["flat", "by-level"]

SpellLevel = Annotated[int, Field(ge=1, le=9)]
SpellCount = Annotated[int, Field(ge=0, le=50)]
Uses = Annotated[int, Field(ge=1, le=50)]
PoolName = Annotated[str, Field(pattern=r"^[a-z0-9-]{1,40}$")]
MAX_LEVEL = 20
HOURLY = "hourly-"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class InnateSpell(Frozen):
    """A monster's spell-like power that matches a priest or wizard spell (combat-ii §5 INNATE
    SPELLS): `per_day` uses pooled with the caster's mana or slots, `per_hour` uses, or at will
    (neither). The seed accounts for powers "at will or per hour ... separately": at will costs
    nothing; per hour spends the power's own pool (`pool`)."""

    name: str = Field(min_length=1, max_length=60)
    level: SpellLevel
    per_day: Uses | None = 1
    per_hour: Uses | None = None

    @model_validator(mode="before")
    @classmethod
    def _hourly_is_not_daily(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("per_hour") is not None:
            if data.get("per_day") is not None:
                raise ValueError("an innate power is used per day, per hour or at will, not both")
            return {**data, "per_day": None}
        return data

    @property
    def pool(self) -> str:
        """A per-hour power's pool: `hourly-` and the name in lower-case letters and digits,
        the rest turned into '-' (pool names carry no spaces), cut to 40 characters."""
        return (HOURLY + _slug(self.name))[:40].rstrip("-")


class Caster(Frozen):
    """The `caster` part of a combat-ii stat block."""

    kind: CasterKind | NoClass
    level: Annotated[int, Field(ge=1, le=MAX_LEVEL)]
    slots: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """The PH spell progression: spell level -> spells memorizable (Mana System II)."""
    bonus: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """Bonus spells by spell level (a priest's Wisdom and the like)."""
    specialist: dict[SpellLevel, SpellCount] = Field(default_factory=dict)
    """A specialist's extra spells by spell level."""
    innate: tuple[InnateSpell, ...] = ()
    # What the pools hold on joining: hidden like the pools themselves.
    current: Annotated[
        dict[PoolName, Annotated[int, Field(ge=0, le=10_000)]], Hidden(shown_as={})
    ] = Field(default_factory=dict)
    """Mana carried in from an earlier fight: pool name -> what it holds on joining; the
    pools it leaves out start full."""

    @model_validator(mode="after")
    def _consistent(self) -> Caster:
        if self.kind == "innate" and not self.innate:
            raise ValueError("a caster of kind 'innate' (no caster class) lists its innate powers")
        if self.kind == "innate" and (self.slots or self.bonus or self.specialist):
            raise ValueError("a caster of kind 'innate' has no slots, bonus or specialist spells")
        names = [power.name for power in self.innate]
        if len(set(names)) < len(names):
            raise ValueError("each innate power is listed once")
        hourly = [power.pool for power in self.innate if power.per_hour is not None]
        if any(pool == HOURLY.rstrip("-") for pool in hourly):
            raise ValueError("a per-hour innate power's name needs a letter or a digit")
        if len(set(hourly)) < len(hourly):
            raise ValueError(
                f"two per-hour innate powers would share a pool ({hourly}): rename one"
            )
        return self

    @property
    def caster_class(self) -> CasterKind | None:
        return None if self.kind == "innate" else self.kind


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


def highest_of(caster: Caster) -> int:
    """The highest spell level a caster may cast: its class's, or its innate powers' when
    higher (combat-ii §5 INNATE SPELLS: a monster casts "the list's spells")."""
    kind = caster.caster_class
    own = 0 if kind is None else highest_spell_level(kind, caster.level)
    return max([own, *(power.level for power in caster.innate)])


def base_mana(kind: CasterKind, level: int) -> int:
    """combat-ii §5 Mana System I table; 0 where it prints "--"."""
    return _row(kind, level) or 0


def points_of(counts: dict[int, int]) -> int:
    """combat-ii §5 Mana System I: "one point per spell level per spell"."""
    return sum(level * count for level, count in counts.items())


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def starting_mana(base: int, con: int, prime: int, option: StartingMana) -> int:
    """combat-ii §5 STARTING MANA: CON / 3 (round up) in place of a smaller base (`con`), or
    added to it at every level (`con-added`, Option 1). Option 2 uses the average of CON and the
    prime requisite, rounded down, in place of CON (`con-prime`, `con-prime-added`)."""
    if option == "standard":
        return base
    score = con if option in ("con", "con-added") else (con + prime) // 2
    bonus = ceil_div(max(0, score), 3)
    return base + bonus if option.endswith("-added") else max(base, bonus)


def _innate_by_level(caster: Caster) -> dict[int, int]:
    """combat-ii §5 INNATE SPELLS: daily uses by spell level; powers at will or per hour are
    accounted for "separately" (`innate_draw`), not pooled."""
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
    kind = caster.caster_class
    # combat-ii §5 INNATE SPELLS: a monster without a class has its innate points alone.
    base = 0 if kind is None else base_mana(kind, caster.level)
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
    """The caster's pools under the encounter's mana system, full but for the mana its block
    carries in (`current`); empty pools are left out. Per-hour innate powers get a pool each
    in either system."""
    if system == "none":
        return {}
    if system == "points":
        pools = _point_pools(caster, bonus_spells, starting, con, prime)
    else:
        pools = _slot_pools(caster)
    hourly = {p.pool: p.per_hour for p in caster.innate if p.per_hour is not None}
    return _carried(pools | _full(hourly), caster.current)


def _carried(pools: dict[str, Pool], current: dict[str, int]) -> dict[str, Pool]:
    """Mana carried in from an earlier fight: no more than a pool's maximum, and only into a
    pool the caster has under this encounter's options."""
    for name, value in sorted(current.items()):
        pool = pools.get(name)
        if pool is None:
            has = ", ".join(sorted(pools)) or "none"
            raise RuleViolation(
                "mana/carried",
                f"no '{name}' pool to carry mana into under this encounter's mana options "
                f"(pools: {has})",
                rule="combat-ii §5",
            )
        if pool.max is not None and value > pool.max:
            raise RuleViolation(
                "mana/carried",
                f"'{name}' holds at most {pool.max}; {value} cannot be carried in",
                rule="combat-ii §5",
            )
        pools[name] = Pool(current=value, max=pool.max)
    return pools


def innate_draw(caster: Caster, spell: str, pools: dict[str, int]) -> dict[str, int] | str | None:
    """What using an innate power draws when the seed accounts for it "separately" (combat-ii
    §5 INNATE SPELLS: "If the creature is allowed spells at will or per hour, account for
    these separately"): nothing at will, one use of its own pool per hour. None: the spell is
    paid like any other (a per-day power is pooled with the caster's mana or slots)."""
    power = next((p for p in caster.innate if p.name == spell), None)
    if power is None:
        if caster.caster_class is None:
            return "it is not one of the creature's innate powers, the only spells it casts"
        return None
    if power.per_hour is not None:
        if pools.get(power.pool, 0) < 1:
            uses = (
                "1 use an hour is" if power.per_hour == 1 else f"{power.per_hour} uses an hour are"
            )
            return f"its {uses} spent ({power.pool})"
        return {power.pool: 1}
    return {} if power.per_day is None else None


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
