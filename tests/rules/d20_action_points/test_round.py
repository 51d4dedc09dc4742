"""The round (d20-action-points Combat Round, Declaring Actions, Rolling Initiative, Action
Points, Gifting Action Points): declarations, initiative every round, what every action costs,
gifting a point, one action without action points, the Heroic Point, delaying, the readied
action, whose turn it is, and the turn timer."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import SYSTEM, Actor
from service.domain.envelope import Envelope
from service.rules.d20_action_points.action_points import ACTIONS
from tests.rules.d20_action_points.given import (
    CROSSBOW,
    DAGGER,
    PLAYER,
    SWORD,
    act,
    duel,
    encounter,
    initiative,
    monster,
    only,
    pc,
    pools,
    refused,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table

ALLY_ONLY = Actor("p2", "player", frozenset({"ally"}))
QUICK_DAGGER = {"name": "dagger", "damage": "1d4", "initiative": 2}
SPARK = {"name": "spark", "level": 1}
Step = tuple[dict[str, Any], list[int] | None]


def fight(
    hero: dict[str, Any] | None = None,
    *,
    before: tuple[dict[str, Any], ...] = (),
    foe_first: bool = False,
    **options: Any,
) -> Table:
    """The hero (+2 STR, longsword unless `hero` says otherwise) against the foe (hp 10, AC 12,
    a spear); `before` is declared before initiative; the hero's turn in round 1, or the foe's."""
    table = encounter(**options)
    pc(table, "hero", strength=2, hp=12, ac=14, **(hero or {}))
    monster(table, "foe")
    start(table)
    for command in before:
        table.send(command)
    initiative(table, *((5, 15) if foe_first else (15, 5)))
    return table


def party(**options: Any) -> Table:
    """Hero, ally and archer (PCs) and a foe, acting in that order; the hero's turn."""
    table = encounter(**options)
    pc(table, "hero")
    pc(table, "ally")
    pc(table, "archer", weapons=[CROSSBOW])
    monster(table, "foe")
    start(table)
    initiative(table, 15, 10, 8, 5)
    return table


def points(table: Table) -> int:
    turn = state_of(table).turn
    assert turn is not None
    return turn.points


def end_turn(table: Table, cid: str) -> list[Envelope]:
    return table.send({"type": "end-turn", "combatant_id": cid})


def answer(table: Table, window: dict[str, Any], cid: str, option: str, **kw: Any) -> list[Any]:
    return table.send(
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": cid,
         "option": option},
        **kw,
    )  # fmt: skip


# --- Declaring Actions ----------------------------------------------------------------------


def declaring(**hero: Any) -> Table:
    """Round 1 is declaring: the hero (initiative +1) and the foe."""
    table = encounter()
    pc(table, "hero", initiative=1, **hero)
    monster(table, "foe")
    start(table)
    return table


def test_a_declared_fast_weapon_moves_the_initiative_total_up() -> None:
    table = declaring(weapons=[SWORD, QUICK_DAGGER])

    declared = table.send(
        {"type": "declare", "combatant_id": "hero", "action": "stab", "weapon": "dagger"},
        actor=PLAYER,
    )
    rolled = initiative(table, 10, 12)

    assert only(declared, "action-declared") == [
        {"combatant_id": "hero", "action": "stab", "spell": None, "weapon": "dagger",
         "initiative": 2}
    ]  # fmt: skip
    hero = only(rolled, "initiative-rolled")[0]["rolls"][0]
    assert (hero["roll"], hero["bonus"], hero["total"]) == (10, 3, 13)
    assert only(rolled, "initiative-rolled")[0]["order"] == ["hero", "foe"]


def test_a_declared_slow_spell_moves_the_initiative_total_down() -> None:
    table = declaring(mana=3, spells=[{"name": "meteor", "level": 1, "initiative": -3}])

    table.send(
        {"type": "declare", "combatant_id": "hero", "action": "cast", "spell": "meteor"},
        actor=PLAYER,
    )
    rolled = only(initiative(table, 10, 9), "initiative-rolled")[0]

    assert (rolled["rolls"][0]["bonus"], rolled["rolls"][0]["total"]) == (-2, 8)
    assert rolled["order"] == ["foe", "hero"]


