"""combat-ii events. Hit point and mana changes are the shared `resource-adjusted` events
(gm_override false) that follow damage and casting; a fall to 0 hp is `combatant-downed`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.messages import Event
from service.rules.combat_ii.abilities import Check
from service.rules.combat_ii.schedule import Track
from service.rules.combat_ii.state import Casting, Effect, Intention


class RoundBegan(Event):
    type: Literal["round-began"] = "round-began"
    round: int


class InitiativeRolled(Event):
    """§1 A-B (System I each round; §3 A System II each A phase): the group d10s, lowest
    wins, and each combatant's track after its reaction adjustment."""

    type: Literal["initiative-rolled"] = "initiative-rolled"
    rolls: dict[str, int]
    rerolled: tuple[str, ...] = ()
    winner: str | None
    tracks: dict[str, Track]
    scores: dict[str, int]


class PhaseBegan(Event):
    type: Literal["phase-began"] = "phase-began"
    round: int
    phase: int
    label: str
    tick: int


class IntentionDeclared(Event):
    type: Literal["intention-declared"] = "intention-declared"
    combatant_id: str
    intention: Intention
    automatic: bool = False
    reason: str | None = Field(
        default=None, description="Why an automatic intention replaced the declared one."
    )


class PhaseEnded(Event):
    type: Literal["phase-ended"] = "phase-ended"
    round: int
    phase: int
    tick: int


class AttackRolled(Event):
    """One component of an attack routine: the d20 against the number needed (§1 E: all
    the to-hit rolls of a half-segment come before its damage)."""

    type: Literal["attack-rolled"] = "attack-rolled"
    attacker: str
    target: str
    weapon: str
    half_segment: int
    roll: int
    needed: int
    hit: bool
    severe: bool = False
    kind: Literal["attack", "free", "counter", "charge", "set", "cover", "extra", "touch"] = (
        "attack"
    )
    sf: int | None = None
    track: Track | None = None


class DamageRolled(Event):
    """A blow's damage, with its dice in the envelope's `rolls`: the target's health, so a
    player of another side is not told of it (`hide_enemy_health`); `attack-rolled` still
    says the blow hit."""

    type: Literal["damage-rolled"] = "damage-rolled"
    health_of = "target"
    attacker: str | None
    target: str
    source: str
    half_segment: int
    amount: int
    text: str
    how: str = "normal"


class CriticalRolled(Event):
    """§4 Critical Hit and Miss Tables I: the d10 on a natural 20 or 1."""

    type: Literal["critical-rolled"] = "critical-rolled"
    combatant_id: str
    kind: Literal["hit", "miss"]
    d10: int
    result: str
    missile_broken: str | None = Field(
        default=None, description="§4 MW: the bow or crossbow whose missile broke in the misfire."
    )


class CheckRolled(Event):
    type: Literal["check-rolled"] = "check-rolled"
    combatant_id: str
    check: Check


class EffectApplied(Event):
    type: Literal["effect-applied"] = "effect-applied"
    combatant_id: str
    effect: Effect


class EffectEnded(Event):
    type: Literal["effect-ended"] = "effect-ended"
    combatant_id: str
    name: str


class SpellBegun(Event):
    type: Literal["spell-begun"] = "spell-begun"
    combatant_id: str
    casting: Casting
    completes: str


class SpellCompleted(Event):
    """A spell goes off: at its target or the square `at`, catching `affected`; a target who
    has gone beyond the spell's range escapes it (`out_of_range`)."""

    type: Literal["spell-completed"] = "spell-completed"
    combatant_id: str
    spell: str
    target: str | None
    half_segment: int
    touch: bool = False
    at: Cell | None = None
    affected: tuple[str, ...] = ()
    out_of_range: bool = False


class SpellRuined(Event):
    """§2 A Caster Takes Damage: damage while casting (or holding) ruins the spell."""

    type: Literal["spell-ruined"] = "spell-ruined"
    combatant_id: str
    spell: str
    half_segment: int
    reason: str


class CastingDelayed(Event):
    """§2 A: hit before the phase of a casting and failed CON: it starts a phase later."""

    type: Literal["casting-delayed"] = "casting-delayed"
    combatant_id: str
    spell: str


class CastingProgressed(Event):
    type: Literal["casting-progressed"] = "casting-progressed"
    combatant_id: str
    left: int
    rounds: int | None = None


class Moved(Event):
    type: Literal["moved"] = "moved"
    combatant_id: str
    path: tuple[Cell, ...]
    mode: Literal["normal", "withdraw", "flee", "charge", "overrun", "step", "shift"] = "normal"
    half_segment: int | None = None


