"""fifty-two events. Hit points change through the shared `resource-adjusted` events
(gm_override false) that follow the attacks here."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from service.domain.hidden import Hidden
from service.domain.messages import Event
from service.domain.upcasting import Upcaster
from service.rules.fifty_two.cards import Card
from service.rules.fifty_two.sides import DAMAGE_ROLL

# The damage of a blow or a spell on a combatant is its health, and so are its dice.
Damage = Annotated[int, Hidden(of="target", rolls=f"{DAMAGE_ROLL} (*")]

Side = Literal["allies", "enemies"]
Cards = tuple[Card, ...]


class InitiativeRolled(Event):
    """fifty-two §2: one combatant's die and initial total."""

    type: Literal["initiative-rolled"] = "initiative-rolled"
    combatant_id: str
    die_roll: int
    total: int


class RolledOff(Event):
    """fifty-two §2.1 #9: a roll-off between combatants equal on every other tie-breaker."""

    type: Literal["rolled-off"] = "rolled-off"
    combatant_id: str
    roll: int


class TieBroken(Event):
    """fifty-two §2.1: two combatants tied at `tied_at` parted by tie-breaker `decided_by`
    (1-9, named `tie_breaker`); `moved` takes `to`.

    Schema 2. Schema 1 named the tied number `at`, which in an export sat beside the
    envelope's own `at` (the time of recording) and read as a second timestamp."""

    type: Literal["tie-broken"] = "tie-broken"
    tied_at: int = Field(description="The initiative number the two were tied at.")
    winner: str
    loser: str
    decided_by: int
    tie_breaker: str
    moved: str
    to: int


def tie_broken_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 to 2: `at` is `tied_at`. Data without it is left for the model to refuse."""
    if "at" not in data:
        return data
    rest = {key: value for key, value in data.items() if key != "at"}
    return {"tied_at": data["at"], **rest}


class InitiativeSet(Event):
    """The chart, fastest first (§2.1 at the start, §6 at round 2)."""

    type: Literal["initiative-set"] = "initiative-set"
    chart: tuple[tuple[str, int], ...]
    reason: Literal["rolled", "resequenced"] = "rolled"


class SurpriseRoundBegan(Event):
    """fifty-two §1: who attacks in round 0, in descending DEX."""

    type: Literal["surprise-round-began"] = "surprise-round-began"
    order: tuple[str, ...]


class SurpriseAttacked(Event):
    type: Literal["surprise-attacked"] = "surprise-attacked"
    combatant_id: str
    target: str
    damage: Damage


class SurprisePassed(Event):
    type: Literal["surprise-passed"] = "surprise-passed"
    combatant_id: str


class ColumnChoiceBegan(Event):
    """fifty-two §4, §4.1: the columns before the modifier, and the side that chooses it."""

    type: Literal["column-choice-began"] = "column-choice-began"
    side: Side
    columns: int


class ColumnsChosen(Event):
    type: Literal["columns-chosen"] = "columns-chosen"
    side: Side
    modifier: int
    columns: int


class FieldDealt(Event):
    """fifty-two §3, §4.2: the layout (each column bottom row first) and the face-down pool,
    whose order no viewer is shown (it is redacted until the encounter ends)."""

    type: Literal["field-dealt"] = "field-dealt"
    columns: tuple[Cards, ...]
    pool: Cards
    depth: int
    padding: int = 0
    source: Literal["server", "table"] = "server"


class SurpriseCardsBegan(Event):
    """fifty-two §4.3, §4.4: who may take (Allies) or add (Enemies) a card."""

    type: Literal["surprise-cards-began"] = "surprise-cards-began"
    side: Side
    order: tuple[str, ...]


class CardTaken(Event):
    type: Literal["card-taken"] = "card-taken"
    combatant_id: str
    card: Card
    column: int


class SurpriseCardAdded(Event):
    type: Literal["surprise-card-added"] = "surprise-card-added"
    combatant_id: str
    column: int
    card: Card


class RoundStarted(Event):
    type: Literal["round-started"] = "round-started"
    round: int


class RowAdded(Event):
    """fifty-two Variations (hybrid): a card on top of each column, the depth grows by one."""

    type: Literal["row-added"] = "row-added"
    cards: Cards


class DiscardReshuffled(Event):
    """fifty-two §5.2: the pool ran out; the discard stack, shuffled, is the new pool
    (appended to what is left of it). The order is redacted like the deal's pool."""

    type: Literal["discard-reshuffled"] = "discard-reshuffled"
    pool: Cards
    source: Literal["server", "table"] = "server"


class TurnStarted(Event):
    """fifty-two §5.1: the combat bonus's terms, and the action points (bonus + 1)."""

    type: Literal["turn-started"] = "turn-started"
    combatant_id: str
    round: int
    bonus: int
    terms: tuple[tuple[str, int], ...] = ()
    points: int
    owed: int = Field(default=0, description="§8: points already spent on Reflex saves.")


class FoeChosen(Event):
    type: Literal["foe-chosen"] = "foe-chosen"
    combatant_id: str
    foe: str