@pytest.mark.parametrize(
    ("hero", "declaration", "code"),
    [
        pytest.param({}, {"spell": "fireball"}, "spell/unknown", id="an unknown spell"),
        pytest.param(
            {"mana": 1, "spells": [{"name": "web", "level": 2}]},
            {"spell": "web"},
            "mana/not-enough",
            id="a spell the mana cannot pay for",
        ),
        pytest.param({}, {"weapon": "halberd"}, "attack/unknown-weapon", id="a weapon not carried"),
    ],
)
def test_a_declaration_must_be_one_the_combatant_can_make(
    hero: dict[str, Any], declaration: dict[str, Any], code: str
) -> None:
    table = declaring(**hero)

    error = refused(table, {"type": "declare", "combatant_id": "hero", **declaration}, actor=PLAYER)

    assert error.code == code


def test_a_spell_not_declared_this_round_is_not_cast() -> None:
    table = fight({"mana": 3, "spells": [SPARK]})

    error = refused(
        table, {"type": "cast-spell", "combatant_id": "hero", "spell": "spark"}, dice=[15]
    )

    assert error.code == "spell/not-declared"


def test_actions_are_declared_only_before_initiative() -> None:
    table = duel()

    error = refused(table, {"type": "declare", "combatant_id": "hero"}, actor=PLAYER)

    assert error.code == "round/not-declaring"


def test_a_player_declares_only_for_their_own_combatant() -> None:
    table = declaring()

    error = refused(table, {"type": "declare", "combatant_id": "hero"}, actor=ALLY_ONLY)

    assert error.code == "auth/not-your-combatant"


# --- Rolling Initiative ---------------------------------------------------------------------


def test_players_roll_one_d20_each_and_a_monster_group_shares_one_with_its_own_bonuses() -> None:
    table = encounter()
    pc(table, "hero")
    pc(table, "ally")
    monster(table, "gob1", initiative=1, group="goblins")
    monster(table, "gob2", initiative=3, group="goblins")
    monster(table, "ogre")
    start(table)

    rolled = initiative(table, 15, 12, 6, 4)

    event = only(rolled, "initiative-rolled")[0]
    assert [(r["combatant_id"], r["roll"], r["bonus"], r["total"], r["group"])
            for r in event["rolls"]] == [
        ("hero", 15, 0, 15, None),
        ("ally", 12, 0, 12, None),
        ("gob1", 6, 1, 7, "goblins"),
        ("gob2", 6, 3, 9, "goblins"),
        ("ogre", 4, 0, 4, None),
    ]  # fmt: skip
    assert event["order"] == ["hero", "ally", "gob2", "gob1", "ogre"]
    assert len(rolled[-2].rolls) == 4  # four d20s: the goblins rolled one


@pytest.mark.parametrize(
    ("joined", "dice", "bonuses", "order"),
    [
        pytest.param(
            ["hero", "ally"], [12, 10], {"ally": 2}, ["ally", "hero"], id="12 all: higher bonus"
        ),
        pytest.param(["foe", "hero"], [10, 10], {}, ["hero", "foe"], id="10 all: then the party"),
        pytest.param(
            ["hero", "ally"], [10, 10], {}, ["hero", "ally"], id="10 all: then who joined first"
        ),
    ],
)
def test_initiative_goes_highest_first_and_breaks_ties(
    joined: list[str], dice: list[int], bonuses: dict[str, int], order: list[str]
) -> None:
    table = encounter()
    for cid in joined:
        add = monster if cid == "foe" else pc
        add(table, cid, initiative=bonuses.get(cid, 0))
    start(table)

    rolled = initiative(table, *dice)

    assert only(rolled, "initiative-rolled")[0]["order"] == order
    assert state_of(table).current == order[0]


def test_initiative_is_rolled_again_every_round() -> None:
    table = duel()
    end_turn(table, "hero")

    next_round = end_turn(table, "foe")
    assert types(next_round) == ["turn-ended", "round-started"]
    assert state_of(table).phase == "declaring"
    rolled = initiative(table, 3, 18)

    assert only(rolled, "initiative-rolled")[0]["order"] == ["foe", "hero"]
    assert only(rolled, "turn-started")[0] == {
        "combatant_id": "foe", "round": 2, "points": 5, "actions": 0
    }  # fmt: skip


def test_initiative_is_rolled_once_a_round_by_the_gm() -> None:
    table = declaring()

    by_player = refused(table, {"type": "roll-initiative"}, actor=PLAYER, dice=[10, 10])
    initiative(table, 10, 9)
    twice = refused(table, {"type": "roll-initiative"}, dice=[10, 10])

    assert (by_player.code, twice.code) == ("auth/gm-only", "round/not-declaring")


