"""What fifty-two shows: the acting combatant's legal actions with their costs and cards,
the face-down pool sealed from every viewer until the end, and one sentence per event."""

from __future__ import annotations

import pytest

from service.domain.context import GM, SYSTEM, Actor
from service.domain.envelope import Envelope
from service.domain.narration import namer
from service.domain.views import ActionOption
from service.rules.fifty_two import RULESET
from tests.rules.fifty_two.given import (
    ALAN,
    ALPHONSE,
    AUDITOR,
    HERO,
    OBSERVER,
    PLAYER,
    add,
    deck,
    duel,
    emptied_pool,
    encounter,
    end_turn,
    only,
    play,
    seed_opening,
    state_of,
)
from tests.rules.harness import Table

PAIRED_FIELD = ("AS AH 3S 4S 5S", "2H 2S 3H 4H 5H", "AD 2D 3D 4D 5D")
SEED_ROW_FIELD = ("4H 7H JH AC 2D", "6C 9D 7S 8S 9S", "3C KD 10C 8C 9C")
VIEWERS = [
    pytest.param(GM, id="GM"),
    pytest.param(PLAYER, id="player"),
    pytest.param(OBSERVER, id="observer"),
    pytest.param(AUDITOR, id="auditor"),
]


def options(table: Table, viewer: Actor, kind: str) -> list[ActionOption]:
    return [o for o in RULESET.legal_actions(table.state, viewer) if o.type == kind]


def kinds(table: Table, viewer: Actor) -> set[str]:
    return {o.type for o in RULESET.legal_actions(table.state, viewer)}


# --- legal actions --------------------------------------------------------------------------


def test_removals_list_their_cost_and_the_cards_they_would_take():
    table = duel(*SEED_ROW_FIELD, hero={"attack_bonus": 1})

    removals = {o.params["card"]: o for o in options(table, HERO, "remove-card")}

    assert removals["4H"].cost == {"ap": 1}
    assert removals["4H"].params == {
        "card": "4H", "cards": ["4H", "7H", "JH"], "normal": 1, "critical": 0
    }  # fmt: skip
    assert removals["9D"].cost == {"ap": 2}
    assert removals["9D"].params["cards"] == ["9D", "KD"]
    assert removals["4H"].actor == "hero" and removals["4H"].label == "Remove 4♥"
    assert len(removals) == 15


def test_only_the_actions_the_points_cover_are_offered():
    table = duel(*SEED_ROW_FIELD)  # one point: the free action

    costs = {o.params["card"]: o.cost for o in options(table, HERO, "remove-card")}

    assert costs == {"4H": {"ap": 1}, "6C": {"ap": 1}, "3C": {"ap": 1}}


def test_pairs_are_offered_with_their_critical_opportunity():
    table = duel(*PAIRED_FIELD)

    pairs = [o.params["cards"] for o in options(table, HERO, "remove-pair")]

    assert ["AS", "AH"] in pairs and ["2S", "2D"] in pairs and ["2H", "2S"] in pairs
    assert all(
        o.cost == {"ap": 1} and o.params["critical"] == 1
        for o in options(table, HERO, "remove-pair")
    )
    assert options(table, HERO, "remove-pair")[0].label == "Remove the A♠\u2013A♥ pair"


def test_an_attack_is_offered_once_there_is_an_opportunity_with_each_targets_cost():
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 2, "weapon": {"damage_type": "crushing"}},
        brute={"armor": "chain"},
        others=(("ogre", "enemies", {"armor": "banded"}),),
    )
    assert options(table, HERO, "execute-attack") == []

    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    (offered,) = options(table, HERO, "execute-attack")

    # Chain is vulnerable to piercing, banded to crushing (§5.3).
    assert offered.targets == ["brute", "ogre"]
    assert offered.params == {"critical": True, "costs": {"brute": 1, "ogre": 0}}
    assert offered.cost == {"ap": 0}


def test_an_enemy_is_offered_columns_to_add_to_and_no_removal():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 1}, brute={"attack_bonus": 4})
    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    end_turn(table)

    adds = options(table, GM, "add-cards")

    assert [(o.params["column"], o.params["max"], o.cost) for o in adds] == [(1, 2, {"ap": 1})]
    assert options(table, GM, "remove-card") == []
    assert {"remove-pair", "end-turn"} <= kinds(table, GM)


def test_an_enemy_is_offered_no_more_cards_than_its_points_pay_for():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 1})
    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    end_turn(table)  # the brute has one point: one card

    (offered,) = options(table, GM, "add-cards")

    assert offered.params["max"] == 1


def test_choosing_a_foe_is_offered_only_when_there_is_another_enemy_faction():
    table = duel(*PAIRED_FIELD, first="brute")

    assert options(table, GM, "choose-foe") == []


def test_choosing_a_foe_is_offered_to_an_enemy_that_has_not_acted():
    table = duel(*PAIRED_FIELD, first="brute", others=(("goblin", "goblins", {}),))

    assert [o.actor for o in options(table, GM, "choose-foe")] == ["brute"]


def test_holding_is_offered_only_before_acting():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 2})
    assert options(table, HERO, "hold-action")

    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    assert options(table, HERO, "hold-action") == []


def test_the_gm_is_offered_a_combatant_to_add_only_before_the_deal():
    """§4: the field is dealt for the combatants at the start; decide refuses a later one
    (`combatant/after-start`), so legal actions stop offering it."""
    table = encounter()
    add(table, "hero", "allies")
    assert "add-combatant" in kinds(table, GM)

    table = duel(*SEED_ROW_FIELD)

    assert "add-combatant" not in kinds(table, GM)


