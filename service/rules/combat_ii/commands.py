"""combat-ii commands. Each player command declares one combatant's intention for the
current phase (§1 C: move, attack, cast, or a brief action); initiative losers declare
first. Once every combatant has declared, the phase resolves half-segment by half-segment.
The GM's commands set surprise and ambushes and rest casters between fights."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.messages import Command
from service.domain.table import Frozen
from service.rules.combat_ii.abilities import ThiefSkill
from service.rules.combat_ii.recovery import Interruption

Id = str


class Attack(Command):
    """One attack routine this phase (§1 C). `weapons` is a multi-part or two-weapon routine
    (default: the stat block's routine, else the weapons in hand); `targets` names one target
    per component, or one for all (§2 C Multi-Part Attack Routine: declared in advance)."""

    type: Literal["attack"] = "attack"
    combatant_id: Id
    targets: list[Id] = Field(min_length=1, max_length=8)
    weapons: list[str] = Field(default_factory=list, max_length=8)
    fallback: Id | None = Field(
        default=None,
        description="§2 C Retargeting: if the target falls first, strike this one at +3 SF.",
    )
    twice: bool = Field(default=False, description="§2 C: a double attack (more than 3/round).")
    step: Cell | None = Field(default=None, description="§2 C Repositioning: 10 ft, +2 SF.")
    draw: str | None = Field(
        default=None, description="§2 E: drop the weapon in hand and draw this one (+3 SF)."
    )


class Cast(Command):
    """Begin a spell or psionic power (§2 A, B). `hold` keeps a cast spell for up to 6 more
    CT before it is released (§2 A Holding a Spell)."""

    type: Literal["cast"] = "cast"
    combatant_id: Id
    spell: str = Field(min_length=1, max_length=60)
    target: Id | None = None
    at: Cell | None = Field(
        default=None, description="The square an area spell is aimed at (instead of a target)."
    )
    hold: int = Field(default=0, ge=0, le=6)
    step: Cell | None = Field(default=None, description="§2 A Repositioning: 10 ft, +1 CT.")
    shift: Cell | None = Field(
        default=None,
        description=(
            "§2 A Movement and Spellcasting: a spell without a somatic component lets the "
            "caster shift 10 ft (a square) while casting, in this phase's movement; it has no "
            "Dexterity bonus to AC while casting."
        ),
    )


class Touch(Command):
    """§2 A Touch Spells: the touch of a completed touch spell, in an attack portion."""

    type: Literal["touch"] = "touch"
    combatant_id: Id
    target: Id


class Release(Command):
    """§2 A Holding a Spell and Movement and Spellcasting: let a held spell go in this phase's
    movement portion. An initiative winner releases it `before`, at the `midpoint` of, or
    `after` the losers' movement (at another winner: at the midpoint of the winners'
    movement); a loser's goes off after all movement."""

    type: Literal["release"] = "release"
    combatant_id: Id
    timing: Literal["before", "midpoint", "after"] = "after"


PreparationKind = Literal["draw", "components", "restring", "survey", "other"]


class Preparation(Frozen):
    """§2 E: a preparation made while moving, where the GM allows it."""

    what: PreparationKind
    weapon: str | None = None


class Move(Command):
    """Move up to a third of the current MV (§1 F, §2 D). `speed` changes the multiple of
    base MV first; `withdraw` leaves a melee at a third of that; `flee` leaves it at full
    speed but gives each foe a free attack; `stop_short` squares of a forced slowdown are
    skipped on a DEX check at -1 each."""

    type: Literal["move"] = "move"
    combatant_id: Id
    to: Cell
    path: list[Cell] | None = Field(default=None, max_length=100)
    speed: int | None = Field(default=None, ge=0, le=5)
    mode: Literal["normal", "withdraw", "flee"] = "normal"
    stop_short: int = Field(default=0, ge=0, le=60)
    attack: Id | None = Field(
        default=None,
        description="§2 F: a surprised foe may be attacked at the end of the move; §2 D: so "
        "may the foe moving `alongside`.",
    )
    alongside: Id | None = Field(
        default=None,
        description="§2 D Closing Movement's exception: move on beside this engaged foe "
        "(both riding the same way); holds only if the foe moves alongside this mover too.",
    )
    behind: Id | None = Field(
        default=None,
        description="§2 D Fleeing: flee behind this ally; foes it stands beside get no free "
        "attack.",
    )
    prepare: Preparation | None = Field(
        default=None,
        description="§2 E: a preparation made on the move, of a kind the GM allows (option "
        "prepare_while_moving).",
    )


