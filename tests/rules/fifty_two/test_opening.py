"""fifty-two §1 to §4.4 through commands: initiative and its ties, the surprise round, the
columns, the deal from a table deck, and the surprise cards of either side."""

from __future__ import annotations

import pytest

from service.domain.context import GM, Actor
from service.rules.fifty_two.cards import full_deck
from tests.rules.fifty_two.given import (
    ALAN,
    PLAYER,
    SEED_CHART,
    SEED_FIELD,
    SEED_LIST,
    SEED_POOL,
    SEED_ROLLS,
    add,
    columns,
    deck,
    discard,
    encounter,
    example,
    hp,
    only,
    pool,
    refused,
    seed_fight,
    seed_surprise_round,
    state_of,
    types,
)
from tests.rules.harness import Table

EVANS_PLAYER = Actor("p-evans", "player", frozenset({"evans"}))


def at_the_deal() -> Table:
    """The seed's fight with the surprise round over and Alan's seven columns chosen."""
    table = seed_fight()
    seed_surprise_round(table)
    table.send({"type": "choose-columns", "modifier": 1}, actor=ALAN)
    return table


def at_the_surprise_cards() -> Table:
    table = at_the_deal()
    table.send({"type": "deal", "deck": deck(*SEED_FIELD, pool=SEED_POOL)})
    return table


# --- §2, §2.1: initiative ------------------------------------------------------------------


def test_the_seeds_nine_combatant_initiative_list_through_start_encounter():
    table = encounter()
    for cid in SEED_LIST:
        example(table, cid)

    started = table.send({"type": "start-encounter"}, dice=[SEED_ROLLS[cid] for cid in SEED_LIST])

    # fifty-two §2: "Alan 4+1+3-1+6=13 ... Esther 1+0+2+1+7=11", each with its own die.
    rolled = only(started, "initiative-rolled")
    assert [(d["combatant_id"], d["die_roll"], d["total"]) for d in rolled] == [
        ("alan", 6, 13),
        ("alphonse", 10, 15),
        ("alice", 4, 9),
        ("artichoke", 8, 9),
        ("able", 5, 8),
        ("evans", 8, 14),
        ("emberry", 5, 11),
        ("eckhart", 7, 13),
        ("esther", 7, 11),
    ]  # fmt: skip
    assert [e.rolls[0]["purpose"] for e in started if e.type == "initiative-rolled"][:2] == [
        "initiative: Alan",
        "initiative: Alphonse",
    ]
    assert only(started, "tie-broken") == [
        # "Initiative 13: Eckhart has the benefit of surprise ... Alan's initiative drops to 12."
        {"tied_at": 13, "winner": "eckhart", "loser": "alan", "decided_by": 2,
         "tie_breaker": "surprise", "moved": "alan", "to": 12},
        # "Initiative 11: Esther rolled a 7, Emberry rolled a 5 ... Initiative 10."
        {"tied_at": 11, "winner": "esther", "loser": "emberry", "decided_by": 3,
         "tie_breaker": "highest die roll", "moved": "emberry", "to": 10},
        # "Initiative 9: Artichoke rolled an 8, Alice only managed a 4 ... Alice drops to 8."
        {"tied_at": 9, "winner": "artichoke", "loser": "alice", "decided_by": 3,
         "tie_breaker": "highest die roll", "moved": "alice", "to": 8},
        # "Initiative 8: Because Alice had an initial total of 9 ... Able drops to 7."
        {"tied_at": 8, "winner": "alice", "loser": "able", "decided_by": 1,
         "tie_breaker": "highest initial total", "moved": "able", "to": 7},
    ]  # fmt: skip
    assert only(started, "initiative-set") == [{"chart": SEED_CHART, "reason": "rolled"}]
    assert types(started)[-1] == "surprise-round-began"


def test_combatants_equal_on_every_tie_breaker_roll_off():
    table = encounter()
    add(table, "ann", "allies")
    add(table, "bob", "enemies")

    # Both roll 7 with the same stats: §2.1 #9, a roll-off, which Bob wins 5 to 2.
    started = table.send({"type": "start-encounter"}, dice=[7, 7, 2, 5])

    assert only(started, "rolled-off") == [
        {"combatant_id": "ann", "roll": 2},
        {"combatant_id": "bob", "roll": 5},
    ]
    assert only(started, "tie-broken")[0] | {"tied_at": 0} == {
        "tied_at": 0, "winner": "bob", "loser": "ann", "decided_by": 9, "tie_breaker": "roll-off",
        "moved": "bob", "to": 8,
    }  # fmt: skip
    assert state_of(table).chart == (("bob", 8), ("ann", 7))


