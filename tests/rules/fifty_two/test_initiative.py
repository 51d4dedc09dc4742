"""fifty-two §2 Initiative, §2.1 Ties, §5 holding an action, §5.2 +1 initiative and §6
Subsequent Initiative, as pure arithmetic on the chart."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules.fifty_two.initiative import (
    InitiativeEntry,
    RollOffNeeded,
    Side,
    TieBreak,
    hold_action,
    initial_total,
    plus_one,
    rank,
    resequence,
    resolve_ties,
    roll_offs_needed,
    tie_breaks,
)


def seed_line(
    cid: str, side: Side, terms: tuple[int, int, int, int, int], surprise: bool = False
) -> InitiativeEntry:
    """A line of the seed's §2.1 example: DEX mod + initiative + magic + circumstance + die."""
    dex_mod, initiative, magic, circumstance, die = terms
    return InitiativeEntry(
        combatant_id=cid,
        name=cid.title(),
        side=side,
        dex_mod=dex_mod,
        initiative_modifier=initiative,
        magical_attack_modifier=magic,
        circumstantial=circumstance,
        die_roll=die,
        surprise=surprise,
        dex=12,
        int_=12,
        str_=12,
    )


SEED_EXAMPLE = [
    seed_line("alan", "allies", (4, 1, 3, -1, 6)),
    seed_line("alphonse", "allies", (3, 1, 2, -1, 10)),
    seed_line("alice", "allies", (3, 0, 3, -1, 4)),
    seed_line("artichoke", "allies", (1, 0, 1, -1, 8)),
    seed_line("able", "allies", (2, 0, 2, -1, 5)),
    seed_line("evans", "enemies", (3, 0, 2, 1, 8)),
    seed_line("emberry", "enemies", (3, 0, 2, 1, 5)),
    seed_line("eckhart", "enemies", (2, 0, 2, 2, 7), surprise=True),
    seed_line("esther", "enemies", (1, 0, 2, 1, 7)),
]
SEED_CHART = [
    ("alphonse", 15),
    ("evans", 14),
    ("eckhart", 13),
    ("alan", 12),
    ("esther", 11),
    ("emberry", 10),
    ("artichoke", 9),
    ("alice", 8),
    ("able", 7),
]


def contender(cid: str, total: int, die: int = 10, **fields: Any) -> InitiativeEntry:
    """A combatant with the given initial total; the circumstantial term makes up the sum."""
    values: dict[str, Any] = {
        "combatant_id": cid,
        "name": cid.title(),
        "side": "allies",
        "dex_mod": 1,
        "die_roll": die,
        "dex": 12,
        "int_": 12,
        "str_": 12,
        **fields,
    }
    terms = values["dex_mod"] + values.get("initiative_modifier", 0)
    terms += values.get("magical_attack_modifier", 0) + values["die_roll"]
    return InitiativeEntry(circumstantial=total - terms, **values)


# --- §2 and the seed's example ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("cid", "total"),
    [
        pytest.param("alan", 13, id="Alan 4+1+3-1+6=13"),
        pytest.param("alphonse", 15, id="Alphonse 3+1+2-1+10=15"),
        pytest.param("alice", 9, id="Alice 3+0+3-1+4=9"),
        pytest.param("artichoke", 9, id="Artichoke 1+0+1-1+8=9"),
        pytest.param("able", 8, id="Able 2+0+2-1+5=8"),
        pytest.param("evans", 14, id="Evans 3+0+2+1+8=14"),
        pytest.param("emberry", 11, id="Emberry 3+0+2+1+5=11"),
        pytest.param("eckhart", 13, id="Eckhart 2+0+2+2+7=13"),
        pytest.param("esther", 11, id="Esther 1+0+2+1+7=11"),
    ],
)
def test_the_initial_total_is_the_sum_of_the_five_terms(cid: str, total: int) -> None:
    entry = next(e for e in SEED_EXAMPLE if e.combatant_id == cid)
    assert initial_total(entry) == total


