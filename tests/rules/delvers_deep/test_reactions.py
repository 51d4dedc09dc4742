"""delvers-deep 4.1 Reactions, Dodge and Opportunity Attack, through reaction windows."""

from __future__ import annotations

from service.domain.context import GM, SYSTEM
from service.rules.delvers_deep import RULESET
from tests.rules.delvers_deep.given import (
    CLUB,
    PLAYER,
    SWORD,
    creature,
    encounter,
    only,
    pc,
    pools,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table

SPEAR = {"name": "spear", "kind": "melee", "reach": 2, "damage": "3"}


def troll_swings(table: Table, hit: int = 5) -> dict:
    """The troll's turn: it hits the hero with its 6-damage greatclub."""
    table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["troll"]})
    blow = table.send(
        {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "hero"},
        dice=[hit],
    )
    return {"events": blow, "window": (only(blow, "reaction-window-opened") or [{}])[0]}


def troll_fight(ref: int = 3, **options) -> Table:
    table = encounter(**options)
    pc(table, "hero", ref=ref, dodge_dc=4)
    creature(table, "troll", weapons=[CLUB])
    start(table, 3)
    return table


def test_a_hit_offers_the_target_a_stacked_dodge_up_to_its_ref():
    table = troll_fight(ref=3)

    swing = troll_swings(table)

    assert swing["window"]["trigger"]["kind"] == "attack"
    assert swing["window"]["eligible"] == {"hero": ["dodge", "dodge+1", "dodge+2", "pass"]}
    assert table.ruleset.acting(table.state) == ["troll"]


def test_a_stacked_dodge_rolls_a_die_per_ref_spent():
    table = troll_fight(ref=3)
    swing = troll_swings(table)

    dodge = table.send(
        {
            "type": "answer-reaction",
            "window_id": swing["window"]["window_id"],
            "combatant_id": "hero",
            "option": "dodge+2",
        },
        actor=PLAYER,
        dice=[1, 2, 3],
    )

    assert only(dodge, "dodge-failed")[0]["dice"] == [1, 2, 3]
    assert only(dodge, "damage-taken")[0]["amount"] == 6
    assert pools(table, "hero")["ref"] == 0 and pools(table, "hero")["hp"] == 4


def test_passing_or_letting_the_window_close_takes_the_damage():
    table = troll_fight()
    swing = troll_swings(table)

    closed = table.send(
        {"type": "close-reaction-window", "window_id": swing["window"]["window_id"]}, SYSTEM
    )

    assert types(closed) == ["reaction-window-closed", "damage-taken", "resource-adjusted"]
    assert pools(table, "hero")["hp"] == 4


def test_without_ref_there_is_no_dodge():
    table = troll_fight(ref=0)

    swing = troll_swings(table)

    assert "reaction-window-opened" not in types(swing["events"])
    assert only(swing["events"], "damage-taken")[0]["amount"] == 6


def test_a_dodge_whose_points_are_gone_at_resolution_is_refused():
    table = troll_fight(ref=1)
    swing = troll_swings(table)
    table.send({"type": "adjust-resource", "combatant_id": "hero", "resource": "ref", "set": 0})

    answered = table.send(
        {
            "type": "answer-reaction",
            "window_id": swing["window"]["window_id"],
            "combatant_id": "hero",
            "option": "dodge",
        },
        actor=PLAYER,
    )

    assert only(answered, "reaction-refused") == [
        {"combatant_id": "hero", "reaction": "dodge", "reason": "needs 1 REF and has 0"}
    ]
    assert only(answered, "damage-taken")[0]["amount"] == 6


def test_a_dodge_policy_answers_at_once():
    table = troll_fight(ref=3)
    policy = {"option": "dodge", "trigger": "attack", "while": [{"resource": "ref", "at_least": 2}]}
    table.send(
        {"type": "set-reaction-policy", "combatant_id": "hero", "policies": [policy]}, actor=PLAYER
    )
    table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["troll"]})

    blow = table.send(
        {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "hero"},
        dice=[5, 6],
    )

    assert types(blow)[2:6] == [
        "reaction-window-opened",
        "reaction-answered",
        "reaction-window-closed",
        "dodged",
    ]
    assert pools(table, "hero")["hp"] == 10 and pools(table, "hero")["ref"] == 2


