"""What a resolver may reach: the app's engine, hub and auth, and who is asking.

Everything is read from the Starlette app's state when a request arrives, never at import,
so one schema serves every app `create_app` builds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import strawberry
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from service.api.errors import status_of
from service.app.audits import Audits
from service.app.auth import Auth, Principal
from service.app.encounters import Encounters
from service.app.management import Management
from service.app.metrics import Metrics
from service.app.ratelimit import RateLimiter
from service.app.webhooks import Webhooks
from service.config import Settings
from service.domain.errors import FrayError
from service.engine import Engine
from service.store.subscriptions import StreamHub


@dataclass
class Context:
    request: Request | WebSocket
    response: Response | WebSocket | None = None
    # Set by strawberry from a websocket's `connection_init` payload.
    connection_params: dict[str, Any] | None = None
    _principals: dict[str | None, Principal] = field(default_factory=dict)

    @property
    def _state(self) -> Any:
        return self.request.app.state

    @property
    def engine(self) -> Engine:
        engine: Engine = self._state.engine
        return engine

    @property
    def encounters(self) -> Encounters:
        encounters: Encounters = self._state.encounters
        return encounters

    @property
    def audits(self) -> Audits:
        audits: Audits = self._state.audits
        return audits

    @property
    def management(self) -> Management:
        management: Management = self._state.management
        return management

    @property
    def webhooks(self) -> Webhooks:
        webhooks: Webhooks = self._state.webhooks
        return webhooks

    @property
    def hub(self) -> StreamHub:
        hub: StreamHub = self._state.hub
        return hub

    @property
    def auth(self) -> Auth:
        auth: Auth = self._state.auth
        return auth

    @property
    def settings(self) -> Settings:
        settings: Settings = self._state.settings
        return settings

    @property
    def metrics(self) -> Metrics | None:
        metrics: Metrics | None = getattr(self._state, "metrics", None)
        return metrics

    @property
    def limiter(self) -> RateLimiter | None:
        limiter: RateLimiter | None = getattr(self._state, "limiter", None)
        return limiter

    @property
    def authorization(self) -> str | None:
        """The Bearer credential: the HTTP header, or for a websocket the `authorization`
        of the `connection_init` payload (browsers cannot set websocket headers)."""
        params = self.connection_params or {}
        for key in ("authorization", "Authorization"):
            value = params.get(key)
            if isinstance(value, str):
                return value
        return self.request.headers.get("authorization")

    async def admitted(self, encounter_id: str) -> Principal:
        """The sender of a command, within its rate limit (`Encounters.admit`)."""
        found = await self.encounters.admit(self.authorization, encounter_id)
        self._principals[encounter_id] = found
        return found

    async def principal(self, encounter_id: str | None) -> Principal:
        found = self._principals.get(encounter_id)
        if found is None:
            found = await self.auth.principal(self.authorization, encounter_id, self.engine)
            self._principals[encounter_id] = found
        return found


Info = strawberry.Info[Context, None]


def graphql_error(error: FrayError) -> GraphQLError:
    """A FrayError as a GraphQL error, its code and details under `extensions`."""
    extensions: dict[str, Any] = {"code": error.code, "status": status_of(error)}
    rule = getattr(error, "rule", None)
    if rule is not None:
        extensions["rule"] = rule
    if error.details is not None:
        extensions["details"] = error.details
    return GraphQLError(error.message, extensions=extensions, original_error=error)
