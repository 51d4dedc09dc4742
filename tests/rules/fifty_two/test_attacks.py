"""fifty-two §5.2, §5.3 and §5.3.3 through commands: an attack spends an opportunity the
turn created, costs 1 AP (0 against a vulnerable armor), and registers when the hits worn
into the target's armor reach its rating; damage comes off hp and 0 hp is down."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.fifty_two.given import (
    ALPHONSE,
    deck,
    duel,
    encounter,
    end_turn,
    example,
    hp,
    only,
    play,
    refused,
    seed_opening,
    state_of,
    types,
)
from tests.rules.harness import Table

PAIRED_FIELD = ("AS AH 3S 4S 5S", "2H 2S 3H 4H 5H", "AD 2D 3D 4D 5D")
# Six pairs, one after another: AS-AH then 2S-2H in column 1, 4S-4H then 5S-5H in column 2,
# 6S-6H then 7S-7H in column 3.
SIX_PAIRS = ("AS AH 2S 2H 3S", "4S 4H 5S 5H 3H", "6S 6H 7S 7H 8S")
SIX = (["AS", "AH"], ["4S", "4H"], ["6S", "6H"], ["2S", "2H"], ["5S", "5H"], ["7S", "7H"])


def attack(
    table: Table, cid: str, target: str, critical: bool = True, **send: Any
) -> dict[str, Any]:
    command = {
        "type": "execute-attack",
        "combatant_id": cid,
        "target": target,
        "critical": critical,
    }
    (executed,) = only(table.send(command, **send), "attack-executed")
    return executed


def opportunities(table: Table) -> tuple[int, int, int]:
    turn = state_of(table).turn
    assert turn is not None
    return turn.points, turn.normal, turn.critical


# --- opportunities --------------------------------------------------------------------------


@pytest.mark.parametrize("critical", [False, True], ids=["normal", "critical"])
def test_an_attack_needs_an_opportunity(critical):
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3})

    violation = refused(
        table,
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": critical},
    )

    assert violation.code == "attack/no-opportunity"
    assert violation.details == {"normal": 0, "critical": 0}


def test_an_attack_spends_its_opportunity():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3}, brute={"armor": "chain"})
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    executed = attack(table, "hero", "brute")

    assert executed["cost"] == 1
    assert opportunities(table) == (4 - 2, 0, 0)
    again = refused(
        table,
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": True},
    )
    assert again.code == "attack/no-opportunity"


def test_a_normal_opportunity_is_not_a_critical_one():
    table = duel("4H 7H JH AC 2D", "AS 2S 3S 4S 5S", "6D 7C 8C 9C 10C", hero={"attack_bonus": 3})
    play(table, "hero", "remove-card", card="4H")

    violation = refused(
        table,
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": True},
    )
    executed = attack(table, "hero", "brute", critical=False)

    assert violation.code == "attack/no-opportunity"
    assert executed["critical"] is False and executed["registered"] is True


def test_an_attack_is_made_on_an_opponent():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3}, others=(("squire", "allies", {}),))
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    violation = refused(
        table,
        {"type": "execute-attack", "combatant_id": "hero", "target": "squire", "critical": True},
    )

    assert violation.code == "attack/not-an-opponent"


def test_opportunities_do_not_outlast_the_turn():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 3}, brute={"attack_bonus": 3})
    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    end_turn(table)
    end_turn(table)

    assert opportunities(table) == (4, 0, 0)


# --- §5.3.3: the armor rating ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("armor", "weapon", "rating"),
    [
        # §5.3.3: "+2 chain who is attacked by an unenchanted weapon has a rating of 3; if
        # attacked with a +1 weapon, the rating is 2; ... +2 ... 1; and, +3 or better, zero."
        pytest.param({"armor": "chain", "armor_enchantment": 2}, 0, 3, id="+2 chain vs +0"),
        pytest.param({"armor": "chain", "armor_enchantment": 2}, 1, 2, id="+2 chain vs +1"),
        pytest.param({"armor": "chain", "armor_enchantment": 2}, 2, 1, id="+2 chain vs +2"),
        pytest.param({"armor": "chain", "armor_enchantment": 2}, 3, 0, id="+2 chain vs +3"),
        # "+3 chain ... unenchanted weapon has a rating of 3 (not 4, because of the cap)".
        pytest.param({"armor": "chain", "armor_enchantment": 3}, 0, 3, id="+3 chain vs +0 (cap)"),
        pytest.param({"armor": "chain", "armor_enchantment": 3}, 2, 2, id="+3 chain vs +2"),
        pytest.param({"armor": "chain", "armor_enchantment": 3}, 4, 0, id="+3 chain vs +4"),
        pytest.param({"armor": "none"}, 0, 0, id="no armor"),
        pytest.param({"armor": "soft-leather"}, 0, 0, id="soft leather"),
        pytest.param({"armor": "ring"}, 0, 2, id="ring"),
        pytest.param({"armor": "full-plate"}, 0, 3, id="full plate"),
        # "Shield = score above +1" adds 2 to chain's 1; an unenchanted shield adds no magic
        # ("If the armor is enchanted"; issue 27): 3.
        pytest.param({"armor": "chain", "shield": 3}, 0, 3, id="chain and a +3 shield"),
        pytest.param({"armor": "chain", "shield": 1}, 1, 0, id="chain and a +1 shield vs +1"),
        # An enchanted shield's score is magic, as Evans's "(+2+1+1)" counts Alan's Shield
        # +1(+1): chain 1 + (0 + 1 + 1) = 3.
        pytest.param(
            {"armor": "chain", "shield": 1, "shield_enchantment": 1},
            0,
            3,
            id="chain and an enchanted +1 shield",
        ),
    ],
)
def test_the_rating_comes_from_the_targets_armor_against_the_weapon(armor, weapon, rating):
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 3, "weapon": {"enchantment": weapon, "damage_type": "crushing"}},
        brute={**armor, "vulnerable_to": "piercing"},
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    executed = attack(table, "hero", "brute")

    assert executed["rating"] == rating
    assert executed["registered"] is (rating <= 3)  # a critical counts 3


@pytest.mark.parametrize(
    ("armor", "weapon", "rating"),
    [
        # 1.0.0's reading, kept as the option: every shield's score is magic: 3 + 3, capped
        # at 3 + 2; chain 1 + 1 - 1.
        pytest.param({"armor": "chain", "shield": 3}, 0, 5, id="chain and a +3 shield"),
        pytest.param({"armor": "chain", "shield": 1}, 1, 1, id="chain and a +1 shield vs +1"),
        pytest.param({"armor": "chain", "shield": 1}, 0, 2, id="chain and a +1 shield vs +0"),
    ],
)
def test_with_shield_magic_always_a_plain_shields_score_is_magic(armor, weapon, rating):
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 3, "weapon": {"enchantment": weapon, "damage_type": "crushing"}},
        brute={**armor, "vulnerable_to": "piercing"},
        shield_magic="always",
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    assert attack(table, "hero", "brute")["rating"] == rating


def test_an_unenchanted_chain_and_score_1_shield_against_a_plus_0_weapon_registers_at_1():
    """issue 27: "Chain = 1", "Shield = score above +1" (0) and no enchantment anywhere:
    rating 1, not the 2 that counting the plain shield's score as magic gave."""
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 3, "weapon": {"enchantment": 0, "damage_type": "crushing"}},
        brute={"armor": "chain", "shield": 1, "vulnerable_to": "piercing"},
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    assert attack(table, "hero", "brute")["rating"] == 1


