"""d20-action-points state: the stat block, the encounter's options, and what a fight keeps
between commands (the order of the round, the turn in progress, what is in whose hands).

Ability scores are given as their bonuses (`strength: 2` is "+2 STR"), as the seed only ever
adds bonuses to d20 rolls.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, field_validator, model_validator

from service.domain import dice
from service.domain.grid import Cell
from service.domain.hidden import Hidden
from service.domain.limits import ARRAY
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState
from service.domain.table import Frozen

Kind = Literal["pc", "monster"]
WeaponKind = Literal["melee", "ranged", "thrown"]
Special = Literal["energy-drain", "poison"]
Ability = Literal["intelligence", "wisdom"]
Phase = Literal[
    "setup", "before", "negotiating", "evading", "paused", "declaring", "acting", "ended"
]
Surprise = Literal["monsters", "party", "neither"]
# The circumstances a GM (or a map's terrain tag) may put around a combatant; the names of
# attacks.Circumstance data (d20-action-points Environment Modifiers (optional)).
CircumstanceName = Literal[
    "fog", "darkness", "mud", "dense-foliage", "half-cover", "mostly-covered"
]
CIRCUMSTANCES: tuple[CircumstanceName, ...] = get_args(CircumstanceName)
ABILITY = Field(default=0, ge=-5, le=10)


class Weapon(Frozen):
    """A weapon: melee, ranged (a bow, a crossbow) or thrown (a dagger, a javelin); ranged
    and thrown ones have the seed's two range numbers (d20-action-points Ranged Attacks)."""

    name: str = Field(min_length=1, max_length=60)
    kind: WeaponKind = "melee"
    damage: str = Field(default="1d6", min_length=1, max_length=50)
    to_hit: int = Field(default=0, ge=-10, le=20, description="The weapon's bonus to attack.")
    damage_bonus: int = Field(default=0, ge=-10, le=20, description="A magical bonus, etc.")
    range: int | None = Field(default=None, ge=5, le=5000, description="Feet without penalty.")
    long_range: int | None = Field(default=None, ge=5, le=5000, description="Feet at most.")
    reach: bool = Field(default=False, description="A reach weapon strikes from the 2nd rank.")
    two_handed: bool = False
    initiative: int = Field(default=0, ge=-10, le=10, description="Fast (+) or slow (-).")
    special: Special | None = None
    save_dc: int | None = Field(default=None, ge=1, le=40, description="Poison's CON DC.")
    poison: str | None = Field(
        default=None, max_length=50, description="Poison damage dice; none: the poison kills."
    )

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        return dice.checked(value)

    @field_validator("poison")
    @classmethod
    def _valid_poison(cls, value: str | None) -> str | None:
        return dice.checked_optional(value)

    @model_validator(mode="after")
    def _ranges(self) -> Weapon:
        if self.kind != "melee":
            if self.range is None:
                raise ValueError(f"a {self.kind} weapon needs a range (feet without penalty)")
            if self.long_range is not None and self.long_range < self.range:
                raise ValueError("long_range is the farthest a weapon reaches: not below range")
        if self.special == "poison" and self.save_dc is None:
            raise ValueError("a poisonous weapon needs a save_dc (the CON save it calls for)")
        return self

    @property
    def bands(self) -> tuple[int, int]:
        """The two range numbers; a weapon given one keeps the crossbow's 80/320 proportion
        (interpretation: d20-action-points Ranged Attacks gives every weapon two)."""
        short = self.range or 5
        return short, self.long_range or 4 * short


class SpellEntry(Frozen):
    """A spell: its level sets the DC (10 + level) and, unless `mana` says otherwise, its
    cost (d20-action-points Casting Spells)."""

    name: str = Field(min_length=1, max_length=60)
    level: int = Field(default=1, ge=0, le=9)
    mana: int | None = Field(default=None, ge=0, le=100)
    damage: str | None = Field(default=None, max_length=50)
    initiative: int = Field(default=0, ge=-10, le=10)
    effect: str | None = Field(default=None, max_length=200)

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str | None) -> str | None:
        return dice.checked_optional(value)

    @property
    def cost(self) -> int:
        return self.level if self.mana is None else self.mana


