"""Random legal play on a small hex map folds back to the live state, and a refused command
stores nothing.

A state machine sets up two to four combatants with random stat blocks on a 7x7 hex map with
mud, an oil slick, a mire, a brazier and a low wall (the foes answering windows by policy now
and then, a turn clock sometimes running), starts the fight with server dice, then plays
options drawn from `legal_actions` (for the GM or the player): moves to offered cells, attacks
on listed targets, maneuvers, taking cover, skills, items, wielding, reserved moves,
overwatch, striking cover, ending turns, answers to the open windows, and the GM's cover,
awareness and checks. It also closes windows, lets the turn clock run out, and sometimes tries
a command drawn without looking at what is legal. After every step the fold of the stored
envelopes equals the live state and every new event has its sentence. A command the options
say is legal is accepted, except those whose parameters are drawn at random (FALLIBLE).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service.domain.context import GM, SYSTEM, Actor
from service.domain.errors import RuleViolation
from service.domain.narration import COMMON, namer
from service.domain.views import ActionOption
from service.rules.hex_tactical import RULESET
from service.rules.hex_tactical.state import MANEUVER_OPPORTUNIST, MANEUVERS, HexState
from service.rules.hex_tactical.views import NARRATION, move_overlay
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import BOW, DAGGER, SPEAR, SWORD

SIZE = 7
PLAYER = Actor("p1", "player", frozenset({"alice", "archer"}))
PCS = ("alice", "archer")
FOES = ("bob", "charlie")
TERRAIN = [
    {"cell": [3, 2], "terrain": {"kind": "difficult", "tags": ["mud"]}},
    {"cell": [3, 3], "terrain": {"kind": "difficult", "tags": ["mud"]}},
    {"cell": [2, 4], "terrain": {"tags": ["slippery"]}},
    {"cell": [4, 4], "terrain": {"kind": "difficult", "tags": ["mired"]}},
    {"cell": [1, 3], "terrain": {"damage": {"passing": "1d2", "stationary": "1d3"}}},
    {"cell": [5, 2], "terrain": {"kind": "impassable", "tags": ["partial-cover"]}},
    {"cell": [6, 6], "terrain": {"kind": "impassable"}},
]
FREE_CELLS = [
    (x, y)
    for x in range(SIZE)
    for y in range(SIZE)
    if [x, y] not in [t["cell"] for t in TERRAIN if t["terrain"].get("kind") == "impassable"]
]
STATS = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 8),
        "armor": st.integers(0, 2),
        "speed": st.sampled_from((10, 20, 30)),
        "initiative": st.integers(20, 80),
        "agility": st.integers(20, 80),
        "dodge": st.integers(20, 80),
        "skills": st.fixed_dictionaries(
            {"melee": st.integers(20, 80), "ranged": st.integers(20, 80)}
        ),
        "weapons": st.lists(
            st.sampled_from((SWORD, SPEAR, BOW, DAGGER)),
            max_size=2,
            unique_by=lambda w: w["name"],
        ),
        "traits": st.sampled_from(((), (MANEUVER_OPPORTUNIST,))),
    }
)
# Commands the options offer whose parameters are drawn here at random, or that the rules may
# still refuse for reasons the options do not show.
POLICIES = (
    [],
    [{"option": "attack", "trigger": "opportunity-attack"}, {"option": "dodge"}],
    [{"option": "trip"}, {"option": "parry"}, {"option": "run"}, {"option": "shoot"}],
)
FALLIBLE = frozenset(
    {
        "maneuver",  # a disarm of empty hands
        "target-object",  # out of reach or range
        "pass-enemy",  # a random destination
        "place-cover",  # a random, maybe occupied cell
        "set-awareness",  # maybe of oneself
        "move-token",  # a random, maybe occupied or walled-off cell
    }
)
TABLE_TALK = frozenset(
    {
        "place-cover",
        "remove-cover",
        "set-awareness",
        "call-check",
        "pass-enemy",
        "surrender",
        "move-token",
    }
)
SKIP = frozenset({"add-combatant", "start-encounter", "end-encounter", "pause-clocks", "roll"})
ANYTHING = (
    "move",
    "attack",
    "maneuver",
    "take-cover",
    "use-skill",
    "use-item",
    "wield",
    "end-turn",
    "target-object",
    "overwatch",
    "reserve-move",
)


class HexPlay(RuleBasedStateMachine):
    table: Table
    illegal_share = 2  # in 16 steps

    @initialize(
        pcs=st.lists(STATS, min_size=1, max_size=2),
        foes=st.lists(STATS, min_size=1, max_size=2),
        cells=st.permutations(FREE_CELLS),
        into_melee=st.sampled_from(("bane", "risk")),
        timer=st.booleans(),
        policies=st.sampled_from(POLICIES),
    )
    def create(self, pcs, foes, cells, into_melee, timer, policies):
        clock = {"turn_time_limit": 60, "on_turn_timeout": "end-turn"} if timer else {}
        self.table = Table(
            RULESET,
            {"dice": "server", "reaction_window": 30.0, "into_melee": into_melee, **clock},
        )
        self.refusals = 0
        grid = {"kind": "hex", "width": SIZE, "height": SIZE, "terrain": TERRAIN}
        assert self.send({"type": "set-map", "map": grid})
        spots = iter(cells)
        for cid, stats in zip(PCS, pcs, strict=False):
            self.add(cid, "pcs", stats, next(spots))
        for cid, stats in zip(FOES, foes, strict=False):
            self.add(cid, "foes", stats, next(spots))
        for cid in FOES[: len(foes)]:
            # The GM's goblins answer by policy: at once, before anyone looks.
            command = {"type": "set-reaction-policy", "combatant_id": cid, "policies": policies}
            assert self.send(command)
        assert self.send({"type": "start-encounter"})
        self.narrated = len(self.table.envelopes)

    def add(self, cid: str, side: str, stats: dict[str, Any], at: tuple[int, int]) -> None:
        command = {
            "type": "add-combatant",
            "combatant_id": cid,
            "name": cid.capitalize(),
            "side": side,
            "controller": "p1" if side == "pcs" else None,
            "stats": {**stats, "traits": list(stats["traits"])},
            "position": list(at),
        }
        assert self.send(command), command

    @property
    def state(self) -> HexState:
        assert isinstance(self.table.state, HexState)
        return self.table.state

    def send(self, command: dict[str, Any], actor: Actor = GM) -> bool:
        """Send a command; a refused one must leave the stream and the state as they were."""
        before, state = list(self.table.envelopes), self.table.state
        try:
            self.table.send(command, actor=actor)
        except RuleViolation:
            assert self.table.envelopes == before and self.table.state == state, command
            self.refusals += 1
            return False
        return True

    def pick(self, data: st.DataObject, choices: list[Any] | None) -> Any:
        return data.draw(st.sampled_from(list(choices or [None])))

    def a_cell(self, data: st.DataObject) -> list[int]:
        return list(data.draw(st.sampled_from(FREE_CELLS)))

    def command_for(
        self, option: ActionOption, data: st.DataObject, viewer: Actor
    ) -> dict[str, Any] | None:
        command: dict[str, Any] = {"type": option.type}
        if option.actor is not None:
            command["combatant_id"] = option.actor
        params = option.params
        ids = sorted(self.state.table.combatants)
        match option.type:
            case "answer-reaction":
                command |= {"window_id": params["window_id"]}
                command["option"] = self.pick(data, params["options"])
            case "move" | "reserve-move":
                # A reserved move runs to a cell a move could reach now.
                reachable = move_overlay(self.state, option.actor)["reachable"]
                if not reachable:
                    return None
                command["to"] = self.pick(data, reachable)["cell"]
                if option.type == "reserve-move":
                    foes = [c for c in ids if self.enemies(option.actor, c)]
                    command["watch"] = data.draw(st.lists(st.sampled_from(foes), max_size=1))
            case "attack":
                command |= {"weapon": params["weapon"], "target": self.pick(data, option.targets)}
                command["into_melee"] = data.draw(st.sampled_from((None, "bane", "risk")))
            case "maneuver":
                command["target"] = self.pick(data, option.targets)
                command["maneuver"] = data.draw(st.sampled_from(MANEUVERS))
            case "use-skill":
                command["skill"] = data.draw(st.sampled_from(("arcana", "athletics", "dodge")))
                command["description"] = "works the winch"
                # Only the GM rules that a use of a skill does not provoke.
                command["provokes"] = not viewer.is_gm or data.draw(st.booleans())
                command["difficulty"] = data.draw(st.sampled_from(("normal", "hard")))
            case "use-item":
                command["item"] = "healing potion"
            case "target-object":
                command["cell"] = self.pick(data, params["cells"])
            case "wield" | "overwatch":
                command["weapon"] = params["weapon"]
            case "place-cover":
                command["cell"] = self.a_cell(data)
                command["name"] = "upturned table"
                command["kind"] = data.draw(st.sampled_from(("partial", "total")))
                command["durability"] = data.draw(st.sampled_from((None, 2, 5)))
            case "remove-cover":
                command["cell"] = self.pick(data, params["cells"])
            case "set-awareness":
                command["combatant_id"] = self.pick(data, option.targets)
                command["of"] = self.pick(data, option.targets)
                command["aware"] = data.draw(st.booleans())
            case "call-check":
                command["combatant_id"] = self.pick(data, option.targets)
                command["skill"] = data.draw(st.sampled_from(("agility", "melee")))
                command["boons"] = data.draw(st.integers(0, 2))
            case "pass-enemy":
                command["enemy"] = self.pick(data, option.targets)
                command["to"] = self.a_cell(data)
            case "move-token":
                command["combatant_id"] = self.pick(data, option.targets)
                command["to"] = self.a_cell(data)
            case "resume-clocks":
                pass
        return command

    def enemies(self, a: str | None, b: str) -> bool:
        combatants = self.state.table.combatants
        return a is not None and combatants[a].side != combatants[b].side

    @rule(data=st.data(), as_player=st.booleans())
    def play_a_legal_action(self, data: st.DataObject, as_player: bool):
        aside = data.draw(st.integers(0, 15))
        if aside < self.illegal_share:
            self.try_something_illegal(data)
            return
        viewer = PLAYER if as_player else GM
        options = [o for o in RULESET.legal_actions(self.state, viewer) if o.type not in SKIP]
        if not options:
            viewer = GM
            options = [o for o in RULESET.legal_actions(self.state, GM) if o.type not in SKIP]
        if not options:
            return
        fight = [o for o in options if o.actor is not None and o.type not in TABLE_TALK]
        if fight and data.draw(st.integers(0, 3)):
            options = fight  # mostly the fight itself; the GM's table talk now and then
        # A kind of action first, so that many answers or cells do not crowd out the rest.
        kind = data.draw(st.sampled_from(sorted({o.type for o in options})))
        option = data.draw(st.sampled_from([o for o in options if o.type == kind]))
        command = self.command_for(option, data, viewer)
        if command is None:
            return
        assert self.send(command, viewer) or option.type in FALLIBLE, command

    def try_something_illegal(self, data: st.DataObject) -> None:
        """A command drawn without looking at what is legal: often refused."""
        ids = sorted(self.state.table.combatants)
        command: dict[str, Any] = {
            "type": data.draw(st.sampled_from(ANYTHING)),
            "combatant_id": data.draw(st.sampled_from(ids)),
        }
        match command["type"]:
            case "move" | "reserve-move":
                command["to"] = self.a_cell(data)
            case "attack" | "maneuver":
                command["target"] = data.draw(st.sampled_from(ids))
                if command["type"] == "maneuver":
                    command["maneuver"] = data.draw(st.sampled_from(MANEUVERS))
            case "use-skill":
                command |= {"skill": "arcana", "description": "a spell"}
            case "use-item":
                command["item"] = data.draw(st.sampled_from(("rope", "sword", "longbow")))
            case "wield":
                command["weapon"] = data.draw(st.sampled_from((None, "sword", "club")))
            case "target-object":
                command["cell"] = self.a_cell(data)
        self.send(command, data.draw(st.sampled_from((GM, PLAYER))))

    @precondition(lambda self: bool(self.state.table.open_windows()))
    @rule()
    def the_gm_closes_a_window(self):
        for window in self.state.table.open_windows():
            assert self.send({"type": "close-reaction-window", "window_id": window.id})

    @precondition(lambda self: self.state.table.clocks.get("turn") is not None)
    @rule(stale=st.booleans())
    def the_turn_clock_runs_out(self, stale: bool):
        """The worker's expiry, or a stale one from a clock restarted since."""
        clock = self.state.table.clocks["turn"]
        if clock.status == "running":
            generation = clock.generation - 1 if stale else clock.generation
            expiry = {"type": "expire-clock", "clock_id": "turn", "generation": generation}
            assert self.send(expiry, SYSTEM)

    @invariant()
    def the_fold_of_the_stream_is_the_live_state(self):
        assert self.table.replayed() == self.table.state

    @invariant()
    def every_new_event_has_its_sentence(self):
        names = namer(self.state.table.combatants)
        for envelope in self.table.envelopes[self.narrated :]:
            assert envelope.type in NARRATION or envelope.type in COMMON, envelope.type
            assert RULESET.narrate(envelope.type, envelope.data, names).endswith("."), envelope
        self.narrated = len(self.table.envelopes)

    @invariant()
    def a_quiet_table_waits_on_someone_still_fighting(self):
        state = self.state
        if state.current is not None and not state.pending and not state.table.open_windows():
            combatant = state.table.combatants[state.current]
            assert not combatant.out_of_fight and state.current not in state.surrendered


class HexIllegalPlay(HexPlay):
    """The same play with many more commands drawn without looking at what is legal."""

    illegal_share = 10


SETTINGS = settings(
    max_examples=25,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
HexPlay.TestCase.settings = SETTINGS
HexIllegalPlay.TestCase.settings = settings(SETTINGS, max_examples=10)
test_random_legal_play_folds_back_to_the_live_state = HexPlay.TestCase
test_refused_commands_store_nothing_during_play = HexIllegalPlay.TestCase
