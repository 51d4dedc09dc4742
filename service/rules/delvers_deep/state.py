"""Delver's Deep state: stat blocks, options, the combat order, turns, effects and the queue
of hits and reactions still to resolve."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from service.domain import dice
from service.domain.hidden import Hidden
from service.domain.limits import ARRAY
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState
from service.domain.table import Frozen

PoolName = Literal["fort", "ref", "will"]
POOLS: tuple[PoolName, ...] = ("fort", "ref", "will")
Side = Literal["pcs", "gm"]
# delvers-deep 4.1 Movement: [SMALL] 3", [MEDIUM] 4", [LARGE] 5".
SPEED = {"small": 3, "medium": 4, "large": 5}
DODGEABLE = frozenset({"ATTACK", "PROJECTILE"})
# A 1 always fails (interpretation): no improvement takes a check below 2+.
BEST_DC = 2


class Weapon(Frozen):
    name: str = Field(min_length=1, max_length=60)
    kind: Literal["melee", "ranged"] = "melee"
    reach: int = Field(default=1, ge=1, le=100)
    range: int | None = Field(default=None, ge=1, le=1000)
    damage: str = Field(default="1", min_length=1, max_length=50)
    hit: int = Field(default=4, ge=1, le=7)
    loading: bool = False
    reload_fort: int = Field(default=0, ge=0, le=20)
    tags: Annotated[tuple[str, ...], ARRAY] = ()
    # `uses` came after streams were recorded: a weapon that does not set it is written as
    # before (`exclude_if`), so `combatant-added`, which echoes the stat block, decides the same.
    uses: Literal["fort", "ref"] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description='The pool an attack with it spends (4.1 Physical Attack): "Most melee '
        'weapon attacks use Fortitude", so a melee weapon may say `ref`; a ranged one uses '
        "Reflex. None: FORT for melee, REF for ranged.",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_tags(cls, data: Any) -> Any:
        # delvers-deep 4.1 Dodge: melee blows are [ATTACK]s, shots are [PROJECTILE]s.
        if isinstance(data, dict) and data.get("tags") is None:
            ranged = data.get("kind") == "ranged"
            return {**data, "tags": ["PROJECTILE"] if ranged else ["ATTACK"]}
        return data

    @model_validator(mode="after")
    def _ranged_uses_reflex(self) -> Weapon:
        if self.kind == "ranged" and self.uses == "fort":
            raise ValueError("a ranged weapon uses Reflex (4.1: all ranged weapons use Reflex)")
        return self

    @property
    def pool(self) -> Literal["fort", "ref"]:
        """The pool its attacks spend: `uses`, else FORT for melee and REF for ranged."""
        return self.uses or ("fort" if self.kind == "melee" else "ref")

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        return dice.checked(value)


class Spell(Frozen):
    name: str = Field(min_length=1, max_length=60)
    will: int = Field(default=1, ge=0, le=50)
    dc: int | None = Field(default=None, ge=1, le=7)
    damage: str | None = Field(default=None, max_length=50)
    tags: tuple[str, ...] = ()

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str | None) -> str | None:
        return dice.checked_optional(value)


class DelversStats(Frozen):
    """delvers-deep 4.1: a stat block. FORT, REF and WILL are pool maxima; health is "hp".
    All four are hidden with `hide_enemy_health`: the pools are, and "fortitude is tied to
    Health" (4.1 Movement, Design Note)."""

    kind: Literal["pc", "creature"] = "creature"
    size: Literal["small", "medium", "large"] = "medium"
    fort: Annotated[int, Hidden()] = Field(default=0, ge=0, le=100)
    ref: Annotated[int, Hidden()] = Field(default=0, ge=0, le=100)
    will: Annotated[int, Hidden()] = Field(default=0, ge=0, le=100)
    health: Annotated[int, Hidden()] = Field(default=1, ge=1, le=10_000)
    recovery: int = Field(default=0, ge=0, le=100)
    recovery_order: tuple[PoolName, ...] = POOLS
    health_dc: int = Field(default=4, ge=1, le=7)
    dodge_dc: int = Field(default=6, ge=1, le=7)
    sanity_dc: int = Field(default=4, ge=1, le=7)
    weapons: tuple[Weapon, ...] = Field(default=(), max_length=20)
    spells: tuple[Spell, ...] = Field(default=(), max_length=40)
    group: str | None = Field(default=None, max_length=60)

    @property
    def speed(self) -> int:
        return SPEED[self.size]

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)

    def spell(self, name: str) -> Spell | None:
        return next((s for s in self.spells if s.name == name), None)

    def melee_reach(self) -> int | None:
        weapon = self.opportunity_weapon()
        return weapon.reach if weapon is not None else None

    def opportunity_weapon(self) -> Weapon | None:
        """The melee weapon an opportunity attack is made with: the longest reach (4.1)."""
        melee = [w for w in self.weapons if w.kind == "melee"]
        return max(melee, key=lambda w: w.reach) if melee else None


