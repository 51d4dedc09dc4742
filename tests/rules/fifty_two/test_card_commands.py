"""fifty-two §5.2's card actions through commands, against fields dealt from a table deck:
what each takes or places, what it costs, the opportunities it creates, and who may do it."""

from __future__ import annotations

from collections import Counter

import pytest

from service.rules.fifty_two.cards import full_deck
from tests.rules.fifty_two.given import (
    HERO,
    cards_held,
    columns,
    discard,
    duel,
    emptied_pool,
    end_turn,
    only,
    play,
    pool,
    refused,
    state_of,
    types,
)
from tests.rules.harness import Table

WHOLE_DECK = Counter(card.text for card in full_deck())


def opportunities(table: Table) -> tuple[int, int, int]:
    """The acting combatant's points left, normal and critical opportunities."""
    turn = state_of(table).turn
    assert turn is not None
    return turn.points, turn.normal, turn.critical


# --- removing a bottom-row card -------------------------------------------------------------

BOTTOM_FIELD = ("4H 7H JH AC 2D", "AS 2S 3S 4S 5S", "6D 7C 8C 9C 10C")


def test_the_seeds_4_7_jack_of_hearts_below_the_ace_of_clubs():
    table = duel(*BOTTOM_FIELD, hero={"attack_bonus": 5})

    removed = play(table, "hero", "remove-card", actor=HERO, card="4H")

    # §5.2: "removing the 4 also removes the 7 and Jack"; the column is not cleared: a
    # normal opportunity, for 1 AP.
    assert only(removed, "cards-removed") == [
        {"combatant_id": "hero", "how": "bottom", "card": "4H", "cards": ["4H", "7H", "JH"],
         "cost": 1, "normal": 1, "critical": 0, "abandoned": None}
    ]  # fmt: skip
    assert columns(table)[0] == "AC 2D"
    assert discard(table) == "4H 7H JH"
    assert opportunities(table) == (5, 1, 0)


def test_clearing_a_column_from_the_bottom_is_a_critical_opportunity():
    table = duel(*BOTTOM_FIELD, hero={"attack_bonus": 5})

    removed = play(table, "hero", "remove-card", card="AS")

    (cleared,) = only(removed, "cards-removed")
    assert cleared["cards"] == ["AS", "2S", "3S", "4S", "5S"]
    assert (cleared["normal"], cleared["critical"]) == (0, 1)
    assert columns(table)[1] == ""
    assert opportunities(table) == (5, 0, 1)


def test_a_bottom_card_takes_only_the_unbroken_run_of_its_suit():
    table = duel(*BOTTOM_FIELD, hero={"attack_bonus": 5})

    removed = play(table, "hero", "remove-card", card="6D")

    assert only(removed, "cards-removed")[0]["cards"] == ["6D"]
    assert columns(table)[2] == "7C 8C 9C 10C"


# --- removing a card from elsewhere ---------------------------------------------------------

ELSEWHERE_FIELD = (
    "2C 5D 7S 8H 9S",
    "3C 9D 7H JH KS",
    "4C KD QC 8C 3S",
    "6C 2D 10S JS QH",
)


@pytest.mark.parametrize(
    ("card", "cards", "normal", "critical"),
    [
        pytest.param("7H", ["7H"], 0, 0, id="one card: no opportunity"),
        pytest.param("8H", ["8H", "JH"], 1, 0, id="two cards: a normal opportunity"),
        pytest.param("KS", ["9S", "KS", "3S"], 1, 0, id="three cards: still one"),
        pytest.param("9D", ["5D", "9D", "KD", "2D"], 1, 1, id="four cards: one is critical"),
    ],
)
def test_a_card_from_elsewhere_takes_its_suit_along_the_row_for_2_ap(card, cards, normal, critical):
    table = duel(*ELSEWHERE_FIELD, hero={"attack_bonus": 5})

    removed = play(table, "hero", "remove-card", card=card)

    # §5.2: "Any cards of matching suit that are adjacent to the first horizontally are also
    # removed. Every second card so removed creates an opportunity for a normal attack.
    # Removing four or more cards in this way elevates that attack to a possible critical."
    assert only(removed, "cards-removed") == [
        {"combatant_id": "hero", "how": "elsewhere", "card": card, "cards": cards, "cost": 2,
         "normal": normal, "critical": critical, "abandoned": None}
    ]  # fmt: skip
    assert opportunities(table) == (6 - 2, normal, critical)
    assert sorted(discard(table).split()) == sorted(cards)