class D20Stats(Frozen):
    """A character's or a monster's stat block."""

    kind: Kind = "monster"
    hp: Annotated[int, Hidden()] = Field(default=1, ge=1, le=10_000)
    ac: int = Field(default=10, ge=0, le=60)
    level: int = Field(default=1, ge=1, le=40, description="Level, or a monster's Hit Dice.")
    hp_per_level: Annotated[int | None, Hidden()] = Field(
        default=None, ge=1, le=1000, description="Hit points a level (energy drain); hp/level."
    )
    strength: int = ABILITY
    dexterity: int = ABILITY
    constitution: int = ABILITY
    intelligence: int = ABILITY
    wisdom: int = ABILITY
    notice: int | None = Field(default=None, ge=0, le=60, description="None: 10 + WIS bonus.")
    stealth: int | None = Field(default=None, ge=-10, le=30, description="None: WIS bonus.")
    morale: int | None = Field(default=None, ge=-10, le=30, description="None: WIS bonus.")
    initiative: int = Field(default=0, ge=-10, le=30)
    speed: int = Field(default=30, ge=0, le=500, description="Feet a move action covers.")
    attacks: int = Field(default=1, ge=1, le=10, description="Attacks in a full attack.")
    weapons: Annotated[tuple[Weapon, ...], ARRAY] = Field(default=(), max_length=20)
    wielding: str | None = Field(
        default=None, description="The weapon in hand at the start; the first one if not given."
    )
    spells: Annotated[tuple[SpellEntry, ...], ARRAY] = Field(default=(), max_length=40)
    # Mana and Heroic Points start pools, which are hidden like hit points.
    mana: Annotated[int, Hidden()] = Field(default=0, ge=0, le=1000)
    casting_ability: Ability = "intelligence"
    focus: int = Field(default=0, ge=-5, le=20)
    heroic_points: Annotated[int, Hidden()] = Field(default=0, ge=0, le=20)
    group: str | None = Field(default=None, max_length=60, description="The GM's combat group.")
    humanoid: bool = True
    has_back: bool = True
    backstab: int | None = Field(default=None, ge=2, le=10, description="Backstab multiplier.")
    darkvision: bool = False

    @model_validator(mode="before")
    @classmethod
    def _first_weapon_in_hand(cls, data: Any) -> Any:
        if isinstance(data, dict) and "wielding" not in data and data.get("weapons"):
            first = data["weapons"][0]
            if isinstance(first, dict) and "name" in first:
                return {**data, "wielding": first["name"]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> D20Stats:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("two weapons share a name")
        if self.wielding is not None and self.wielding not in names:
            raise ValueError(f"wielding '{self.wielding}', which is not among the weapons")
        spells = [s.name for s in self.spells]
        if len(set(spells)) != len(spells):
            raise ValueError("two spells share a name")
        return self

    @property
    def notice_score(self) -> int:
        return 10 + self.wisdom if self.notice is None else self.notice

    @property
    def hp_a_level(self) -> int:
        return self.hp_per_level or max(1, self.hp // self.level)

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)

    def spell(self, name: str) -> SpellEntry | None:
        return next((s for s in self.spells if s.name == name), None)


class D20Options(EncounterOptions):
    action_points: bool = Field(
        default=True,
        description="The optional combat system: 5 action points a round; off: one action.",
    )
    environment: bool = Field(
        default=True, description="The optional Environment Modifiers (cover, fog, mud...)."
    )
    death_check: Literal["save", "dead", "gm"] = Field(
        default="save",
        description=(
            "A character at 0 hp or less: save, d20 + CON against death_dc (made: unconscious, "
            "missed: dead); dead, no check; gm, the GM decides (the character is dying)."
        ),
    )
    death_dc: int = Field(default=10, ge=1, le=40)


class Marching(Frozen):
    """A side's marching order: ranks from the front, at most `width` abreast."""

    width: int
    ranks: tuple[tuple[str, ...], ...]


class Declaration(Frozen):
    action: str
    spell: str | None = None
    weapon: str | None = None
    initiative: int = 0


class Turn(Frozen):
    """The turn in progress: points left (or actions taken without action points)."""

    points: int = 0
    actions: int = 0
    allowed: int = 1
    spent: bool = False
    heroic: bool = False
    gifted: bool = False


class Readied(Frozen):
    """d20-action-points Action Points, Ready action: a trigger and a response."""

    trigger: Literal["moves", "attacks", "casts", "gm"]
    by: str | None = None
    weapon: str | None = None
    target: str | None = None
    description: str
    round: int


class Arms(Frozen):
    carried: tuple[Weapon, ...] = ()
    wielding: str | None = None

    def weapon(self, name: str | None) -> Weapon | None:
        return next((w for w in self.carried if w.name == name), None)

    @property
    def in_hand(self) -> Weapon | None:
        return self.weapon(self.wielding)


class GroundItem(Frozen):
    weapon: Weapon
    near: str = Field(description="Whose feet (or cell) it lies at.")
    cell: Cell | None = None


PendingKind = Literal["broken", "fled", "disarm-counter", "readied"]


class Pending(Frozen):
    """What waits for a reaction window: a broken combatant's choice, parting shots at one
    who flees, a failed disarm's counter, a readied action's trigger."""

    id: int
    kind: PendingKind
    actor: str
    target: str
    readied: tuple[str, ...] = ()


class D20State(EncounterState):
    options: D20Options
    phase: Phase = "setup"
    round: int = 0
    surprise: Surprise | None = None
    ambush: bool = False
    marching: dict[str, Marching] = Field(default_factory=dict)
    environment: dict[str, tuple[CircumstanceName, ...]] = Field(
        default_factory=dict, description="Set by the GM, per combatant id or '*' for all."
    )
    declared: dict[str, Declaration] = Field(default_factory=dict)
    initiative: dict[str, int] = Field(default_factory=dict)
    queue: tuple[str, ...] = ()
    current: str | None = None
    turn: Turn | None = None
    acted: tuple[str, ...] = ()
    leftover: dict[str, int] = Field(default_factory=dict)
    gifts: dict[str, int] = Field(default_factory=dict)
    givers: tuple[str, ...] = ()
    heroic_used: tuple[str, ...] = ()
    delayed: dict[str, str | None] = Field(default_factory=dict)
    held: dict[str, Turn] = Field(
        default_factory=dict, description="A delayed turn, points and all, until it resumes."
    )
    readied: dict[str, Readied] = Field(default_factory=dict)
    arms: dict[str, Arms] = Field(default_factory=dict)
    ground: tuple[GroundItem, ...] = ()
    engaged: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    charged: dict[str, int] = Field(
        default_factory=dict, description="Round through which a charger has -2 AC."
    )
    grappled: dict[str, str] = Field(default_factory=dict, description="Grappled: grappler.")
    pinned: tuple[str, ...] = ()
    pending: tuple[Pending, ...] = ()
    pending_seq: int = 0