def test_the_nine_combatant_initiative_list_of_the_seed() -> None:
    assert resolve_ties(SEED_EXAMPLE) == SEED_CHART


def test_the_seeds_ties_are_broken_from_13_down_as_it_narrates_them() -> None:
    _, steps = tie_breaks(SEED_EXAMPLE)

    assert steps == [
        # Eckhart has surprise; 14 is taken, so Alan drops to 12.
        TieBreak(at=13, winner="eckhart", loser="alan", decided_by=2, moved="alan", to=12),
        # Esther rolled 7 to Emberry's 5; 12 is Alan's now, so Emberry drops to 10.
        TieBreak(at=11, winner="esther", loser="emberry", decided_by=3, moved="emberry", to=10),
        # Artichoke rolled 8 to Alice's 4; 10 and 8 are both taken: Alice drops onto Able.
        TieBreak(at=9, winner="artichoke", loser="alice", decided_by=3, moved="alice", to=8),
        # Alice's initial total was 9; Able drops to 7.
        TieBreak(at=8, winner="alice", loser="able", decided_by=1, moved="able", to=7),
    ]


def test_the_seeds_list_does_not_depend_on_the_order_combatants_are_entered_in() -> None:
    assert resolve_ties(list(reversed(SEED_EXAMPLE))) == SEED_CHART


# --- §2.1 the nine tie-breakers --------------------------------------------------------------

# Field, the winner's value, the loser's value. Each case ties the two on every tie-breaker
# before the deciding one and gives the loser the better of every one after it.
LATER_TIE_BREAKERS: list[tuple[str, Any, Any]] = [
    ("surprise", True, False),
    ("die_roll", 9, 4),
    ("initiative_modifier", 2, 1),
    ("magical_attack_modifier", 2, 1),
    ("dex", 16, 12),
    ("int_", 14, 9),
    ("str_", 8, 15),
    ("roll_off", (5,), (2,)),
]


def tied_on_everything_before(level: int) -> tuple[InitiativeEntry, InitiativeEntry]:
    winner: dict[str, Any] = {}
    loser: dict[str, Any] = {}
    for number, (field, good, bad) in enumerate(LATER_TIE_BREAKERS, start=2):
        if number < level:
            winner[field] = loser[field] = good
        elif number == level:
            winner[field], loser[field] = good, bad
        else:
            winner[field], loser[field] = bad, good
    die_w, die_l = winner.pop("die_roll"), loser.pop("die_roll")
    return contender("winner", 14, die_w, **winner), contender("loser", 14, die_l, **loser)


@pytest.mark.parametrize(
    "level",
    [
        pytest.param(2, id="2 surprise beats every later tie-breaker"),
        pytest.param(3, id="3 the higher die roll"),
        pytest.param(4, id="4 the higher initiative modifier"),
        pytest.param(5, id="5 the higher magical attack modifier"),
        pytest.param(6, id="6 the higher DEX"),
        pytest.param(7, id="7 the higher INT"),
        pytest.param(8, id="8 the LOWER STR"),
        pytest.param(9, id="9 the higher roll-off"),
    ],
)
def test_each_tie_breaker_decides_when_all_before_it_are_equal(level: int) -> None:
    winner, loser = tied_on_everything_before(level)

    chart, steps = tie_breaks([loser, winner])

    assert [(s.winner, s.decided_by) for s in steps] == [("winner", level)]
    assert chart == [("winner", 15), ("loser", 14)]


def test_tie_breaker_1_a_combatant_dropped_onto_a_lower_number_outranks_its_holder() -> None:
    entries = [
        contender("higher", 11),
        contender("dropped", 10, die=2),
        contender("beats-dropped", 10, die=9),
        # Better than "dropped" at every later tie-breaker, but started on 9.
        contender("holder", 9, die=12, surprise=True, dex=18),
    ]

    chart, steps = tie_breaks(entries)

    assert steps[-1] == TieBreak(9, "dropped", "holder", decided_by=1, moved="holder", to=8)
    assert chart == [("higher", 11), ("beats-dropped", 10), ("dropped", 9), ("holder", 8)]


