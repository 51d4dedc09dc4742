"""hex-tactical state: the stat block, the encounter's options, cover objects, and what a
fight keeps between commands (the order, the turn in progress, who is in melee with whom,
reserved moves, and the queue of interruptions still to resolve)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from service.domain import dice
from service.domain.grid import Cell
from service.domain.hidden import Hidden
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState
from service.domain.table import Combatant, Frozen
from service.rules.hex_tactical.base import Difficulty

WeaponKind = Literal["melee", "ranged"]
CoverKind = Literal["partial", "total"]
Maneuver = Literal["grapple", "trip", "disarm"]
MANEUVERS: tuple[Maneuver, ...] = ("grapple", "trip", "disarm")
SCORE = Field(default=50, ge=0, le=100)
# Traits the rules read (hex-tactical Attacks of Opportunity: "a trait that allows" a
# maneuver as an attack of opportunity).
MANEUVER_OPPORTUNIST = "maneuver-opportunist"


class Weapon(Frozen):
    """A weapon with the seed's properties: melee (with `reach` in cells) or ranged (with a
    range of interval/maximum in feet, "60/180")."""

    name: str = Field(min_length=1, max_length=60)
    kind: WeaponKind = "melee"
    skill: str | None = Field(
        default=None, max_length=40, description="The skill it rolls; 'melee' or 'ranged'."
    )
    damage: str = Field(default="1d6", min_length=1, max_length=50)
    reach: int = Field(default=1, ge=1, le=10, description="Melee: cells it reaches.")
    range: str | None = Field(
        default=None, description="Ranged: interval/maximum in feet, e.g. '60/180'."
    )

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        return dice.checked(value)

    @field_validator("range")
    @classmethod
    def _valid_range(cls, value: str | None) -> str | None:
        if value is not None:
            parse_range(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Weapon:
        if self.kind == "ranged" and self.range is None:
            raise ValueError("a ranged weapon needs a range such as '60/180'")
        if self.kind == "melee" and self.range is not None:
            raise ValueError("a melee weapon has a reach, not a range")
        return self

    @property
    def skill_name(self) -> str:
        return self.skill or self.kind

    @property
    def interval(self) -> int:
        return parse_range(self.range or "0/0")[0]

    @property
    def maximum(self) -> int:
        return parse_range(self.range or "0/0")[1]


def parse_range(text: str) -> tuple[int, int]:
    """hex-tactical Ranged Combat: "a range property has two values, such as 60/180ft"."""
    cleaned = text.strip().lower().removesuffix("ft").removesuffix(" ").strip()
    parts = cleaned.split("/")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"a range is interval/maximum in feet, such as '60/180', not {text!r}")
    interval, maximum = int(parts[0]), int(parts[1])
    if not 0 < interval <= maximum <= 10_000:
        raise ValueError(f"a range needs 0 < interval <= maximum <= 10000, not {text!r}")
    return interval, maximum


class HexStats(Frozen):
    """A combatant of the base system (see base.py): skill scores out of 100, hit points,
    armor that soaks damage, and a speed in feet per move action."""

    hp: Annotated[int, Hidden()] = Field(default=10, ge=1, le=10_000)
    armor: int = Field(default=0, ge=0, le=100)
    speed: int = Field(default=30, ge=0, le=1000, description="Feet per move action.")
    initiative: int = SCORE
    agility: int = SCORE
    dodge: int = SCORE
    skills: dict[str, int] = Field(
        default_factory=dict, description="Other skills: melee, ranged, spellcasting, ..."
    )
    untrained: int = Field(default=20, ge=0, le=100, description="The score of a skill not listed.")
    weapons: tuple[Weapon, ...] = Field(default=(), max_length=20)
    traits: tuple[str, ...] = Field(default=(), max_length=40)

    @field_validator("skills")
    @classmethod
    def _scores(cls, skills: dict[str, int]) -> dict[str, int]:
        for name, score in skills.items():
            if not 0 <= score <= 100:
                raise ValueError(f"skill '{name}' must be 0-100, got {score}")
        return skills

    @model_validator(mode="after")
    def _unique_weapons(self) -> HexStats:
        names = [w.name for w in self.weapons]
        if len(names) != len(set(names)):
            raise ValueError("every weapon needs its own name")
        return self

    def score(self, skill: str) -> int:
        named = {"initiative": self.initiative, "agility": self.agility, "dodge": self.dodge}
        if skill in named:
            return named[skill]
        return self.skills.get(skill, self.untrained)

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)


class CoverObject(Frozen):
    """hex-tactical Cover: an object in a cell that gives partial or total cover. With a
    durability a Target Inanimate Object action can wear it down and destroy it."""

    cell: Cell
    name: str = Field(min_length=1, max_length=60)
    kind: CoverKind = "partial"
    durability: int | None = Field(default=None, ge=1, le=10_000)
    armor: int = Field(default=0, ge=0, le=100)


class HexOptions(EncounterOptions):
    cell_feet: int = Field(
        default=5,
        ge=1,
        le=100,
        description="Feet per cell (hex-tactical The Tactical Grid: 5 ft, 'largely arbitrary').",
    )
    into_melee: Literal["bane", "risk"] = Field(
        default="bane",
        description="How a ranged attack into a melee is made when the command does not say.",
    )
    elevation: Literal["ignore", "impassable", "cover", "both"] = Field(
        default="ignore",
        description=(
            "What a height difference of at least `elevation_step` feet between cells does "
            "(hex-tactical Three Dimensional Movement): blocks movement, gives cover, both."
        ),
    )
    elevation_step: int = Field(default=10, ge=1, le=1000)
    take_cover_difficulty: Difficulty = Field(
        default="normal", description="The Dodge roll made when taking cover."
    )
    stuck_difficulty: Difficulty = Field(
        default="normal", description="The Agility check to get out of mire or a grapple."
    )


Kind = Literal["move", "skill", "item"]


class Paused(Frozen):
    """An action an interruption stopped: the rest of a move, or a skill or item use."""

    action: Kind
    combatant_id: str
    rest: tuple[Cell, ...] = Field(default=(), description="The cells still to walk.")
    costs: tuple[int, ...] = ()
    cleared: bool = Field(
        default=False, description="The first step already raised its opportunity."
    )
    reserved: bool = False
    passing: str | None = Field(default=None, description="The enemy a bypass may pass.")
    skill: str | None = None
    description: str | None = None
    target: str | None = None
    difficulty: Difficulty = "normal"


class AttackInfo(Frozen):
    """A hit waiting for its target's response (hex-tactical Attacking)."""

    attacker: str
    target: str
    weapon: str | None
    ranged: bool
    maneuver: Maneuver | None = None
    damage: str = "1d3"
    dodge: Difficulty | None = Field(default=None, description="None: no dodge allowed.")
    dodge_boons: int = 0
    dodge_banes: int = 0
    parry: bool = False