def test_the_turn_ends_only_after_the_last_hit_is_resolved():
    table = troll_fight()
    table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["troll"]})
    table.send({"type": "brace", "combatant_id": "troll"})
    blow = table.send(
        {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "hero"},
        dice=[5],
    )
    assert "turn-ended" not in types(blow)

    closed = table.send({"type": "close-reaction-window", "window_id": "w1"}, SYSTEM)

    assert types(closed)[-3:] == ["turn-ended", "round-started", "turn-started"]


def test_the_halve_damage_option_makes_every_undodged_hit_a_health_check():
    table = troll_fight(ref=0, health_check="halve-damage")

    table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["troll"]})

    blow = table.send(
        {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "hero"},
        dice=[5, 4],
    )

    assert only(blow, "check-rolled")[0]["dc"] == 4 and only(blow, "check-rolled")[0]["success"]
    assert only(blow, "damage-taken")[0] == {
        "combatant_id": "hero",
        "amount": 3,
        "rolled": 6,
        "source": "greatclub",
        "attacker": "troll",
        "halved": True,
        "resolves": 1,
    }


def test_opportunity_attacks_strike_longest_reach_first():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", position=(0, 1))
    creature(table, "orc", weapons=[SWORD], position=(5, 0))
    creature(table, "troll", weapons=[CLUB], position=(6, 2))
    creature(table, "gob", weapons=[SWORD], position=(9, 0))
    start(table, 3)

    moved = table.send({"type": "move", "combatant_id": "hero", "to": [4, 1]}, actor=PLAYER)

    assert only(moved, "moved")[0]["provokes"] == ["troll", "orc"]
    window = only(moved, "reaction-window-opened")[0]
    assert window["order"] == ["troll", "orc"]
    table.send(
        {
            "type": "answer-reaction",
            "window_id": window["window_id"],
            "combatant_id": "orc",
            "option": "opportunity-attack",
        }
    )
    struck = table.send(
        {
            "type": "answer-reaction",
            "window_id": window["window_id"],
            "combatant_id": "troll",
            "option": "opportunity-attack",
        },
        dice=[5, 2],
    )

    attacks = only(struck, "attack-rolled")
    assert [(a["attacker"], a["reaction"], a["hit"]) for a in attacks] == [
        ("troll", True, True),
        ("orc", True, False),
    ]
    assert pools(table, "troll")["fort"] == 3 and pools(table, "orc")["fort"] == 3
    dodge_window = only(struck, "reaction-window-opened")[0]
    assert dodge_window["trigger"]["actor"] == "troll"
    assert state_of(table).turns["hero"].actions_used == 1  # reactions cost no actions


def test_without_a_map_the_table_declares_whose_reach_a_move_enters():
    table = encounter()
    pc(table, "hero", ref=0)
    creature(table, "orc", weapons=[SWORD])
    creature(table, "pike", weapons=[SPEAR])
    start(table, 3)

    moved = table.send(
        {"type": "move", "combatant_id": "hero", "distance": 3, "enters_reach_of": ["orc", "pike"]},
        actor=PLAYER,
    )

    assert only(moved, "reaction-window-opened")[0]["order"] == ["pike", "orc"]


def test_an_opportunity_attack_without_fort_is_refused():
    table = encounter()
    pc(table, "hero")
    creature(table, "orc", fort=1)
    start(table, 3)
    moved = table.send(
        {"type": "move", "combatant_id": "hero", "distance": 3, "enters_reach_of": ["orc"]},
        actor=PLAYER,
    )
    table.send({"type": "adjust-resource", "combatant_id": "orc", "resource": "fort", "set": 0})

    answered = table.send(
        {
            "type": "answer-reaction",
            "window_id": only(moved, "reaction-window-opened")[0]["window_id"],
            "combatant_id": "orc",
            "option": "opportunity-attack",
        }
    )

    assert only(answered, "reaction-refused")[0]["reaction"] == "opportunity-attack"
    assert "attack-rolled" not in types(answered)


