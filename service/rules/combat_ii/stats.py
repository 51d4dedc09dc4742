"""combat-ii stat blocks: a combatant's weapons, spells and scores, and the standard 2nd
edition values Fray derives from them (speed factors by size, attack rates, saves)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from service.domain import dice
from service.domain.hidden import Hidden
from service.domain.table import Combatant, Frozen
from service.rules.combat_ii.abilities import (
    ThiefSkill,
    defensive_adjustment,
    reaction_adjustment,
)
from service.rules.combat_ii.mana import Caster

Size = Literal["tiny", "small", "medium", "large", "huge", "gargantuan"]
SaveKind = Literal["paralyzation", "rod", "petrification", "breath", "spell"]
"""2nd edition's five saving throw categories (DMG Table 60): paralyzation, poison or death
magic; rod, staff or wand; petrification or polymorph; breath weapon; spell."""
WeaponKind = Literal["melee", "missile", "natural"]

ABILITY = Field(default=10, ge=1, le=25)
_RATE = re.compile(r"^\s*(\d{1,2})\s*(?:/\s*(\d))?\s*$")

# combat-ii §1 E Table 2: Speed Factor Based on Size.
NATURAL_SF: dict[Size, int] = {
    "tiny": 0, "small": 2, "medium": 3, "large": 6, "huge": 8, "gargantuan": 10,
}  # fmt: skip
WEAPON_SF_ADJUSTMENT: dict[Size, int] = {
    "tiny": -1, "small": -1, "medium": 0, "large": 1, "huge": 2, "gargantuan": 4,
}  # fmt: skip


def parse_rate(text: str) -> tuple[int, int]:
    """An attacks-per-round rate as 2nd edition writes it: "1", "3/2", "5/2"."""
    match = _RATE.match(text)
    if match is None or int(match.group(1)) == 0 or match.group(2) == "0":
        raise ValueError(f"a rate is a whole number or a fraction such as '3/2', not {text!r}")
    return int(match.group(1)), int(match.group(2) or 1)


def attacks_in_round(rate: str, round_number: int) -> int:
    """2nd edition's alternation: 3/2 attacks is 1 in odd rounds and 2 in even ones (the
    seed's 7th-level fighter: short sword once in round 1, twice in round 2)."""
    num, den = parse_rate(rate)
    return (round_number * num) // den - ((round_number - 1) * num) // den


