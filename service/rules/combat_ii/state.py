"""combat-ii state: the encounter's options, and what a fight keeps between commands: the
round and phase, each combatant's track, the intentions declared this phase, spells in
progress and effects. The stat block is in `stats`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState
from service.domain.table import Frozen
from service.rules.combat_ii.mana import BonusSpells, ManaSystem, Recovery, StartingMana
from service.rules.combat_ii.schedule import Track
from service.rules.combat_ii.stats import Weapon

Stage = Literal["setup", "intentions", "ended"]


class CombatIIOptions(EncounterOptions):
    phase_system: Literal["I", "II"] = Field(
        default="I", description="§1 four-phase rounds, or §3 continuous A/B/C phases."
    )
    criticals: Literal["none", "tables", "severity"] = Field(
        default="none", description="§4 Critical Hit and Miss Tables I, or II Severity Rules."
    )
    agility: bool = Field(
        default=False, description="§4 Agility: AGI for initiative and AC, DEX for SF."
    )
    incremental_movement: bool = Field(
        default=False, description="§2 D Half-Segment Incremental Movement (Table 3)."
    )
    hold_spells: bool = Field(default=True, description="§2 A Holding a Spell (up to 6 CT).")
    split_attack_forms: bool = Field(
        default=False, description="§2 C option: one attack form per phase (two beyond 3)."
    )
    caster_delay: Literal["flat", "by-level"] = Field(
        default="flat", description="§3 B: 2 phases after a spell, or Table 5 by level."
    )
    listed_damage: Literal["full", "half"] = Field(
        default="full", description="§4 Severity: a creature's listed damage bonus."
    )
    perception_thieves: bool = Field(default=False, description="§4 Perception: +2 per level.")
    mana: ManaSystem = Field(default="none", description="§5 Mana System I (points) or II.")
    bonus_spells: BonusSpells = "add"
    starting_mana: StartingMana = "standard"
    mana_recovery: Recovery = "flat"
    tangents_per_round: int = Field(
        default=2,
        ge=1,
        le=3,
        description="§2 B special option: tangents at one a phase, two a round (the seed's "
        "group allows 3).",
    )
    prepare_while_moving: tuple[
        Literal["draw", "components", "restring", "survey", "other"], ...
    ] = Field(
        default=(),
        description="§2 E: the preparations the GM allows on the move ('Some actions may be "
        "performed while moving, at the DM's discretion'); none by default.",
    )
    firing_into_melee: Literal["aimed", "random"] = Field(
        default="aimed",
        description="DMG Firing Into a Melee: a missile at a target in melee goes to one of "
        "the figures around it by size (random), or at the target named (aimed).",
    )
    intention_seconds: float | None = Field(
        default=None, gt=0, le=86_400, description="Seconds to declare; then stand by default."
    )


class Intention(Frozen):
    """What a combatant will do this phase (§1 C): one action."""

    kind: Literal[
        "attack", "cast", "touch", "release", "move", "charge", "set-weapon", "cover-area",
        "prepare", "stand", "continue", "surprised", "helpless",
    ]  # fmt: skip
    targets: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    fallback: str | None = None
    twice: bool = False
    spell: str | None = None
    hold: int = 0
    step: Cell | None = None
    shift: Cell | None = None
    to: Cell | None = None
    path: tuple[Cell, ...] = ()
    speed: int | None = None
    mode: Literal["normal", "withdraw", "flee"] = "normal"
    stop_short: int = 0
    barrel: bool = False
    backstab: bool = False
    cells: tuple[Cell, ...] = ()
    what: str | None = None
    draw: str | None = None
    timing: Literal["before", "midpoint", "after"] | None = None
    at: Cell | None = None
    alongside: str | None = None
    behind: str | None = None


class Casting(Frozen):
    """A spell in progress (§1 G): CT units still to pass, and what was paid for it."""

    spell: str
    target: str | None = None
    left: int
    rounds: int | None = Field(default=None, description="One-round spells: rounds left.")
    begun_tick: int
    round: int
    somatic: bool = True
    hold: int = Field(default=0, description="CT units of holding at the end (§2 A).")
    material: bool = False
    touch: bool = False
    shifted: bool = Field(
        default=False, description="Shifting while casting: no DEX bonus to AC (§2 A)."
    )
    at: Cell | None = Field(default=None, description="The square an area spell is aimed at.")
    enhances: bool = Field(default=False, description="§2 B: a blow-enhancing power.")
    tangent: bool = Field(default=False, description="§2 B: a contact power making a tangent.")


class Effect(Frozen):
    """A timed state from a critical, a fall or a penalty: lasts through phase tick `until`."""

    name: str
    until: int
    value: int = 0
    on_end: Literal["agility-or-knees"] | None = None
    ends_on_attack: bool = False
    starts: int = Field(default=0, description="The phase tick it takes hold (next phase).")
    source: str | None = Field(default=None, description="The spell that caused it.")


class Fighter(Frozen):
    """What the rules remember of one combatant between commands."""

    factor: int = Field(default=0, description="Current speed as a multiple of MV (0-5).")
    phase_factor: int = Field(default=0, description="The speed the phase began at.")
    returns: dict[str, int] = Field(
        default_factory=dict,
        description="§2 F: ambushers whose attacks this combatant returns, to the last phase "
        "tick it may.",
    )
    noticed_by: tuple[str, ...] = Field(
        default=(),
        description="§2 D: those who have noticed this combatant (they have traded blows), "
        "whom it cannot charge with a backstab.",
    )
    top_factor: int = 0
    used: dict[str, int] = Field(default_factory=dict, description="Attacks this round.")
    attacked_round: int = 0
    attacked_tick: int = -1
    cast_round: int = 0
    completed_round: int = 0
    completed_tick: int = -1
    casting: Casting | None = None
    charged: str | None = Field(default=None, description="A touch spell waiting its touch.")
    ruined_round: int = 0
    damaged_tick: int = -1
    ready: str | None = Field(default=None, description="The weapon set or covering.")
    covering: tuple[Cell, ...] = ()
    ambush: bool = Field(default=False, description="§2 D: the set weapon lies in ambush.")
    effects: tuple[Effect, ...] = ()
    in_hand: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    dropped_at: dict[str, Cell] = Field(
        default_factory=dict, description="§4: the square each dropped weapon lies on, if known."
    )
    components: bool = True
    string_broken: tuple[str, ...] = ()
    free_attacks: int = 0
    sequence: int = Field(default=0, description="System II: place in the delay schedule.")
    rest_until: int = Field(default=-1, description="System II: no attack through this tick.")
    cast_rest_until: int = Field(default=-1, description="System II: no casting through this.")
    spells_in_row: int = 0
    recovered_today: int = 0
    fumbled_tick: int = -1
    enhanced_tick: int = Field(default=-1, description="§2 B: a blow-enhancing power went off.")
    tangent_round: int = Field(default=0, description="§2 B: the round of the last tangent.")
    tangents_in_round: int = 0
    tangent_tick: int = -1
    tangents: dict[str, int] = Field(
        default_factory=dict, description="§2 B: tangents established on each target (3: contact)."
    )
    missiles_spent: dict[str, int] = Field(
        default_factory=dict, description="Missiles shot this fight by each counted weapon."
    )
    missiles_broken: dict[str, int] = Field(
        default_factory=dict, description="§4 MW: of those, the ones broken in a misfire."
    )

    def effect(self, name: str) -> Effect | None:
        return next((e for e in self.effects if e.name == name), None)

    def ammunition_left(self, weapon: Weapon) -> int | None:
        """Missiles left for a weapon that counts them (None: not counted)."""
        if weapon.ammunition is None:
            return None
        return max(0, weapon.ammunition - self.missiles_spent.get(weapon.name, 0))


class CombatIIState(EncounterState):
    options: CombatIIOptions
    stage: Stage = "setup"
    round: int = 0
    phase: int = 0
    tick: int = Field(default=0, description="Action phases begun so far (durations count them).")
    rolls: dict[str, int] = Field(default_factory=dict, description="Group initiative d10s.")
    tracks: dict[str, Track] = Field(default_factory=dict)
    intentions: dict[str, Intention] = Field(default_factory=dict)
    fighters: dict[str, Fighter] = Field(default_factory=dict)
    surprised: tuple[str, ...] = ()
    ambushers: tuple[str, ...] = ()
    damage_text_faces: bool = Field(
        default=False,
        description="`damage-rolled.text` of a weapon or a touch shows the faces rolled "
        "(ruleset 1.1.0 on); false in encounters created with 1.0.0, which said the expression.",
    )
    unplaced_sf_null: bool = Field(
        default=False,
        description="`attack-rolled.sf` is null for the movement portion's blows (ruleset "
        "1.1.0 on); false in encounters created with 1.0.0, which said 0 for them.",
    )