# --- what every action costs ----------------------------------------------------------------

DROP_PRONE = {"type": "drop-prone", "combatant_id": "hero"}
GRAPPLED_BY_THE_FOE: tuple[Step, ...] = (
    ({"type": "drop-item", "combatant_id": "foe"}, None),
    ({"type": "grapple", "combatant_id": "foe", "target": "hero"}, [15, 2]),
    ({"type": "end-turn", "combatant_id": "foe"}, None),
)


def cost(
    action: str,
    price: int,
    command: dict[str, Any],
    dice: list[int] | None = None,
    *,
    hero: dict[str, Any] | None = None,
    setup: tuple[Step, ...] = (),
    before: tuple[dict[str, Any], ...] = (),
    foe_first: bool = False,
    label: str,
) -> Any:
    """A row of the table: `command`, sent for the hero with `dice`, is the `action` and costs
    `price`; `before` is declared before initiative, `setup` sent in the turn first (the foe's
    turn with `foe_first`, then the hero's)."""
    return pytest.param(
        action, price, {"combatant_id": "hero", **command}, dice, hero, setup, before,
        foe_first, id=label,
    )  # fmt: skip


COSTS = [
    cost("move", 2, {"type": "move", "feet": 30}, label="move: 2"),
    cost("run", 5, {"type": "move", "run": True, "feet": 60}, label="run: 5"),
    cost("crawl", 2, {"type": "crawl"}, setup=((DROP_PRONE, None),), label="crawl: 2"),
    cost("stand-up", 2, {"type": "stand-up"}, setup=((DROP_PRONE, None),), label="stand up: 2"),
    cost("drop-prone", 0, {"type": "drop-prone"}, label="drop prone: 0"),
    cost("drop-item", 0, {"type": "drop-item"}, label="drop an item: 0"),
    cost("talk", 0, {"type": "talk", "text": "Yield!"}, label="talk: 0"),
    cost(
        "equip-item",
        3,
        {"type": "equip-item", "weapon": "dagger"},
        hero={"weapons": [SWORD, DAGGER]},
        label="equip an item: 3",
    ),
    cost("melee-attack", 3, {"type": "attack", "target": "foe"}, [2], label="melee attack: 3"),
    cost(
        "ranged-attack",
        3,
        {"type": "attack", "target": "foe", "feet": 30},
        [2],
        hero={"weapons": [CROSSBOW]},
        label="ranged attack: 3",
    ),
    cost(
        "ranged-attack",
        3,
        {"type": "throw", "target": "foe", "pounds": 2, "feet": 10},
        [2],
        label="throw: 3",
    ),
    cost(
        "full-attack",
        5,
        {"type": "full-attack", "targets": ["foe"]},
        [2, 2],
        hero={"attacks": 2},
        label="full attack: 5",
    ),
    cost(
        "cast-spell",
        3,
        {"type": "cast-spell", "spell": "spark"},
        [15],
        hero={"mana": 3, "spells": [SPARK]},
        before=({"type": "declare", "combatant_id": "hero", "spell": "spark"},),
        label="cast a spell: 3",
    ),
    cost("ready", 3, {"type": "ready", "trigger": "gm"}, label="ready: 3"),
    cost("charge", 5, {"type": "charge", "target": "foe", "feet": 30}, [2], label="charge: 5"),
    cost("disarm", 3, {"type": "disarm", "target": "foe"}, [15, 2], label="disarm: 3"),
    cost(
        "grapple",
        3,
        {"type": "grapple", "target": "foe"},
        [2, 15],
        hero={"weapons": []},
        label="grapple: 3",
    ),
    cost(
        "break-free",
        3,
        {"type": "break-free"},
        [2, 15],
        setup=GRAPPLED_BY_THE_FOE,
        foe_first=True,
        label="break free: 3",
    ),
    cost(
        "release",
        0,
        {"type": "release"},
        hero={"weapons": []},
        setup=(({"type": "grapple", "combatant_id": "hero", "target": "foe"}, [15, 2]),),
        label="release: 0",
    ),
]


def test_the_table_names_every_action_that_is_taken() -> None:
    # Delaying is no action-taken: it moves the whole turn (turns.delay).
    assert {row.values[0] for row in COSTS} == set(ACTIONS) - {"delay"}


