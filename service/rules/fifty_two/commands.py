"""fifty-two commands: the opening (columns, the deal, surprise), and the actions of a turn
(fifty-two §1, §4 to §4.4, §5, §5.2). Columns are numbered from 1, left to right, as the
seed numbers them; cards are named by their text ("10S", "QH", "AS'")."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.messages import Command
from service.rules.fifty_two.cards import Card

Id = str
Column = int


class ChooseColumns(Command):
    """fifty-two §4.1: the side with the highest net initiative adds or removes a column."""

    type: Literal["choose-columns"] = "choose-columns"
    modifier: Literal[-1, 0, 1] = 0


class Deal(Command):
    """fifty-two §3, §4.2: shuffle and deal. `deck` is a table's real deck, top card first
    (the 52 cards, and the padding of §3.1 when the field is 10 columns or wider); without
    it Fray shuffles with the encounter's seed."""

    type: Literal["deal"] = "deal"
    deck: list[Card] | None = Field(default=None, max_length=200)


class SurpriseAttack(Command):
    """fifty-two §1: round 0, in descending DEX."""

    type: Literal["surprise-attack"] = "surprise-attack"
    combatant_id: Id
    target: Id


class TakeCard(Command):
    """fifty-two §4.3: an Ally who surprised the Enemies takes one card from any row."""

    type: Literal["take-card"] = "take-card"
    combatant_id: Id
    card: Card


class AddSurpriseCard(Command):
    """fifty-two §4.4: an Enemy who surprised the Allies adds a pool card to a column."""

    type: Literal["add-surprise-card"] = "add-surprise-card"
    combatant_id: Id
    column: Column = Field(ge=1, le=100)


class PassSurprise(Command):
    """Forgo a surprise attack (§1) or a surprise card (§4.3, §4.4)."""

    type: Literal["pass-surprise"] = "pass-surprise"
    combatant_id: Id


class ChooseFoe(Command):
    """fifty-two §0: an Enemy attacking another Enemy faction acts "as an Ally" this turn."""

    type: Literal["choose-foe"] = "choose-foe"
    combatant_id: Id
    foe: str = Field(min_length=1, max_length=40)


class RemoveCard(Command):
    """fifty-two §5.2: a bottom-row card (1 AP) with its suit run above it, or a card
    elsewhere (2 AP) with its same-suit neighbours along the row."""

    type: Literal["remove-card"] = "remove-card"
    combatant_id: Id
    card: Card


class AddCards(Command):
    """fifty-two §5.2: place pool cards on top of a column, 1 AP each. `reshuffle` is the
    table's order for the discard stack when the pool runs out (real decks)."""

    type: Literal["add-cards"] = "add-cards"
    combatant_id: Id
    column: Column = Field(ge=1, le=100)
    count: int = Field(default=1, ge=1, le=10)
    reshuffle: list[Card] | None = Field(default=None, max_length=200)


class RemovePair(Command):
    """fifty-two §5.2: two adjacent cards of one rank, anyone, 1 AP: a critical opportunity."""

    type: Literal["remove-pair"] = "remove-pair"
    combatant_id: Id
    cards: tuple[Card, Card]


class ExecuteAttack(Command):
    """fifty-two §5.2: spend an opportunity this turn created, 1 AP (0 against a vulnerable
    armor, §5.3). The attack succeeds; §5.3.3 decides whether it registers."""

    type: Literal["execute-attack"] = "execute-attack"
    combatant_id: Id
    target: Id
    critical: bool = False


class RaiseInitiative(Command):
    """fifty-two §5.2: +1 initiative for 1 AP, on up to the next empty slot."""

    type: Literal["raise-initiative"] = "raise-initiative"
    combatant_id: Id


class HoldAction(Command):
    """fifty-two §5: not act now, dropping below the next combatant to act."""

    type: Literal["hold-action"] = "hold-action"
    combatant_id: Id


class OtherAction(Command):
    """fifty-two §5.2: use a magic item, a class ability, or any other action the GM
    approves (standing up, drawing a weapon); the GM sets the cost when it is not 1."""

    type: Literal["other-action"] = "other-action"
    combatant_id: Id
    kind: Literal["magic-item", "class-ability", "other"] = "other"
    description: str = Field(min_length=1, max_length=200)
    cost: int = Field(default=1, ge=0, le=20)


class StandUp(Command):
    """fifty-two §8.3: a prone combatant pays an action point "to stand up before they can
    do anything else"."""

    type: Literal["stand-up"] = "stand-up"
    combatant_id: Id


class Move(Command):
    """fifty-two §5.2: the full movement, once per turn, 1 AP. Leaving an opponent's melee
    range draws its attack of opportunity; entering one does not."""

    type: Literal["move"] = "move"
    combatant_id: Id
    leaves_range_of: list[Id] = Field(default_factory=list, max_length=50)
    enters_range_of: list[Id] = Field(default_factory=list, max_length=50)


class Step(Command):
    """fifty-two §5.2: a 5-foot step: the first each turn is free, each further one 1 AP;
    never an attack of opportunity."""

    type: Literal["step"] = "step"
    combatant_id: Id
    leaves_range_of: list[Id] = Field(default_factory=list, max_length=50)
    enters_range_of: list[Id] = Field(default_factory=list, max_length=50)


class Cast(Command):
    """fifty-two §5.2: cast one round of a spell (1 AP); the same spell again in a later
    round continues it."""

    type: Literal["cast"] = "cast"
    combatant_id: Id
    spell: str = Field(min_length=1, max_length=60)
    target: Id | None = None


class SuspendSpell(Command):
    """fifty-two §5.2: 1 AP to leave a spell begun in an earlier round incomplete, so that
    removing cards does not abandon it."""

    type: Literal["suspend-spell"] = "suspend-spell"
    combatant_id: Id


class ReflexSave(Command):
    """fifty-two §8: the target of a spell that allows a Reflex save decides before it takes
    effect: attempt it or not, and with cover `cover_feet` away (5 or less: a step; further:
    a dive that leaves the defender prone)."""

    type: Literal["reflex-save"] = "reflex-save"
    combatant_id: Id
    attempt: bool = True
    cover_feet: int | None = Field(default=None, ge=0, le=200)


class SetRange(Command):
    """fifty-two §5.1: the opponents within the combatant's attack range, whose magic
    defense bonuses reduce its combat bonus. Bookkeeping, not an action: no cost."""

    type: Literal["set-range"] = "set-range"
    combatant_id: Id
    opponents: list[Id] = Field(default_factory=list, max_length=50)


class EndTurn(Command):
    type: Literal["end-turn"] = "end-turn"
    combatant_id: Id | None = None


FiftyTwoCommand = (
    ChooseColumns
    | Deal
    | SurpriseAttack
    | TakeCard
    | AddSurpriseCard
    | PassSurprise
    | ChooseFoe
    | RemoveCard
    | AddCards
    | RemovePair
    | ExecuteAttack
    | RaiseInitiative
    | HoldAction
    | OtherAction
    | StandUp
    | Move
    | Step
    | Cast
    | SuspendSpell
    | ReflexSave
    | SetRange
    | EndTurn
)
COMMANDS = FiftyTwoCommand.__args__