class CardsRemoved(Event):
    """fifty-two §5.2: from the bottom row (with its suit run above) or from elsewhere (with
    its suit run along the row)."""

    type: Literal["cards-removed"] = "cards-removed"
    combatant_id: str
    how: Literal["bottom", "elsewhere"]
    card: Card
    cards: Cards
    cost: int
    normal: int = 0
    critical: int = 0
    abandoned: str | None = Field(default=None, description="The spell whose casting this ended.")


class CardsAdded(Event):
    type: Literal["cards-added"] = "cards-added"
    combatant_id: str
    column: int
    cards: Cards
    cost: int
    normal: int = 0
    critical: int = 0


class PairRemoved(Event):
    type: Literal["pair-removed"] = "pair-removed"
    combatant_id: str
    cards: tuple[Card, Card]
    cost: int
    critical: int = 1


class AttackExecuted(Event):
    """fifty-two §5.2, §5.3.3: the attack succeeded; `registered` says if it did damage."""

    type: Literal["attack-executed"] = "attack-executed"
    combatant_id: str
    target: str
    critical: bool
    cost: int
    rating: int
    hits_before: int
    hits_after: int
    registered: bool
    damage: Damage = 0


class InitiativeRaised(Event):
    type: Literal["initiative-raised"] = "initiative-raised"
    combatant_id: str
    before: int
    after: int
    cost: int = 1


class ActionHeld(Event):
    type: Literal["action-held"] = "action-held"
    combatant_id: str
    before: int
    after: int


class StoodUp(Event):
    """fifty-two §8.3: the combatant stood up from prone (the shared condition-removed
    follows)."""

    type: Literal["stood-up"] = "stood-up"
    combatant_id: str
    cost: int = 1


class OtherActionTaken(Event):
    type: Literal["other-action-taken"] = "other-action-taken"
    combatant_id: str
    kind: str
    description: str
    cost: int


class Moved(Event):
    type: Literal["moved"] = "moved"
    combatant_id: str
    how: Literal["move", "step"]
    cost: int
    left: tuple[str, ...] = ()
    entered: tuple[str, ...] = ()


class OpportunityAttacked(Event):
    """fifty-two §5.2: an ordinary hit on a combatant leaving the attacker's melee range,
    counted against the armor like any other (§5.3.3)."""

    type: Literal["opportunity-attacked"] = "opportunity-attacked"
    combatant_id: str
    target: str
    rating: int
    hits_before: int
    hits_after: int
    registered: bool
    damage: Damage = 0


class SpellCast(Event):
    """One round of casting (§5.2). `complete` when the spell's rounds are done."""

    type: Literal["spell-cast"] = "spell-cast"
    combatant_id: str
    spell: str
    target: str | None = None
    round_cast: int
    rounds_done: int
    rounds: int
    complete: bool = False
    cost: int = 1
    abandoned: str | None = None


class SpellSuspended(Event):
    type: Literal["spell-suspended"] = "spell-suspended"
    combatant_id: str
    spell: str
    cost: int = 1


class SpellPending(Event):
    """fifty-two §8: the spell waits for its target's Reflex save decision."""

    type: Literal["spell-pending"] = "spell-pending"
    combatant_id: str
    spell: str
    target: str
    dc: int
    dive_limit: int


class SpellTookEffect(Event):
    """fifty-two §5.2, §5.3.3, §8: a spell lands; it bypasses the armor rating and counts
    as one successful attack."""

    type: Literal["spell-took-effect"] = "spell-took-effect"
    combatant_id: str
    spell: str
    target: str | None = None
    damage: Damage = 0
    save: Literal["none", "failed", "succeeded", "declined"] = "none"
    save_roll: int | None = None
    save_cost: int = 0
    charged_to: Literal["this-round", "next-round"] | None = None
    prone: bool = False
    hits_before: int = 0
    hits_after: int = 0


class RangeSet(Event):
    type: Literal["range-set"] = "range-set"
    combatant_id: str
    opponents: tuple[str, ...]


class TurnEnded(Event):
    type: Literal["turn-ended"] = "turn-ended"
    combatant_id: str
    reason: Literal["done", "out-of-points", "timeout", "downed", "removed"] = "done"
    forfeited: int = 0


FiftyTwoEvent = (
    InitiativeRolled
    | RolledOff
    | TieBroken
    | InitiativeSet
    | SurpriseRoundBegan
    | SurpriseAttacked
    | SurprisePassed
    | ColumnChoiceBegan
    | ColumnsChosen
    | FieldDealt
    | SurpriseCardsBegan
    | CardTaken
    | SurpriseCardAdded
    | RoundStarted
    | RowAdded
    | DiscardReshuffled
    | TurnStarted
    | FoeChosen
    | CardsRemoved
    | CardsAdded
    | PairRemoved
    | AttackExecuted
    | InitiativeRaised
    | ActionHeld
    | OtherActionTaken
    | StoodUp
    | Moved
    | SpellCast
    | SpellSuspended
    | SpellPending
    | SpellTookEffect
    | OpportunityAttacked
    | RangeSet
    | TurnEnded
)
EVENTS = FiftyTwoEvent.__args__

EVENT_SCHEMAS: dict[str, int] = {"tie-broken": 2}
UPCASTERS: dict[tuple[str, int], Upcaster] = {("tie-broken", 1): tie_broken_1_to_2}