# --- §2.1 +1, -1 and the cascade -------------------------------------------------------------


@pytest.mark.parametrize(
    ("others", "expected"),
    [
        pytest.param(
            [("below", 5)],
            [("fast", 11), ("slow", 10), ("below", 5)],
            id="+1 to the winner when the slot above is free",
        ),
        pytest.param(
            [("above", 11)],
            [("above", 11), ("fast", 10), ("slow", 9)],
            id="-1 to the loser when the slot above is taken",
        ),
        pytest.param(
            [("above", 11), ("under", 9), ("bottom", 8)],
            [("above", 11), ("fast", 10), ("slow", 9), ("under", 8), ("bottom", 7)],
            id="a forced -1 onto a taken slot cascades down",
        ),
        pytest.param(
            [("above", 11), ("under", 9), ("gap", 7)],
            [("above", 11), ("fast", 10), ("slow", 9), ("under", 8), ("gap", 7)],
            id="the cascade stops at the first free slot",
        ),
    ],
)
def test_the_winner_rises_to_a_free_slot_or_the_loser_drops(
    others: list[tuple[str, int]], expected: list[tuple[str, int]]
) -> None:
    entries = [contender("fast", 10, die=8), contender("slow", 10, die=3)]
    entries += [contender(cid, total) for cid, total in others]

    assert resolve_ties(entries) == expected


def test_ties_are_broken_from_the_highest_number_down() -> None:
    # Broken from the bottom up, 5 would be settled before 6 pushed someone onto it.
    entries = [
        contender("top", 7),
        contender("six-a", 6, die=9),
        contender("six-b", 6, die=1),
        contender("five-a", 5, die=9),
        contender("five-b", 5, die=1),
    ]

    _, steps = tie_breaks(entries)

    assert [s.at for s in steps] == [6, 5, 5, 4]
    assert resolve_ties(entries) == [
        ("top", 7),
        ("six-a", 6),
        ("six-b", 5),
        ("five-a", 4),
        ("five-b", 3),
    ]


# --- §2.1 three or more on one number (interpretation) ---------------------------------------


@pytest.mark.parametrize(
    ("others", "expected"),
    [
        pytest.param(
            [],
            [("first", 11), ("second", 10), ("third", 9)],
            id="slot above free: the best rises, the next stays, the last drops",
        ),
        pytest.param(
            [("above", 11)],
            [("above", 11), ("first", 10), ("second", 9), ("third", 8)],
            id="slot above taken: the best stays, the others drop one by one",
        ),
        pytest.param(
            [("above", 11), ("under", 9)],
            [("above", 11), ("first", 10), ("second", 9), ("third", 8), ("under", 7)],
            id="slot above taken and below taken: the group and the holder below cascade",
        ),
    ],
)
def test_three_tied_on_one_number_end_in_the_order_of_the_tie_breakers(
    others: list[tuple[str, int]], expected: list[tuple[str, int]]
) -> None:
    entries = [contender(cid, total) for cid, total in others]
    entries += [
        contender("third", 10, die=2),
        contender("first", 10, die=9),
        contender("second", 10, die=5),
    ]

    assert resolve_ties(entries) == expected


def test_three_tied_meet_pairwise_from_the_top_of_the_group() -> None:
    entries = [
        contender("above", 11),
        contender("third", 10, die=2),
        contender("first", 10, die=9),
        contender("second", 10, die=5),
    ]

    _, steps = tie_breaks(entries)

    assert [(s.at, s.winner, s.loser) for s in steps] == [
        (10, "first", "second"),
        (10, "first", "third"),
        (9, "second", "third"),
    ]


# --- §2.1 tie-breaker 9: the roll-off --------------------------------------------------------