def test_the_cards_above_a_row_removal_drop_down():
    table = duel(*ELSEWHERE_FIELD, hero={"attack_bonus": 5})

    play(table, "hero", "remove-card", card="9D")

    assert columns(table) == ["2C 7S 8H 9S", "3C 7H JH KS", "4C QC 8C 3S", "6C 10S JS QH"]


def test_a_removal_the_points_do_not_cover_is_refused():
    table = duel(*ELSEWHERE_FIELD)

    violation = refused(table, {"type": "remove-card", "combatant_id": "hero", "card": "7H"})

    assert violation.code == "points/not-enough"
    assert violation.details == {"cost": 2, "points": 1}


def test_a_card_that_is_not_face_up_cannot_be_removed():
    table = duel(*ELSEWHERE_FIELD, hero={"attack_bonus": 5})

    violation = refused(table, {"type": "remove-card", "combatant_id": "hero", "card": "AH"})

    assert violation.code == "cards/no-such-card"
    assert violation.details == {"card": "AH"}


# --- removing a pair ------------------------------------------------------------------------

PAIR_FIELD = ("AS AH AD 4S 5S", "10S 2H 3H 4H 5H", "10D 2D 3D 4D 5D")


def test_an_adjacent_pair_is_a_critical_opportunity_for_1_ap():
    table = duel(*PAIR_FIELD, hero={"attack_bonus": 2})

    removed = play(table, "hero", "remove-pair", cards=["10S", "10D"])

    assert only(removed, "pair-removed") == [
        {"combatant_id": "hero", "cards": ["10S", "10D"], "cost": 1, "critical": 1}
    ]
    assert columns(table)[1:] == ["2H 3H 4H 5H", "2D 3D 4D 5D"]
    assert opportunities(table) == (2, 0, 1)


def test_a_third_matching_card_stays():
    table = duel(*PAIR_FIELD, hero={"attack_bonus": 2})

    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    # §5.2: "Even if there is a third matching card, only two cards are removed."
    assert columns(table)[0] == "AD 4S 5S"
    assert discard(table) == "AS AH"


@pytest.mark.parametrize(
    ("cards", "code"),
    [
        pytest.param(["AS", "AD"], "cards/not-adjacent", id="one card between"),
        pytest.param(["2H", "3D"], "cards/not-a-pair", id="two ranks"),
        pytest.param(["4S", "4D"], "cards/not-adjacent", id="two columns apart"),
        pytest.param(["AH", "2D"], "cards/not-a-pair", id="two columns apart, two ranks"),
        pytest.param(["3H", "4D"], "cards/not-a-pair", id="diagonal, two ranks"),
        pytest.param(["AS", "AC"], "cards/no-such-card", id="a card not face up"),
    ],
)
def test_a_pair_that_is_not_adjacent_or_not_a_pair_is_refused(cards, code):
    table = duel(*PAIR_FIELD, hero={"attack_bonus": 2})

    violation = refused(table, {"type": "remove-pair", "combatant_id": "hero", "cards": cards})

    assert violation.code == code


def test_diagonal_cards_of_one_rank_are_not_adjacent():
    table = duel("AS 2C 3C 4C 5C", "6H AH 7C 8C 9C", "6D 7D 8D 9D 10D", hero={"attack_bonus": 2})

    violation = refused(
        table, {"type": "remove-pair", "combatant_id": "hero", "cards": ["AS", "AH"]}
    )

    assert violation.code == "cards/not-adjacent"


# --- who may do which -----------------------------------------------------------------------


def test_an_enemy_fighting_the_allies_does_not_remove_cards():
    table = duel(*PAIR_FIELD, first="brute")

    violation = refused(table, {"type": "remove-card", "combatant_id": "brute", "card": "AS"})

    assert violation.code == "cards/allies-remove"


def test_an_ally_does_not_add_cards():
    table = duel(*PAIR_FIELD, hero={"attack_bonus": 2})

    violation = refused(
        table, {"type": "add-cards", "combatant_id": "hero", "column": 1, "count": 1}
    )

    assert violation.code == "cards/enemies-add"


