"""combat-ii §5 Mana, continued: innate powers at will or per hour "accounted for separately",
a monster with innate powers and no caster class, mana carried in from an earlier fight, and
a recovery session broken off by an interruption (§5 RECOVERY LIMIT)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from service.domain.errors import RuleViolation
from service.domain.table import Pool
from service.rules.combat_ii import mana
from service.rules.combat_ii.mana import Caster, InnateSpell
from service.rules.combat_ii.recovery import Interruption, Recovered, recover, session_minutes
from tests.rules.combat_ii.cast import duel, only, stand
from tests.rules.combat_ii.given import add, encounter, refused, state_of
from tests.rules.harness import Table

DARKNESS = InnateSpell(name="darkness", level=2, per_day=3)
DISPEL = InnateSpell(name="dispel magic", level=3, per_hour=1)
LIGHT = InnateSpell(name="light", level=1, per_day=None)
"""At will."""


def full(size: int) -> Pool:
    return Pool(current=size, max=size)


def spent(size: int, left: int = 0) -> Pool:
    return Pool(current=left, max=size)


def imp(**more: Any) -> Caster:
    """A monster with no caster class: its innate powers are all its magic."""
    return Caster(kind="innate", level=6, innate=(DARKNESS, DISPEL, LIGHT), **more)


def pools_of(table: Table, cid: str) -> dict[str, Pool]:
    return state_of(table).table.combatants[cid].pools


def drawn(envelopes: list[Any]) -> list[tuple[str, int, int]]:
    """The pools casting drew, (pool, before, after)."""
    return [
        (e.data["resource"], e.data["before"], e.data["after"])
        for e in envelopes
        if e.type == "resource-adjusted" and e.data["reason"].startswith("cast ")
    ]


# --- innate powers at will or per hour: accounted for separately --------------------------------


def test_a_power_used_at_will_costs_nothing_from_the_pools() -> None:
    """combat-ii §5 INNATE SPELLS: "If the creature is allowed spells at will or per hour,
    account for these separately"."""
    assert mana.innate_draw(imp(), "light", {"mana": 0}) == {}


def test_a_power_used_per_hour_spends_a_use_of_its_own_pool() -> None:
    assert mana.innate_draw(imp(), "dispel magic", {"mana": 9, "hourly-dispel-magic": 1}) == {
        "hourly-dispel-magic": 1
    }


@pytest.mark.parametrize(
    ("per_hour", "reason"),
    [
        pytest.param(1, "its 1 use an hour is spent (hourly-dispel-magic)", id="one an hour"),
        pytest.param(3, "its 3 uses an hour are spent (hourly-dispel-magic)", id="three"),
    ],
)
def test_a_per_hour_power_whose_uses_are_spent_says_so(per_hour: int, reason: str) -> None:
    power = InnateSpell(name="dispel magic", level=3, per_hour=per_hour)
    caster = Caster(kind="innate", level=6, innate=(power,))
    pools = {"mana": 9, "hourly-dispel-magic": 0}
    assert mana.innate_draw(caster, "dispel magic", pools) == reason


def test_a_power_used_per_day_is_paid_from_the_pooled_mana_like_any_spell() -> None:
    """combat-ii §5 INNATE SPELLS I: "total all its possible points for the day ... cast any
    combination of the list's spells at their normal cost"."""
    assert mana.innate_draw(imp(), "darkness", {"mana": 6}) is None


def test_a_class_casters_other_spells_are_paid_as_before() -> None:
    wizard = Caster(kind="wizard", level=3, innate=(LIGHT,))
    assert mana.innate_draw(wizard, "web", {"mana": 4}) is None


@pytest.mark.parametrize("system", ["points", "slots"])
def test_each_per_hour_power_gets_a_pool_of_its_uses_in_either_system(
    system: mana.ManaSystem,
) -> None:
    caster = imp()
    pools = mana.pools_for(caster, system, "add", "standard", con=10, prime=10)
    assert pools["hourly-dispel-magic"] == full(1)
    assert "hourly-light" not in pools and "hourly-darkness" not in pools


def test_per_hour_pools_are_not_made_without_a_mana_system() -> None:
    assert mana.pools_for(imp(), "none", "add", "standard", con=10, prime=10) == {}


@pytest.mark.parametrize(
    ("name", "pool"),
    [
        pytest.param("dispel magic", "hourly-dispel-magic", id="spaces become dashes"),
        pytest.param("Melf's Acid Arrow", "hourly-melf-s-acid-arrow", id="case and quotes"),
        pytest.param("x" * 60, "hourly-" + "x" * 33, id="cut to 40 characters"),
    ],
)
def test_a_per_hour_pool_is_named_safely_from_the_power(name: str, pool: str) -> None:
    assert InnateSpell(name=name, level=1, per_hour=1).pool == pool


