"""Health declared where it is defined (issue 21, item 3): `Hidden` and `Shape` markers, the
plans built from them once per class, and the one walk that hides what they mark."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from service.domain.hidden import Fields, Hidden, Items, Shape, Values, hide, plan_of


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
