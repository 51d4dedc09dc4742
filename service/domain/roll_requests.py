"""Roll requests (the `prompt` dice mode): the commands, events and state of a command held
until the table has rolled its dice.

A command that needs a die someone else rolls is held: `command-held` records it (and the
sender's own dice it used), one `roll-requested` per die asks for it, `roll-submitted`
answers a request, and `command-released` lets the command go, either because every die is
in or because the requests ran out of time (the seed rolls the rest). The deciding is in
service/domain/holding.py; this module is the shapes and their fold, shared by every
ruleset through the table (docs/architecture.md, "Roll requests").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.domain.frozen import replace
from service.domain.limits import MAX_NUMBER
from service.domain.messages import Command, Event

Face = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
ROLLS_DEADLINE = "rolls"
"""The one deadline key of an encounter's roll requests: one command is held at a time."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RollRequest(_Frozen):
    """Dice one roller is asked for: `count` dice of `sides`, answered by `faces`."""

    id: str
    sides: int
    count: int = 1
    expression: str
    purpose: str
    roller: str
    faces: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class HeldCommand(_Frozen):
    """A command waiting for dice: as sent, by whom, the faces gathered so far (in the order
    the command rolls them) and the requests still open."""

    id: str
    command: dict[str, Any]
    actor: dict[str, Any]
    gathered: tuple[int, ...] = ()
    requests: tuple[RollRequest, ...] = ()
    deadline: str | None = None
    hidden: bool = False

    def request(self, request_id: str) -> RollRequest | None:
        return next((r for r in self.requests if r.id == request_id), None)

    def open_requests(self) -> list[RollRequest]:
        return [r for r in self.requests if r.faces is None]

    def answered(self, request_id: str, faces: tuple[int, ...]) -> HeldCommand:
        """The held command once `request_id` is answered; when that was the last open
        request, its round's faces join the gathered ones, in the order they were asked."""
        requests = tuple(
            replace(r, {"faces": faces}) if r.id == request_id else r for r in self.requests
        )
        if any(r.faces is None for r in requests):
            return replace(self, {"requests": requests})
        gathered = self.gathered + tuple(face for r in requests for face in r.faces or ())
        return replace(self, {"requests": (), "gathered": gathered})


# --- commands ---------------------------------------------------------------------------


class SubmitRoll(Command):
    """The faces a roller rolled for a roll request: by the roller's controller or the GM."""

    type: Literal["submit-roll"] = "submit-roll"
    request_id: str = Field(min_length=1, max_length=100)
    faces: list[Face] = Field(min_length=1, max_length=100)


class ExpireRollRequests(Command):
    """Sent by a worker at the requests' deadline, or by the GM to stop waiting: the seed
    rolls the dice not yet in. A stale one (the dice came in) is decided as a no-op."""

    type: Literal["expire-roll-requests"] = "expire-roll-requests"
    request_id: str = Field(min_length=1, max_length=100)


# --- events -----------------------------------------------------------------------------


class CommandHeld(Event):
    """A command that waits for dice; `dice` are the sender's own faces it used so far."""

    type: Literal["command-held"] = "command-held"
    hold_id: str
    command: dict[str, Any]
    actor: dict[str, Any]
    dice: tuple[int, ...] = ()
    hidden: bool = False


class RollRequested(Event):
    """`roller` (a combatant id, or "gm") is asked for `count` d`sides` by `deadline`."""

    type: Literal["roll-requested"] = "roll-requested"
    request_id: str
    hold_id: str
    purpose: str
    expression: str
    sides: int
    count: int = 1
    roller: str
    deadline: str
    hidden: bool = False


class RollSubmitted(Event):
    type: Literal["roll-submitted"] = "roll-submitted"
    request_id: str
    faces: tuple[int, ...]
    by: str
    hidden: bool = False


class CommandReleased(Event):
    """The held command goes on: every die is in (`dice-in`), or the requests ran out of
    time (`deadline`: the seed rolled the rest). When it no longer decides at all (only
    possible at the deadline), `dropped` is the rule's code and nothing else follows."""

    type: Literal["command-released"] = "command-released"
    hold_id: str
    reason: Literal["dice-in", "deadline"]
    dropped: str | None = None
    message: str | None = None
    hidden: bool = False


def evolve_held(held: HeldCommand | None, event: Event) -> HeldCommand | None:
    match event:
        case CommandHeld():
            return HeldCommand(
                id=event.hold_id,
                command=event.command,
                actor=event.actor,
                gathered=event.dice,
                hidden=event.hidden,
            )
        case RollRequested() if held is not None:
            request = RollRequest(
                id=event.request_id,
                sides=event.sides,
                count=event.count,
                expression=event.expression,
                purpose=event.purpose,
                roller=event.roller,
            )
            return replace(
                held, {"requests": (*held.requests, request), "deadline": event.deadline}
            )
        case RollSubmitted() if held is not None:
            return held.answered(event.request_id, event.faces)
        case CommandReleased():
            return None
    return held