class Charge(Command):
    """§2 D Charging: run at the target (at least twice base MV), strike on reaching it and
    overrun it by the rest of the phase's movement, or `barrel` into it."""

    type: Literal["charge"] = "charge"
    combatant_id: Id
    target: Id
    speed: int | None = Field(
        default=None,
        ge=0,
        le=5,
        description="Multiples of base MV; a charge needs 2 or more (`charge/too-slow`).",
    )
    weapon: str | None = None
    barrel: bool = False
    stop_short: int = Field(default=0, ge=0, le=60)
    backstab: bool = Field(default=False, description="A thief's charging backstab.")


class SetWeapon(Command):
    """§2 D Setting Weapons / Readying Defence: strike a charger or an accelerated foe as
    it arrives. The ready state lasts from phase to phase until an attack is made."""

    type: Literal["set-weapon"] = "set-weapon"
    combatant_id: Id
    weapon: str | None = None
    ambush: bool = Field(
        default=False,
        description="§2 D Ambush preparation: lie in wait; any foe entering reach is struck "
        "and may counterattack only after a passed surprise check.",
    )


class CoverArea(Command):
    """§2 D: cover a path or doorway with a missile weapon; shoot the first foe to enter."""

    type: Literal["cover-area"] = "cover-area"
    combatant_id: Id
    cells: list[Cell] = Field(min_length=1, max_length=100)
    weapon: str | None = None


class Prepare(Command):
    """§2 E Miscellaneous Preparation: draw or pick up a weapon, ready material
    components, restring a bow, or survey the battle."""

    type: Literal["prepare"] = "prepare"
    combatant_id: Id
    what: PreparationKind
    weapon: str | None = None
    note: str | None = Field(default=None, max_length=200)


class Stand(Command):
    """Do nothing this phase but defend."""

    type: Literal["stand"] = "stand"
    combatant_id: Id


class Cancel(Command):
    """§1 E Simultaneous Actions: "the action may be canceled; however, a checked swing or a
    voluntarily interruption of a spell still constitutes an attack or the casting for the
    round". Cancels the attack or cast declared this phase (the combatant then stands), or
    interrupts the spell it is casting or holding (it then declares again)."""

    type: Literal["cancel"] = "cancel"
    combatant_id: Id


class Surprise(Command):
    """GM, before the fight starts: who is surprised (§2 F: they lose the first phase) and
    who ambushes them (strikes in phase 1's attack portion at SF 1)."""

    type: Literal["surprise"] = "surprise"
    surprised: list[Id] = Field(min_length=1, max_length=100)
    ambushers: list[Id] = Field(default_factory=list, max_length=100)


class Ambush(Command):
    """GM, mid-fight (§2 F): a sudden ambush. The combatant rolls for surprise (+1 in the
    midst of an incantation) and loses the next phase if surprised."""

    type: Literal["ambush"] = "ambush"
    combatant_id: Id
    by: list[Id] = Field(
        default_factory=list,
        max_length=20,
        description="The ambushers: on a passed surprise roll, the bushwhacked returns the "
        "attack of each that strikes it this phase or the next (§2 F).",
    )


class SkillCheck(Command):
    """GM, during the fight (§4 Agility "THIEF ADJUSTMENTS"): a thief rolls d100 against one
    skill's percentage, adjusted by DEX (PH Table 28) or, with the option, AGI."""

    type: Literal["skill-check"] = "skill-check"
    combatant_id: Id
    skill: ThiefSkill


class Rest(Command):
    """GM, between fights (§5 Mana Recovery): hours slept and minutes of study."""

    type: Literal["rest"] = "rest"
    combatant_ids: list[Id] = Field(default_factory=list, max_length=100)
    hours: int = Field(ge=0, le=24)
    minutes: int = Field(default=0, ge=0, le=24 * 60)
    new_day: bool = True
    choose: dict[int, int] | None = Field(
        default=None, description="Mana System II: slots to recover, by spell level."
    )
    interruptions: list[Interruption] = Field(
        default_factory=list,
        max_length=10,
        description="§5 Recovery Limit: breaks in the study, each `after` minutes of it; "
        "one of up to 2 hours is borne, a longer or a second one ends the session.",
    )


COMMANDS: tuple[type[Command], ...] = (
    Attack, Cast, Touch, Release, Move, Charge, SetWeapon, CoverArea, Prepare, Stand, Surprise,
    Ambush, Rest, Cancel, SkillCheck,
)  # fmt: skip