def answer(table: Table, window: dict, combatant: str, option: str, **send) -> list:
    command = {
        "type": "answer-reaction",
        "window_id": window["window_id"],
        "combatant_id": combatant,
        "option": option,
    }
    return table.send(command, **send)


def test_a_combatant_downed_by_the_first_opportunity_attack_is_not_asked_to_dodge_the_second():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", position=(0, 1), health=6)
    creature(table, "troll", weapons=[CLUB], position=(6, 2))
    creature(table, "orc", weapons=[SWORD], position=(5, 0))
    start(table, 3)
    moved = table.send({"type": "move", "combatant_id": "hero", "to": [4, 1]}, actor=PLAYER)
    window = only(moved, "reaction-window-opened")[0]
    answer(table, window, "orc", "opportunity-attack")
    # the troll hits (6); the orc hits (6) and its sword deals a d6 (3)
    struck = answer(table, window, "troll", "opportunity-attack", dice=[6, 6, 3])
    dodge_window = only(struck, "reaction-window-opened")[0]

    passed = answer(table, dodge_window, "hero", "pass", actor=PLAYER)

    assert "combatant-downed" in types(passed)
    assert "reaction-window-opened" not in types(passed)
    assert state_of(table).table.combatants["hero"].out_of_fight


def test_ending_the_encounter_during_a_dodge_window_applies_no_damage_after_the_end():
    table = troll_fight()
    window = troll_swings(table)["window"]

    ended = table.send({"type": "end-encounter", "reason": "the troll is bargained with"})

    assert types(ended)[-1] == "encounter-ended"
    assert "damage-taken" not in types(ended)
    assert pools(table, "hero")["hp"] == 10
    assert window["window_id"] not in state_of(table).table.windows


def test_players_do_not_see_enemy_damage_when_the_encounter_hides_health():
    from service.domain.context import GM
    from service.rules.delvers_deep import RULESET

    table = encounter(hide_enemy_health=True)
    pc(table, "hero")
    creature(table, "orc", ref=0)
    start(table, 4)
    hit = table.send(
        {"type": "attack", "combatant_id": "hero", "weapon": "sword", "target": "orc"},
        actor=PLAYER,
        dice=[6, 2],
    )
    damage = next(e for e in hit if e.type == "damage-taken")
    assert RULESET.redact_event(damage, PLAYER, table.state) is None
    assert RULESET.redact_event(damage, GM, table.state) == damage.to_dict()


def test_the_answer_reaction_legal_action_shows_what_a_dodge_costs():
    """issue 27: a dodge+k costs 1+k REF; the option said `cost: null`."""
    table = troll_fight(ref=3)
    troll_swings(table)

    (react,) = [
        o for o in RULESET.legal_actions(table.state, PLAYER) if o.type == "answer-reaction"
    ]

    assert react.cost == {"ref": 1}
    assert react.params["options"] == ["dodge", "dodge+1", "dodge+2", "pass"]
    assert react.params["costs"] == {
        "dodge": {"ref": 1}, "dodge+1": {"ref": 2}, "dodge+2": {"ref": 3}, "pass": {}
    }  # fmt: skip


def test_the_answer_reaction_legal_action_shows_what_an_opportunity_attack_costs():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", position=(0, 1))
    creature(table, "orc", weapons=[SWORD], position=(5, 0))
    start(table, 3)
    table.send({"type": "move", "combatant_id": "hero", "to": [4, 1]}, actor=PLAYER)

    (react,) = [o for o in RULESET.legal_actions(table.state, GM) if o.type == "answer-reaction"]

    assert (react.actor, react.cost) == ("orc", {"fort": 1})
    assert react.params["costs"] == {"opportunity-attack": {"fort": 1}, "pass": {}}


def test_the_summarys_reaction_windows_carry_window_id_as_everywhere_else():
    """issue 27: `summary.reaction_windows[].id` was the one place a window's id was not
    `window_id`; `id` stays, deprecated, for clients that read it."""
    table = troll_fight(ref=3)
    swing = troll_swings(table)

    (window,) = RULESET.summary(table.state, PLAYER).reaction_windows
    shown = window.model_dump(mode="json")

    assert shown["window_id"] == swing["window"]["window_id"] == shown["id"]
    assert type(window).model_fields["id"].deprecated