@pytest.mark.parametrize(
    "sides",
    [
        pytest.param(("allies", "allies"), id="no Enemies"),
        pytest.param(("orcs", "goblins"), id="no Allies"),
    ],
)
def test_a_fight_without_allies_or_without_enemies_cannot_start(sides):
    table = encounter()
    add(table, "one", sides[0])
    add(table, "two", sides[1])

    violation = refused(table, {"type": "start-encounter"}, dice=[3, 4])

    assert violation.code == "encounter/needs-both-sides"
    assert violation.rule == "fifty-two §0"


def test_combatants_join_before_the_start():
    table = seed_fight()

    violation = refused(
        table,
        {"type": "add-combatant", "combatant_id": "ogre", "name": "Ogre", "side": "enemies",
         "stats": {"hp": 30}},
    )  # fmt: skip

    assert violation.code == "combatant/after-start"


# --- §1: the surprise round ----------------------------------------------------------------


def test_the_surprise_round_goes_in_descending_dex():
    table = seed_fight()

    # DEX 20 (Eckhart, +5), 18 (Evans), 16 (Emberry), 14 (Esther).
    assert state_of(table).surprise_left == ("eckhart", "evans", "emberry", "esther")
    assert table.ruleset.acting(table.state) == ["eckhart"]


def test_an_attacker_out_of_dex_order_is_refused():
    table = seed_fight()

    violation = refused(
        table, {"type": "surprise-attack", "combatant_id": "evans", "target": "alan"}
    )

    assert violation.code == "surprise/not-your-turn"
    assert "Eckhart attacks first" in violation.message


def test_a_surprise_attack_on_the_attackers_own_side_is_refused():
    table = seed_fight()

    violation = refused(
        table, {"type": "surprise-attack", "combatant_id": "eckhart", "target": "evans"}
    )

    assert violation.code == "attack/not-an-opponent"


def test_a_player_cannot_make_an_enemys_surprise_attack():
    table = seed_fight()

    violation = refused(
        table,
        {"type": "surprise-attack", "combatant_id": "eckhart", "target": "alphonse"},
        actor=PLAYER,
    )

    assert violation.code == "auth/not-your-combatant"


def test_the_seeds_surprise_round_takes_the_normal_damage_from_hp():
    table = seed_fight()

    attacks = seed_surprise_round(table)

    assert only(attacks, "surprise-attacked") == [
        {"combatant_id": "eckhart", "target": "alphonse", "damage": 9},
        {"combatant_id": "evans", "target": "alan", "damage": 10},
        {"combatant_id": "emberry", "target": "alan", "damage": 17},
        {"combatant_id": "esther", "target": "able", "damage": 12},
    ]
    # §4.1: "Alan's HP are now 158-27=131. Alphonse's HP are now 72-9=63. Able's HP are now
    # 39-12=28" (39-12 is 27). "Artichoke and Alice are still on 44 and 83 HP".
    assert {cid: hp(table, cid) for cid in ("alan", "alphonse", "able", "artichoke", "alice")} == {
        "alan": 131, "alphonse": 63, "able": 27, "artichoke": 44, "alice": 83,
    }  # fmt: skip


def test_a_surprise_attack_ignores_the_armor_rating():
    table = seed_fight()

    # Alphonse's +4 chain against Eckhart's +2 axe has a rating of 3 (§5.3.3): an ordinary
    # hit would not register, a surprise attack does (§5.3.3 "ignore this requirement").
    attacked = table.send(
        {"type": "surprise-attack", "combatant_id": "eckhart", "target": "alphonse"}, dice=[1]
    )

    assert only(attacked, "resource-adjusted")[0]["after"] == 72 - 6
    assert state_of(table).hits == {}


