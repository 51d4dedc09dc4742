"""Mutations: create an encounter, mint a token, submit a command.

`submitCommand` answers a union: whatever the engine refuses (a rule violation, an invalid
command, a version conflict, a forbidden action, even a bad credential) is a
`CommandRejected` value, never a GraphQL error, and nothing is appended.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

import orjson
import strawberry
from graphql import GraphQLResolveInfo
from pydantic import ValidationError

from service.api.auth import bearer, tenant_actor
from service.api.graphql import fields
from service.api.graphql.commands import ChosenCommand, command_payload
from service.api.graphql.context import Context, Info, graphql_error
from service.api.graphql.inputs import chosen_command, parse
from service.api.graphql.pydantic_types import graphql_name
from service.api.graphql.types import (
    CommandAccepted,
    CommandRejected,
    CommandResult,
    CreatedEncounter,
    Event,
    Token,
    encounter_of,
)
from service.api.models import GM_TOKEN_TTL, CreateEncounter, MintToken
from service.api.views import redacted_envelopes
from service.domain.errors import Forbidden, FrayError, InvalidCommand
from service.domain.ids import split_stream, stream_id
from service.domain.ruleset import invalid
from service.engine import CommandRequest, Outcome

if TYPE_CHECKING:
    # Generated at import from the pydantic models (see pydantic_types); mypy sees Any.
    CommandInput = Any
    CreateEncounterInput = Any
    MintTokenInput = Any
else:
    from service.api.graphql.inputs import CommandInputType as CommandInput
    from service.api.graphql.inputs import CreateEncounterInputType as CreateEncounterInput
    from service.api.graphql.inputs import MintTokenInputType as MintTokenInput

_log = logging.getLogger("fray.api")


@strawberry.type
class Mutation:
    @fields.mutation("Create an encounter (tenant API key only); answers with a GM token.")
    async def create_encounter(self, info: Info, input: CreateEncounterInput) -> CreatedEncounter:
        context = info.context
        try:
            tenant = context.auth.tenant_of_key(context.authorization)
            body = parse(CreateEncounter, input, "input")
            encounter_id, created = await context.engine.create(
                body.ruleset,
                body.options,
                title=body.title,
                encounter_id=body.encounter_id,
                seed=bytes.fromhex(body.seed) if body.seed else None,
                actor=tenant_actor(tenant),
                tenant=tenant,
            )
            stream = stream_id(tenant, encounter_id)
            loaded = await context.engine.load(stream)
        except FrayError as error:
            raise graphql_error(error) from error
        token, expires = context.auth.mint(
            encounter_id, "gm", [], f"gm:{tenant}", GM_TOKEN_TTL, tenant
        )
        return CreatedEncounter(
            encounter_id=encounter_id,
            ruleset=body.ruleset,
            version=created.version,
            gm_token=token,
            gm_token_expires_at=expires.isoformat(),
            encounter=encounter_of(encounter_id, loaded, tenant_actor(tenant), stream),
        )

    @fields.mutation(
        "Mint an encounter token (the tenant's key or a GM token). Player tokens "
        "name at least one combatant of the encounter."
    )
    async def mint_token(self, info: Info, encounter_id: str, input: MintTokenInput) -> Token:
        try:
            return await _mint(info.context, encounter_id, parse(MintToken, input, "input"))
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation("Send a command; a refusal is a `CommandRejected` value.")
    async def submit_command(
        self,
        info: Info,
        encounter_id: str,
        command: CommandInput,
        command_id: str | None = None,
        expected_version: int | None = None,
        dice: list[int] | None = None,
        deck_orders: list[list[int]] | None = None,
    ) -> CommandResult:
        return await submit(
            info.context, encounter_id, command, command_id, expected_version, dice, deck_orders
        )


async def resolve_submit_command(
    _root: object, info: GraphQLResolveInfo[Context], **arguments: Any
) -> CommandResult:
    """`submitCommand` as graphql-core calls it, installed on the built schema in place of
    strawberry's resolver (which converts the arguments and builds an `Info` per call: about
    a tenth of a command's CPU). The arguments arrive coerced, by their GraphQL names."""
    return await submit_with(info.context, arguments)


async def submit_with(context: Context, arguments: dict[str, Any]) -> CommandResult:
    """`submit` with the arguments as graphql-core coerces them, by their GraphQL names."""
    return await submit(
        context,
        arguments["encounterId"],
        chosen_command(arguments["command"]),
        arguments.get("commandId"),
        arguments.get("expectedVersion"),
        arguments.get("dice"),
        arguments.get("deckOrders"),
    )


