"""`fray demo fifty-two`: the seed's worked example (fifty-two §1 to §5.4): the nine
combatants of examples/fifty-two/, the §2 initiative, the surprise round, Alan's extra
column, the deal, the Enemies' four surprise cards and Alphonse's turn with its three
criticals on Eckhart, with the field drawn after the deal, after the surprise cards and at
the end of Alphonse's turn.

The seed was played with a real deck and shows the layout only in pictures, so the deck here
is one built to make the seed's text come true (see `DECK`). Every die is a table die, as the
seed's own numbers are, so the encounter runs with `"dice": "mixed"`; `decision_seconds` is
off, so no §4.5 clock runs while a terminal prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from service.demos.runner import Command, Demo, Picture, Script, Step, first_command
from service.demos.scripts import CombatantRef, add_combatant, examples
from service.domain.envelope import Envelope
from service.domain.ruleset import EncounterState

# The field is the ruleset's own: the state holds it and the ruleset's views draw it as text
# (`columns_text`, the one drawing of the field Fray has). Where a surprise card goes is told
# by the field as well, so this is the one demo module that imports fifty-two's modules.
from service.rules.fifty_two.layout import Battlefield
from service.rules.fifty_two.state import FiftyTwoState
from service.rules.fifty_two.views import columns_text

EXAMPLES = examples("fifty-two")
TITLE = "52: the seed's opening (fifty-two §1 to §5.4)"
OPTIONS: dict[str, Any] = {"dice": "mixed", "decision_seconds": None}

# fifty-two §2, in the seed's order: Allies, then Enemies. The die each rolled ("Alan
# 4+1+3-1+6=13": the last term), which examples/fifty-two/README.md turns into these totals.
INITIATIVE_DICE: dict[str, int] = {
    "alan": 6,
    "alphonse": 10,
    "alice": 4,
    "artichoke": 8,
    "able": 5,
    "evans": 8,
    "emberry": 5,
    "eckhart": 7,
    "esther": 7,
}

# fifty-two §4.1: "Evans and Emberry attacked Alan ..., Eckhart targeted Alphonse ..., and
# Esther targeted Able"; 158-27, 72-9 and 39-12 (the seed's "=28" is a slip for 27). Round 0
# goes in descending DEX (§1): Eckhart, Evans, Emberry, Esther. The dice are each attacker's
# normal damage: Eckhart d6+5 = 4+5, Evans d8+7 = 3+7, Emberry 2d6+10 = 3+4+10, Esther
# 2d6+10 = 1+1+10; Evans's 10 and Emberry's 17 are Alan's 27.
SURPRISE_ATTACKS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("eckhart", "alphonse", (4,)),
    ("evans", "alan", (3,)),
    ("emberry", "alan", (3, 4)),
    ("esther", "able", (1, 1)),
)

# fifty-two §5.1, §5.4: who is in whose attack range ("within melee range of the weapons of
# Eckhart"; Evans "is currently battling with Alan"; Esther "worried at Able").
RANGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("alphonse", ("eckhart",)),
    ("eckhart", ("alphonse",)),
    ("evans", ("alan",)),
    ("alan", ("evans",)),
    ("esther", ("able",)),
)

# The deck, top card first: 7 columns x 5 rows are dealt a row at a time, left to right, the
# first row dealt being the top row (fifty-two §4.2); the 17 cards left are the pool. Dealt,
# it lies like this (top row first; Q♠, 10♥, K♠ and J♠ come next, from the pool):
#
#      2♦    A♣    5♥    8♠    K♥    9♥    Q♥
#      3♥    4♥    9♦    2♣    8♣    5♦    8♦
#      A♥    9♣    3♠    J♥    K♣    J♣    7♦
#      2♥    5♣    K♦   10♠   10♦    6♣    Q♦
#      6♠    8♥    9♠    6♦    A♠    7♠    2♠
#       1     2     3     4     5     6     7
#
# How the seed's text maps onto it:
# - §4.4: the pool starts QS, 10H, KS, JS, so Evans (first of the Enemies on the chart) adds
#   the QS above the 9H (column 6), Eckhart the 10H above the 8S (column 4), Esther the KS
#   above the 2D (column 1), Emberry the JS above the 5H (column 3).
# - §5.4 "The only critical hit chance he sees is the 10 of spades next to the 10 of
#   diamonds": 10S and 10D side by side in columns 4 and 5 are the field's only pair, and no
#   removal clears a column or takes four cards. Columns 4 and 5 drop one row; after that
#   "there are no remaining critical hit opportunities".
# - "removing the 6 of Spades from column 1, bringing the trio of hearts into play": the 6S is
#   column 1's bottom card, with 2H, AH and 3H above it under the 2D; removing it (1 AP, a
#   normal opportunity) leaves a run of three hearts that one bottom-row removal would take.
# - "a second removes the 6 of diamonds, creating a critical hit opportunity with the 2
#   eights": the 6D is column 4's bottom card with the JH above it; column 4 drops and its 8S
#   comes level with the 8C of column 5.
# - "He next removes the pair of eights ... The 10 and King of Hearts drop down, and now
#   there's a vertical critical on offer with the two Kings": the 10H drops in column 4, the
#   KH in column 5 onto the KC.
# - "removing them would create still one more critical chance by emptying the column": the
#   kings gone, column 5 holds the AS alone, "an almost-empty column that they will have to
#   refill"; Alphonse has a point left to remove it but none to execute the critical.
# - Where the seed is silent the order is a choice. The pool goes on with QC, 4C, 3D, 5S and
#   4D, the cards Evans draws in §5.5 when he refills columns 2 and 6.
DECK: tuple[str, ...] = (
    *("2D", "AC", "5H", "8S", "KH", "9H", "QH"),  # the top row
    *("3H", "4H", "9D", "2C", "8C", "5D", "8D"),
    *("AH", "9C", "3S", "JH", "KC", "JC", "7D"),
    *("2H", "5C", "KD", "10S", "10D", "6C", "QD"),
    *("6S", "8H", "9S", "6D", "AS", "7S", "2S"),  # the bottom row
    *("QS", "10H", "KS", "JS"),  # §4.4: the Enemies' surprise cards
    *("QC", "4C", "3D", "5S", "4D"),  # §5.5: Evans's refills
    *("10C", "3C", "4S", "JD", "7C", "6H", "7H", "AD"),
)

# fifty-two §4.4, in the order the Enemies add them: each card above the card it covers.
SURPRISE_CARDS: tuple[tuple[str, str], ...] = (
    ("evans", "9H"),
    ("eckhart", "8S"),
    ("esther", "2D"),
    ("emberry", "5H"),
)

# fifty-two §5.4, Alphonse's turn. His critical is 2d6+10: 4+6 = 20, then 3+4 = 17 twice.
ALPHONSE: tuple[tuple[dict[str, Any], tuple[int, ...] | None], ...] = (
    ({"type": "remove-pair", "cards": ["10S", "10D"]}, None),
    ({"type": "execute-attack", "target": "eckhart", "critical": True}, (4, 6)),
    ({"type": "remove-card", "card": "6S"}, None),
    ({"type": "remove-card", "card": "6D"}, None),
    ({"type": "remove-pair", "cards": ["8S", "8C"]}, None),
    ({"type": "execute-attack", "target": "eckhart", "critical": True}, (3, 4)),
    ({"type": "remove-pair", "cards": ["KC", "KH"]}, None),
    ({"type": "execute-attack", "target": "eckhart", "critical": True}, (3, 4)),
    ({"type": "end-turn"}, None),
)


def script() -> Script:
    """The roster in the seed's §2 order (the stat files less `epithet`), the ranges, the
    chart and round 0, the columns, the deal, the surprise cards, Alphonse's turn."""
    steps = [
        Step(add_combatant(EXAMPLES, CombatantRef(file=f"{cid}.json"))) for cid in INITIATIVE_DICE
    ]
    steps += [
        Step({"type": "set-range", "combatant_id": cid, "opponents": list(opponents)})
        for cid, opponents in RANGES
    ]
    # fifty-two §2, §2.1, §1: the chart, then round 0.
    steps.append(Step({"type": "start-encounter"}, dice=tuple(INITIATIVE_DICE.values())))
    steps += [
        Step({"type": "surprise-attack", "combatant_id": attacker, "target": target}, dice=dice)
        for attacker, target, dice in SURPRISE_ATTACKS
    ]
    # fifty-two §4.1: "Alan decides to add an extra column ... 2+5-1+1=7".
    steps.append(Step({"type": "choose-columns", "modifier": 1}, actor="alan"))
    steps.append(Step({"type": "deal", "deck": list(DECK)}))
    steps += [Step(partial(_surprise_card, cid, covered)) for cid, covered in SURPRISE_CARDS]
    steps += [
        Step({**action, "combatant_id": "alphonse"}, actor="alphonse", dice=faces)
        for action, faces in ALPHONSE
    ]
    steps.append(Step({"type": "end-encounter", "reason": "the demo stops after §5.4"}))
    return Script("fifty-two", TITLE, steps, OPTIONS)