def test_anyone_removes_a_pair():
    table = duel(*PAIR_FIELD, first="brute", brute={"attack_bonus": 2})

    removed = play(table, "brute", "remove-pair", cards=["10S", "10D"])

    assert only(removed, "pair-removed")[0]["critical"] == 1


def test_an_enemy_that_chose_another_faction_as_its_foe_removes_cards_and_adds_none():
    table = duel(
        *BOTTOM_FIELD,
        first="brute",
        brute={"attack_bonus": 4},
        others=(("goblin", "goblins", {}),),
    )

    chosen = play(table, "brute", "choose-foe", foe="goblins")
    removed = play(table, "brute", "remove-card", card="4H")
    violation = refused(
        table, {"type": "add-cards", "combatant_id": "brute", "column": 1, "count": 1}
    )

    assert only(chosen, "foe-chosen") == [{"combatant_id": "brute", "foe": "goblins"}]
    assert only(removed, "cards-removed")[0]["cards"] == ["4H", "7H", "JH"]
    assert violation.code == "cards/enemies-add"


@pytest.mark.parametrize(
    ("who", "foe", "code"),
    [
        pytest.param("hero", "enemies", "foe/allies-fight-enemies", id="an Ally"),
        pytest.param("brute", "enemies", "foe/unknown-faction", id="its own faction"),
        pytest.param("brute", "trolls", "foe/unknown-faction", id="nobody's faction"),
    ],
)
def test_a_foe_is_another_enemy_faction(who, foe, code):
    table = duel(*BOTTOM_FIELD, first=who, others=(("goblin", "goblins", {}),))

    violation = refused(table, {"type": "choose-foe", "combatant_id": who, "foe": foe})

    assert violation.code == code


def test_a_foe_is_chosen_before_acting():
    table = duel(
        *PAIR_FIELD, first="brute", brute={"attack_bonus": 2}, others=(("goblin", "goblins", {}),)
    )
    play(table, "brute", "remove-pair", cards=["10S", "10D"])

    violation = refused(table, {"type": "choose-foe", "combatant_id": "brute", "foe": "goblins"})

    assert violation.code == "foe/after-acting"


# --- adding cards ---------------------------------------------------------------------------

ADD_FIELD = ("AS 2S 3S 4S 5S", "6H 7H 8C 9D 10S", "AH 2C 3H 4C 5H")


def room_made(**brute: int) -> Table:
    """The hero clears column 1 and takes two cards off column 2, then the brute's turn."""
    table = duel(*ADD_FIELD, hero={"attack_bonus": 1}, brute={"attack_bonus": 10, **brute})
    play(table, "hero", "remove-card", card="AS")
    play(table, "hero", "remove-card", card="6H")
    end_turn(table)
    return table


@pytest.mark.parametrize(
    ("column", "count", "normal", "critical"),
    [
        pytest.param(1, 1, 0, 0, id="one card: nothing"),
        pytest.param(1, 2, 1, 0, id="each card after the first: normal"),
        pytest.param(1, 4, 3, 1, id="four in a column: critical"),
        pytest.param(1, 5, 4, 1, id="five in a column: one critical"),
        pytest.param(2, 2, 1, 1, id="refilling to the depth: critical"),
    ],
)
def test_cards_added_from_the_pool_create_opportunities(column, count, normal, critical):
    table = room_made()
    before = pool(table).split()

    added = play(table, "brute", "add-cards", column=column, count=count)

    assert only(added, "cards-added") == [
        {"combatant_id": "brute", "column": column, "cards": before[:count], "cost": count,
         "normal": normal, "critical": critical}
    ]  # fmt: skip
    assert columns(table)[column - 1].split()[-count:] == before[:count]
    assert pool(table).split() == before[count:]
    assert opportunities(table) == (11 - count, normal, critical)


def test_the_seeds_evans_refills_a_two_card_column_with_three_cards():
    table = duel(*ADD_FIELD, hero={"attack_bonus": 1}, brute={"attack_bonus": 10})
    play(table, "hero", "remove-card", card="6H")  # 6H 7H: 8C 9D 10S are left
    play(table, "hero", "remove-card", card="8C")  # 9D 10S are left
    end_turn(table)

    added = play(table, "brute", "add-cards", column=2, count=3)

    # §5.5: "Refilling column 2 from the face-down deck creates another critical, for the
    # cost of 3 action points plus 1 to execute it."
    assert only(added, "cards-added")[0] | {"cards": []} == {
        "combatant_id": "brute", "column": 2, "cards": [], "cost": 3, "normal": 2, "critical": 1
    }  # fmt: skip


