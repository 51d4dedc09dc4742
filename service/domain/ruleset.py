"""The ruleset contract (DESIGN.md, "The Decider") and the plumbing every ruleset shares.

A ruleset subclasses `RulesetBase`, names its own commands, events, options and stat block,
and implements `new_state`, `decide_own` and `evolve_own`; the shared commands and events
(roster, map, GM adjudication, clocks, reactions) are handled here once.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from service.domain import holding, idle
from service.domain.common import (
    COMMON_COMMANDS,
    COMMON_EVENT_SCHEMAS,
    COMMON_EVENTS,
    COMMON_UPCASTERS,
    EncounterCreated,
    Rewind,
    stat_block_events,
)
from service.domain.context import Actor, DecideContext
from service.domain.encounter import EncounterState as EncounterState  # the rulesets' import
from service.domain.envelope import Envelope
from service.domain.errors import InvalidCommand
from service.domain.frozen import replace
from service.domain.hidden import Fields, Shapes, plan_of
from service.domain.legal import common_actions
from service.domain.limits import check_values
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.options import EncounterOptions
from service.domain.redaction import redact_event, redact_state, summarize
from service.domain.schemas import Kind, document, params_schema, union_schema
from service.domain.table import Pool
from service.domain.table_evolve import evolve_table
from service.domain.table_rules import decide_common
from service.domain.upcasting import UnreadableEvent, Upcaster, upcast
from service.domain.views import ActionOption, Blocked, EncounterSummary

S = TypeVar("S", bound=EncounterState)
# A set lookup: isinstance against a tuple of pydantic (ABCMeta) classes is slow on a miss.
_COMMON_EVENT_TYPES = frozenset(COMMON_EVENTS)


def with_table(state: S, event: Event) -> S:
    """The state with the shared part of an event applied to its table."""
    kind = type(event)
    # A stat block's event is a ruleset's parametrisation of a shared one (common.py).
    if kind in _COMMON_EVENT_TYPES or kind.__pydantic_generic_metadata__["origin"] in (
        _COMMON_EVENT_TYPES
    ):
        return replace(state, {"table": evolve_table(state.table, event)})
    return state


class NoStats(BaseModel):
    model_config = ConfigDict(extra="allow")


class NoTrigger(BaseModel):
    """A reaction window's trigger where the ruleset marks nothing in it hidden."""

    model_config = ConfigDict(extra="allow")


def _type_of(model: type[BaseModel]) -> str:
    default = model.model_fields["type"].default
    assert isinstance(default, str)
    return default