def _surprise_card(cid: str, covered: str, state: EncounterState) -> Command:
    column = column_topped_by(_field(state), covered)
    return {"type": "add-surprise-card", "combatant_id": cid, "column": column}


def column_topped_by(battlefield: Battlefield, card: str) -> int:
    """The column (from 1) whose top card is `card`: §4.4's "the QS above the 9H"."""
    for number, column in enumerate(battlefield.columns, start=1):
        if column and column[-1].text == card:
            return number
    raise ValueError(f"no column has {card} on top")


def _field(state: EncounterState) -> Battlefield:
    assert isinstance(state, FiftyTwoState) and state.field is not None, "no cards dealt"
    return state.field


def pictures(stream: Sequence[Envelope]) -> list[Picture]:
    """The field as the table sees it after the deal, after the surprise cards (once the
    first round has begun) and at the end of Alphonse's turn (once the next has begun): each
    just before the next command."""
    return [
        Picture(first_command(stream, "add-surprise-card"), partial(_titled, "after the deal")),
        Picture(first_command(stream, "remove-pair"), partial(_titled, "after the surprise cards")),
        Picture(
            first_command(stream, "end-encounter"),
            partial(_titled, "at the end of Alphonse's turn"),
        ),
    ]


def _titled(when: str, state: EncounterState) -> list[str]:
    return [f"The field {when}:", *columns_text(_field(state)).splitlines()]


DEMO = Demo(
    about="52's opening: the surprise round, the 7-column field from a table deck, "
    "Alphonse's three criticals on Eckhart",
    script=script,
    pictures=pictures,
)