def test_passing_the_surprise_hands_it_to_the_next_in_dex_order():
    table = seed_fight()

    passed = table.send({"type": "pass-surprise", "combatant_id": "eckhart"})

    assert types(passed) == ["surprise-passed"]
    assert state_of(table).surprise_left == ("evans", "emberry", "esther")


def test_a_combatant_downed_in_the_surprise_round_makes_no_surprise_attack():
    table = encounter()
    add(table, "hero", "allies", surprise=True, normal_damage="60")
    add(table, "brute", "enemies", surprise=True)
    table.send({"type": "start-encounter"}, dice=[20, 10])
    table.send({"type": "surprise-attack", "combatant_id": "hero", "target": "brute"})

    refused(table, {"type": "surprise-attack", "combatant_id": "brute", "target": "hero"})


# --- §4, §4.1: the columns -----------------------------------------------------------------


def test_the_seeds_columns_are_2_plus_5_minus_1_plus_1():
    table = seed_fight()

    surprised = seed_surprise_round(table)
    chosen = table.send({"type": "choose-columns", "modifier": 1}, actor=ALAN)

    # 2 columns + 5 Allies (Artichoke counts) - 1 (the Allies were surprised); the Allies'
    # 15 + 12 + 9 + 8 + 7 beat the Enemies' 14 + 13 + 11 + 10, and Alan adds a column.
    assert only(surprised, "column-choice-began") == [{"side": "allies", "columns": 6}]
    assert only(chosen, "columns-chosen") == [{"side": "allies", "modifier": 1, "columns": 7}]
    assert state_of(table).phase == "deal"


@pytest.mark.parametrize(
    "actor",
    [
        pytest.param(EVANS_PLAYER, id="a player of the Enemies"),
        pytest.param(Actor("o1", "observer"), id="an observer"),
    ],
)
def test_only_the_allies_choose_when_they_have_the_initiative(actor):
    table = seed_fight()
    seed_surprise_round(table)

    violation = refused(table, {"type": "choose-columns", "modifier": 1}, actor=actor)

    assert violation.code == "columns/not-your-choice"


def test_when_the_enemies_have_the_initiative_only_the_gm_chooses():
    table = encounter()
    add(table, "hero", "allies")
    add(table, "brute", "enemies")
    table.send({"type": "start-encounter"}, dice=[3, 17])
    hero = Actor("p-hero", "player", frozenset({"hero"}))

    violation = refused(table, {"type": "choose-columns", "modifier": -1}, actor=hero)
    chosen = table.send({"type": "choose-columns", "modifier": -1}, actor=GM)

    assert state_of(table).chooser == "enemies"
    assert violation.code == "columns/not-your-choice"
    assert only(chosen, "columns-chosen") == [{"side": "enemies", "modifier": -1, "columns": 2}]


def test_the_columns_are_chosen_once():
    table = at_the_deal()

    violation = refused(table, {"type": "choose-columns", "modifier": 0}, actor=ALAN)

    assert violation.code == "columns/not-now"


# --- §3, §4.2: the deal --------------------------------------------------------------------


def test_a_table_deck_is_laid_as_given_and_the_rest_is_the_pool():
    table = at_the_deal()
    order = deck(*SEED_FIELD, pool=SEED_POOL)

    dealt = table.send({"type": "deal", "deck": order})

    # The first row dealt is the top row: the deck's first seven cards top the columns.
    assert order[:7] == ["9H", "8S", "2D", "5H", "9C", "QD", "QC"]
    assert only(dealt, "field-dealt") == [
        {"columns": [c.split() for c in SEED_FIELD], "pool": order[35:], "depth": 5,
         "padding": 0, "source": "table"}
    ]  # fmt: skip
    assert columns(table) == list(SEED_FIELD)
    assert pool(table).split() == order[35:] and pool(table).startswith(SEED_POOL)
    assert discard(table) == ""


def test_the_gm_deals():
    table = at_the_deal()

    violation = refused(table, {"type": "deal", "deck": deck(*SEED_FIELD)}, actor=ALAN)

    assert violation.code == "auth/gm-only"


def test_an_encounter_on_table_dice_deals_the_tables_deck():
    table = encounter(dice="table")
    add(table, "hero", "allies")
    add(table, "brute", "enemies")
    table.send({"type": "start-encounter"}, dice=[20, 10])
    table.send({"type": "choose-columns", "modifier": 0})

    violation = refused(table, {"type": "deal"})
    dealt = table.send({"type": "deal", "deck": deck(*AMBUSH_FIELD[:3])})

    assert violation.code == "deal/deck-required"
    assert only(dealt, "field-dealt")[0]["source"] == "table"