class RulesetBase(Generic[S]):
    name: ClassVar[str]
    version: ClassVar[str]
    title: ClassVar[str]
    options_model: ClassVar[type[EncounterOptions]] = EncounterOptions
    state_model: ClassVar[type[EncounterState]]
    stats_model: ClassVar[type[BaseModel]] = NoStats
    commands: ClassVar[tuple[type[Command], ...]] = ()
    events: ClassVar[tuple[type[Event], ...]] = ()
    event_schemas: ClassVar[dict[str, int]] = {}
    upcasters: ClassVar[dict[tuple[str, int], Upcaster]] = {}
    trigger_model: ClassVar[type[BaseModel]] = NoTrigger
    """The shape of this ruleset's reaction-window triggers, for the fields it hides."""
    seed_sealed: ClassVar[bool] = False
    """True where the seed orders something no viewer may know before the end."""
    straight_paths: ClassVar[bool] = True
    """Equally cheap paths go toward the straight line (`Table.straight_paths`); False in
    the versions kept for the encounters recorded before (issue 27)."""

    def __init__(self) -> None:
        self.command_models = {_type_of(m): m for m in (*COMMON_COMMANDS, *self.commands)}
        typed = stat_block_events(self.stats_model)
        self.event_models = {_type_of(m): m for m in (*COMMON_EVENTS, *typed, *self.events)}
        self.shapes: Shapes = (("stats", self.stats_model), ("trigger", self.trigger_model))
        self._plans: dict[type[BaseModel], Fields | None] = {}
        self._schemas: dict[Kind, dict[str, Any]] | None = None

    def hidden_in(self, model: type[BaseModel]) -> Fields | None:
        """Where `model` (an event, command, state or trigger) holds hidden fields."""
        # Looked up for every event read: a dict keyed by class beats hashing the shapes.
        try:
            return self._plans[model]
        except KeyError:
            return self._plans.setdefault(model, plan_of(model, self.shapes))

    # --- parsing ---------------------------------------------------------------------

    def command_types(self) -> list[str]:
        return sorted(self.command_models)

    def parse_command(self, raw: Any, *, strict: bool = True) -> Command:
        """The command model of a client's JSON. Strict: a field of the wrong JSON type is
        refused, never coerced (`"1"` is not a number). The auditor re-parses stored
        commands leniently, as the Fray that accepted them did."""
        if not isinstance(raw, dict):
            raise InvalidCommand("a command is a JSON object with a 'type'")
        kind = raw.get("type")
        model = self.command_models.get(kind) if isinstance(kind, str) else None
        if model is None:
            valid = ", ".join(self.command_types())
            what = f"unknown command type '{kind}'" if kind is not None else "no command 'type'"
            raise InvalidCommand(
                f"{what} for ruleset {self.name}; valid types: {valid}",
                code="command/unknown-type",
                details={"valid_types": self.command_types()},
            )
        what = f"'{kind}' command"
        try:
            if not strict:
                return model.model_validate(raw)
            check_values(raw, what)
            return model.model_validate_json(orjson.dumps(raw), strict=True)
        except ValidationError as error:
            raise invalid(error, what) from None

    def parse_options(self, raw: Any) -> EncounterOptions:
        check_values(raw, "options")
        try:
            return self.options_model.model_validate_json(orjson.dumps(raw or {}), strict=True)
        except ValidationError as error:
            raise invalid(error, "options", code="encounter/bad-options") from None

    def event_data(self, event: Event) -> tuple[str, int, dict[str, Any]]:
        kind = _type_of(type(event))
        data = event.model_dump(mode="json", exclude={"type"})
        return kind, self.schema_of(kind), data

    def schema_of(self, kind: str) -> int:
        """The schema version this ruleset writes events of type `kind` at."""
        return self.event_schemas.get(kind, COMMON_EVENT_SCHEMAS.get(kind, 1))

    def event_from(self, kind: str, schema: int, data: dict[str, Any]) -> Event:
        """The event model of a stored event, upcast from an older schema if need be.

        The one place a stored event is validated: what it returns, evolve folds without
        checking again. A shape that no upcaster brings to today's model fails here."""
        model = self.event_models.get(kind)
        current = self.schema_of(kind)
        if model is None or schema > current:
            raise UnreadableEvent(
                f"this Fray's {self.name} {self.version} does not know the '{kind}' event "
                f"at schema {schema}",
                details={"type": kind, "schema": schema},
            )
        if schema != current:
            data = upcast({**COMMON_UPCASTERS, **self.upcasters}, kind, schema, current, data)
        try:
            return model.model_validate(data)
        except ValidationError as error:
            raise UnreadableEvent.of(kind, schema, current, error) from None

    def json_schemas(self) -> dict[Kind, dict[str, Any]]:
        """The JSON Schemas of this ruleset's commands, events, options and stat block, each
        a standalone document (service.domain.schemas). Made once; never mutate them."""
        if self._schemas is None:
            title = f"{self.name} {self.version}"
            self._schemas = {
                "commands": document(
                    "commands", title, union_schema(self.command_models.values(), "validation")
                ),
                "events": document(
                    "events", title, union_schema(self.event_models.values(), "serialization")
                ),
                "options": document("options", title, self.options_model.model_json_schema()),
                "stats": document("stats", title, self.stats_model.model_json_schema()),
            }
        return self._schemas

    # --- the Decider -----------------------------------------------------------------

    def initial_state(self, created: EncounterCreated) -> S:
        return self.new_state(self.options_model.model_validate(created.options))

    def new_state(self, options: EncounterOptions) -> S:
        state: S = self.state_model(options=options)  # type: ignore[assignment]
        if self.straight_paths:
            state = replace(state, {"table": replace(state.table, {"straight_paths": True})})
        return state

    def decide(self, state: S, command: Command, ctx: DecideContext) -> list[Event]:
        if isinstance(command, COMMON_COMMANDS):
            events = decide_common(
                state.table,
                command,
                ctx,
                self.stats_model,
                self.pools,
                state.options.reaction_window,
            )
            if not events or isinstance(command, Rewind):
                # The fold returns to the past state as it was: nothing follows a rewind
                # (applied here, its events would only ever see the state being left).
                return events
            after = self.apply(state, events)
            return events + self.follow_up(after, command, events, ctx)
        return self.decide_own(state, command, ctx)

    def decide_command(self, state: S, command: Command, ctx: DecideContext) -> list[Event]:
        """`decide`, then what follows any command in every ruleset: the clocks' pause at an
        empty table (service.domain.idle), and the holding of a command for dice in the
        `prompt` dice mode (service.domain.holding). What the pipeline and the auditor run."""
        events = holding.decide(self, state, command, ctx)
        count = idle.streak(command, events, ctx.actor, ctx.roller.version)
        if not events or isinstance(command, Rewind):
            return events
        if count == 0 and not state.table.clocks_on_hold:
            return events
        after = self.apply(state, events)
        limit = after.options.idle_timeouts
        if limit == "round":
            limit = self.round_size(after)
        return events + idle.hold(after.table, limit, count, ctx)

    def evolve(self, state: S, event: Event) -> S:
        return self.evolve_own(with_table(state, event), event)

    def apply(self, state: S, events: list[Event]) -> S:
        for event in events:
            state = self.evolve(state, event)
        return state

    # --- what a ruleset supplies -----------------------------------------------------

    def decide_own(self, state: S, command: Command, ctx: DecideContext) -> list[Event]:
        raise NotImplementedError

    def evolve_own(self, state: S, event: Event) -> S:
        return state

    def follow_up(
        self, state: S, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        """Ruleset events that follow shared ones: the first turn after the start, a clock's
        expiry, the resolution of a closed reaction window."""
        return []

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        return {}

    def round(self, state: S) -> int:
        return 0

    def round_size(self, state: S) -> int:
        """How many clock timeouts make a full round, for `idle_timeouts: "round"`: one
        per combatant still in the fight. A ruleset whose round has fewer timed turns (a
        shared slot, one clock for everyone) waits a little longer, never less."""
        return max(1, sum(not c.out_of_fight for c in state.table.combatants.values()))

    def phase_label(self, state: S) -> str:
        return state.table.phase

    def acting(self, state: S) -> list[str]:
        return []

    def legal_actions(self, state: S, viewer: Actor) -> list[ActionOption]:
        return common_actions(state.table, viewer)

    def blocked(self, state: S, viewer: Actor) -> list[Blocked]:
        """The viewer's combatants that must wait now, and why (legal actions offer them
        nothing): none unless a ruleset says so."""
        return []

    def actions(self, state: S, viewer: Actor) -> list[ActionOption]:
        """The legal actions, each with the JSON Schema of its command's parameters."""
        return [
            replace(option, {"params_schema": params_schema(self.command_models[option.type])})
            for option in self.actions_now(state, viewer)
        ]

    def actions_now(self, state: S, viewer: Actor) -> list[ActionOption]:
        """`legal_actions`, unless a command waits for dice: then only rolling them."""
        if state.table.held is not None:
            return holding.held_actions(state.table.held, viewer)
        return self.legal_actions(state, viewer)

    def redact_event(
        self, envelope: Envelope, viewer: Actor | None, state: S
    ) -> dict[str, Any] | None:
        """The event as `viewer` may see it, or None when the viewer is not told of it."""
        return redact_event(self, envelope, viewer, state)

    def redact_state(self, state: S, viewer: Actor | None) -> dict[str, Any]:
        return redact_state(self, state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with({}, kind, data, names)

    def summary(self, state: S, viewer: Actor | None = None, version: int = 0) -> EncounterSummary:
        return summarize(self, state, viewer, version, self.summary_details(state, viewer))

    def summary_details(self, state: S, viewer: Actor | None) -> dict[str, Any] | None:
        """What this ruleset adds to the summary for `viewer` (the summary's `details`)."""
        return None


def invalid(error: ValidationError, what: str, code: str = "command/invalid") -> InvalidCommand:
    """A validation error in words: which field, and what is wrong with it."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"])
        problems.append(f"field '{field}': {item['msg']}" if field else item["msg"])
    return InvalidCommand(
        f"the {what} is not valid: " + "; ".join(problems),
        code=code,
        details=[
            {"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]}
            for e in error.errors()
        ],
    )