class Weapon(Frozen):
    """A weapon or natural attack with its PH values: base speed factor, damage, magic."""

    name: str = Field(min_length=1, max_length=60)
    kind: WeaponKind = "melee"
    speed: int | None = Field(
        default=None, ge=0, le=20, description="Base SF; natural attacks default to Table 2."
    )
    damage: str = Field(default="1d6", min_length=1, max_length=50)
    magic: int = Field(default=0, ge=-5, le=6, description="Magical plus (to hit, damage, SF).")
    style: int = Field(default=0, ge=0, le=5, description="Style specialization SF bonus.")
    specialization: int = Field(
        default=0, ge=0, le=5, description="Weapon specialization slots beyond proficiency."
    )
    attacks: str | None = Field(
        default=None, description="Attacks per round with it; default the stat block's."
    )
    reach: int = Field(default=1, ge=1, le=5, description="Squares it reaches in melee.")
    strength: bool | None = Field(
        default=None,
        description="Strength adds to it (melee and natural always; thrown, custom bows).",
    )
    bow: bool = Field(default=False, description="A bow or crossbow (its string may break).")
    set_vs_charge: bool = Field(
        default=False, description="Set against a charge it deals double dice (§2 D)."
    )
    form: str | None = Field(
        default=None, max_length=40, description="Attack form: like attacks share one."
    )
    range: tuple[int, int, int] | None = Field(
        default=None,
        description="A missile weapon's short, medium and long range in squares (1-100 each): "
        "the PH's figures as printed (tens of yards outdoors, tens of feet indoors). None: "
        "no range given, the GM judges.",
    )
    ammunition: int | None = Field(
        default=None,
        ge=0,
        le=999,
        description="A missile weapon's missiles carried (arrows, bolts, stones, or the "
        "thrown weapons themselves): each shot spends one. None: not counted.",
    )

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        return dice.checked(value)

    @field_validator("range")
    @classmethod
    def _valid_range(cls, value: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        if value is None:
            return value
        if any(not 1 <= bound <= 100 for bound in value):
            raise ValueError(f"each range is 1 to 100 squares, not {list(value)}")
        if not value[0] <= value[1] <= value[2]:
            raise ValueError(f"ranges go short <= medium <= long, not {list(value)}")
        return value

    @model_validator(mode="after")
    def _missile_range(self) -> Weapon:
        if self.range is not None and self.kind != "missile":
            raise ValueError(
                f"'{self.name}' is a {self.kind} weapon: only a missile weapon has a range "
                "(a melee weapon has a reach)"
            )
        if self.ammunition is not None and self.kind != "missile":
            raise ValueError(
                f"'{self.name}' is a {self.kind} weapon: only a missile weapon counts ammunition"
            )
        return self

    def in_range(self, apart: int) -> bool:
        """PH: a missile weapon shoots no farther than its long range; without a range
        given, the GM judges (True)."""
        return self.range is None or apart <= self.range[2]

    def range_modifier(self, apart: int) -> int:
        """PH: range modifiers: to hit at `apart` squares, 0 at short range, -2 at medium,
        -5 at long (and beyond: see `in_range`); 0 without a range (the GM judges)."""
        if self.range is None or apart <= self.range[0]:
            return 0
        return -2 if apart <= self.range[1] else -5

    @field_validator("attacks")
    @classmethod
    def _valid_rate(cls, value: str | None) -> str | None:
        if value is not None:
            parse_rate(value)
        return value

    @property
    def uses_strength(self) -> bool:
        return self.strength if self.strength is not None else self.kind != "missile"


# DMG "Firing Into a Melee": each figure's share of a missile shot into a melee, in sixths
# (tiny 1/3, small 1/2, medium 1, large 2, huge 4, gargantuan 6).
MELEE_SHARE: dict[Size, int] = {
    "tiny": 2, "small": 3, "medium": 6, "large": 12, "huge": 24, "gargantuan": 36,
}  # fmt: skip

# DMG Table 60, the row for a 0-level character: saving throws a stat block leaves out.
ZERO_LEVEL_SAVES: dict[SaveKind, int] = {
    "paralyzation": 16, "rod": 18, "petrification": 17, "breath": 20, "spell": 19,
}  # fmt: skip


class SpellSave(Frozen):
    """The saving throw a spell allows (PH): for half its damage, or negating it."""

    against: SaveKind = "spell"
    effect: Literal["half", "negates"] = "negates"
    dodge: bool | None = Field(
        default=None,
        description="An attack that can be dodged: the Defensive Adjustment (DEX, or AGI "
        "with §4 Agility) adds to the save (PH Table 2). Default: yes for area spells.",
    )


class Spell(Frozen):
    """A spell or psionic power the combatant can use (§2 A, B)."""

    name: str = Field(min_length=1, max_length=60)
    level: int = Field(default=1, ge=0, le=9)
    ct: int | None = Field(default=None, ge=1, le=9, description="Casting time in segments.")
    rounds: int | None = Field(default=None, ge=1, le=10, description="Casting time in rounds.")
    components: str = Field(default="VSM", pattern=r"^[VSM]{0,3}$")
    damage: str | None = Field(default=None, max_length=50)
    touch: bool = False
    psionic: bool = False
    specialty: bool = Field(default=False, description="Of the caster's school of speciality.")
    range: int | None = Field(
        default=None, ge=0, le=100, description="Squares from the caster; None: the GM judges."
    )
    area: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description="Radius in squares around the point aimed at: everyone in it is caught.",
    )
    save: SpellSave | None = None
    duration: int | None = Field(
        default=None, ge=1, le=100, description="Rounds its condition lasts (§3 B duration)."
    )
    blows: int | None = Field(
        default=None,
        ge=1,
        le=5,
        description="§2 B: a psionic power that enhances physical blows: + to hit and damage "
        "for its duration, and physical attacks stay allowed.",
    )
    tangent: bool = Field(
        default=False,
        description="§2 B: a psionic contact power: each use at a target establishes a "
        "tangent (three make contact); one a phase, `tangents_per_round` a round.",
    )
    condition: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z-]{0,29}$",
        description="The state it puts each creature it affects in for its duration: "
        "held, asleep, stunned... (the rules play those they know; the rest is shown).",
    )

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str | None) -> str | None:
        return dice.checked_optional(value)

    @model_validator(mode="after")
    def _one_casting_time(self) -> Spell:
        if self.ct is not None and self.rounds is not None:
            raise ValueError("a spell's casting time is in segments (ct) or rounds, not both")
        if self.condition is not None and self.duration is None:
            raise ValueError(f"'{self.name}' puts its targets in a condition: give its duration")
        if (self.blows is not None or self.tangent) and not self.psionic:
            raise ValueError(
                f"'{self.name}': only a psionic power enhances blows or makes tangents"
            )
        if self.blows is not None and self.duration is None:
            raise ValueError(f"'{self.name}' enhances blows: give its duration")
        return self

    @property
    def dodged(self) -> bool:
        """PH Table 2: the Defensive Adjustment applies to saves against attacks that can
        be dodged; unless the spell says, those are the ones with an area."""
        if self.save is None:
            return False
        return self.save.dodge if self.save.dodge is not None else self.area is not None

    @property
    def units(self) -> int:
        """CT units: psionics default to CT 1 (§2 B); a spell without a CT is CT 1."""
        return self.ct or 1

    @property
    def somatic(self) -> bool:
        return "S" in self.components

    @property
    def material(self) -> bool:
        return "M" in self.components