Lasts = Literal["start-of-next-turn", "end-of-next-turn"]


class DelversOptions(EncounterOptions):
    first_side: Side = Field(default="pcs", description="Who takes the first slot of a round.")
    ambush: Side | None = Field(
        default=None, description="The side that acts entirely first in round 1."
    )
    health_check: Literal["off", "halve-damage"] = Field(
        default="off",
        description="halve-damage: every undodged hit calls a Health check that halves it.",
    )
    encourage_lasts: Lasts = "end-of-next-turn"
    focus_lasts: Lasts = "start-of-next-turn"


Check = Literal["health", "dodge", "sanity"]
EffectKind = Literal["brace", "defend", "focus", "encourage"]
CHECK_OF: dict[str, Check] = {
    "brace": "health",
    "defend": "dodge",
    "focus": "sanity",
    "encourage": "sanity",
}


class Effect(Frozen):
    """An improvement of one check by one, from `source`, until a moment of the target's
    turn after its turn number `after_turn` (the turn it had taken when the effect began)."""

    kind: EffectKind
    source: str
    after_turn: int
    lasts: Lasts


class Reflex(Frozen):
    roll: int
    spent: int = 0

    @property
    def total(self) -> int:
        return self.roll + self.spent


class Turn(Frozen):
    actions_used: int = 0
    recovered: bool = False
    moves: int = 0
    braced: bool = False
    defended: bool = False
    focused: bool = False
    encouraged: tuple[str, ...] = ()


PendingKind = Literal["hit", "opportunity", "interact"]


class Pending(Frozen):
    """Something that waits its turn for a reaction window: a hit (dodge), a move into reach
    (opportunity attacks) or an interaction with a creature (participate)."""

    id: int
    kind: PendingKind
    actor: str
    target: str
    weapon: str | None = None
    damage: Annotated[int, Hidden(of="target")] = 0
    tags: tuple[str, ...] = ()
    attackers: tuple[str, ...] = ()
    description: str | None = None


class DelversTrigger(Frozen):
    """The shape of a delvers-deep reaction window's trigger (attacks.open_next), declared
    for what it hides: a hit's damage is its target's health."""

    resolves: int
    actor: str
    target: str
    kind: Literal["attack", "opportunity-attack", "interact"]
    weapon: str | None = None
    damage: Annotated[int, Hidden(of="target")] = 0
    description: str | None = None


class DelversState(EncounterState):
    options: DelversOptions
    phase: Literal["setup", "reflex", "running", "ended"] = "setup"
    round: int = 0
    reflex: dict[str, Reflex] = Field(default_factory=dict)
    pc_order: tuple[str, ...] = ()
    acted: tuple[str, ...] = ()
    last_side: Side | None = None
    current: tuple[str, ...] = ()
    turns: dict[str, Turn] = Field(default_factory=dict)
    turns_taken: dict[str, int] = Field(default_factory=dict)
    effects: dict[str, tuple[Effect, ...]] = Field(default_factory=dict)
    unloaded: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="[LOADING] weapons fired and not yet reloaded."
    )
    pending: tuple[Pending, ...] = ()
    pending_seq: int = 0
