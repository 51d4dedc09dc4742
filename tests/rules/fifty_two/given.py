"""Givens for fifty-two specs: the seed's nine combatants, scripted dice, table decks that
lay a known field, and small fights that reach a chosen turn.

Encounters take `dice: "mixed"`: the dice a test hands in are used in order (initiative in
the order the combatants were added, then roll-offs, then damage), and whatever a test does
not script comes from the encounter's seed. The decision clock is off unless a test turns
it on.

A field is written as in test_layout.py: column by column, left to right, each column from
the bottom row up. `deck("4H 7H JH AC 2D", ...)` is the table deck, top card first, that
`deal` lays out as those columns; the pool follows, then the rest of the 52 cards.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

from service.demos.scripts import examples
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.fifty_two import RULESET
from service.rules.fifty_two.cards import full_deck, parse_cards
from service.rules.fifty_two.state import FiftyTwoState
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

EXAMPLES = examples("fifty-two")

# fifty-two §2: the list in the seed's order, Allies then Enemies, with each line's die roll.
SEED_LIST = (
    "alan",
    "alphonse",
    "alice",
    "artichoke",
    "able",
    "evans",
    "emberry",
    "eckhart",
    "esther",
)
SEED_ROLLS = {
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
SEED_CHART = [
    ["alphonse", 15],
    ["evans", 14],
    ["eckhart", 13],
    ["alan", 12],
    ["esther", 11],
    ["emberry", 10],
    ["artichoke", 9],
    ["alice", 8],
    ["able", 7],
]
ALLIES = ("alan", "alphonse", "alice", "artichoke", "able")
ENEMIES = ("evans", "emberry", "eckhart", "esther")

PLAYER = Actor("p1", "player", frozenset(ALLIES))
ALAN = Actor("p-alan", "player", frozenset({"alan"}))
ALPHONSE = Actor("p-alphonse", "player", frozenset({"alphonse"}))
HERO = Actor("p-hero", "player", frozenset({"hero"}))
OBSERVER = Actor("o1", "observer")
AUDITOR = Actor("a1", "auditor")

# The seed's opening field (§4.2), invented where the seed's pictures cannot be read, with
# the four tops §4.4 names (9H, 8S, 2D, 5H) and a first round for Alphonse that plays as
# §5.4 tells it: the 10S-10D pair, the 6S and the 6D off the bottom, the 8s, the kings.
SEED_FIELD = (
    "6S 8C 3H 4H 9H",
    "6D 8H KH KC 8S",
    "10S 2C 5C 7S 2D",
    "10D 3C 6C 9S 5H",
    "AH AS 4S 7C 9C",
    "2H 7D 4D JC QD",
    "3D 5S AD JD QC",
)
# fifty-two §4.4: "Evans adds the QS ... Eckhart adds the 10H ... Esther adds the KS ...
# Emberry adds the JS": the first four cards of the face-down pool.
SEED_POOL = "QS 10H KS JS"


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "mixed", "decision_seconds": None, **options})


def state_of(table: Table) -> FiftyTwoState:
    assert isinstance(table.state, FiftyTwoState)
    return table.state


@cache
def _example(cid: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((EXAMPLES / f"{cid}.json").read_text(encoding="utf-8"))
    body.pop("epithet")
    return body


def example(table: Table, cid: str, **stats: Any) -> None:
    """Add one of the seed's nine from examples/fifty-two/, with stats changed as given."""
    body = _example(cid)
    table.send({"type": "add-combatant", **body, "stats": {**body["stats"], **stats}})


def add(table: Table, cid: str, side: str = "enemies", **stats: Any) -> None:
    """A plain combatant: every stat at its default unless given (hp 50)."""
    table.send(
        {
            "type": "add-combatant",
            "combatant_id": cid,
            "name": cid.capitalize(),
            "side": side,
            "stats": {"hp": 50, **stats},
        }
    )


def seed_fight(**options: Any) -> Table:
    """The nine of the seed added in the §2 list's order, the fight started with §2's rolls:
    the chart is SEED_CHART and the Enemies' surprise round waits for Eckhart."""
    table = encounter(**options)
    for cid in SEED_LIST:
        example(table, cid)
    table.send({"type": "start-encounter"}, dice=[SEED_ROLLS[cid] for cid in SEED_LIST])
    return table


def seed_surprise_round(table: Table) -> list[Envelope]:
    """fifty-two §4.1: "Evans and Emberry attacked Alan ..., Eckhart targeted Alphonse ...,
    and Esther targeted Able": 9 to Alphonse, 10 + 17 = 27 to Alan, 12 to Able."""
    sent: list[Envelope] = []
    for attacker, target, dice in (
        ("eckhart", "alphonse", [4]),  # d6+5 = 9
        ("evans", "alan", [3]),  # d8+7 = 10
        ("emberry", "alan", [3, 4]),  # 2d6+10 = 17
        ("esther", "able", [1, 1]),  # 2d6+10 = 12
    ):
        command = {"type": "surprise-attack", "combatant_id": attacker, "target": target}
        sent += table.send(command, dice=dice)
    return sent


SEED_RANGES = {"alphonse": ["eckhart"], "evans": ["alan"]}
"""fifty-two §5.1, §5.5: Alphonse "is within melee range of ... Eckhart"; "Evans is
currently battling with Alan"."""


