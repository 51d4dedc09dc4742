"""Who is asking: the request's credential resolved against the path's encounter."""

from __future__ import annotations

from starlette.requests import Request

from service.app.audits import Audits
from service.app.auth import Auth, Principal, bearer
from service.app.encounters import Encounters
from service.app.management import Management
from service.app.tickets import Tickets
from service.engine import Engine


def encounter_id_of(request: Request) -> str:
    return str(request.path_params["encounter_id"])


def engine_of(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def encounters_of(request: Request) -> Encounters:
    encounters: Encounters = request.app.state.encounters
    return encounters


def audits_of(request: Request) -> Audits:
    audits: Audits = request.app.state.audits
    return audits


def management_of(request: Request) -> Management:
    management: Management = request.app.state.management
    return management


def tickets_of(request: Request) -> Tickets:
    tickets: Tickets = request.app.state.tickets
    return tickets


def auth_of(request: Request) -> Auth:
    auth: Auth = request.app.state.auth
    return auth


async def viewer(request: Request) -> Principal:
    """The principal for the path's encounter: 401 without a good credential, 403 for
    another encounter's token or another tenant's key, 404 for an unknown encounter."""
    return await auth_of(request).principal(
        request.headers.get("authorization"), encounter_id_of(request), engine_of(request)
    )


def credential(request: Request) -> str:
    return bearer(request.headers.get("authorization"))
