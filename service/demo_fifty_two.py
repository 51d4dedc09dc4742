"""`fray demo fifty-two`: the seed's worked example (fifty-two §1 to §5.4) through the real
pipeline: the nine combatants of examples/fifty-two/, the §2 initiative, the surprise round,
Alan's extra column, the deal, the Enemies' four surprise cards and Alphonse's turn with its
three criticals on Eckhart, narrated event by event with the field drawn as it goes.

The seed was played with a real deck and shows the layout only in pictures, so the deck here
is one built to make the seed's text come true (see `DECK`). Every die is a table die, as the
seed's own numbers are, so the encounter runs with `"dice": "mixed"`; `decision_seconds` is
off, so no §4.5 clock runs while a terminal prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.demo_delvers import StepRefused, actor_for
from service.domain.context import GM, Actor
from service.domain.errors import FrayError
from service.domain.narration import namer
from service.engine import CommandRequest, Engine
from service.rules.fifty_two.cards import parse_card
from service.rules.fifty_two.layout import Battlefield
from service.rules.fifty_two.state import FiftyTwoState
from service.rules.fifty_two.views import columns_text

EXAMPLES = Path(__file__).resolve().parent / "demos" / "examples" / "fifty-two"
TITLE = "52: the seed's opening (fifty-two §1 to §5.4)"
OPTIONS: dict[str, Any] = {"dice": "mixed", "decision_seconds": None}
COMBATANT_FIELDS = ("combatant_id", "name", "side", "controller", "stats", "position")

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


def roster(directory: Path = EXAMPLES) -> list[dict[str, Any]]:
    """The `add-combatant` commands, in the seed's §2 order (the stat files less `epithet`)."""
    commands = []
    for cid in INITIATIVE_DICE:
        block = json.loads((directory / f"{cid}.json").read_text(encoding="utf-8"))
        commands.append(
            {"type": "add-combatant", **{k: block[k] for k in COMBATANT_FIELDS if k in block}}
        )
    return commands


@dataclass
class _Demo:
    engine: Engine
    encounter_id: str
    lines: list[str] = field(default_factory=list)
    steps: int = 0

    async def send(
        self, actor: Actor, command: dict[str, Any], dice: tuple[int, ...] | None = None
    ) -> None:
        self.steps += 1
        request = CommandRequest(command=command, dice=list(dice) if dice else None)
        who = "gm" if actor.is_gm else ",".join(sorted(actor.combatants))
        try:
            outcome = await self.engine.execute(self.encounter_id, request, actor)
        except FrayError as error:
            raise StepRefused(
                f"step {self.steps} ({who}: {command.get('type')}) was refused: "
                f"{error.code}: {error.message}",
                details={"step": self.steps, "command": command, "error": error.to_dict()},
            ) from error
        loaded = await self.engine.load(self.encounter_id)
        names = namer(loaded.state.table.combatants)
        self.lines += [loaded.ruleset.narrate(e.type, e.data, names) for e in outcome.events]

    async def state(self) -> FiftyTwoState:
        state = (await self.engine.load(self.encounter_id)).state
        assert isinstance(state, FiftyTwoState)
        return state

    async def show(self, when: str) -> None:
        """The field as the table sees it, top row first."""
        self.lines.append(f"The field {when}:")
        self.lines += columns_text(_field(await self.state())).splitlines()


def _field(state: FiftyTwoState) -> Battlefield:
    assert state.field is not None, "the cards have not been dealt"
    return state.field


def column_topped_by(battlefield: Battlefield, card: str) -> int:
    """The column (from 1) whose top card is `card`: §4.4's "the QS above the 9H"."""
    wanted = parse_card(card)
    for number, column in enumerate(battlefield.columns, start=1):
        if column and column[-1] == wanted:
            return number
    raise ValueError(f"no column has {card} on top")


async def run_fifty_two_demo(
    engine: Engine, encounter_id: str | None = None
) -> tuple[str, list[str]]:
    """Play the seed's opening; return the encounter id, the narration and the field drawn
    after the deal, after the surprise cards and at the end of Alphonse's turn."""
    encounter_id, _ = await engine.create(
        "fifty-two", OPTIONS, title=TITLE, encounter_id=encounter_id, actor=GM
    )
    demo = _Demo(engine, encounter_id)
    for command in roster():
        await demo.send(GM, command)
    for cid, opponents in RANGES:
        await demo.send(
            GM, {"type": "set-range", "combatant_id": cid, "opponents": list(opponents)}
        )
    # fifty-two §2, §2.1, §1: the chart, then round 0.
    await demo.send(GM, {"type": "start-encounter"}, tuple(INITIATIVE_DICE.values()))
    for attacker, target, dice in SURPRISE_ATTACKS:
        command = {"type": "surprise-attack", "combatant_id": attacker, "target": target}
        await demo.send(GM, command, dice)
    # fifty-two §4.1: "Alan decides to add an extra column ... 2+5-1+1=7".
    await demo.send(actor_for("alan"), {"type": "choose-columns", "modifier": 1})
    await demo.send(GM, {"type": "deal", "deck": list(DECK)})
    await demo.show("after the deal")
    for cid, covered in SURPRISE_CARDS:
        column = column_topped_by(_field(await demo.state()), covered)
        await demo.send(GM, {"type": "add-surprise-card", "combatant_id": cid, "column": column})
    await demo.show("after the surprise cards")
    alphonse = actor_for("alphonse")
    for action, faces in ALPHONSE:
        await demo.send(alphonse, {**action, "combatant_id": "alphonse"}, faces)
    await demo.show("at the end of Alphonse's turn")
    await demo.send(GM, {"type": "end-encounter", "reason": "the demo stops after §5.4"})
    return encounter_id, demo.lines
