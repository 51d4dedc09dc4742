"""Random legal play folds back to the live state and keeps every pool within its bounds.

A state machine plays options drawn from `legal_actions` (for the GM and the player, with
server dice), answers and closes reaction windows, lets the turn clock run out (or sends a
stale expiry) and sometimes tries an illegal command. After every step the fold of the
stored envelopes equals the live state, a refused command stores nothing, no FORT, REF,
WILL or hp pool is below zero or above its maximum, the turn clock runs exactly while a
turn does, and every reaction window's trigger has the shape `DelversTrigger` declares for
what it hides.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from service.domain.context import GM, SYSTEM, Actor
from service.domain.errors import RuleViolation
from service.domain.views import ActionOption
from service.rules.delvers_deep import RULESET
from service.rules.delvers_deep.state import DelversState, DelversTrigger
from tests.rules.harness import Table

PLAYER = Actor("p1", "player", frozenset({"ani", "bramli"}))
WEAPONS = [
    {"name": "club", "kind": "melee", "reach": 2, "damage": "d6"},
    {
        "name": "bow",
        "kind": "ranged",
        "range": 20,
        "damage": "d4",
        "loading": True,
        "reload_fort": 1,
    },
]
SPELLS = [{"name": "bolt", "will": 1, "dc": 4, "damage": "2", "tags": ["PROJECTILE"]}]
POOL = st.integers(0, 4)
STATS = st.fixed_dictionaries(
    {
        "fort": POOL,
        "ref": POOL,
        "will": POOL,
        "health": st.integers(1, 8),
        "recovery": st.integers(0, 3),
        "group": st.sampled_from((None, "pack")),
    }
)


class DelversPlay(RuleBasedStateMachine):
    table: Table

    @initialize(
        pcs=st.lists(STATS, min_size=0, max_size=2),
        creatures=st.lists(STATS, min_size=1, max_size=3),
        first=st.sampled_from(("pcs", "gm")),
        ambush=st.sampled_from((None, "pcs", "gm")),
        window=st.sampled_from((0.0, 30.0)),
        halve=st.booleans(),
        timeout=st.sampled_from((None, "end-turn", "delay", "record")),
    )
    def create(self, pcs, creatures, first, ambush, window, halve, timeout):
        timer = {} if timeout is None else {"turn_time_limit": 60, "on_turn_timeout": timeout}
        self.table = Table(
            RULESET,
            {
                "first_side": first,
                "ambush": ambush,
                "reaction_window": window,
                "health_check": "halve-damage" if halve else "off",
                **timer,
            },
        )
        for cid, stats in zip(("ani", "bramli"), pcs, strict=False):
            self.add(cid, "pcs", {**stats, "kind": "pc", "group": None})
        for number, stats in enumerate(creatures):
            self.add(f"orc{number}", "orcs", stats)
        self.send({"type": "start-encounter"})

    def add(self, cid: str, side: str, stats: dict[str, Any]) -> None:
        self.send(
            {
                "type": "add-combatant",
                "combatant_id": cid,
                "name": cid,
                "side": side,
                "stats": {**stats, "weapons": WEAPONS, "spells": SPELLS},
            }
        )

    @property
    def state(self) -> DelversState:
        assert isinstance(self.table.state, DelversState)
        return self.table.state

    def send(self, command: dict[str, Any], actor: Actor = GM) -> bool:
        before, state = list(self.table.envelopes), self.table.state
        try:
            self.table.send(command, actor=actor)
        except RuleViolation:
            assert self.table.envelopes == before and self.table.state == state
            return False
        return True

    def command_for(self, option: ActionOption, data: st.DataObject) -> dict[str, Any]:
        command: dict[str, Any] = {"type": option.type}
        if option.actor is not None:
            command["combatant_id"] = option.actor
        params = dict(option.params)
        match option.type:
            case "pick":
                command["combatant_ids"] = [data.draw(st.sampled_from(option.targets or [""]))]
            case "move":
                command |= {"sprint": params["sprint"], "distance": params["distance"]}
                command["enters_reach_of"] = data.draw(
                    st.lists(st.sampled_from(sorted(self.state.table.combatants)), max_size=2)
                )
            case "attack":
                command |= {"weapon": params["weapon"], "extra": data.draw(st.integers(0, 2))}
                command["target"] = data.draw(st.sampled_from(option.targets or [""]))
            case "reload":
                command["weapon"] = params["weapon"]
            case "roll":
                command["expression"] = data.draw(st.sampled_from(("1d6", "2d6+1")))
            case "cast":
                command |= {"spell": params["spell"]}
                command["target"] = data.draw(st.sampled_from(option.targets or [""]))
            case "improvise":
                command |= {
                    "description": "climb",
                    "fort": data.draw(st.integers(0, 2)),
                    "dc": data.draw(st.sampled_from((None, 4))),
                }
            case "interact":
                command |= {
                    "description": "hand over the torch",
                    "with": data.draw(st.sampled_from((None, *(option.targets or [])))),
                }
            case "encourage":
                command["target"] = data.draw(st.sampled_from(option.targets or [""]))
            case "recover":
                split = data.draw(st.integers(0, params["points"]))
                command |= {"fort": split, "ref": params["points"] - split}
            case "boost-reflex":
                command["points"] = data.draw(st.integers(1, params["max"]))
            case "call-check":
                command |= {
                    "combatant_id": data.draw(st.sampled_from(option.targets or [""])),
                    "check": data.draw(st.sampled_from(("health", "dodge", "sanity"))),
                }
        return command

    @rule(data=st.data(), as_player=st.booleans())
    def play_a_legal_action(self, data: st.DataObject, as_player: bool):
        viewer = PLAYER if as_player else GM
        skip = {"add-combatant", "end-encounter", "start-encounter", "pause-clocks"}
        options = [o for o in RULESET.legal_actions(self.state, viewer) if o.type not in skip]
        if not options:
            return
        option = data.draw(st.sampled_from(options))
        if option.type == "answer-reaction":
            choice = data.draw(st.sampled_from(option.params["options"]))
            command = {
                "type": "answer-reaction",
                "window_id": option.params["window_id"],
                "combatant_id": option.actor,
                "option": choice,
            }
        else:
            command = self.command_for(option, data)
        assert self.send(command, viewer) or option.type in (
            "cast",
            "move",
            "attack",
            "improvise",
        ), command

    @rule()
    def close_a_window(self):
        for window in self.state.table.open_windows():
            self.send({"type": "close-reaction-window", "window_id": window.id}, SYSTEM)

    @rule(stale=st.booleans())
    def let_the_turn_clock_run_out(self, stale: bool):
        clock = self.state.table.clocks.get("turn")
        if clock is not None:
            generation = clock.generation - 1 if stale else clock.generation
            expiry = {"type": "expire-clock", "clock_id": "turn", "generation": generation}
            self.send(expiry, SYSTEM)

    @rule(data=st.data())
    def try_anything(self, data: st.DataObject):
        cid = data.draw(st.sampled_from(sorted(self.state.table.combatants)))
        kind = data.draw(st.sampled_from(("brace", "defend", "focus", "end-turn", "recover")))
        self.send({"type": kind, "combatant_id": cid}, data.draw(st.sampled_from((GM, PLAYER))))

    @invariant()
    def the_fold_of_the_stream_is_the_live_state(self):
        assert self.table.replayed() == self.table.state

    @invariant()
    def the_turn_clock_runs_while_a_turn_does(self):
        state = self.state
        clock = state.table.clocks.get("turn")
        if state.options.turn_time_limit is None:
            assert clock is None
        elif state.phase == "running" and not state.table.open_windows() and not state.pending:
            status = clock.status if clock is not None else None
            # Only a recorded timeout leaves a turn running after its clock.
            record = state.options.on_turn_timeout == "record"
            timed = {"running", "expired"} if record else {"running"}
            assert status in timed if state.current else status != "running", clock

    @invariant()
    def pools_stay_within_their_bounds(self):
        for combatant in self.state.table.combatants.values():
            for name, pool in combatant.pools.items():
                assert 0 <= pool.current <= (pool.max or 0), (combatant.id, name, pool)

    @invariant()
    def every_trigger_has_the_declared_shape(self):
        for window in self.state.table.windows.values():
            DelversTrigger.model_validate(window.trigger)


DelversPlay.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_random_legal_play_folds_back_and_keeps_pools_in_bounds = DelversPlay.TestCase
