"""The GraphQL object types written by hand: rulesets, encounters, events and results."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from service.api.errors import status_of
from service.api.graphql import fields
from service.api.graphql.context import Info, graphql_error
from service.api.graphql.narration import NarrationEdge, NarrationLine
from service.api.graphql.views import (
    action_outputs,
    blocked_outputs,
    receipt_output,
    summary_output,
)
from service.api.shapes import described_fields
from service.app.auth import Principal
from service.deciding import Loaded
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.errors import FrayError

if TYPE_CHECKING:
    # Generated at import from pydantic models (see pydantic_types); mypy sees Any.
    EncounterSummaryType = Any
    ActionOptionType = Any
    BlockedType = Any
    ReceiptType = Any
else:
    from service.api.graphql.views import (
        ActionOptionType,
        BlockedType,
        EncounterSummaryType,
        ReceiptType,
    )

MAX_PAGE = 1000


@strawberry.type(description="A ruleset Fray runs, and what its encounters accept.")
class Ruleset:
    name: str
    version: str = strawberry.field(
        description="The newest version: what new encounters are created with."
    )
    versions: list[str] = strawberry.field(
        description="Every version this Fray decides, oldest first: the newest, and earlier "
        "ones kept for the encounters recorded with them."
    )
    title: str
    commands: list[str] = strawberry.field(description="The command types it accepts.")
    command_input: str = strawberry.field(
        description="The member of `CommandInput` that carries its commands."
    )
    options_schema: JSON = strawberry.field(description="JSON Schema of its encounter options.")
    stats_schema: JSON = strawberry.field(description="JSON Schema of a combatant's stats.")


def _graphql_kind(kind: Any) -> Any:
    """int and str as themselves, `X | None` as nullable, anything else as JSON."""
    if kind in (int, str):
        return kind
    args = typing.get_args(kind)
    if type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        return _graphql_kind(inner) | None
    return JSON


def _event_type() -> Any:
    """The GraphQL `Event`, made from the one declaration of the envelope, and the
    receipt a live event carries beside it (as an SSE frame's `receipt` key)."""
    names = []
    namespace: dict[str, Any] = {"__annotations__": {}}
    for name, kind, info in described_fields(Envelope):
        names.append(name)
        namespace["__annotations__"][name] = _graphql_kind(kind)
        namespace[name] = strawberry.field(description=info.description)
    namespace["__annotations__"]["receipt"] = ReceiptType | None
    namespace["receipt"] = strawberry.field(
        description="Its receipt, on `encounterEvents` (the stored event's: see `Receipt`); "
        "null in pages and in `CommandAccepted.events`, whose `receipt` names the last.",
        default=None,
    )

    def of(cls: Any, envelope: dict[str, Any]) -> Any:
        receipt = envelope.get("receipt")
        return cls(
            **{k: envelope.get(k) for k in names},
            receipt=None if receipt is None else receipt_output(receipt),
        )

    namespace["of"] = classmethod(of)
    return strawberry.type(
        type("Event", (), namespace),
        description="An event as the viewer may see it (the stored envelope).",
    )


if TYPE_CHECKING:
    Event = Any
else:
    Event = _event_type()


@strawberry.type
class EventEdge:
    cursor: str = strawberry.field(
        description="The event's version, as a string; pass it as `after` to resume."
    )
    node: Event


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None = strawberry.field(
        description="Pass as `after` for the next page (also past events hidden from you)."
    )


@strawberry.type(description="Events in version order; cursors are stable across requests.")
class EventConnection:
    edges: list[EventEdge]
    page_info: PageInfo

    @fields.field("The events of `edges`, without cursors.")
    def nodes(self) -> list[Event]:
        return [edge.node for edge in self.edges]


@strawberry.type(
    description="Sentences in version order, paged as `Encounter.events` (the same cursors)."
)
class NarrationConnection:
    edges: list[NarrationEdge]
    page_info: PageInfo

    @fields.field("The lines of `edges`, without cursors.")
    def nodes(self) -> list[NarrationLine]:
        return [edge.node for edge in self.edges]


@strawberry.type(description="Who the credential reads as: which controls a front end draws.")
class Viewer:
    id: str = strawberry.field(description="The actor's id, as events' `actor.id` name it.")
    role: str = strawberry.field(
        description="gm, player, observer or auditor; a tenant key reads as the GM."
    )
    combatants: list[str] = strawberry.field(
        description="The combatants it acts for (a player's); the GM acts for every one."
    )


@strawberry.type(description="An encounter as the viewer may see it.")
class Encounter:
    id: str
    ruleset: str
    version: int
    _loaded: strawberry.Private[Loaded]
    _principal: strawberry.Private[Principal]

    @property
    def _actor(self) -> Actor:
        return self._principal.actor

    @fields.field("The ruleset-independent view every front end can render.")
    def summary(self) -> EncounterSummaryType:
        loaded = self._loaded
        return summary_output(loaded.ruleset.summary(loaded.state, self._actor, loaded.version))

    @fields.field("The full ruleset-specific state, less what you may not see.")
    def state(self) -> JSON:
        return JSON(self._loaded.ruleset.redact_state(self._loaded.state, self._actor))

    @fields.field("Who is looking: the credential's role and combatants.")
    def viewer(self) -> Viewer:
        actor = self._actor
        return Viewer(id=actor.id, role=actor.role, combatants=sorted(actor.combatants))

    @fields.field("What you may do now, so a front end can draw buttons.")
    def legal_actions(self) -> list[ActionOptionType]:
        loaded = self._loaded
        return action_outputs(loaded.ruleset.actions(loaded.state, self._actor))

    @fields.field(
        "Which of your combatants must wait now, and why (combat-ii: a winner while the "
        "initiative losers declare): what `legalActions` leaves out."
    )
    def blocked(self) -> list[BlockedType]:
        loaded = self._loaded
        return blocked_outputs(loaded.ruleset.blocked(loaded.state, self._actor))

    @fields.field(
        "Events after the cursor `after` (a version, as a string, as REST's `after`), at most "
        "`first` (≤ 1000)."
    )
    async def events(
        self, info: Info, after: str | None = None, first: int = 100
    ) -> EventConnection:
        try:
            start = _start(after, first)
            page = await info.context.encounters.events(
                self._principal, start, first, up_to=self.version
            )
        except FrayError as error:
            raise graphql_error(error) from error
        edges = [EventEdge(cursor=str(e["version"]), node=Event.of(e)) for e in page.events]
        end = str(page.last) if page.last > start else after
        info_ = PageInfo(has_next_page=page.has_more, end_cursor=end)
        return EventConnection(edges=edges, page_info=info_)

    @fields.field(
        "The events of `events` (the same `after` and `first`) told as their ruleset tells "
        "them, from the copies you are sent: REST's `listNarration`."
    )
    async def narration(
        self, info: Info, after: str | None = None, first: int = 100
    ) -> NarrationConnection:
        try:
            start = _start(after, first)
            page = await info.context.encounters.narration(
                self._principal, start, first, up_to=self.version
            )
        except FrayError as error:
            raise graphql_error(error) from error
        edges = [
            NarrationEdge(cursor=str(line["version"]), node=NarrationLine.of(line))
            for line in page.lines
        ]
        end = str(page.last) if page.last > start else after
        info_ = PageInfo(has_next_page=page.has_more, end_cursor=end)
        return NarrationConnection(edges=edges, page_info=info_)


def _start(after: str | None, first: int) -> int:
    """The version a page starts after, once `first` is known to be a page size."""
    start = _cursor(after)
    if not 1 <= first <= MAX_PAGE:
        raise FrayError(f"first must be 1 to {MAX_PAGE}", code="request/invalid")
    return start


def _cursor(after: str | None) -> int:
    if after is None:
        return 0
    if not after.isdigit() or len(after) > 18:
        raise FrayError(f"'{after}' is not a cursor this API gave", code="request/invalid")
    return int(after)


def encounter_of(encounter_id: str, loaded: Loaded, principal: Principal) -> Encounter:
    """The encounter `encounter_id` (as its tenant knows it), as `principal` may see it."""
    return Encounter(
        id=encounter_id,
        ruleset=loaded.ruleset.name,
        version=loaded.version,
        _loaded=loaded,
        _principal=principal,
    )


@strawberry.type(description="The command was appended (or was a retry of one that was).")
class CommandAccepted:
    command_id: str
    version: int = strawberry.field(description="The encounter's version after the command.")
    duplicate: bool = strawberry.field(
        description="True when this command id was seen before: nothing new was appended."
    )
    events: list[Event] = strawberry.field(description="Its events, as you may see them.")
    receipt: ReceiptType = strawberry.field(
        description="The receipt of its last event (a retry: of the first outcome's last "
        "event; a command that appended nothing: of the version it was decided at)."
    )


@strawberry.type(
    description="The command was refused and nothing was appended: a rule violation, an "
    "invalid command, a version conflict, a forbidden action, an unknown encounter."
)
class CommandRejected:
    code: str = strawberry.field(description="Stable, e.g. `turn/not-your-turn`.")
    message: str
    rule: str | None = strawberry.field(description="The rule it enforces, e.g. `freeform §2`.")
    details: JSON | None = strawberry.field(
        description="E.g. `{expected, actual}` for a version conflict."
    )
    status: int = strawberry.field(description="The HTTP status the REST API answers with.")

    @classmethod
    def of(cls, error: FrayError) -> CommandRejected:
        rule = getattr(error, "rule", None)
        return cls(
            code=error.code,
            message=error.message,
            rule=rule if isinstance(rule, str) else None,
            details=error.details,
            status=status_of(error),
        )


CommandResult = Annotated[CommandAccepted | CommandRejected, strawberry.union("CommandResult")]


@strawberry.type
class CreatedEncounter:
    encounter_id: str
    ruleset: str
    version: int
    gm_token: str = strawberry.field(description="A GM token for convenience, valid 24 h.")
    gm_token_expires_at: str
    encounter: Encounter


@strawberry.type(description="An encounter token: send it as `Authorization: Bearer <token>`.")
class Token:
    token: str
    role: str
    subject: str
    combatants: list[str]
    expires_at: str