@pytest.mark.parametrize(
    ("action", "price", "command", "dice", "hero", "setup", "before", "foe_first"), COSTS
)
def test_every_action_costs_its_action_points(
    action: str,
    price: int,
    command: dict[str, Any],
    dice: list[int] | None,
    hero: dict[str, Any] | None,
    setup: tuple[Step, ...],
    before: tuple[dict[str, Any], ...],
    foe_first: bool,
) -> None:
    table = fight(hero, before=before, foe_first=foe_first)
    for step, step_dice in setup:
        act(table, step, step_dice)
    assert state_of(table).current == "hero"
    left = points(table)

    sent = act(table, command, dice)

    assert only(sent, "action-taken") == [
        {"combatant_id": "hero", "action": action, "points": price, "counts": False}
    ]
    assert points(table) == left - price


def test_an_action_costing_more_points_than_are_left_is_refused() -> None:
    table = fight()
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [2])

    error = refused(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, dice=[2])
    act(table, {"type": "move", "combatant_id": "hero", "feet": 30})
    act(table, {"type": "talk", "combatant_id": "hero", "text": "Is that all?"})

    assert error.code == "points/not-enough"
    assert error.details == {"action": "melee-attack", "cost": 3, "points": 2}
    assert points(table) == 0


# --- Gifting Action Points ------------------------------------------------------------------


def gift(table: Table, giver: str, to: str) -> list[Envelope]:
    return table.send({"type": "gift-point", "combatant_id": giver, "to": to}, actor=PLAYER)


def test_a_point_gifted_during_the_givers_turn_gives_the_ally_6_on_its_turn() -> None:
    table = party()

    sent = gift(table, "hero", "ally")
    assert only(sent, "point-gifted") == [{"combatant_id": "hero", "to": "ally"}]
    assert points(table) == 4
    passed = end_turn(table, "hero")

    assert only(passed, "turn-ended")[0]["points_left"] == 4
    assert only(passed, "turn-started")[0] == {
        "combatant_id": "ally", "round": 1, "points": 6, "actions": 0
    }  # fmt: skip


def test_a_left_over_point_can_be_gifted_after_the_givers_turn() -> None:
    table = party()
    end_turn(table, "hero")

    gift(table, "hero", "archer")
    passed = end_turn(table, "ally")

    assert state_of(table).leftover["hero"] == 4
    assert only(passed, "turn-started")[0]["points"] == 6


@pytest.mark.parametrize(
    ("giver", "to", "code"),
    [
        pytest.param("ally", "hero", "gift/receiver-acted", id="to one who has acted"),
        pytest.param("hero", "ally", "gift/receiver-acted", id="to one taking its turn"),
        pytest.param("ally", "foe", "gift/not-an-ally", id="to a foe"),
        pytest.param("archer", "hero", "gift/not-left-over", id="from one yet to act"),
    ],
)
def test_a_point_goes_only_from_a_combatant_that_has_had_its_turn_to_an_ally_yet_to_act(
    giver: str, to: str, code: str
) -> None:
    table = party()
    end_turn(table, "hero")

    error = refused(table, {"type": "gift-point", "combatant_id": giver, "to": to}, actor=PLAYER)

    assert error.code == code


def test_a_combatant_gifts_one_point_a_round() -> None:
    table = party()
    gift(table, "hero", "ally")

    error = refused(table, {"type": "gift-point", "combatant_id": "hero", "to": "archer"})

    assert error.code == "gift/already-gifted"


def test_a_combatant_with_no_points_left_has_none_to_gift() -> None:
    table = party()
    act(table, {"type": "move", "combatant_id": "hero", "run": True})

    error = refused(table, {"type": "gift-point", "combatant_id": "hero", "to": "ally"})

    assert error.code == "points/not-enough"


def test_without_action_points_there_are_no_points_to_gift() -> None:
    table = party(action_points=False)

    error = refused(table, {"type": "gift-point", "combatant_id": "hero", "to": "ally"})

    assert error.code == "gift/no-action-points"


# --- one action a turn without action points; the Heroic Point ------------------------------


def test_without_action_points_a_turn_is_one_action_and_free_actions_stay_free() -> None:
    table = fight(action_points=False)

    swing = act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [2])
    talk = act(table, {"type": "talk", "combatant_id": "hero", "text": "Missed!"})
    error = refused(table, {"type": "move", "combatant_id": "hero", "feet": 30})

    assert only(swing, "action-taken")[0] | {"action": ""} == {
        "combatant_id": "hero", "action": "", "points": 0, "counts": True
    }  # fmt: skip
    assert only(talk, "action-taken")[0]["counts"] is False
    assert error.code == "round/action-taken"
    assert error.details == {"action": "move", "taken": 1, "allowed": 1}