class CombatIIStats(Frozen):
    """A 2nd edition stat block. Adjustments the stat block leaves out come from the PH
    tables in abilities.py; THAC0, AC (with Dexterity counted), MV and attacks per round
    are the sheet's own."""

    hp: Annotated[int, Hidden()] = Field(default=8, ge=1, le=10_000)
    thac0: int = Field(default=20, ge=-10, le=30)
    ac: int = Field(default=10, ge=-15, le=15)
    mv: int = Field(default=12, ge=0, le=60, description="Base movement per round.")
    max_speed: int = Field(default=5, ge=1, le=5, description="Top multiple of MV (PH p.120).")
    size: Size = "medium"
    level: int = Field(default=1, ge=0, le=40)
    attacks: str = Field(default="1", description="Attacks (routines) per round: 1, 3/2, 2.")
    strength_hit: int = Field(default=0, ge=-5, le=7)
    strength_damage: int = Field(default=0, ge=-5, le=14)
    listed_damage: int = Field(default=0, ge=0, le=30, description="A creature's damage bonus.")
    strength: int = ABILITY
    dexterity: int = ABILITY
    agility: int | None = Field(default=None, ge=1, le=25)
    constitution: int = ABILITY
    intelligence: int = ABILITY
    wisdom: int = ABILITY
    reaction: int | None = Field(default=None, ge=-6, le=6, description="Default: PH table.")
    defence: int | None = Field(default=None, ge=-6, le=6, description="Default: PH table.")
    weapons: tuple[Weapon, ...] = Field(default=(), max_length=20)
    wielding: tuple[str, ...] | None = Field(
        default=None, max_length=4, description="Weapons in hand; default the first."
    )
    routine: tuple[str, ...] | None = Field(
        default=None, max_length=8, description="A multi-part routine (claw, claw, bite)."
    )
    spells: tuple[Spell, ...] = Field(default=(), max_length=60)
    caster: Caster | None = None
    group: str | None = Field(default=None, max_length=40, description="Initiative group.")
    mounted: bool = False
    thief: bool = False
    move_silently: int | None = Field(default=None, ge=0, le=100)
    thief_skills: dict[ThiefSkill, Annotated[int, Field(ge=0, le=100)]] = Field(
        default_factory=dict,
        description="§4 Agility THIEF ADJUSTMENTS: a thief's skill percentages before the "
        "ability adjustment (PH Table 28 by DEX, or AGI's with the option), by skill.",
    )
    backstab: int = Field(default=1, ge=1, le=5, description="Backstab damage multiplier.")
    warrior: bool = Field(
        default=False,
        description="PH fighter classes: one attack per level a round against creatures "
        "below 1 HD.",
    )
    hit_dice: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="A creature's Hit Dice; below 1 lets warriors attack per level. None: a "
        "character, judged by nothing (not below 1 HD).",
    )
    components_in_hand: bool = True
    saves: dict[SaveKind, Annotated[int, Field(ge=1, le=25)]] = Field(
        default_factory=dict,
        description="Saving throw numbers (d20 at or over saves); missing ones are the "
        "0-level character's (DMG Table 60).",
    )
    save_bonus: int = Field(
        default=0, ge=-10, le=10, description="Added to every save (magic, race, Wisdom)."
    )

    @field_validator("attacks")
    @classmethod
    def _valid_rate(cls, value: str) -> str:
        parse_rate(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> CombatIIStats:
        names = [w.name for w in self.weapons]
        if len(names) != len(set(names)):
            raise ValueError("every weapon needs its own name")
        for listed in (*(self.wielding or ()), *(self.routine or ())):
            if listed not in names:
                raise ValueError(f"'{listed}' is not one of the stat block's weapons")
        spells = [s.name for s in self.spells]
        if len(spells) != len(set(spells)):
            raise ValueError("every spell needs its own name")
        silently = self.thief_skills.get("move-silently")
        if None not in (silently, self.move_silently) and silently != self.move_silently:
            raise ValueError("move_silently and thief_skills['move-silently'] disagree")
        return self

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)

    def spell(self, name: str) -> Spell | None:
        return next((s for s in self.spells if s.name == name), None)

    def in_hand(self) -> tuple[str, ...]:
        if self.wielding is not None:
            return self.wielding
        held = [w.name for w in self.weapons if w.kind != "natural"]
        return tuple(held[:1])

    def skill_chance(self, skill: ThiefSkill) -> int | None:
        """A thief skill's percentage; move silently may also be the older `move_silently`."""
        if skill == "move-silently" and self.move_silently is not None:
            return self.move_silently
        return self.thief_skills.get(skill)

    def save_against(self, kind: SaveKind) -> int:
        return self.saves.get(kind, ZERO_LEVEL_SAVES[kind])

    def reaction_of(self, score: int) -> int:
        return self.reaction if self.reaction is not None else reaction_adjustment(score)

    def defence_of(self, score: int) -> int:
        return self.defence if self.defence is not None else defensive_adjustment(score)


def stats_of(combatant: Combatant) -> CombatIIStats:
    return CombatIIStats.model_validate(combatant.stats)