def test_the_deal_waits_for_the_columns():
    table = seed_fight()
    seed_surprise_round(table)

    violation = refused(table, {"type": "deal", "deck": deck(*SEED_FIELD)})

    assert violation.code == "deal/not-now"


@pytest.mark.parametrize(
    ("change", "code", "named"),
    [
        pytest.param(lambda d: d[:-1], "deal/card-missing", "KC", id="a card missing"),
        pytest.param(lambda d: [*d[:-1], "AS"], "deal/card-twice", "AS", id="a card twice"),
        pytest.param(lambda d: [*d, "10S'"], "deal/padding", "7 columns", id="padding not due"),
    ],
)
def test_a_table_deck_that_is_not_one_whole_deck_is_refused(change, code, named):
    table = at_the_deal()
    whole = [card.text for card in full_deck()]

    violation = refused(table, {"type": "deal", "deck": change(whole)})

    assert violation.code == code
    assert named in violation.message


def test_ten_columns_take_five_padding_cards():
    table = encounter()
    for n in range(8):
        add(table, f"ally{n}", "allies")
    add(table, "brute", "enemies")
    table.send({"type": "start-encounter"}, dice=[20 - n for n in range(9)])
    table.send({"type": "choose-columns", "modifier": 0})
    whole = [card.text for card in full_deck()]

    violation = refused(table, {"type": "deal", "deck": whole})
    dealt = table.send({"type": "deal", "deck": [*whole, "AS'", "2S'", "3S'", "4S'", "5S'"]})

    assert violation.code == "deal/padding" and "take 5 padding cards" in violation.message
    assert only(dealt, "field-dealt")[0]["padding"] == 5
    assert only(dealt, "field-dealt")[0]["pool"] == ["QC", "KC", "AS'", "2S'", "3S'", "4S'", "5S'"]


# --- §4.4: the Enemies surprised the Allies ------------------------------------------------


def test_the_seeds_enemies_add_one_card_each_from_the_pool():
    table = at_the_deal()

    dealt = table.send({"type": "deal", "deck": deck(*SEED_FIELD, pool=SEED_POOL)})
    added = []
    for cid, column in (("evans", 1), ("eckhart", 2), ("esther", 3), ("emberry", 4)):
        added += table.send({"type": "add-surprise-card", "combatant_id": cid, "column": column})

    assert only(dealt, "surprise-cards-began") == [
        {"side": "enemies", "order": ["evans", "eckhart", "esther", "emberry"]}
    ]
    # "Evans adds the QS above the 9H. Eckhart adds the 10H above the 8S. Esther adds the KS
    # above the 2D. Emberry adds the JS above the 5H."
    assert only(added, "surprise-card-added") == [
        {"combatant_id": "evans", "column": 1, "card": "QS"},
        {"combatant_id": "eckhart", "column": 2, "card": "10H"},
        {"combatant_id": "esther", "column": 3, "card": "KS"},
        {"combatant_id": "emberry", "column": 4, "card": "JS"},
    ]
    assert [c.split()[-2:] for c in columns(table)[:4]] == [
        ["9H", "QS"], ["8S", "10H"], ["2D", "KS"], ["5H", "JS"]
    ]  # fmt: skip
    assert not pool(table).startswith("QS") and len(pool(table).split()) == 17 - 4
    assert types(added)[-2:] == ["round-started", "turn-started"]


def test_the_enemies_add_no_more_than_one_card_to_a_column():
    table = at_the_surprise_cards()
    table.send({"type": "add-surprise-card", "combatant_id": "evans", "column": 1})

    violation = refused(
        table, {"type": "add-surprise-card", "combatant_id": "eckhart", "column": 1}
    )

    assert violation.code == "cards/one-per-column"


def test_each_surprising_enemy_adds_once():
    table = at_the_surprise_cards()
    table.send({"type": "add-surprise-card", "combatant_id": "evans", "column": 1})

    violation = refused(table, {"type": "add-surprise-card", "combatant_id": "evans", "column": 2})

    assert violation.code == "surprise/not-yours"