def test_without_action_points_a_heroic_point_buys_one_more_action() -> None:
    table = fight({"heroic_points": 2}, action_points=False)
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [2])

    spent = act(table, {"type": "spend-heroic-point", "combatant_id": "hero"})
    moved = act(table, {"type": "move", "combatant_id": "hero", "feet": 30})
    error = refused(table, {"type": "move", "combatant_id": "hero", "feet": 30})

    assert only(spent, "heroic-point-spent") == [{"combatant_id": "hero", "points": 0}]
    assert pools(table, "hero")["heroic"] == 1
    assert only(moved, "action-taken")[0]["counts"] is True
    assert error.code == "round/action-taken"
    assert error.details == {"action": "move", "taken": 2, "allowed": 2}


def test_with_action_points_a_heroic_point_buys_3_more_points() -> None:
    table = fight({"heroic_points": 2})

    spent = act(table, {"type": "spend-heroic-point", "combatant_id": "hero"})
    act(table, {"type": "move", "combatant_id": "hero", "run": True})
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [2])

    assert only(spent, "heroic-point-spent") == [{"combatant_id": "hero", "points": 3}]
    assert pools(table, "hero")["heroic"] == 1
    assert points(table) == 0  # 5 + 3 = a run and an attack


def test_a_heroic_point_is_spent_once_a_round() -> None:
    table = fight({"heroic_points": 2})
    act(table, {"type": "spend-heroic-point", "combatant_id": "hero"})

    error = refused(table, {"type": "spend-heroic-point", "combatant_id": "hero"})

    assert error.code == "heroic/once-a-round"


def test_no_heroic_point_is_spent_without_one_left() -> None:
    table = fight()

    error = refused(table, {"type": "spend-heroic-point", "combatant_id": "hero"})

    assert error.code == "heroic/none-left"


# --- Delay action -------------------------------------------------------------------------


def test_a_delayed_turn_moves_whole_to_after_the_named_combatant() -> None:
    table = party()

    delayed = table.send({"type": "delay", "combatant_id": "hero", "until": "ally"}, actor=PLAYER)
    assert only(delayed, "turn-delayed") == [{"combatant_id": "hero", "until": "ally"}]
    assert only(delayed, "turn-started")[0]["combatant_id"] == "ally"
    back = end_turn(table, "ally")

    assert only(back, "turn-started")[0] == {
        "combatant_id": "hero", "round": 1, "points": 5, "actions": 0
    }  # fmt: skip
    assert state_of(table).queue == ("archer", "foe")


def test_a_turn_delayed_without_until_moves_to_the_end_of_the_round() -> None:
    table = party()

    table.send({"type": "delay", "combatant_id": "hero"}, actor=PLAYER)

    assert state_of(table).current == "ally"
    assert state_of(table).queue == ("archer", "foe", "hero")


def test_a_delayed_turn_keeps_the_point_it_was_gifted() -> None:
    table = party()
    gift(table, "hero", "ally")
    end_turn(table, "hero")
    assert points(table) == 6
    table.send({"type": "delay", "combatant_id": "ally"}, actor=PLAYER)
    end_turn(table, "archer")

    back = end_turn(table, "foe")

    # "the whole turn, points and all, moves" (turns.delay)
    assert only(back, "turn-started")[0] == {
        "combatant_id": "ally", "round": 1, "points": 6, "actions": 0
    }  # fmt: skip


def test_a_point_gifted_away_is_not_had_back_by_delaying() -> None:
    table = party()
    gift(table, "hero", "ally")
    table.send({"type": "delay", "combatant_id": "hero", "until": "ally"}, actor=PLAYER)

    back = end_turn(table, "ally")

    # The hero kept 4 of its 5 points; the ally had 6: still 10 between them.
    assert only(back, "turn-started")[0] == {
        "combatant_id": "hero", "round": 1, "points": 4, "actions": 0
    }  # fmt: skip


def test_a_turn_cannot_be_delayed_once_something_was_spent() -> None:
    table = party()
    act(table, {"type": "move", "combatant_id": "hero", "feet": 10})

    error = refused(table, {"type": "delay", "combatant_id": "hero"})

    assert error.code == "delay/after-acting"


