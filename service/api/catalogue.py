"""Every error an integrator can meet, declared once: its HTTP status, its codes and when.

`service.api.errors.status_of` maps codes to statuses from this table, the OpenAPI
document's error replies name these codes, and the table under "Errors" in docs/api.md is
rendered from it (`make docs`; a test fails when they drift). GraphQL gives the same code
and status in an error's `extensions` and in `CommandRejected`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorKind:
    status: int
    codes: tuple[str, ...]
    when: str
    # The codes are the whole of the row (each maps to `status`), or only examples of a
    # family the status is given by kind (a rule the command breaks: 422).
    examples: bool = False


CATALOGUE: tuple[ErrorKind, ...] = (
    ErrorKind(400, ("request/malformed-json",), "The body is not JSON."),
    ErrorKind(
        400,
        ("request/invalid",),
        "A field of the wrong type or a bad query parameter; the message names it.",
    ),
    ErrorKind(
        400,
        ("command/unknown-type",),
        "The message and `details.valid_types` list the valid types.",
    ),
    ErrorKind(
        400,
        ("command/invalid",),
        "A command field is missing or of the wrong type; the message names it. Nothing is "
        'coerced: `"delta": "1"` and `"delta": 1.0` are refused where a whole number is due, '
        'as is `"expected_version": "3"` (`request/invalid`).',
    ),
    ErrorKind(
        400,
        ("request/number-out-of-range",),
        "A number anywhere in a command or the options is beyond ±2,147,483,647 (GraphQL's "
        "`Int`, the widest integer Fray carries); `details[0].field` is its path, e.g. "
        "`stats.hp`. Fields may be tighter: a GM adjustment's `delta`, `set` and `max` are "
        "within ±1,000,000.",
    ),
    ErrorKind(
        400,
        ("request/too-deep",),
        "A command or the options nest objects and arrays more than 32 levels deep.",
    ),
    ErrorKind(
        400,
        ("request/bad-id",),
        "An encounter or combatant id outside the id pattern (see [Creating an encounter]"
        "(#creating-an-encounter)); `details.pattern` is the pattern.",
    ),
    ErrorKind(
        400, ("encounter/unknown-ruleset", "encounter/bad-options"), "Creating an encounter."
    ),
    ErrorKind(
        400,
        ("request/subscription-over-http",),
        "GraphQL: a subscription sent in an HTTP request; subscriptions run over a websocket "
        "at `/graphql` (graphql-transport-ws).",
    ),
    ErrorKind(
        400,
        ("command/wrong-ruleset",),
        "GraphQL: a `CommandInput` member of another ruleset than the encounter's; the "
        "message names the member to use.",
    ),
    ErrorKind(
        401,
        ("auth/missing", "auth/invalid-token", "auth/expired"),
        "No, a bad or an expired credential.",
    ),
    ErrorKind(
        401,
        ("auth/invalid-ticket",),
        "A stream ticket that is forged, for another encounter, expired or already used (the "
        "message says which): mint a new one for each connection.",
    ),
    ErrorKind(
        403, ("auth/forbidden",), "A token for another encounter, or a role that may not do this."
    ),
    ErrorKind(
        403,
        ("cors/refused",),
        "A CORS preflight from an origin not in `FRAY_CORS_ORIGINS`, or asking for a method or "
        "request header Fray does not take; the message names which. It carries no CORS "
        "header, so the browser blocks the request: the page's script sees a failed `fetch`, "
        "the browser's network panel shows this answer.",
    ),
    ErrorKind(
        403,
        ("dice/not-yours",),
        "A table die supplied by someone who is neither the GM nor the controller of the "
        "combatant it is rolled for (a player giving the goblin's morale d20); `details` has "
        "the `die` (`sides`, `expression`, `purpose`, `roller`) and the `face`. Nothing was "
        "appended: the GM sends such a command, or the encounter rolls `mixed`. See "
        "[Table dice](#table-dice). With `dice: prompt`, a `submit-roll` for a roll request "
        "whose roller the sender does not control.",
    ),
    ErrorKind(
        404,
        ("encounter/not-found", "route/not-found"),
        "Unknown encounter (another tenant's included) or path.",
    ),
    ErrorKind(
        404,
        ("ruleset/not-found",),
        "`GET /v1/rulesets/{name}` of a ruleset this Fray does not run; `details.valid` lists "
        "the ones it does.",
    ),
    ErrorKind(
        404,
        ("webhook/not-found", "webhook/delivery-not-found"),
        "Unknown webhook (another tenant's included), or a delivery its log does not hold.",
    ),
    ErrorKind(405, ("route/method-not-allowed",), ""),
    ErrorKind(
        409,
        ("encounter/version-conflict",),
        "A stale `expected_version`; `details` has `expected` and `actual`.",
    ),
    ErrorKind(409, ("command/id-reused", "encounter/exists"), "An id used for something else."),
    ErrorKind(
        409,
        ("encounter/archived",),
        "The encounter is archived (`DELETE /v1/encounters/{id}`, GraphQL `archiveEncounter`): "
        "it takes no more commands, and nothing was appended. Reads, exports and the audit "
        "verdict still answer until it expires (`FRAY_RETENTION_DAYS`).",
    ),
    ErrorKind(
        409,
        ("encounter/busy",),
        "The encounter kept changing under the command (many writers at once); send it again.",
    ),
    ErrorKind(
        409,
        ("encounter/ruleset-unavailable",),
        "The encounter was recorded with a ruleset version this Fray no longer runs "
        "(`details` has `ruleset`, `version` and the `available` versions), and deciding or "
        "folding it with other code could give other results; nothing was appended. The "
        "stream is intact: `fray export` still exports it, and it runs again on a Fray that "
        "registers that version.",
    ),
    ErrorKind(
        409,
        ("dice/roll-pending",),
        "A command waits for dice (the `prompt` dice mode): until they are in or their "
        "deadline passes, only `submit-roll` (and the GM's `expire-roll-requests`) is taken. "
        "`details.awaiting` lists the open roll requests; nothing was appended.",
    ),
    ErrorKind(
        409,
        ("dice/roll-already-submitted",),
        "A `submit-roll` for a roll request whose dice are already in.",
    ),
    ErrorKind(
        409,
        ("webhook/disabled", "webhook/delivery-pending"),
        'A redelivery to a disabled webhook (enable it with `PATCH {"enabled": true}` '
        "first), or of an event that is already waiting to be delivered to it.",
    ),
    ErrorKind(413, ("request/too-large",), "The body is over `FRAY_MAX_BODY` (64 KiB)."),
    ErrorKind(
        422,
        ("webhook/bad-url", "webhook/private-address", "webhook/unresolvable-host"),
        "A webhook URL Fray will not call: not `https` (or `http` with "
        "`FRAY_WEBHOOK_ALLOW_PRIVATE=true`), no host, a user name in it; a host that "
        "resolves to any address that is not public (private, loopback, link-local, "
        "multicast, reserved, unspecified, IPv4 inside IPv6 included); or one that does not "
        "resolve. Checked at registration and again before each delivery.",
    ),
    ErrorKind(422, ("webhook/too-many",), "A tenant has 100 webhooks at most."),
    ErrorKind(
        422,
        ("turn/not-your-turn", "auth/not-your-combatant"),
        "The rules forbid the command.",
        examples=True,
    ),
    ErrorKind(
        422,
        (
            "auth/gm-only",
            "combatant/unknown",
            "combatant/duplicate-id",
            "combatant/bad-stats",
            "encounter/already-started",
            "encounter/no-combatants",
            "encounter/ended",
            "resource/unknown",
            "resource/delta-or-set",
            "condition/not-present",
            "rewind/not-in-past",
            "command/unknown",
        ),
        "The commands every ruleset shares (roster, start and end, GM adjustments, "
        "conditions, rewind) refuse: a player sending a GM's command, an unknown or taken "
        "combatant id, a stat block the ruleset does not read (the message names the "
        "field), starting twice or with nobody, any command but `add-note` after the end, "
        "an unknown pool, a change that gives both or neither of `delta` and `set`, removing "
        "a condition the combatant does not have, rewinding to now or later. "
        "`command/unknown` is a fault in Fray (a ruleset handed a command it does not take; "
        "an unknown `type` is `400 command/unknown-type`). Each ruleset's page (docs/rules/) "
        "lists the codes its own rules add.",
    ),
    ErrorKind(
        422,
        (
            "map/none",
            "map/off-map",
            "map/impassable",
            "map/occupied",
            "map/not-placed",
            "map/token-off-map",
            "map/no-path",
        ),
        "Placing or moving a token: no map yet, a cell off the map, impassable or taken, a "
        "combatant not yet placed, a new map that would leave a token off it, no path past "
        "walls and enemies.",
    ),
    ErrorKind(
        422,
        (
            "reactions/window-closed",
            "reactions/not-eligible",
            "reactions/already-answered",
            "reactions/unknown-option",
        ),
        "Answering a reaction window that is closed, that does not list the combatant, that "
        "it has answered already, or with an option it does not offer.",
    ),
    ErrorKind(
        422,
        ("dice/bad-expression", "dice/too-large"),
        "A dice expression that does not parse, or one past a limit: 100 dice a term, 1,000 "
        "a roll, d10000, 500 characters, 50 levels of nesting, and no constant, repeat count "
        "or value along the way (`65536 * 65536`) beyond ±2,147,483,647.",
    ),
    ErrorKind(
        422,
        (
            "dice/table-dice-missing",
            "dice/table-dice-not-allowed",
            "dice/table-dice-required",
            "dice/table-die-out-of-range",
            "dice/unused-table-dice",
            "dice/table-order-missing",
            "dice/table-order-invalid",
            "dice/unused-table-order",
            "dice/unknown-roll-request",
            "dice/wrong-face-count",
        ),
        "Dice from the table (`dice`, `deck_orders` of a command; the `dice` option). "
        "`dice/table-dice-missing`: with `dice: table`, the command needs more dice than were "
        "sent; `details.needed` lists every die still certainly needed, in the order to "
        "append them to `dice`, each with `sides`, `expression`, `purpose` and `roller` (a "
        "combatant id or `gm`); dice that depend on these (damage after a hit) are listed once "
        "those are sent (see [Table dice](#table-dice)). The others: table dice sent to an "
        "encounter that rolls on the server, left out where the table rolls every die, more "
        "dice than the command rolls, a face the die does not have, a deck order missing, "
        "not listing each index once, or unused; a `submit-roll` for no open roll request, or "
        "with another number of faces than the request's `count`. Nothing was appended.",
    ),
    ErrorKind(
        429,
        ("rate/limited",),
        "Over `FRAY_RATE_LIMIT` commands per second per credential (counted in Redis, across "
        "every instance); wait `Retry-After` seconds. Each instance takes the budget in "
        "leases of a tenth of the limit, so with several instances a credential may be "
        "refused up to (lease − 1) commands per instance before the limit, never after it.",  # noqa: RUF001
    ),
    ErrorKind(
        500,
        ("internal/unrecordable",),
        "A fault in Fray: the command's events would not read back exactly as written "
        "(checked before every append), so nothing was appended. The log names the command.",
    ),
    ErrorKind(
        500,
        ("internal/unemitted-event",),
        "A fault in Fray: the rules returned events other than those they emitted, so the "
        "command's dice could not be listed under the right events; nothing was appended. "
        "The log names the command.",
    ),
    ErrorKind(
        500,
        ("internal/unreadable-event",),
        "A fault in Fray: a stored event that today's model does not read and no upcaster "
        "brings to it (`details` has its `type` and `schema`). The stream is intact; it folds "
        "again once the upcaster is added.",
    ),
    ErrorKind(
        503,
        ("subscription/too-slow", "subscription/interrupted"),
        "A GraphQL subscription the server dropped: it fell too far behind, or the feed "
        "stopped; `details.last_version` is where to resume (subscribe again with "
        "`after`). It comes as an error on the subscription (`next` with `errors`, "
        "this status in `extensions`), never as an HTTP answer; an SSE stream just closes "
        "(reconnect with `Last-Event-ID`).",
    ),
    ErrorKind(
        503,
        ("store/unavailable",),
        "Redis is not answering (down, unreachable, loading, read-only after a failover). "
        "`Retry-After` and `details.retry_after` say when to try again; a command retried "
        "with the same `command_id` is never applied twice. GraphQL gives the same `code`, "
        "`status` and `details` in the error's `extensions`; a subscription gets it as an "
        "error (`next` with `errors`) and may subscribe again; an SSE stream already open "
        "waits out the outage (heartbeats go on) and carries on, one opened during it is "
        "answered `503`.",
    ),
    ErrorKind(
        503,
        ("server/shutting-down",),
        "The instance is shutting down (SIGTERM): `/readyz` answers it while the instance "
        "finishes its requests in flight, and each SSE stream it ends says it in its last "
        "frame (`event: error`, after a `retry:` hint). Reconnect: another instance (or "
        "this one, restarted) serves the same encounters, and an SSE stream resumes from "
        "its `Last-Event-ID`. A GraphQL websocket is closed with code 1012 (service "
        "restart) instead.",
    ),
)

# Code -> status, for every code the table names as a whole row.
STATUSES: dict[str, int] = {
    code: kind.status for kind in CATALOGUE if not kind.examples for code in kind.codes
}


def codes_of(status: int) -> tuple[str, ...]:
    """The codes an answer of `status` may carry (examples included)."""
    return tuple(code for kind in CATALOGUE if kind.status == status for code in kind.codes)


def markdown() -> str:
    """The table under "Errors" in docs/api.md."""
    lines = ["| Status | Code | When |", "|---|---|---|"]
    for kind in CATALOGUE:
        codes = ", ".join(f"`{code}`" for code in kind.codes)
        if kind.examples:
            codes = f"rule codes, e.g. {codes}"
        lines.append(f"| {kind.status} | {codes} | {kind.when} |".replace("|  |", "| |"))
    return "\n".join(lines) + "\n"
