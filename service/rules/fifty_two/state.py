"""fifty-two state: stat blocks (the seed's Addendum), options, the initiative chart, the
field of battle, turns, hits against armor and spells being cast."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from service.domain import dice
from service.domain.errors import RuleViolation
from service.domain.hidden import Hidden
from service.domain.limits import ARRAY
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState
from service.domain.table import Frozen
from service.rules.fifty_two.armor_types import ArmorType, DamageType, natural_armor
from service.rules.fifty_two.layout import Battlefield

ALLIES = "allies"
_INT = TypeAdapter(int)
Size = Literal["small", "medium", "large"]
Phase = Literal["setup", "surprise", "columns", "deal", "surprise-cards", "running", "ended"]


class Weapon(Frozen):
    name: str = Field(default="weapon", min_length=1, max_length=60)
    damage_type: DamageType = "slashing"
    enchantment: int = Field(default=0, ge=0, le=10)
    uses: Literal["str", "dex"] = Field(
        default="str", description="fifty-two §5.1: the bonus the weapon is wielded with."
    )


class Spell(Frozen):
    name: str = Field(min_length=1, max_length=60)
    rounds: int = Field(default=1, ge=1, le=20, description="Rounds of casting (§5.2).")
    instantaneous: bool = False
    damage: str | None = Field(default=None, max_length=50)
    reflex_dc: int | None = Field(
        default=None, ge=1, le=100, description="A Reflex save against it halves the damage (§8)."
    )

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str | None) -> str | None:
        return dice.checked_optional(value)


class FiftyTwoStats(Frozen):
    """A combatant as the seed's Addendum lists one (fifty-two Addendum, §2, §5.1, §5.3)."""

    hp: Annotated[int, Hidden()] = Field(default=1, ge=1, le=100_000)
    dex_mod: int = Field(default=0, ge=-10, le=30)
    str_mod: int = Field(default=0, ge=-10, le=30)
    dex: int | None = Field(default=None, ge=1, le=60, description="DEX score (§2.1 #6).")
    int_score: int = Field(default=10, ge=1, le=60, description="INT score (§2.1 #7).")
    str_score: int | None = Field(default=None, ge=1, le=60, description="STR score (§2.1 #8).")
    initiative_modifier: int = Field(default=0, ge=-30, le=30)
    initiative_circumstantial: int = Field(default=0, ge=-30, le=30)
    magical_attack: int = Field(default=0, ge=-10, le=20)
    classed: bool = Field(default=True, description="False for Enemies without class levels.")
    class_ability_bonus: int | None = Field(
        default=None, ge=-10, le=30, description="§5.1: a class's own bonus instead of DEX/STR."
    )
    cr: int | None = Field(default=None, ge=0, le=100, description="§5.1: unclassed Enemies.")
    attack_bonus: int = Field(default=0, ge=0, le=60, description="Character level or HD.")
    class_bonus: int = Field(default=0, ge=-10, le=30)
    circumstantial: int = Field(default=0, ge=-30, le=30)
    magic_defense: int = Field(default=0, ge=0, le=20)
    armor: ArmorType = "none"
    armor_enchantment: int = Field(default=0, ge=0, le=10)
    natural_ac: int | None = Field(
        default=None,
        ge=0,
        le=60,
        description=(
            "§5.3.2: a monster's AC, for Fray to turn into its armor equivalent (armor and "
            "armor_enchantment are then Fray's to fill in)."
        ),
    )
    ac_stat_bonus: int | None = Field(
        default=None,
        ge=-10,
        le=30,
        description="§5.3.2: the stat-based bonuses in natural_ac; dex_mod when not given.",
    )
    shield: int | None = Field(default=None, ge=0, le=10)
    shield_enchantment: int = Field(default=0, ge=0, le=10)
    vulnerable_to: DamageType | Literal["all"] | None = Field(
        default=None, description="Overrides the §5.3 table, as the Addendum's (V ...) does."
    )
    weapon: Weapon = Field(default_factory=Weapon)
    normal_damage: str = Field(default="1", max_length=50)
    critical_damage: str = Field(default="2", max_length=50)
    size: Size = "medium"
    speed: int = Field(default=30, ge=0, le=500)
    reflex_save: int = Field(default=0, ge=-10, le=40)
    surprise: bool = Field(default=False, description="Has a surprise attack (§1).")
    spells: Annotated[tuple[Spell, ...], ARRAY] = Field(default=(), max_length=40)

    @field_validator("normal_damage", "critical_damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        return dice.checked(value)

    @model_validator(mode="before")
    @classmethod
    def _natural_armor(cls, data: Any) -> Any:
        """fifty-two §5.3.2: a natural AC becomes the armor it is equivalent to, its
        magical defensive bonus the armor's enchantment (the Addendum's Esther: Magic Def
        +2, "Ring +2"). A stat block that also names the armor must name the same one."""
        if not isinstance(data, dict) or data.get("natural_ac") is None:
            return data
        stat = data.get("ac_stat_bonus")
        try:
            ac, magic, bonus = (
                _INT.validate_python(v)
                for v in (
                    data["natural_ac"],
                    data.get("magic_defense", 0),
                    data.get("dex_mod", 0) if stat is None else stat,
                )
            )
        except ValidationError:
            return data  # the fields' own validation names what is wrong
        try:
            armor = natural_armor(ac, magic, bonus)
        except RuleViolation as refused:
            raise ValueError(refused.message) from None
        equivalent: dict[str, Any] = {"armor": armor, "armor_enchantment": magic}
        for key, value in equivalent.items():
            if data.get(key, value) != value:
                raise ValueError(
                    f"{key} is {data[key]!r}, but a natural AC of {ac} (magic defense {magic}, "
                    f"stat bonuses {bonus}) is equivalent to {armor} +{magic} "
                    "(fifty-two §5.3.2): give one or the other"
                )
        return {**data, **equivalent}

    @property
    def dex_score(self) -> int:
        return self.dex if self.dex is not None else 10 + 2 * self.dex_mod

    @property
    def str_value(self) -> int:
        return self.str_score if self.str_score is not None else 10 + 2 * self.str_mod

    def spell(self, name: str) -> Spell | None:
        return next((s for s in self.spells if s.name == name), None)


class FiftyTwoOptions(EncounterOptions):
    initiative_die: str = Field(
        default="1d20", max_length=50, description="§2: the die of the initiative roll."
    )
    depth: Literal[4, 5] = Field(default=5, description="Variations: 4 slows the pace.")
    add_row_in_round: Literal[2, 3] | None = Field(
        default=None,
        description="Variations (hybrid): with depth 4, a card on each column in round 2 or 3.",
    )
    armor_hits: Literal["reset", "carry"] = Field(
        default="reset",
        description=(
            "§5.3.3: when hits reach the rating, reset: the count starts again from zero (the "
            "seed's Evans: every second critical at rating 5); carry: the rating is subtracted "
            "and the excess counts towards the next."
        ),
    )
    shield_magic: Literal["if-enchanted", "always"] = Field(
        default="if-enchanted",
        description=(
            "§5.3.2: whether a shield's score counts towards the defender's magic. "
            'if-enchanted (the seed\'s letter, "If the armor is enchanted"): only an '
            "enchanted shield's, as Evans's (+2+1+1) counts Alan's Shield +1(+1); always: "
            "every shield's (ruleset 1.0.0, which had no choice)."
        ),
    )
    decision_seconds: float | None = Field(
        default=20.0, gt=0, le=3600, description="§4.5: seconds per decision; none for no clock."
    )

    @field_validator("initiative_die")
    @classmethod
    def _a_dice_expression(cls, expression: str) -> str:
        return dice.checked(expression)


class Rank(Frozen):
    """One combatant's initiative: the roll and its total, then its place on the chart."""

    die_roll: int
    total: int
    roll_off: tuple[int, ...] = ()


class Turn(Frozen):
    """The combatant acting now: action points left, opportunities created and not yet
    executed, and what may be done once a turn."""

    combatant_id: str
    points: int
    bonus: int
    normal: int = 0
    critical: int = 0
    moved: bool = False
    free_step: bool = True
    acted: bool = False
    foe: str = ALLIES
    placed: dict[int, int] = Field(default_factory=dict)


class Casting(Frozen):
    """A spell under way (§5.2): rounds cast so far, whether suspended, its target."""

    spell: str
    target: str | None = None
    rounds_done: int = 0
    suspended: bool = False
    cast_in_round: int = 0
    complete: bool = False


class PendingSpell(Frozen):
    """A spell waiting for its target's Reflex save decision (§8)."""

    caster: str
    spell: str
    target: str


class FiftyTwoState(EncounterState):
    options: FiftyTwoOptions
    phase: Phase = "setup"
    round: int = 0
    ranks: dict[str, Rank] = Field(default_factory=dict)
    chart: tuple[tuple[str, int], ...] = Field(
        default=(), description="The initiative chart, fastest first: (combatant, number)."
    )
    resequenced: bool = False
    surprise_left: tuple[str, ...] = Field(
        default=(), description="Round 0 (§1) and §4.3-§4.4: who still has a surprise move."
    )
    columns: int = 0
    chooser: str | None = Field(default=None, description="§4.1: the side choosing columns.")
    field: Battlefield | None = None
    surprise_columns: tuple[int, ...] = ()
    acted: tuple[str, ...] = Field(default=(), description="Who has acted or held this round.")
    turn: Turn | None = None
    hits: dict[str, int] = Field(
        default_factory=dict, description="§5.3.3: successful attacks counted against armor."
    )
    last_attacker: dict[str, str] = Field(default_factory=dict)
    castings: dict[str, Casting] = Field(default_factory=dict)
    pending_spell: PendingSpell | None = None
    saves_hold_clock: bool = Field(
        default=False,
        description="§4.5 and §8: while a spell waits for a Reflex save the decision clock is "
        "stopped, and the caster gets it afresh once the spell lands (1.3.0 on, set when an "
        "encounter is created); false in encounters created before, whose clock ran on.",
    )
    debts: dict[str, int] = Field(
        default_factory=dict, description="§8: action points owed to reflex saves."
    )
    engaged: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="Opponents within each combatant's attack range."
    )