async def submit(
    context: Context,
    encounter_id: str,
    command: ChosenCommand,
    command_id: str | None,
    expected_version: int | None,
    dice: list[int] | None,
    deck_orders: list[list[int]] | None,
) -> CommandResult:
    started = time.perf_counter()
    ruleset, kind = "?", "unknown"
    try:
        principal = await context.principal(encounter_id)
        encounter_id = principal.stream_of()
        if context.limiter is not None:
            await context.limiter.check(bearer(context.authorization))
        named, payload = command_payload(command)
        # An encounter's ruleset never changes: the engine's cached copy is enough.
        engine = context.engine
        loaded = engine.peek(encounter_id) or await engine.load(encounter_id)
        ruleset, kind = loaded.ruleset.name, str(payload["type"])
        if named != ruleset:
            raise InvalidCommand(
                f"this encounter runs {ruleset}: send the `{graphql_name(ruleset)}` member "
                f"of CommandInput, not `{graphql_name(named)}`",
                code="command/wrong-ruleset",
            )
        request = _request(payload, command_id, expected_version, dice, deck_orders)
        outcome = await engine.execute(encounter_id, request, principal.actor)
    except FrayError as error:
        _record(context, ruleset, kind, encounter_id, command_id, error.code, started)
        if error.status >= 500:  # not a refusal of the command: Fray or its store failed
            raise graphql_error(error) from error
        return CommandRejected.of(error)
    label = "duplicate" if outcome.duplicate else "accepted"
    _record(context, ruleset, kind, encounter_id, outcome.command_id, label, started, outcome)
    after = outcome.loaded or await engine.load(encounter_id)
    events = redacted_envelopes(after, outcome.events, principal.actor)
    return CommandAccepted(
        command_id=outcome.command_id,
        version=outcome.version,
        duplicate=outcome.duplicate,
        events=[Event.of(e) for e in events],
    )


async def _mint(context: Context, encounter_id: str, body: MintToken) -> Token:
    principal = await context.principal(encounter_id)
    if not principal.actor.is_gm:
        raise Forbidden("only the GM or the tenant's API key may mint tokens")
    loaded = await context.engine.load(principal.stream_of())
    combatants = sorted(set(body.combatants))
    if body.role == "player":
        if not combatants:
            raise FrayError(
                "field 'combatants': a player token names at least 1 combatant",
                code="request/invalid",
            )
        unknown = [c for c in combatants if c not in loaded.state.table.combatants]
        if unknown:
            raise FrayError(
                f"field 'combatants': no combatant {', '.join(unknown)} in this encounter",
                code="request/invalid",
            )
    elif combatants:
        raise FrayError(
            "field 'combatants': only player tokens are bound to combatants",
            code="request/invalid",
        )
    subject = body.subject or f"{body.role}:{uuid.uuid4().hex[:8]}"
    token, expires = context.auth.mint(
        encounter_id, body.role, combatants, subject, body.ttl_seconds, principal.tenant
    )
    return Token(
        token=token,
        role=body.role,
        subject=subject,
        combatants=combatants,
        expires_at=expires.isoformat(),
    )


def _request(
    payload: dict[str, Any],
    command_id: str | None,
    expected_version: int | None,
    dice: list[int] | None,
    deck_orders: list[list[int]] | None,
) -> CommandRequest:
    try:
        return CommandRequest(
            command_id=command_id,
            expected_version=expected_version,
            command=payload,
            dice=dice,
            deck_orders=deck_orders,
        )
    except ValidationError as error:
        raise invalid(error, "command request") from None


def _record(
    context: Context,
    ruleset: str,
    kind: str,
    encounter_id: str,
    command_id: str | None,
    outcome: str,
    started: float,
    result: Outcome | None = None,
) -> None:
    seconds = time.perf_counter() - started
    metrics = context.metrics
    if metrics is not None:
        metrics.command(ruleset, kind, outcome, seconds)
        if result is None:
            metrics.rejected(outcome)
        elif not result.duplicate:
            metrics.inc("fray_appends_total", by=len(result.events))
    tenant, public = split_stream(encounter_id)
    line = {
        "event": "command",
        "api": "graphql",
        "tenant": tenant,
        "encounter_id": public,
        "command_id": command_id,
        "type": kind,
        "outcome": outcome,
        "version": result.version if result else None,
        "duration_ms": round(seconds * 1000, 3),
    }
    _log.info(orjson.dumps(line).decode())