def test_alphonses_three_criticals_on_eckhart_all_register():
    table = seed_opening()
    hits = []

    # §5.4, step by step: "For his free action, Alphonse removes the pair [10S-10D] ... He
    # then spends his first Action Point executing the attack, which does 20 damage".
    play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["10S", "10D"])
    hits.append(attack(table, "alphonse", "eckhart", actor=ALPHONSE, dice=[5, 5]))
    # "removing the 6 of Spades from column 1 ... and a second removes the 6 of diamonds,
    # creating a critical hit opportunity with the 2 eights."
    play(table, "alphonse", "remove-card", actor=ALPHONSE, card="6S")
    play(table, "alphonse", "remove-card", actor=ALPHONSE, card="6D")
    # "He next removes the pair of eights ... hitting Eckhart for another 17 damage."
    play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["8C", "8H"])
    hits.append(attack(table, "alphonse", "eckhart", actor=ALPHONSE, dice=[3, 4]))
    # "now there's a vertical critical on offer with the two Kings ... He executes the third
    # critical for another 17 points damage to Eckhart, who is now down to just 48".
    play(table, "alphonse", "remove-pair", actor=ALPHONSE, cards=["KH", "KC"])
    hits.append(attack(table, "alphonse", "eckhart", actor=ALPHONSE, dice=[4, 3]))

    # +3 ring mail against a +2 mace: 2 + 3 - 2 = 3 hits, and a critical counts 3.
    assert [(h["rating"], h["hits_before"], h["registered"], h["damage"]) for h in hits] == [
        (3, 0, True, 20), (3, 0, True, 17), (3, 0, True, 17)
    ]  # fmt: skip
    assert {h["cost"] for h in hits} == {1}  # crushing against piercing-vulnerable ring
    assert hp(table, "eckhart") == 48
    # 8 of his 9 points spent; two normal opportunities (the 6S, the 6D) left unexecuted.
    assert opportunities(table) == (1, 2, 0)


def evans_on_alan(**options: Any) -> list[dict[str, Any]]:
    """Evans (first) takes six pairs off and executes six criticals on Alan."""
    table = encounter(**options)
    example(table, "alan")
    example(table, "evans", surprise=False)
    table.send({"type": "set-range", "combatant_id": "evans", "opponents": ["alan"]})
    table.send({"type": "start-encounter"}, dice=[1, 20])
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal", "deck": deck(*SIX_PAIRS)})
    assert state_of(table).turn is not None and state_of(table).turn.points == 15
    executed = []
    for pair in SIX:
        play(table, "evans", "remove-pair", cards=pair)
        executed.append(attack(table, "evans", "alan"))
    assert hp(table, "alan") == 158 - sum(e["damage"] for e in executed)
    return executed