class Reservation(Frozen):
    """hex-tactical Movement: a reserved move ("if the orc starts to move toward me, I will
    run away"), or a ranged weapon's Overwatch."""

    kind: Literal["run", "overwatch"]
    to: Cell | None = None
    watch: tuple[str, ...] = ()
    weapon: str | None = None


PendingKind = Literal["defence", "opportunity", "reserved", "continue"]


class Pending(Frozen):
    """Something that waits its turn: a hit (the target responds), an opportunity (the
    threateners may strike), a reserved move or overwatch set off, or a paused action."""

    id: int
    kind: PendingKind
    actor: str
    target: str
    attack: AttackInfo | None = None
    threateners: tuple[str, ...] = ()
    reason: str | None = None
    paused: Paused | None = None
    reservation: Reservation | None = None


class Turn(Frozen):
    actions: int = 0
    moves: int = 0
    other: bool = False
    entered: tuple[Cell, ...] = Field(default=(), description="Cells entered this turn.")


class HexState(EncounterState):
    options: HexOptions
    phase: Literal["setup", "running", "ended"] = "setup"
    round: int = 0
    order: tuple[str, ...] = ()
    initiative: dict[str, tuple[int, int, int]] = Field(
        default_factory=dict, description="Each combatant's (degree, score, roll)."
    )
    acted: tuple[str, ...] = ()
    current: str | None = None
    turn: Turn = Field(default_factory=Turn)
    wielding: dict[str, str | None] = Field(default_factory=dict)
    dropped: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="Weapons disarmed out of each combatant's hands."
    )
    melee: tuple[tuple[str, str], ...] = Field(default=(), description="Pairs in melee.")
    cover: dict[str, CoverObject] = Field(
        default_factory=dict, description="Cover objects by 'x,y'."
    )
    taking_cover: dict[str, tuple[Cell, ...]] = Field(
        default_factory=dict, description="Partial cover that counts as total for its user."
    )
    unaware: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="Whom each combatant is not aware of."
    )
    reservations: dict[str, Reservation] = Field(default_factory=dict)
    surrendered: tuple[str, ...] = ()
    pending: tuple[Pending, ...] = ()
    pending_seq: int = 0


def cell_key(cell: Cell) -> str:
    return f"{cell.x},{cell.y}"


def stats_of(combatant: Combatant) -> HexStats:
    return HexStats.model_validate(combatant.stats)