def test_a_roll_off_is_asked_for_only_between_combatants_equal_on_tie_breakers_1_to_8() -> None:
    entries = [
        contender("ann", 10),
        contender("bea", 10),
        contender("cid", 10, str_=11),
        contender("dot", 8),
    ]

    assert roll_offs_needed(entries) == [("ann", "bea")]
    with pytest.raises(RollOffNeeded) as refused:
        resolve_ties(entries)
    assert refused.value.groups == [("ann", "bea")]


def test_a_tied_roll_off_is_rolled_again_only_between_those_it_left_tied() -> None:
    rolled = [
        contender("ann", 10, roll_off=(5,)),
        contender("bea", 10, roll_off=(5,)),
        contender("cid", 10, roll_off=(3,)),
    ]
    assert roll_offs_needed(rolled) == [("ann", "bea")]

    rerolled = [
        contender("ann", 10, roll_off=(5, 1)),
        contender("bea", 10, roll_off=(5, 6)),
        contender("cid", 10, roll_off=(3,)),
    ]

    assert roll_offs_needed(rerolled) == []
    assert resolve_ties(rerolled) == [("bea", 11), ("ann", 10), ("cid", 9)]


def test_no_roll_off_is_asked_for_when_a_tie_breaker_parts_the_pair() -> None:
    assert roll_offs_needed(tied_on_everything_before(8)) == []
    assert roll_offs_needed(SEED_EXAMPLE) == []


# --- §5 holding an action --------------------------------------------------------------------


def test_alphonse_holding_would_drop_from_15_past_the_taken_13_all_the_way_down_to_6() -> None:
    held = hold_action(SEED_CHART, "alphonse")

    assert held[-1] == ("alphonse", 6)
    assert held[:-1] == SEED_CHART[1:]


@pytest.mark.parametrize(
    ("chart", "expected"),
    [
        pytest.param(
            [("holder", 15), ("next", 14), ("later", 10)],
            [("next", 14), ("holder", 13), ("later", 10)],
            id="one less than the next combatant when that slot is free",
        ),
        pytest.param(
            [("holder", 15), ("next", 14), ("a", 13), ("b", 12), ("c", 10)],
            [("next", 14), ("a", 13), ("b", 12), ("holder", 11), ("c", 10)],
            id="else the next vacant slot below",
        ),
        pytest.param(
            [("first", 20), ("holder", 15), ("next", 9)],
            [("first", 20), ("next", 9), ("holder", 8)],
            id="the gap to the next combatant is dropped past",
        ),
        pytest.param(
            [("first", 15), ("holder", 14)],
            [("first", 15), ("holder", 14)],
            id="the last combatant has no one to drop below (interpretation)",
        ),
    ],
)
def test_the_hold_action_slot_rule(
    chart: list[tuple[str, int]], expected: list[tuple[str, int]]
) -> None:
    assert hold_action(chart, "holder") == expected


# --- §5.2 +1 initiative ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chart", "expected"),
    [
        pytest.param(
            [("above", 15), ("climber", 12), ("below", 10)],
            [("above", 15), ("climber", 13), ("below", 10)],
            id="+1 into a free slot",
        ),
        pytest.param(
            [("a", 15), ("b", 13), ("climber", 12)],
            [("a", 15), ("climber", 14), ("b", 13)],
            id="a tie goes on up to the next empty slot",
        ),
        pytest.param(
            [("a", 14), ("b", 13), ("climber", 12)],
            [("climber", 15), ("a", 14), ("b", 13)],
            id="past the top of the chart",
        ),
    ],
)
def test_plus_one_initiative(chart: list[tuple[str, int]], expected: list[tuple[str, int]]) -> None:
    assert plus_one(chart, "climber") == expected


def test_alan_at_12_passes_eckhart_evans_and_alphonse_with_one_point() -> None:
    # fifty-two §5.5: Alan spent points to go first next round; 13, 14 and 15 are all taken.
    assert plus_one(SEED_CHART, "alan")[0] == ("alan", 16)