@pytest.mark.parametrize(
    ("armor_hits", "registered", "counts"),
    [
        # §5.5: "Critical hits will count for 3 of the 5, so every second critical will do
        # damage": the count starts again after each one that registers.
        pytest.param("reset", [2, 4, 6], [3, 0, 3, 0, 3, 0], id="reset: 2, 4, 6"),
        # The hits past the rating carry over: 3, 6-5=1, 4, 7-5=2, 5-5=0, 3.
        pytest.param("carry", [2, 4, 5], [3, 1, 4, 2, 0, 3], id="carry: 2, 4, 5"),
    ],
)
def test_evans_criticals_on_alan_register_against_a_rating_of_5(armor_hits, registered, counts):
    executed = evans_on_alan(armor_hits=armor_hits)

    # +2 full plate and a +1(+1) shield against a +2 sword: 3 + (2+1+1) - 2 = 5, the cap.
    assert {e["rating"] for e in executed} == {5}
    assert [n for n, e in enumerate(executed, start=1) if e["registered"]] == registered
    assert [e["hits_after"] for e in executed] == counts
    assert all((e["damage"] >= 24) is e["registered"] for e in executed)


def test_hits_worn_into_armor_carry_from_one_attacker_to_the_next():
    table = duel(
        "4H 7H JH AC 2D",
        "AS 2S 3S 4S 5S",
        "6D 7C 8C 9C 10C",
        hero={"attack_bonus": 3},
        brute={"armor": "full-plate", "vulnerable_to": "piercing"},
        others=(("squire", "allies", {"attack_bonus": 1}),),
    )
    play(table, "hero", "remove-card", card="4H")
    play(table, "hero", "remove-card", card="6D")
    held = [attack(table, "hero", "brute", critical=False) for _ in range(2)]
    end_turn(table)  # the brute
    play(table, "squire", "remove-card", card="AC")

    paved = attack(table, "squire", "brute", critical=False)

    # §5.3.3: "These need not be from a single attacker. One combatant can 'pave the way' for
    # another combatant to inflict harm": full plate is 3 ordinary hits.
    assert [(h["registered"], h["hits_after"]) for h in held] == [(False, 1), (False, 2)]
    assert (paved["hits_before"], paved["registered"], paved["hits_after"]) == (2, True, 0)
    assert hp(table, "brute") == 50 - 1


# --- §5.3: vulnerable armor -----------------------------------------------------------------


def test_an_attack_on_a_vulnerable_armor_costs_no_point():
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 1, "weapon": {"damage_type": "crushing"}},
        brute={"armor": "banded"},
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    play(table, "hero", "remove-pair", cards=["2H", "2S"])

    # The hero's two points are spent, but a free attack remains: the turn goes on.
    assert opportunities(table) == (0, 0, 2)
    executed = attack(table, "hero", "brute")
    last = table.send(
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": True}
    )

    # §5.3: banded is vulnerable to crushing: "one less action point to execute an attack".
    assert executed["cost"] == 0
    assert types(last)[0] == "attack-executed"
    assert "turn-ended" in types(last)
    assert only(last, "turn-ended")[0]["reason"] == "out-of-points"


def test_a_spent_turn_with_an_opportunity_but_no_vulnerable_target_ends():
    table = duel(*PAIRED_FIELD, hero={"attack_bonus": 0}, brute={"armor": "chain"})

    spent = play(table, "hero", "remove-pair", cards=["AS", "AH"])

    assert only(spent, "turn-ended") == [
        {"combatant_id": "hero", "reason": "out-of-points", "forfeited": 0}
    ]


# --- hp -------------------------------------------------------------------------------------


def test_damage_comes_off_hp_and_zero_hp_is_down():
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 3, "critical_damage": "2d6+10"},
        brute={"hp": 12},
        others=(("goblin", "enemies", {}),),
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])

    killed = table.send(
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": True},
        dice=[1, 1],
    )

    assert types(killed)[:3] == ["attack-executed", "resource-adjusted", "combatant-downed"]
    assert only(killed, "resource-adjusted")[0] | {"reason": ""} == {
        "combatant_id": "brute", "resource": "hp", "before": 12, "after": 0, "max": None,
        "reason": "", "gm_override": False,
    }  # fmt: skip
    assert state_of(table).table.combatants["brute"].out_of_fight


def test_a_downed_combatant_is_skipped_and_cannot_be_attacked():
    table = duel(
        *PAIRED_FIELD,
        hero={"attack_bonus": 3, "critical_damage": "12"},
        brute={"hp": 12},
        others=(("goblin", "enemies", {}),),
    )
    play(table, "hero", "remove-pair", cards=["AS", "AH"])
    attack(table, "hero", "brute")
    play(table, "hero", "remove-pair", cards=["2H", "2S"])

    violation = refused(
        table,
        {"type": "execute-attack", "combatant_id": "hero", "target": "brute", "critical": True},
    )
    ended = end_turn(table)

    assert violation.code == "attack/target-down"
    assert [d["combatant_id"] for d in only(ended, "turn-started")] == ["goblin"]