def test_a_per_hour_power_is_not_also_pooled_by_the_day() -> None:
    power = InnateSpell(name="dispel magic", level=3, per_hour=2)
    assert (power.per_day, power.per_hour) == (None, 2)
    caster = Caster(kind="wizard", level=1, innate=(power,))
    pools = mana.pools_for(caster, "points", "add", "standard", con=10, prime=10)
    assert pools == {"mana": full(1), "hourly-dispel-magic": full(2)}


@pytest.mark.parametrize(
    "innate",
    [
        pytest.param(
            [{"name": "fly", "level": 3, "per_day": 1, "per_hour": 1}], id="per day and per hour"
        ),
        pytest.param([{"name": "fly", "level": 3, "per_hour": 0}], id="zero an hour"),
        pytest.param(
            [{"name": "fly", "level": 3}, {"name": "fly", "level": 3, "per_day": None}],
            id="a power listed twice",
        ),
        pytest.param(
            [
                {"name": "dark ness", "level": 2, "per_hour": 1},
                {"name": "Dark-Ness", "level": 2, "per_hour": 1},
            ],
            id="two per-hour powers sharing a pool",
        ),
        pytest.param([{"name": "???", "level": 2, "per_hour": 1}], id="no letter in the name"),
    ],
)
def test_innate_powers_outside_the_rules_are_rejected(innate: list[dict[str, Any]]) -> None:
    with pytest.raises(pydantic.ValidationError):
        Caster.model_validate({"kind": "wizard", "level": 5, "innate": innate})


# --- a monster with innate powers and no caster class -------------------------------------------


def test_a_monster_without_a_class_has_its_innate_points_alone() -> None:
    """combat-ii §5 INNATE SPELLS I: "total all its possible points for the day based on each
    spells point value"; a 6th-level wizard's 14 are not added, nor CON."""
    pools = mana.pools_for(imp(), "points", "add", "con-added", con=18, prime=18)
    assert pools == {"mana": full(2 * 3), "hourly-dispel-magic": full(1)}


def test_a_monster_without_a_class_reserves_slots_for_its_daily_powers_alone() -> None:
    """combat-ii §5 INNATE SPELLS II: "reserve a slot for each spell based on its level"."""
    pools = mana.pools_for(imp(), "slots", "add", "standard", con=10, prime=10)
    assert pools == {"slots-2": full(3), "hourly-dispel-magic": full(1)}


def test_a_monster_without_a_class_casts_up_to_its_highest_power() -> None:
    assert mana.highest_of(imp()) == 3
    assert mana.highest_of(Caster(kind="wizard", level=3, innate=(DISPEL,))) == 3
    assert mana.highest_of(Caster(kind="wizard", level=9, innate=(LIGHT,))) == 5


def test_a_monster_without_a_class_casts_only_its_innate_powers() -> None:
    """combat-ii §5 INNATE SPELLS: the creature casts "the list's spells"."""
    assert mana.innate_draw(imp(), "fireball", {"mana": 6}) == (
        "it is not one of the creature's innate powers, the only spells it casts"
    )


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"kind": "innate", "level": 6}, id="no innate powers"),
        pytest.param(
            {"kind": "innate", "level": 6, "innate": [{"name": "fly", "level": 3}],
             "slots": {1: 1}},
            id="class slots",
        ),
        pytest.param(
            {"kind": "innate", "level": 6, "innate": [{"name": "fly", "level": 3}],
             "bonus": {1: 1}},
            id="bonus spells",
        ),
        pytest.param({"kind": "monster", "level": 6}, id="unknown kind"),
    ],
)  # fmt: skip
def test_a_classless_caster_block_outside_the_rules_is_rejected(fields: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError):
        Caster.model_validate(fields)


# --- mana carried in from an earlier fight ------------------------------------------------------


def test_carried_mana_sets_what_a_pool_holds_and_the_others_start_full() -> None:
    priest = Caster(kind="priest", level=5, bonus={1: 2}, current={"mana": 5, "free-1": 0})
    pools = mana.pools_for(priest, "points", "free", "standard", con=10, prime=16)
    assert pools == {"mana": spent(12, left=5), "free-1": spent(2)}


def test_carried_mana_may_empty_a_per_hour_pool() -> None:
    pools = mana.pools_for(
        imp(current={"hourly-dispel-magic": 0}), "points", "add", "standard", 10, 10
    )
    assert pools["hourly-dispel-magic"] == spent(1)