def test_cards_placed_one_command_at_a_time_earn_what_placing_them_together_does():
    table = room_made()

    added = [
        only(play(table, "brute", "add-cards", column=1, count=count), "cards-added")[0]
        for count in (1, 1, 2)
    ]

    assert [(a["normal"], a["critical"]) for a in added] == [(0, 0), (1, 0), (2, 1)]
    assert opportunities(table) == (11 - 4, 3, 1)
    assert state_of(table).turn is not None and state_of(table).turn.placed == {1: 4}


def test_a_column_takes_no_more_cards_than_its_depth():
    table = room_made()

    too_many = refused(
        table, {"type": "add-cards", "combatant_id": "brute", "column": 2, "count": 3}
    )
    full = refused(table, {"type": "add-cards", "combatant_id": "brute", "column": 3, "count": 1})

    assert too_many.code == full.code == "cards/column-full"
    assert too_many.details["room"] == 2


def test_adding_more_cards_than_the_points_cover_is_refused():
    table = room_made(attack_bonus=2)

    violation = refused(
        table, {"type": "add-cards", "combatant_id": "brute", "column": 1, "count": 4}
    )

    assert violation.code == "points/not-enough"
    assert violation.details == {"cost": 4, "points": 3}


def test_there_is_no_column_beyond_the_field():
    table = room_made()

    violation = refused(
        table, {"type": "add-cards", "combatant_id": "brute", "column": 4, "count": 1}
    )

    assert violation.code == "cards/no-such-column"


def test_an_empty_pool_is_the_discard_stack_shuffled():
    table = emptied_pool()
    stack = discard(table).split()

    added = play(table, "brute", "add-cards", column=4, count=2)

    assert types(added)[:2] == ["discard-reshuffled", "cards-added"]
    (reshuffled,) = only(added, "discard-reshuffled")
    assert sorted(reshuffled["pool"]) == sorted(stack) and reshuffled["source"] == "server"
    assert only(added, "cards-added")[0]["cards"] == ["4C", reshuffled["pool"][0]]
    assert pool(table).split() == reshuffled["pool"][1:]
    assert discard(table) == ""
    assert cards_held(table) == WHOLE_DECK


def test_the_table_may_give_the_reshuffled_order():
    table = emptied_pool()
    order = ["4H", "4S", "3H", "3S", "2H", "2S", "AH", "AS"]

    added = play(table, "brute", "add-cards", column=4, count=2, reshuffle=order)

    assert only(added, "discard-reshuffled") == [{"pool": order, "source": "table"}]
    assert only(added, "cards-added")[0]["cards"] == ["4C", "4H"]
    assert pool(table).split() == order[1:]


def test_a_reshuffled_order_that_is_not_the_discard_stack_is_refused():
    table = emptied_pool()

    violation = refused(
        table,
        {"type": "add-cards", "combatant_id": "brute", "column": 4, "count": 2,
         "reshuffle": ["4H", "4S", "3H", "3S", "2H", "2S", "AH", "KD"]},
    )  # fmt: skip

    assert violation.code == "cards/reshuffle-mismatch"


def test_no_reshuffle_is_taken_while_the_pool_lasts():
    table = emptied_pool()

    violation = refused(
        table,
        {"type": "add-cards", "combatant_id": "brute", "column": 4, "count": 1,
         "reshuffle": ["4H", "4S", "3H", "3S", "2H", "2S", "AH", "AS"]},
    )  # fmt: skip

    assert violation.code == "cards/no-reshuffle"


# --- bookkeeping ----------------------------------------------------------------------------


def test_every_card_stays_in_the_fight_through_a_turn_of_card_actions():
    table = room_made()
    assert cards_held(table) == WHOLE_DECK

    play(table, "brute", "add-cards", column=1, count=3)
    play(table, "brute", "add-cards", column=2, count=2)

    assert cards_held(table) == WHOLE_DECK
    assert table.replayed() == table.state


def test_a_card_action_out_of_turn_is_refused():
    table = duel(*PAIR_FIELD, hero={"attack_bonus": 2})
    end_turn(table)

    violation = refused(
        table, {"type": "remove-card", "combatant_id": "hero", "card": "AS"}, actor=HERO
    )

    assert violation.code == "turn/not-your-turn"