def test_the_surprised_allies_take_no_card():
    table = at_the_surprise_cards()

    violation = refused(
        table, {"type": "take-card", "combatant_id": "alan", "card": "6S"}, actor=ALAN
    )

    assert violation.code == "surprise/not-yours"


# --- §4.3: the Allies surprised the Enemies ------------------------------------------------

AMBUSH_FIELD = (
    "AS 2S 3S 4S 5S",
    "AH 2H 3H 4H 5H",
    "AD 2D 3D 4D 5D",
    "AC 2C 3C 4C 5C",
    "6S 6H 6D 6C 7S",
)


def ambush() -> Table:
    """Two Allies with a surprise attack on one Enemy, both passing; 2 + 2 + 1 columns."""
    table = encounter()
    add(table, "hero", "allies", surprise=True)
    add(table, "sidekick", "allies", surprise=True)
    add(table, "brute", "enemies")
    table.send({"type": "start-encounter"}, dice=[20, 15, 10])
    table.send({"type": "pass-surprise", "combatant_id": "hero"})
    table.send({"type": "pass-surprise", "combatant_id": "sidekick"})
    return table


def test_allies_who_surprised_the_enemies_get_a_column_and_take_cards():
    table = ambush()
    assert state_of(table).columns == 5  # 2 + 2 Allies + 1: the Enemy were surprised

    table.send({"type": "choose-columns", "modifier": 0})
    dealt = table.send({"type": "deal", "deck": deck(*AMBUSH_FIELD)})

    assert only(dealt, "surprise-cards-began") == [
        {"side": "allies", "order": ["hero", "sidekick"]}
    ]


def test_a_card_taken_by_a_surprising_ally_lets_the_cards_above_drop():
    table = ambush()
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal", "deck": deck(*AMBUSH_FIELD)})

    taken = table.send({"type": "take-card", "combatant_id": "hero", "card": "3H"})
    more = table.send({"type": "take-card", "combatant_id": "sidekick", "card": "AH"})

    # "Any cards above this card drop down a row"; "They may remove multiple cards from the
    # same column."
    assert only(taken, "card-taken") == [{"combatant_id": "hero", "card": "3H", "column": 2}]
    assert only(more, "card-taken") == [{"combatant_id": "sidekick", "card": "AH", "column": 2}]
    assert columns(table)[1] == "2H 4H 5H"
    assert discard(table) == "3H AH"
    assert types(more)[-2:] == ["round-started", "turn-started"]


def test_a_surprising_ally_takes_only_a_card_that_is_face_up():
    table = ambush()
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal", "deck": deck(*AMBUSH_FIELD)})

    violation = refused(table, {"type": "take-card", "combatant_id": "hero", "card": "KD"})

    assert violation.code == "cards/no-such-card"


def test_when_both_sides_were_surprised_nobody_gets_surprise_cards():
    table = encounter()
    add(table, "hero", "allies", surprise=True)
    add(table, "brute", "enemies", surprise=True)
    table.send({"type": "start-encounter"}, dice=[20, 10])
    table.send({"type": "pass-surprise", "combatant_id": "hero"})
    passed = table.send({"type": "pass-surprise", "combatant_id": "brute"})
    table.send({"type": "choose-columns", "modifier": 0})

    dealt = table.send({"type": "deal", "deck": deck(*AMBUSH_FIELD[:2])})

    # 2 columns + 1 Ally - 1 (the Allies were surprised); no +1, the Allies were too.
    assert only(passed, "column-choice-began") == [{"side": "allies", "columns": 2}]
    assert types(dealt) == ["field-dealt", "round-started", "turn-started"]


# --- the roster once the fight has begun ----------------------------------------------------


def test_a_combatant_cannot_be_removed_once_the_fight_has_begun():
    table = seed_fight()

    violation = refused(table, {"type": "remove-combatant", "combatant_id": "evans"})

    assert violation.code == "combatant/in-the-fight"
    assert "adjust-resource" in violation.message


def test_before_the_start_a_combatant_may_still_be_removed():
    table = encounter()
    example(table, "alan")

    removed = table.send({"type": "remove-combatant", "combatant_id": "alan"})

    assert types(removed) == ["combatant-removed"]