@pytest.mark.parametrize(
    "change",
    [pytest.param(hold_action, id="hold"), pytest.param(plus_one, id="+1")],
)
def test_a_chart_change_names_a_combatant_on_a_chart_without_repeats(change: Any) -> None:
    with pytest.raises(ValueError, match="not on the initiative chart"):
        change(SEED_CHART, "nobody")
    with pytest.raises(ValueError, match="no repeats"):
        change([("alan", 12), ("eckhart", 12)], "alan")


def test_two_entries_for_one_combatant_are_refused() -> None:
    with pytest.raises(ValueError, match="two initiative entries"):
        resolve_ties([contender("ann", 10), contender("ann", 9)])


# --- §6 subsequent initiative ----------------------------------------------------------------

SIDES: dict[str, Side] = {
    "a1": "allies",
    "a2": "allies",
    "a3": "allies",
    "e1": "enemies",
    "e2": "enemies",
    "e3": "enemies",
}


@pytest.mark.parametrize(
    ("chart", "last_attackers", "expected"),
    [
        pytest.param(
            [("a1", 15), ("e2", 12), ("e1", 8)],
            {"e1": "a1"},
            [("a1", 15), ("e1", 14), ("e2", 12)],
            id="up to one less than its last attacker",
        ),
        pytest.param(
            [("e3", 16), ("a1", 15), ("e2", 14), ("e1", 8)],
            {"e1": "a1"},
            [("e3", 17), ("a1", 16), ("e1", 15), ("e2", 14)],
            id="those above make room with +1",
        ),
        pytest.param(
            [("e3", 18), ("a1", 15), ("e2", 14), ("e1", 8)],
            {"e1": "a1"},
            [("e3", 18), ("a1", 16), ("e1", 15), ("e2", 14)],
            id="only as much room as is necessary",
        ),
        pytest.param(
            [("e1", 15), ("a1", 12)],
            {"e1": "a1"},
            [("e1", 15), ("a1", 12)],
            id="a victim above its attacker stays (increase only)",
        ),
        pytest.param(
            [("e1", 15), ("e2", 12), ("e3", 8)],
            {"e3": "e1"},
            [("e1", 15), ("e2", 12), ("e3", 8)],
            id="an attack within a faction moves nobody",
        ),
        pytest.param(
            [("a1", 15), ("e1", 10), ("e2", 5)],
            {"e1": "a1", "e2": "a1"},
            [("a1", 15), ("e1", 14), ("e2", 13)],
            id="two victims of one attacker line up below it",
        ),
        pytest.param(
            [("a1", 15), ("e3", 13), ("e1", 10), ("e2", 5)],
            {"e1": "a1", "e2": "a1"},
            [("a1", 16), ("e1", 15), ("e2", 14), ("e3", 13)],
            id="two victims of one attacker push it up to fit",
        ),
        pytest.param(
            [("a1", 15), ("a2", 12), ("e1", 10), ("a3", 5)],
            {"e1": "a1", "a3": "e1"},
            [("a1", 15), ("e1", 14), ("a3", 13), ("a2", 12)],
            id="a victim moved up pulls up its own victim",
        ),
    ],
)
def test_resequencing_pulls_each_combatant_below_its_last_attacker(
    chart: list[tuple[str, int]], last_attackers: dict[str, str], expected: list[tuple[str, int]]
) -> None:
    assert resequence(chart, SIDES, last_attackers) == expected