def test_a_turn_is_delayed_only_until_one_who_acts_later() -> None:
    table = party()
    end_turn(table, "hero")

    error = refused(table, {"type": "delay", "combatant_id": "ally", "until": "hero"})

    assert error.code == "delay/not-later"
    assert error.details == {"later": ["archer", "foe"]}


def test_the_last_to_act_has_nobody_to_delay_for() -> None:
    table = party()
    for cid in ("hero", "ally", "archer"):
        end_turn(table, cid)

    error = refused(table, {"type": "delay", "combatant_id": "foe"})

    assert error.code == "delay/nobody-after"


# --- Ready action ---------------------------------------------------------------------------


def test_a_readied_attack_fires_when_a_foe_moves() -> None:
    table = fight()
    readied = act(table, {"type": "ready", "combatant_id": "hero", "trigger": "moves"})
    assert only(readied, "action-readied")[0]["readied"]["trigger"] == "moves"
    end_turn(table, "hero")

    moved = act(table, {"type": "move", "combatant_id": "foe", "feet": 10})
    window = only(moved, "reaction-window-opened")[0]
    fired = answer(table, window, "hero", "fire", actor=PLAYER, dice=[15, 2])

    assert (window["trigger"]["kind"], window["trigger"]["actor"]) == ("readied", "foe")
    assert window["eligible"] == {"hero": ["fire", "pass"]}
    rolled = only(fired, "attack-rolled")[0]
    assert (rolled["attacker"], rolled["target"], rolled["reaction"]) == ("hero", "foe", "readied")
    assert (rolled["hit"], rolled["damage"]) == (True, 4)
    assert pools(table, "foe")["hp"] == 6
    assert "hero" not in state_of(table).readied
    assert state_of(table).current == "foe"


def test_an_allys_move_does_not_set_off_an_attack_readied_for_a_foes() -> None:
    table = party()
    act(table, {"type": "ready", "combatant_id": "hero", "trigger": "moves"})
    end_turn(table, "hero")

    moved = act(table, {"type": "move", "combatant_id": "ally", "feet": 10})

    assert types(moved) == ["action-taken", "moved"]
    assert "hero" in state_of(table).readied


def test_the_gm_says_when_a_readied_actions_trigger_happens() -> None:
    table = fight()
    act(
        table,
        {"type": "ready", "combatant_id": "hero", "trigger": "gm",
         "description": "whatever comes through the door"},
    )  # fmt: skip
    end_turn(table, "hero")

    triggered = table.send({"type": "trigger-readied", "combatant_id": "hero", "target": "foe"})
    window = only(triggered, "reaction-window-opened")[0]
    fired = answer(table, window, "hero", "fire", actor=PLAYER, dice=[3])

    assert only(triggered, "readied-triggered") == [{"combatant_id": "hero", "target": "foe"}]
    assert only(fired, "attack-rolled")[0]["reaction"] == "readied"


def test_only_the_gm_triggers_a_readied_action_and_only_one_that_was_readied() -> None:
    table = fight()
    act(table, {"type": "ready", "combatant_id": "hero", "trigger": "gm", "target": "foe"})
    trigger = {"type": "trigger-readied", "combatant_id": "hero"}

    by_player = refused(table, trigger, actor=PLAYER)
    nothing = refused(table, trigger | {"combatant_id": "foe"})

    assert (by_player.code, nothing.code) == ("auth/gm-only", "ready/nothing-readied")


# --- whose turn it is -----------------------------------------------------------------------


def test_ending_a_turn_begins_the_next_in_the_order() -> None:
    table = fight()
    act(table, {"type": "move", "combatant_id": "hero", "feet": 30})

    ended = table.send({"type": "end-turn"}, actor=PLAYER)

    assert only(ended, "turn-ended") == [
        {"combatant_id": "hero", "reason": "done", "points_left": 3}
    ]
    assert only(ended, "turn-started")[0]["combatant_id"] == "foe"


def test_nobody_acts_out_of_turn() -> None:
    table = fight()

    error = refused(table, {"type": "move", "combatant_id": "foe", "feet": 30})

    assert error.code == "turn/not-your-turn"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "move", "combatant_id": "hero", "feet": 30}, id="move"),
        pytest.param({"type": "end-turn", "combatant_id": "hero"}, id="end-turn"),
        pytest.param({"type": "delay", "combatant_id": "hero"}, id="delay"),
    ],
)
def test_a_player_cannot_act_for_anothers_combatant(command: dict[str, Any]) -> None:
    table = party()

    error = refused(table, command, actor=ALLY_ONLY)

    assert error.code == "auth/not-your-combatant"