@pytest.mark.parametrize(
    ("current", "system", "message"),
    [
        pytest.param(
            {"mana": 13}, "points", "'mana' holds at most 12; 13 cannot be carried in",
            id="above the maximum",
        ),
        pytest.param(
            {"slots-3": 1}, "points",
            "no 'slots-3' pool to carry mana into under this encounter's mana options "
            "(pools: mana)",
            id="a pool of the other system",
        ),
    ],
)  # fmt: skip
def test_carried_mana_outside_the_pools_is_refused(
    current: dict[str, int], system: mana.ManaSystem, message: str
) -> None:
    priest = Caster(kind="priest", level=5, current=current)
    with pytest.raises(RuleViolation) as caught:
        mana.pools_for(priest, system, "add", "standard", con=10, prime=16)
    assert (caught.value.code, caught.value.message) == ("mana/carried", message)


@pytest.mark.parametrize(
    "current",
    [
        pytest.param({"mana": -1}, id="negative"),
        pytest.param({"Mana Pool": 1}, id="not a pool name"),
    ],
)
def test_a_carried_mana_entry_outside_the_rules_is_rejected(current: dict[str, int]) -> None:
    with pytest.raises(pydantic.ValidationError):
        Caster.model_validate({"kind": "priest", "level": 5, "current": current})


# --- an interrupted recovery session ------------------------------------------------------------


@pytest.mark.parametrize(
    ("interruptions", "counted", "broken"),
    [
        pytest.param([], 300, None, id="uninterrupted"),
        pytest.param([(60, 120)], 300, None, id="one of 2 hours is borne"),
        pytest.param([(60, 121)], 60, 60, id="one of more than 2 hours ends it"),
        pytest.param([(60, 30), (200, 30)], 200, 200, id="a second one ends it"),
        pytest.param([(200, 30), (60, 30)], 200, 200, id="in the order they came"),
        pytest.param([(0, 180)], 0, 0, id="before any study: nothing counts"),
    ],
)
def test_session_minutes(
    interruptions: list[tuple[int, int]], counted: int, broken: int | None
) -> None:
    """combat-ii §5 RECOVERY LIMIT: "A spell recovery session may not be interrupted for more
    than one 2 hour period. If it is, any further recovery is delayed until after the next
    normal rest period"."""
    stops = [Interruption(after=a, minutes=m) for a, m in interruptions]
    assert session_minutes(300, stops) == (counted, broken)


def test_an_interrupted_session_restores_only_what_was_studied_before_it() -> None:
    pools = {"mana": spent(12), "free-1": spent(2)}
    stops = [Interruption(after=40, minutes=180)]
    result = recover(pools, "points", "flat", 3, 8, 120, 0, 12, interruptions=stops)
    assert result == Recovered(
        restored={"free-1": 2, "mana": 4}, minutes_used=40, counted=4, interrupted_after=40
    )


def test_a_session_with_one_short_interruption_is_whole() -> None:
    pools = {"mana": spent(12)}
    stops = [Interruption(after=40, minutes=90)]
    result = recover(pools, "points", "flat", 3, 8, 120, 0, 12, interruptions=stops)
    assert result == Recovered(restored={"mana": 12}, minutes_used=120, counted=12)


@pytest.mark.parametrize(
    ("hours", "minutes", "restored"),
    [
        pytest.param(8, 0, {"hourly-dispel-magic": 1}, id="a night"),
        pytest.param(0, 60, {"hourly-dispel-magic": 1}, id="an hour without sleep"),
        pytest.param(0, 59, {}, id="less than an hour"),
    ],
)
def test_per_hour_powers_come_back_after_an_hours_rest_outside_the_limit(
    hours: int, minutes: int, restored: dict[str, int]
) -> None:
    pools = {"mana": full(6), "hourly-dispel-magic": spent(1)}
    result = recover(pools, "points", "flat", 3, hours, minutes, 6, 6)
    assert result == Recovered(restored=restored, minutes_used=0, counted=0)


# --- through the table --------------------------------------------------------------------------

V_SPELLS = [
    {"name": "light", "level": 1, "ct": 1, "components": "V"},
    {"name": "dispel magic", "level": 3, "ct": 1, "components": "V"},
    {"name": "darkness", "level": 2, "ct": 1, "components": "V"},
    {"name": "fireball", "level": 3, "ct": 1, "components": "V"},
]
IMP = {
    "kind": "innate", "level": 6,
    "innate": [
        {"name": "darkness", "level": 2, "per_day": 3},
        {"name": "dispel magic", "level": 3, "per_hour": 1},
        {"name": "light", "level": 1, "per_day": None},
    ],
}  # fmt: skip


def _imp_duel(**caster: Any) -> Table:
    """The fighter is a classless imp with the powers of `imp()`; the ogre declares first."""
    return duel(fighter={"spells": V_SPELLS, "caster": {**IMP, **caster}}, mana="points")


def _cast(table: Table, spell: str) -> list[Any]:
    stand(table, "ogre")
    return table.send({"type": "cast", "combatant_id": "fighter", "spell": spell})