def test_resequencing_after_the_seeds_first_round_pairs_the_mini_battles() -> None:
    # fifty-two §5.5's round, with what it leaves out assumed: Alan (who climbed to 16) hit
    # Evans, Eckhart hit Alphonse, Emberry hit Alan after Evans did.
    chart = [("alan", 16), *SEED_CHART[:3], *SEED_CHART[4:]]
    sides = {entry.combatant_id: entry.side for entry in SEED_EXAMPLE}
    last_attackers = {
        "eckhart": "alphonse",
        "alan": "emberry",
        "evans": "alan",
        "alphonse": "eckhart",
        "able": "esther",
    }

    assert resequence(chart, sides, last_attackers) == [
        ("alan", 17),
        ("evans", 16),
        ("alphonse", 15),
        ("eckhart", 14),
        ("esther", 12),
        ("able", 11),
        ("emberry", 10),
        ("artichoke", 9),
        ("alice", 8),
    ]


# --- properties ------------------------------------------------------------------------------


@st.composite
def fields(draw: st.DrawFn) -> list[InitiativeEntry]:
    """Small ranges, so ties and cascades are common; distinct roll-offs settle full ties."""
    count = draw(st.integers(1, 9))
    small = st.integers(0, 2)
    return [
        InitiativeEntry(
            combatant_id=f"c{n}",
            name=f"C{n}",
            side=draw(st.sampled_from(("allies", "enemies"))),
            dex_mod=draw(small),
            initiative_modifier=draw(small),
            magical_attack_modifier=draw(small),
            circumstantial=draw(st.integers(-1, 1)),
            die_roll=draw(st.integers(1, 6)),
            surprise=draw(st.booleans()),
            dex=draw(st.integers(10, 11)),
            int_=draw(st.integers(10, 11)),
            str_=draw(st.integers(10, 11)),
            roll_off=(n,),
        )
        for n in range(count)
    ]


@given(fields())
def test_every_number_on_a_resolved_chart_is_distinct(entries: list[InitiativeEntry]) -> None:
    chart = resolve_ties(entries)

    assert sorted(cid for cid, _ in chart) == sorted(e.combatant_id for e in entries)
    assert len({value for _, value in chart}) == len(chart)


@given(fields())
def test_the_chart_runs_in_the_order_of_the_nine_tie_breakers(
    entries: list[InitiativeEntry],
) -> None:
    # So a higher initial total always goes first, whatever the cascade did to the numbers.
    chart = resolve_ties(entries)

    assert [cid for cid, _ in chart] == [e.combatant_id for e in sorted(entries, key=rank)]


@given(fields())
def test_breaking_ties_raises_a_total_by_one_at_most(entries: list[InitiativeEntry]) -> None:
    totals = {e.combatant_id: initial_total(e) for e in entries}

    assert all(value <= totals[cid] + 1 for cid, value in resolve_ties(entries))


@given(fields(), st.randoms(use_true_random=False))
def test_the_chart_does_not_depend_on_the_order_of_the_entries(
    entries: list[InitiativeEntry], shuffler: Any
) -> None:
    shuffled = list(entries)
    shuffler.shuffle(shuffled)

    assert resolve_ties(shuffled) == resolve_ties(entries)


@given(fields(), st.data())
def test_holding_or_plus_one_moves_only_that_combatant_to_a_free_number(
    entries: list[InitiativeEntry], data: st.DataObject
) -> None:
    chart = resolve_ties(entries)
    cid = data.draw(st.sampled_from([c for c, _ in chart]))
    before = dict(chart)

    for change in (hold_action, plus_one):
        after = dict(change(chart, cid))
        assert {c: v for c, v in after.items() if c != cid} == {
            c: v for c, v in before.items() if c != cid
        }
        assert len(set(after.values())) == len(after)


@given(fields(), st.data())
def test_resequencing_keeps_numbers_distinct_and_moves_combatants_only_up(
    entries: list[InitiativeEntry], data: st.DataObject
) -> None:
    chart = resolve_ties(entries)
    ids = [c for c, _ in chart]
    sides = {e.combatant_id: e.side for e in entries}
    last_attackers = data.draw(st.dictionaries(st.sampled_from(ids), st.sampled_from(ids)))

    after = resequence(chart, sides, last_attackers)

    values = [v for _, v in after]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert all(v >= dict(chart)[c] for c, v in after)