class SpeedChanged(Event):
    """§2 D Change of Current MV: the multiple of base MV now moved at (0 = standing)."""

    type: Literal["speed-changed"] = "speed-changed"
    combatant_id: str
    factor: int


class WeaponDropped(Event):
    """A weapon out of hand (or, `string-broken`, unusable in hand); `at` is the square it
    lies on, when the map and the combatant's position say (§4 Critical Miss)."""

    type: Literal["weapon-dropped"] = "weapon-dropped"
    combatant_id: str
    weapon: str
    how: Literal["dropped", "string-broken", "flung"] = "dropped"
    at: Cell | None = None


class WeaponReadied(Event):
    """A weapon drawn or picked up, a bow restrung, components readied (§2 E), or a weapon
    set / an area covered (§2 D Setting Weapons); `ready` empties when the attack is made."""

    type: Literal["weapon-readied"] = "weapon-readied"
    combatant_id: str
    what: str
    weapon: str | None = None
    ready: str | None = None
    cells: tuple[Cell, ...] = ()


class ReadyEnded(Event):
    type: Literal["ready-ended"] = "ready-ended"
    combatant_id: str


class SequenceSet(Event):
    """§3 C, Tables 5-7: where a combatant stands in its System II delay schedule, and the
    last phase tick in which it may not attack or cast."""

    type: Literal["sequence-set"] = "sequence-set"
    combatant_id: str
    sequence: int
    rest_until: int
    cast_rest_until: int
    spells_in_row: int = 0


class AmbushSet(Event):
    """§2 D: an ambush at the start of battle strikes in phase 1's attack portion at SF 1."""

    type: Literal["ambush-set"] = "ambush-set"
    ambushers: tuple[str, ...]
    surprised: tuple[str, ...]


class Rested(Event):
    """§5 Mana Recovery: a GM `rest` between fights."""

    type: Literal["rested"] = "rested"
    combatant_id: str
    hours: int
    minutes: int
    restored: dict[str, int]
    counted: int = 0
    new_day: bool = True
    interrupted_after: int | None = None
    """§5 Recovery Limit: the study minutes after which an interruption ended the session."""


class SaveRolled(Event):
    """PH saving throw against a spell: d20 plus `bonus` at or over `needed` saves."""

    type: Literal["save-rolled"] = "save-rolled"
    combatant_id: str
    spell: str
    against: str
    roll: int
    bonus: int
    needed: int
    saved: bool


class IntentionCancelled(Event):
    """§1 E: a cancelled `attack` (its `weapons` spent, "a checked swing ... still constitutes
    an attack"), a cancelled `cast` or an interrupted `spell` (either is "the casting for the
    round"). A cancelled attack or cast leaves the combatant standing; after an interrupted
    spell it declares again."""

    type: Literal["intention-cancelled"] = "intention-cancelled"
    combatant_id: str
    what: Literal["attack", "cast", "spell"]
    spell: str | None = None
    weapons: tuple[str, ...] = ()


class ShotIntoMelee(Event):
    """DMG Firing Into a Melee: the die that picks which figure around the intended target a
    missile goes at, each by its `shares` (by size)."""

    type: Literal["shot-into-melee"] = "shot-into-melee"
    attacker: str
    intended: str
    target: str
    roll: int
    shares: dict[str, int]


class ReturnReady(Event):
    """§2 F: the bushwhacked passed its surprise roll: through phase tick `until` it returns
    the attack of each of `against` that strikes it."""

    type: Literal["return-ready"] = "return-ready"
    combatant_id: str
    against: tuple[str, ...]
    until: int


class Interposed(Event):
    """§2 D Fleeing: an ally beside the fleer's foes interposes itself; those foes get no
    free attack."""

    type: Literal["interposed"] = "interposed"
    combatant_id: str
    fleer: str
    foes: tuple[str, ...]


class TangentEstablished(Event):
    """§2 B: a contact power's tangent on `target`; the third makes `contact`."""

    type: Literal["tangent-established"] = "tangent-established"
    combatant_id: str
    target: str
    tangents: int
    contact: bool


EVENTS: tuple[type[Event], ...] = (
    RoundBegan, InitiativeRolled, PhaseBegan, IntentionDeclared, PhaseEnded, AttackRolled,
    DamageRolled, CriticalRolled, CheckRolled, EffectApplied, EffectEnded, SpellBegun,
    SpellCompleted, SpellRuined, CastingDelayed, CastingProgressed, Moved, SpeedChanged,
    WeaponDropped, WeaponReadied, ReadyEnded, SequenceSet, AmbushSet, Rested, SaveRolled,
    IntentionCancelled, ShotIntoMelee, TangentEstablished, Interposed,
    ReturnReady,
)  # fmt: skip