def seed_opening(**options: Any) -> Table:
    """The seed's fight up to Alphonse's first turn: the surprise round, Alan's extra column,
    SEED_FIELD dealt from a table deck, and the Enemies' four surprise cards; Alphonse and
    Evans are in range of their opponents (SEED_RANGES)."""
    table = seed_fight(**options)
    seed_surprise_round(table)
    for cid, opponents in SEED_RANGES.items():
        table.send({"type": "set-range", "combatant_id": cid, "opponents": opponents})
    table.send({"type": "choose-columns", "modifier": 1}, actor=ALAN)
    table.send({"type": "deal", "deck": deck(*SEED_FIELD, pool=SEED_POOL)})
    for cid, column in (("evans", 1), ("eckhart", 2), ("esther", 3), ("emberry", 4)):
        table.send({"type": "add-surprise-card", "combatant_id": cid, "column": column})
    return table


def deck(*columns: str, pool: str = "") -> list[str]:
    """The table deck, top card first, that lays `columns` (each bottom row first, all of
    one depth), then `pool` on top of the face-down pool, then the rest of the 52 cards."""
    laid = [parse_cards(column) for column in columns]
    depth = len(laid[0])
    assert all(len(column) == depth for column in laid), "every column is dealt one depth"
    order = [laid[c][row] for row in reversed(range(depth)) for c in range(len(laid))]
    order += parse_cards(pool)
    order += [card for card in full_deck() if card not in order]
    assert len(order) == len(set(order)) == 52, "each card once"
    return [card.text for card in order]


def duel(
    *columns: str,
    pool: str = "",
    hero: dict[str, Any] | None = None,
    brute: dict[str, Any] | None = None,
    first: str = "hero",
    others: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    **options: Any,
) -> Table:
    """An Ally `hero` and an Enemy `brute` (and any `others`: (id, side, stats)), no
    surprise, `columns` dealt from a table deck with the modifier that makes them fit;
    round 1 has begun with `first`'s turn (the rest roll lower, in the order added)."""
    table = encounter(**options)
    add(table, "hero", "allies", **(hero or {}))
    add(table, "brute", "enemies", **(brute or {}))
    for cid, side, stats in others:
        add(table, cid, side, **stats)
    ids = ["hero", "brute", *(cid for cid, _, _ in others)]
    rolls = [20 if cid == first else 10 - n for n, cid in enumerate(ids)]
    table.send({"type": "start-encounter"}, dice=rolls)
    modifier = len(columns) - state_of(table).columns
    table.send({"type": "choose-columns", "modifier": modifier})
    table.send({"type": "deal", "deck": deck(*columns, pool=pool)})
    return table


def end_turn(table: Table, actor: Actor = GM) -> list[Envelope]:
    turn = state_of(table).turn
    assert turn is not None
    return table.send({"type": "end-turn", "combatant_id": turn.combatant_id}, actor=actor)


def play(table: Table, cid: str, kind: str, actor: Actor = GM, **params: Any) -> list[Envelope]:
    return table.send({"type": kind, "combatant_id": cid, **params}, actor=actor)


def columns(table: Table) -> list[str]:
    """The field as written above: column by column, each from the bottom row up."""
    field = state_of(table).field
    assert field is not None
    return [" ".join(card.text for card in column) for column in field.columns]


def pool(table: Table) -> str:
    field = state_of(table).field
    assert field is not None
    return " ".join(card.text for card in field.pool)


def discard(table: Table) -> str:
    field = state_of(table).field
    assert field is not None
    return " ".join(card.text for card in field.discard)


def cards_held(table: Table) -> Counter[str]:
    """Every card of the fight, wherever it is: layout, pool and discard stack."""
    field = state_of(table).field
    assert field is not None
    return Counter(card.text for card in field.cards())


def types(envelopes: list[Envelope]) -> list[str]:
    return [e.type for e in envelopes]


def only(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]


def hp(table: Table, cid: str) -> int:
    return state_of(table).table.combatants[cid].resource_values()["hp"]


EXHAUST_FIELD = (
    "AS AH 5S 6S 7S",
    "2S 2H 5H 6H 7H",
    "3S 3H 5D 6D 7D",
    "4S 4H 5C 6C 7C",
    "8S 9S 10S JS QS",
    "8H 9H 10H JH QH",
    "8D 9D 10D JD QD",
    "8C 9C 10C JC QC",
    "KS KH KD KC AD",
)
EXHAUST_ALLIES = tuple((f"ally{n}", "allies", {}) for n in range(6))


def emptied_pool() -> Table:
    """Nine columns (seven Allies), so 7 cards in the pool; the brute takes four pairs off
    and refills three of the gaps: one card is left in the pool, eight are discarded."""
    table = duel(*EXHAUST_FIELD, first="brute", brute={"attack_bonus": 20}, others=EXHAUST_ALLIES)
    assert pool(table) == "2D 3D 4D AC 2C 3C 4C"
    for pair in (["AS", "AH"], ["2S", "2H"], ["3S", "3H"], ["4S", "4H"]):
        play(table, "brute", "remove-pair", cards=pair)
    for column in (1, 2, 3):
        play(table, "brute", "add-cards", column=column, count=2)
    assert pool(table) == "4C"
    return table
