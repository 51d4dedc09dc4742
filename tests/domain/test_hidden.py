"""Health declared where it is defined (issue 21, item 3): `Hidden` and `Shape` markers, the
plans built from them once per class, the one walk that hides what they mark, and what
each ruleset declares."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from service.domain.context import GM, Actor
from service.domain.hidden import Fields, Hidden, Items, Plan, Shape, Values, hide, plan_of
from service.rules.freeform import Freeform
from service.rules.freeform.state import FreeformStats
from service.rules.registry import RULESETS
from tests.rules.harness import Table

HERO = Actor("p1", "player", frozenset({"hero"}))


class Weapon(BaseModel):
    name: str
    damage: str = "1d6"


class Stats(BaseModel):
    hp: Annotated[int, Hidden()] = 1
    ac: int = 10
    weapons: tuple[Weapon, ...] = ()


class Blow(BaseModel):
    attacker: str
    target: str | None
    damage: Annotated[int | None, Hidden(of="target", rolls="damage: *")] = None


class Added(BaseModel):
    combatant_id: str | None = None
    stats: Annotated[dict[str, Any], Shape("stats", of="combatant_id")] = Field(
        default_factory=dict
    )
    pools: Annotated[dict[str, Any], Hidden(of="combatant_id", shown_as={})] = Field(
        default_factory=dict
    )


class Log(BaseModel):
    blows: tuple[Blow, ...] = ()
    by_round: dict[str, list[Blow]] = Field(default_factory=dict)
    last: Blow | None = None


class Plain(BaseModel):
    name: str
    hp_note: int = 0


SHAPES = (("stats", Stats),)


def not_the_heros(combatant_id: object) -> bool:
    return combatant_id != "hero"


def blow(target: str | None, damage: int = 9) -> dict[str, Any]:
    return {"attacker": "hero", "target": target, "damage": damage}


# --- plans ------------------------------------------------------------------------------


def test_a_model_without_hidden_fields_has_no_plan_and_its_dump_is_returned_as_it_is():
    dumped = {"name": "Goblin", "hp_note": 7}

    assert plan_of(Plain) is None
    assert hide(dumped, plan_of(Plain), not_the_heros)[0] is dumped


def test_a_plan_is_built_once_per_class_and_leads_only_to_hidden_fields():
    plan = plan_of(Stats)

    assert plan is plan_of(Stats)
    assert plan is not None and list(plan.steps) == ["hp"]


def test_the_plan_follows_lists_dicts_and_optional_models():
    plan = plan_of(Log)

    assert plan is not None
    steps = plan.steps
    assert isinstance(steps["blows"].inner, Items)
    assert isinstance(steps["by_round"].inner, Values)
    assert isinstance(steps["by_round"].inner.inner, Items)
    assert isinstance(steps["last"].inner, Fields)


# --- the walk ---------------------------------------------------------------------------


def test_a_hidden_field_of_another_sides_combatant_is_blanked_with_the_dice_that_made_it():
    shown, rolls = hide(blow("goblin"), plan_of(Blow), not_the_heros)

    assert shown == {"attacker": "hero", "target": "goblin", "damage": None}
    assert rolls == ["damage: *"]


def test_a_hidden_field_of_the_viewers_own_combatant_is_left_as_it_is():
    mine = blow("hero")

    assert hide(mine, plan_of(Blow), not_the_heros) == (mine, [])
    assert hide(mine, plan_of(Blow), not_the_heros)[0] is mine


def test_a_stat_block_belongs_to_the_combatant_its_sibling_names():
    added = {"combatant_id": "goblin", "stats": {"hp": 7331, "ac": 12}, "pools": {"hp": {}}}

    shown, _ = hide(added, plan_of(Added, SHAPES), not_the_heros)

    assert shown == {"combatant_id": "goblin", "stats": {"hp": None, "ac": 12}, "pools": {}}
    assert added["stats"] == {"hp": 7331, "ac": 12}  # the dump itself is not changed


def test_a_block_without_an_id_belongs_to_the_combatant_it_is_given():
    added = {"combatant_id": None, "stats": {"hp": 7331}}
    plan = plan_of(Added, SHAPES)

    assert hide(added, plan, not_the_heros, "goblin")[0]["stats"] == {"hp": None}
    assert hide(added, plan, not_the_heros, "hero")[0] is added


def test_a_hidden_field_whose_combatant_is_not_named_is_asked_about_as_none():
    asked: list[object] = []

    def hides(combatant_id: object) -> bool:
        asked.append(combatant_id)
        return True

    assert hide(blow(None), plan_of(Blow), hides)[0]["damage"] is None
    assert asked == [None]


def test_lists_dicts_and_optional_models_are_walked_and_unchanged_parts_shared():
    mine = blow("hero")
    log = {"blows": [mine, blow("goblin")], "by_round": {"1": [blow("orc")]}, "last": mine}

    shown, rolls = hide(log, plan_of(Log), not_the_heros)

    assert [b["damage"] for b in shown["blows"]] == [9, None]
    assert shown["blows"][0] is mine and shown["last"] is mine
    assert shown["by_round"] == {"1": [blow("orc") | {"damage": None}]}
    assert rolls == ["damage: *", "damage: *"]


# --- what each ruleset declares ------------------------------------------------------------


def hidden_paths(plan: Plan | None, prefix: str = "") -> set[str]:
    match plan:
        case Fields(steps=steps):
            return {
                path
                for name, step in steps.items()
                for path in (
                    {prefix + name}
                    if step.hidden is not None
                    else hidden_paths(step.inner, f"{prefix}{name}.")
                )
            }
        case Items(inner=inner) | Values(inner=inner):
            return hidden_paths(inner, prefix)
    return set()


@pytest.mark.parametrize(
    ("ruleset", "stats"),
    [
        pytest.param("freeform", {"hp"}, id="freeform: hp"),
        pytest.param("delvers-deep", {"health", "fort", "ref", "will"}, id="delvers: 4 pools"),
        pytest.param("fifty-two", {"hp"}, id="fifty-two: hp"),
        pytest.param(
            "d20-action-points", {"hp", "hp_per_level", "mana", "heroic_points"}, id="d20: pools"
        ),
        pytest.param("hex-tactical", {"hp"}, id="hex-tactical: hp"),
        pytest.param("combat-ii", {"hp", "caster.current"}, id="combat-ii: hp, mana carried in"),
    ],
)
def test_what_each_ruleset_hides_of_a_stat_block(ruleset: str, stats: set[str]):
    rules = RULESETS[ruleset]

    assert hidden_paths(rules.hidden_in(rules.stats_model)) == stats
    in_state = {f"table.combatants.stats.{stat}" for stat in stats} | {"table.combatants.pools"}
    # Besides the stat blocks and the pools, delvers-deep's queued hits and dodge windows
    # carry a hit's damage.
    extra = (
        {"pending.damage", "table.windows.trigger.damage"} if ruleset == "delvers-deep" else set()
    )
    assert hidden_paths(rules.hidden_in(rules.state_model)) == in_state | extra


@pytest.mark.parametrize(
    ("ruleset", "events"),
    [
        pytest.param("freeform", set(), id="freeform"),
        pytest.param("delvers-deep", {"damage-taken"}, id="delvers-deep"),
        pytest.param("fifty-two", set(), id="fifty-two"),
        pytest.param("d20-action-points", {"level-drained"}, id="d20-action-points"),
        pytest.param("hex-tactical", {"damage-dealt", "terrain-damaged"}, id="hex-tactical"),
        pytest.param("combat-ii", {"damage-rolled"}, id="combat-ii"),
    ],
)
def test_the_events_wholly_about_health_that_other_sides_are_not_told_of(
    ruleset: str, events: set[str]
):
    models = RULESETS[ruleset].event_models

    assert {kind for kind, m in models.items() if m.health_of} == {"resource-adjusted", *events}


# --- a new hidden field needs no code of its own ------------------------------------------


class SecretiveStats(FreeformStats):
    courage: Annotated[int, Hidden()] = 0


class Secretive(Freeform):
    stats_model = SecretiveStats


def test_a_new_stat_marked_hidden_is_hidden_in_every_view_with_no_code_of_its_own():
    rules = Secretive()
    table = Table(rules, {"dice": "table", "hide_enemy_health": True})
    table.send({"type": "add-combatant", "combatant_id": "hero", "name": "Hero",
                "side": "heroes", "stats": {"hp": 20, "courage": 1}})  # fmt: skip
    [added] = table.send({"type": "add-combatant", "combatant_id": "goblin", "name": "Goblin",
                          "side": "goblins", "stats": {"hp": 7, "courage": 4242}})  # fmt: skip
    [updated] = table.send({"type": "update-combatant", "combatant_id": "goblin",
                            "stats": {"hp": 7, "courage": 4242}})  # fmt: skip
    assert table.state is not None

    for envelope in (added, updated):
        shown = rules.redact_event(envelope, HERO, table.state)
        assert shown is not None
        assert shown["data"]["stats"]["courage"] is None
        assert shown["command"]["stats"]["courage"] is None
        assert rules.redact_event(envelope, GM, table.state) == envelope.to_dict()
    combatants = rules.redact_state(table.state, HERO)["table"]["combatants"]
    assert combatants["goblin"]["stats"]["courage"] is None
    assert combatants["hero"]["stats"]["courage"] == 1
    assert rules.redact_state(table.state, GM)["table"]["combatants"]["goblin"]["stats"] == {
        "initiative_modifier": 0, "hp": 7, "group": None, "courage": 4242,
    }  # fmt: skip


def test_a_removed_enemys_stat_block_stays_hidden():
    """Redaction reads the state: a combatant it can no longer place is hidden, not shown."""
    rules = RULESETS["freeform"]
    table = Table(rules, {"dice": "table", "hide_enemy_health": True})
    table.send({"type": "add-combatant", "combatant_id": "hero", "name": "Hero",
                "side": "heroes", "stats": {"hp": 20}})  # fmt: skip
    [added] = table.send({"type": "add-combatant", "name": "Goblin", "side": "goblins",
                          "stats": {"hp": 7331}})  # fmt: skip
    table.send({"type": "remove-combatant", "combatant_id": "goblin"})
    assert table.state is not None

    shown = rules.redact_event(added, HERO, table.state)

    assert shown is not None and shown["data"]["stats"]["hp"] is None
    assert shown["command"]["stats"]["hp"] is None