def test_a_classless_monster_joins_with_its_innate_pools_alone() -> None:
    table = _imp_duel()
    assert pools_of(table, "fighter") == {
        "hp": full(30), "mana": full(6), "hourly-dispel-magic": full(1),
    }  # fmt: skip


def test_casting_an_at_will_power_draws_nothing() -> None:
    table = _imp_duel()
    phase = _cast(table, "light")
    assert only(phase, "spell-begun")["casting"]["spell"] == "light"
    assert drawn(phase) == []
    assert table.replayed() == table.state


def test_casting_a_per_hour_power_draws_its_own_pool_not_mana() -> None:
    table = _imp_duel()
    phase = _cast(table, "dispel magic")
    assert drawn(phase) == [("hourly-dispel-magic", 1, 0)]
    assert pools_of(table, "fighter")["mana"] == full(6)


def test_a_per_hour_power_with_no_use_left_is_refused() -> None:
    table = _imp_duel(current={"hourly-dispel-magic": 0})
    stand(table, "ogre")
    dispel = {"type": "cast", "combatant_id": "fighter", "spell": "dispel magic"}
    violation = refused(table, dispel)
    assert violation.code == "cast/no-mana"
    assert violation.message == (
        "cannot cast 'dispel magic': its 1 use an hour is spent (hourly-dispel-magic)"
    )


def test_a_per_day_power_draws_the_pooled_mana() -> None:
    table = _imp_duel()
    assert drawn(_cast(table, "darkness")) == [("mana", 6, 4)]


def test_a_classless_monster_is_refused_a_spell_that_is_not_one_of_its_powers() -> None:
    table = _imp_duel()
    stand(table, "ogre")
    fireball = {"type": "cast", "combatant_id": "fighter", "spell": "fireball"}
    assert refused(table, fireball).code == "cast/no-mana"


def test_a_caster_joins_with_the_mana_it_carries_in() -> None:
    table = encounter(mana="points")
    add(table, "finch", "pcs", {"caster": {"kind": "wizard", "level": 5, "current": {"mana": 3}}})
    assert pools_of(table, "finch")["mana"] == spent(11, left=3)


def test_carrying_in_more_than_a_pool_holds_is_refused_and_nothing_joins() -> None:
    table = encounter(mana="points")
    command = {
        "type": "add-combatant", "combatant_id": "finch", "name": "Finch", "side": "pcs",
        "stats": {"caster": {"kind": "wizard", "level": 5, "current": {"mana": 12}}},
    }  # fmt: skip
    violation = refused(table, command)
    assert violation.code == "mana/carried"
    assert "finch" not in state_of(table).table.combatants


def test_carried_mana_is_studied_back_by_a_rest() -> None:
    table = encounter(mana="points")
    add(table, "finch", "pcs", {"caster": {"kind": "wizard", "level": 5, "current": {"mana": 3}}})
    table.send({"type": "rest", "hours": 8, "minutes": 50})
    assert pools_of(table, "finch")["mana"] == spent(11, left=8)


def test_adjust_resource_still_sets_what_is_left() -> None:
    table = encounter(mana="points")
    add(table, "finch", "pcs", {"caster": {"kind": "wizard", "level": 5}})
    table.send({"type": "adjust-resource", "combatant_id": "finch", "resource": "mana", "set": 2})
    assert pools_of(table, "finch")["mana"] == spent(11, left=2)


def test_an_interrupted_rest_restores_the_study_before_the_break_and_says_where() -> None:
    table = encounter(mana="points")
    add(table, "finch", "pcs", {"caster": {"kind": "wizard", "level": 5, "current": {"mana": 0}}})
    stored = table.send(
        {"type": "rest", "hours": 8, "minutes": 110,
         "interruptions": [{"after": 30, "minutes": 20}, {"after": 70, "minutes": 20}]}
    )  # fmt: skip
    rested = only(stored, "rested")
    assert (rested["minutes"], rested["interrupted_after"], rested["restored"]) == (
        70, 70, {"mana": 7},
    )  # fmt: skip
    assert pools_of(table, "finch")["mana"] == spent(11, left=7)
    assert table.replayed() == table.state


def test_an_interruption_after_the_study_is_refused() -> None:
    table = encounter(mana="points")
    add(table, "finch", "pcs", {"caster": {"kind": "wizard", "level": 5}})
    rest = {"type": "rest", "hours": 8, "minutes": 60,
            "interruptions": [{"after": 60, "minutes": 150}]}  # fmt: skip
    violation = refused(table, rest)
    assert violation.code == "rest/interruption"
    assert violation.message == (
        "an interruption comes during the 60 minutes of study; one after 60 minutes falls "
        "outside them"
    )
