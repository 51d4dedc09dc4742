"""Random legal play folds back to the live state and keeps every pool within its bounds.

A state machine plays options drawn from `legal_actions` (for the GM and the player, with
server dice): the questions before combat, declarations, initiative, every action of a turn
with plausible parameters, gifts, Heroic Points, delays, and the answers to reaction windows;
it closes windows, lets the turn clock run out, and sometimes tries an illegal command.
After every step the fold of the stored envelopes equals the live state, a refused command
stores nothing, no hp, mana or Heroic pool is above its maximum, mana and Heroic Points are
never below zero, the turn's action points are never negative, and once the table is quiet
the turn in progress is that of a combatant still in the fight.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from service.domain.context import GM, SYSTEM, Actor
from service.domain.errors import RuleViolation
from service.domain.views import ActionOption
from service.rules.d20_action_points import RULESET
from service.rules.d20_action_points.state import CIRCUMSTANCES, D20State
from tests.rules.d20_action_points.given import CROSSBOW, DAGGER, PLAYER, SPEAR, SWORD
from tests.rules.harness import Table

PCS = ("hero", "wizard", "archer", "thief", "ally")
WEAPONS = [
    SWORD,
    DAGGER,
    CROSSBOW,
    SPEAR,
    {"name": "javelin", "kind": "thrown", "damage": "1d6", "range": 30},
    {"name": "greatsword", "damage": "2d6", "two_handed": True},
    {"name": "chill touch", "damage": "1d4", "special": "energy-drain"},
    {"name": "fangs", "damage": "1d4", "special": "poison", "save_dc": 12, "poison": "1d6"},
    {"name": "stinger", "damage": "1d3", "special": "poison", "save_dc": 8},
]
SPELLS = [
    {"name": "bolt", "level": 1, "damage": "1d6"},
    {"name": "web", "level": 2, "initiative": -2},
    {"name": "haste", "level": 0, "mana": 1, "initiative": 3},
]
STATS = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 12),
        "ac": st.integers(6, 16),
        "level": st.integers(1, 3),
        "strength": st.integers(-1, 3),
        "dexterity": st.integers(-1, 3),
        "constitution": st.integers(-1, 2),
        "wisdom": st.integers(-1, 2),
        "intelligence": st.integers(0, 3),
        "speed": st.sampled_from((20, 30)),
        "attacks": st.integers(1, 2),
        "weapons": st.lists(st.sampled_from(WEAPONS), max_size=3, unique_by=lambda w: w["name"]),
        "mana": st.integers(0, 4),
        "spells": st.lists(st.sampled_from(SPELLS), max_size=2, unique_by=lambda s: s["name"]),
        "heroic_points": st.integers(0, 2),
        "backstab": st.sampled_from((None, 2, 3)),
        "darkvision": st.booleans(),
        "humanoid": st.booleans(),
        "group": st.sampled_from((None, "pack")),
    }
)
TARGETED = ("attack", "charge", "grapple", "disarm", "trigger-readied")
ANYTHING = (
    *TARGETED,
    "break-free",
    "release",
    "stand-up",
    "crawl",
    "end-turn",
    "spend-heroic-point",
    "drop-item",
    "roll-initiative",
    "begin-combat",
)
TABLE_TALK = frozenset({"roll", "set-environment", "set-marching-order", "resume-clocks"})
FALLIBLE = frozenset(
    {
        # Parameters drawn at random may be out of range or reach, or too far to go.
        "attack",
        "full-attack",
        "throw",
        "charge",
        "move",
        "cast-spell",
        "disarm",
        "grapple",
        "equip-item",
        "delay",
        "gift-point",
        "declare",
        "set-marching-order",
        "surprise-check",
        "trigger-readied",
        "choose-approach",
    }
)


class D20Play(RuleBasedStateMachine):
    table: Table

    @initialize(
        pcs=st.lists(STATS, min_size=1, max_size=3),
        monsters=st.lists(STATS, min_size=1, max_size=3),
        action_points=st.booleans(),
        environment=st.booleans(),
        death_check=st.sampled_from(("save", "dead", "gm")),
        window=st.sampled_from((0.0, 30.0)),
        hide=st.booleans(),
        timeout=st.sampled_from((None, "end-turn", "delay", "record")),
    )
    def create(self, pcs, monsters, action_points, environment, death_check, window, hide, timeout):
        timer = {} if timeout is None else {"turn_time_limit": 60, "on_turn_timeout": timeout}
        self.table = Table(
            RULESET,
            {
                "action_points": action_points,
                "environment": environment,
                "death_check": death_check,
                "reaction_window": window,
                "hide_enemy_health": hide,
                **timer,
            },
        )
        for cid, stats in zip(PCS, pcs, strict=False):
            self.add(cid, "party", {**stats, "kind": "pc", "group": None})
        for number, stats in enumerate(monsters):
            self.add(f"gob{number}", "monsters", stats)
        assert self.send({"type": "start-encounter"})

    def add(self, cid: str, side: str, stats: dict[str, Any]) -> None:
        controller = "p1" if side == "party" else None
        added = self.send(
            {
                "type": "add-combatant",
                "combatant_id": cid,
                "name": cid,
                "side": side,
                "controller": controller,
                "stats": stats,
            }
        )
        assert added, stats

    @property
    def state(self) -> D20State:
        assert isinstance(self.table.state, D20State)
        return self.table.state

    def send(self, command: dict[str, Any], actor: Actor = GM) -> bool:
        before, state = list(self.table.envelopes), self.table.state
        try:
            self.table.send(command, actor=actor)
        except RuleViolation:
            assert self.table.envelopes == before and self.table.state == state
            return False
        return True

    def pick(self, data: st.DataObject, options: list[Any] | None) -> Any:
        return data.draw(st.sampled_from(options or [""]))

    def command_for(self, option: ActionOption, data: st.DataObject) -> dict[str, Any]:
        command: dict[str, Any] = {"type": option.type}
        if option.actor is not None:
            command["combatant_id"] = option.actor
        params = dict(option.params)
        feet = st.integers(0, 90)
        match option.type:
            case "set-environment":
                command["combatant_id"] = data.draw(
                    st.sampled_from((None, *sorted(self.state.table.combatants)))
                )
                command["circumstances"] = data.draw(
                    st.lists(st.sampled_from(CIRCUMSTANCES), max_size=3)
                )
            case "set-marching-order":
                width = data.draw(st.integers(1, 3))
                members = list(option.targets or [])
                command |= {"side": params["side"], "width": width}
                command["ranks"] = [members[i : i + width] for i in range(0, len(members), width)]
            case "record-monster-reaction":
                outcome = data.draw(st.sampled_from(("fight", "parley", "leave")))
                command |= {"result": "hostile", "outcome": outcome}
            case "choose-approach":
                command["approach"] = self.pick(data, params["approaches"])
            case "rule-negotiation":
                command["outcome"] = data.draw(st.sampled_from(("agreement", "pause", "fight")))
            case "resolve-evasion":
                command["outcome"] = data.draw(st.sampled_from(("evaded", "noticed")))
            case "declare":
                command["spell"] = data.draw(st.sampled_from((None, *params["spells"])))
                command["weapon"] = data.draw(st.sampled_from((None, *params["weapons"])))
            case "trigger-readied" | "charge" | "disarm" | "grapple":
                command["target"] = self.pick(data, option.targets)
                if option.type == "charge":
                    command["feet"] = data.draw(feet)
            case "gift-point":
                command["to"] = self.pick(data, option.targets)
            case "delay":
                command["until"] = data.draw(st.sampled_from((None, *(option.targets or []))))
            case "move":
                command |= {"run": params["run"], "feet": data.draw(feet)}
            case "attack":
                command |= {"target": self.pick(data, option.targets), "weapon": params["weapon"]}
                command["feet"] = data.draw(feet)
                command["backstab"] = data.draw(st.booleans())
            case "full-attack":
                command["targets"] = data.draw(
                    st.lists(st.sampled_from(option.targets or [""]), min_size=1, max_size=2)
                )
                command["feet"] = data.draw(feet)
            case "throw":
                command["target"] = self.pick(data, option.targets)
                command |= {"pounds": data.draw(st.integers(1, 8)), "feet": data.draw(feet)}
            case "cast-spell":
                command["spell"] = params["spell"]
                command["target"] = data.draw(st.sampled_from((None, *(option.targets or []))))
            case "ready":
                command["trigger"] = self.pick(data, params["triggers"])
            case "equip-item" if params.get("description"):
                command["description"] = "drinks a potion"
            case "equip-item":
                command["weapon"] = self.pick(data, params["carried"] + params["on_the_ground"])
            case "talk":
                command["text"] = "Yield!"
            case "roll":
                command["expression"] = data.draw(st.sampled_from(("1d6", "2d6+1")))
        return command

    @rule(data=st.data(), as_player=st.booleans())
    def play_a_legal_action(self, data: st.DataObject, as_player: bool):
        aside = data.draw(st.sampled_from(["play"] * 12 + ["illegal", "condition", "clock"]))
        if aside != "play":
            {"illegal": self.try_something_illegal, "condition": self.set_a_condition}.get(
                aside, self.let_the_turn_clock_run_out
            )(data)
            return
        skip = {"add-combatant", "end-encounter", "start-encounter", "pause-clocks"}
        if not data.draw(st.sampled_from([False] * 7 + [True])):
            # Mostly the fight itself: the table's own commands are offered at every step.
            skip |= TABLE_TALK
        viewer = PLAYER if as_player else GM
        options = [o for o in RULESET.legal_actions(self.state, viewer) if o.type not in skip]
        if not options:
            viewer = GM
            options = [o for o in RULESET.legal_actions(self.state, GM) if o.type not in skip]
        if not options:
            return
        # A kind of action first, so that one option per combatant does not crowd out the rest.
        kind = data.draw(st.sampled_from(sorted({o.type for o in options})))
        option = data.draw(st.sampled_from([o for o in options if o.type == kind]))
        if option.type == "answer-reaction":
            command = {
                "type": "answer-reaction",
                "window_id": option.params["window_id"],
                "combatant_id": option.actor,
                "option": data.draw(st.sampled_from(option.params["options"])),
            }
        else:
            command = self.command_for(option, data)
        assert self.send(command, viewer) or option.type in FALLIBLE, command

    def try_something_illegal(self, data: st.DataObject) -> None:
        """A command drawn without looking at what is legal: mostly refused."""
        ids = sorted(self.state.table.combatants)
        cid, target = data.draw(st.sampled_from(ids)), data.draw(st.sampled_from(ids))
        command: dict[str, Any] = {"type": data.draw(st.sampled_from(ANYTHING))}
        if command["type"] in TARGETED:
            command |= {"combatant_id": cid, "target": target}
        elif command["type"] not in ("roll-initiative", "begin-combat"):
            command["combatant_id"] = cid
        self.send(command, data.draw(st.sampled_from((GM, PLAYER))))

    @precondition(lambda self: bool(self.state.table.open_windows()))
    @rule(by_gm=st.booleans())
    def close_a_window(self, by_gm: bool):
        """The window's deadline (the worker), or the GM closing it early."""
        for window in self.state.table.open_windows():
            closed = {"type": "close-reaction-window", "window_id": window.id}
            assert self.send(closed, GM if by_gm else SYSTEM)

    def let_the_turn_clock_run_out(self, data: st.DataObject) -> None:
        """The worker's expiry, or a stale one from a clock restarted since."""
        clock = self.state.table.clocks.get("turn")
        if clock is not None and clock.status == "running":
            stale = data.draw(st.booleans())
            generation = clock.generation - 1 if stale else clock.generation
            expiry = {"type": "expire-clock", "clock_id": "turn", "generation": generation}
            self.send(expiry, SYSTEM)

    def set_a_condition(self, data: st.DataObject) -> None:
        """The GM says who is hidden (for a backstab) or knocked prone."""
        cid = data.draw(st.sampled_from(sorted(self.state.table.combatants)))
        condition = data.draw(st.sampled_from(("hidden", "prone")))
        self.send({"type": "apply-condition", "combatant_id": cid, "condition": condition})

    @invariant()
    def the_fold_of_the_stream_is_the_live_state(self):
        assert self.table.replayed() == self.table.state

    @invariant()
    def pools_stay_within_their_bounds(self):
        for combatant in self.state.table.combatants.values():
            for name, pool in combatant.pools.items():
                assert pool.current <= (pool.max or 0), (combatant.id, name, pool)
                if name in ("mana", "heroic"):
                    assert pool.current >= 0, (combatant.id, name, pool)

    @invariant()
    def the_turns_points_are_never_negative(self):
        turn = self.state.turn
        assert turn is None or turn.points >= 0, turn

    @invariant()
    def a_turn_in_progress_belongs_to_someone_still_fighting(self):
        state = self.state
        quiet = state.phase == "acting" and not state.table.open_windows() and not state.pending
        if quiet and state.current is not None:
            assert not state.table.combatants[state.current].out_of_fight, state.current


D20Play.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_random_legal_play_folds_back_and_keeps_pools_in_bounds = D20Play.TestCase