def test_nobody_else_is_offered_the_acting_combatants_actions():
    table = seed_opening()

    assert options(table, ALPHONSE, "remove-pair")
    for viewer in (ALAN, OBSERVER, AUDITOR):
        assert kinds(table, viewer) & {"remove-card", "remove-pair", "end-turn"} == set()


# --- the sealed pool ------------------------------------------------------------------------


def server_deal() -> tuple[Table, Envelope]:
    table = encounter()
    add(table, "hero", "allies")
    add(table, "brute", "enemies")
    table.send({"type": "start-encounter"}, dice=[20, 10])
    table.send({"type": "choose-columns", "modifier": 0})
    (dealt, *_) = table.send({"type": "deal"})
    return table, dealt


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_deals_pool_and_its_shuffle_are_sealed_from_every_viewer(viewer):
    table, dealt = server_deal()
    assert dealt.type == "field-dealt" and len(dealt.data["pool"]) == 37
    assert {r["purpose"] for r in dealt.rolls} == {"shuffle the deck"}

    shown = RULESET.redact_event(dealt, viewer, table.state)

    assert shown is not None
    assert shown["data"]["pool"] is None and shown["data"]["pool_size"] == 37
    assert shown["data"]["columns"] == dealt.data["columns"]
    assert shown["rolls"] == []


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_table_decks_order_is_sealed_in_the_deal_command(viewer):
    table = duel(*PAIRED_FIELD)
    (dealt,) = [e for e in table.envelopes if e.type == "field-dealt"]
    assert dealt.command is not None and dealt.command["deck"] == deck(*PAIRED_FIELD)

    shown = RULESET.redact_event(dealt, viewer, table.state)

    assert shown is not None
    assert shown["command"] == {"type": "deal", "deck": "sealed"}
    assert shown["data"]["pool"] is None


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_pool_is_sealed_in_the_state(viewer):
    table, _ = server_deal()

    shown = RULESET.redact_state(state_of(table), viewer)

    assert shown["field"]["pool"] is None and shown["field"]["pool_size"] == 37
    assert len(shown["field"]["columns"]) == 3


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_pool_is_shown_after_the_encounter_ends(viewer):
    table, dealt = server_deal()
    table.send({"type": "end-encounter", "reason": "the Enemies surrender"})

    event = RULESET.redact_event(dealt, viewer, table.state)
    state = RULESET.redact_state(state_of(table), viewer)

    assert event is not None and event["data"]["pool"] == dealt.data["pool"]
    assert len(event["rolls"]) == 51
    assert [card for card in state["field"]["pool"]] == dealt.data["pool"]


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_reshuffled_discard_stack_is_sealed_like_the_deal(viewer):
    table = emptied_pool()
    order = ["4H", "4S", "3H", "3S", "2H", "2S", "AH", "AS"]
    (reshuffled, added, *_) = play(table, "brute", "add-cards", column=4, count=2, reshuffle=order)
    assert reshuffled.type == "discard-reshuffled" and added.type == "cards-added"

    shown = RULESET.redact_event(reshuffled, viewer, table.state)

    assert shown is not None
    assert shown["data"] == {"pool": None, "pool_size": 8, "source": "table"}
    assert shown["command"] == {
        "type": "add-cards", "combatant_id": "brute", "column": 4, "count": 2,
        "reshuffle": "sealed",
    }  # fmt: skip
    # The cards laid face up are not secret.
    assert RULESET.redact_event(added, viewer, table.state)["data"]["cards"] == ["4C", "4H"]


def test_the_system_sees_the_pool():
    table, dealt = server_deal()

    shown = RULESET.redact_event(dealt, SYSTEM, table.state)

    assert shown is not None and shown["data"]["pool"] == dealt.data["pool"]


# --- narration ------------------------------------------------------------------------------


def narrated(table: Table, envelopes: list[Envelope], kind: str) -> list[str]:
    names = namer(state_of(table).table.combatants)
    return [RULESET.narrate(kind, data, names) for data in only(envelopes, kind)]


def test_the_seeds_pair_removal_reads_as_the_seed_tells_it():
    table = seed_opening()

    removed = play(table, "alphonse", "remove-pair", cards=["10S", "10D"])

    assert narrated(table, removed, "pair-removed") == [
        "Alphonse removes the 10♠\u201310♦ pair: critical opportunity."  # an en dash
    ]


def test_removals_attacks_and_turns_are_narrated():
    table = seed_opening()
    sent: list[Envelope] = []
    sent += play(table, "alphonse", "remove-pair", cards=["10S", "10D"])
    sent += table.send(
        {
            "type": "execute-attack",
            "combatant_id": "alphonse",
            "target": "eckhart",
            "critical": True,
        },
        dice=[5, 5],
    )
    sent += play(table, "alphonse", "remove-card", card="6S")
    sent += end_turn(table)

    def say(kind: str) -> list[str]:
        return narrated(table, sent, kind)

    assert say("attack-executed") == [
        "Alphonse's critical attack on Eckhart gets through for 20 damage."
    ]
    assert say("cards-removed") == ["Alphonse removes 6♠: normal opportunity."]
    assert say("turn-ended") == ["Alphonse's turn ends, 6 action points unused."]
    assert say("turn-started") == ["Evans's turn: 15 action points."]


def test_an_attack_held_by_the_armor_says_how_far_it_wore_through():
    table = seed_opening()
    end_turn(table)  # Evans's turn; on Alan the rating is 5
    play(table, "evans", "remove-pair", cards=["10S", "10D"])

    held = table.send(
        {"type": "execute-attack", "combatant_id": "evans", "target": "alan", "critical": True}
    )

    assert narrated(table, held, "attack-executed") == [
        "Evans's critical attack on Alan is held by the armor (3 of 5 hits)."
    ]