# --- the turn timer -------------------------------------------------------------------------


def expire(table: Table, generation: int) -> list[Envelope]:
    return table.send(
        {"type": "expire-clock", "clock_id": "turn", "generation": generation}, actor=SYSTEM
    )


def test_each_turn_starts_the_turn_clock() -> None:
    table = encounter(turn_time_limit=60)
    pc(table, "hero")
    monster(table, "foe")
    start(table)

    rolled = initiative(table, 15, 5)

    assert types(rolled)[-2:] == ["turn-started", "clock-started"]
    assert only(rolled, "clock-started")[0] | {"label": ""} == {
        "clock_id": "turn", "label": "", "owner": "hero", "duration_ms": 60_000,
        "generation": 1, "deadline": "2026-01-01T12:01:00.000Z",
    }  # fmt: skip


def test_an_expired_turn_clock_ends_the_turn() -> None:
    table = fight(turn_time_limit=60)
    table.wait(60)

    expired = expire(table, 1)

    assert types(expired) == ["clock-expired", "turn-ended", "turn-started", "clock-started"]
    assert only(expired, "turn-ended") == [
        {"combatant_id": "hero", "reason": "timeout", "points_left": 5}
    ]
    assert only(expired, "clock-started")[0]["generation"] == 2
    assert state_of(table).current == "foe"


def test_a_stale_expiry_changes_nothing() -> None:
    table = fight(turn_time_limit=60)
    end_turn(table, "hero")

    assert expire(table, 1) == []
    assert state_of(table).current == "foe"


def test_on_timeout_delay_moves_an_untouched_turn_to_the_end_of_the_round() -> None:
    table = party(turn_time_limit=60, on_turn_timeout="delay")

    expired = expire(table, 1)

    assert only(expired, "turn-delayed") == [{"combatant_id": "hero", "until": None}]
    assert state_of(table).current == "ally"
    assert state_of(table).queue == ("archer", "foe", "hero")


def test_on_timeout_delay_ends_a_turn_that_has_spent_points() -> None:
    table = party(turn_time_limit=60, on_turn_timeout="delay")
    act(table, {"type": "move", "combatant_id": "hero", "feet": 10})

    expired = expire(table, 1)

    assert only(expired, "turn-ended") == [
        {"combatant_id": "hero", "reason": "timeout", "points_left": 3}
    ]
    assert "turn-delayed" not in types(expired)


def test_only_the_gm_or_the_system_expires_a_clock() -> None:
    table = fight(turn_time_limit=60)

    error = refused(
        table, {"type": "expire-clock", "clock_id": "turn", "generation": 1}, actor=PLAYER
    )

    assert error.code == "auth/gm-only"
    assert types(expire(table, 1))[0] == "clock-expired"


def test_a_combatant_out_of_the_fight_gifts_nothing() -> None:
    table = party()
    end_turn(table, "hero")
    table.send({"type": "adjust-resource", "combatant_id": "hero", "set": 0})

    error = refused(table, {"type": "gift-point", "combatant_id": "hero", "to": "archer"})

    assert error.code == "gift/out-of-fight"


# --- the roster once combat has begun (Fray's reading: the seed has no rule for leaving) ----


def test_a_combatant_that_has_had_its_turn_cannot_be_removed() -> None:
    table = party()
    end_turn(table, "hero")

    error = refused(table, {"type": "remove-combatant", "combatant_id": "hero"})

    assert error.code == "combatant/in-the-fight"
    assert "adjust-resource" in error.message


def test_a_combatant_cannot_be_removed_while_actions_are_declared() -> None:
    table = encounter()
    pc(table, "hero")
    monster(table, "foe")
    start(table)

    error = refused(table, {"type": "remove-combatant", "combatant_id": "foe"})

    assert error.code == "combatant/in-the-fight"


def test_before_combat_begins_a_combatant_may_still_be_removed() -> None:
    table = encounter()
    pc(table, "hero")
    monster(table, "foe")
    table.send({"type": "start-encounter"})

    removed = table.send({"type": "remove-combatant", "combatant_id": "foe"})

    assert types(removed) == ["combatant-removed"]
