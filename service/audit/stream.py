"""The checks on the stream itself: the hash chain, version 1, the seed, the draws, and the
decide re-run (DESIGN.md, "Audit algorithm"; docs/audit.md).

Each check adds one `Check` to the report and answers whether the audit may go on. A check
that cannot run says what it lacks (`incomplete`); it never passes for want of evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.audit.report import AuditReport
from service.deciding import CommandRequest, Loaded, decide_envelopes, reproduced
from service.domain.canonical import ZERO_HASH, sha256_hex
from service.domain.common import EncounterCreated
from service.domain.context import Actor
from service.domain.draws import draw
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.domain.fold import advance
from service.domain.holding import RESOLVERS
from service.domain.ruleset import EncounterState, RulesetBase
from service.domain.timefmt import parse_iso
from service.domain.upcasting import UnreadableEvent
from service.rules.registry import ruleset_at

# What a malformed (but re-hashed) event raises when read as the algorithm reads it.
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def chain(envelopes: list[Envelope], report: AuditReport) -> bool:
    previous = ZERO_HASH
    for expected, envelope in enumerate(envelopes, start=1):
        if envelope.version != expected:
            return report.failed(
                "chain", f"version {expected}: found version {envelope.version} (gap or reorder)"
            )
        if envelope.prev_hash != previous:
            return report.failed(
                "chain",
                f"version {expected}: prev_hash does not match the hash of version {expected - 1}",
            )
        if envelope.computed_hash() != envelope.hash:
            return report.failed(
                "chain", f"version {expected}: hash does not match its contents (edited)"
            )
        previous = envelope.hash
    n = len(envelopes)
    return report.passed("chain", f"{n} events, versions 1..{n}, each linked and hashed", n)


@dataclass(frozen=True)
class Recorded:
    """What version 1 records, and the code that decides it."""

    created: EncounterCreated
    ruleset: RulesetBase[Any] | None  # None: that ruleset version is not registered here


def created(envelopes: list[Envelope], report: AuditReport) -> Recorded | None:
    first = envelopes[0]
    if first.type != "encounter-created":
        report.failed("created", f"version 1 is '{first.type}', not encounter-created")
        return None
    try:
        recorded = EncounterCreated.model_validate(first.data)
    except ValueError as error:
        report.failed("created", f"version 1 does not read as encounter-created ({error})")
        return None
    report.encounter_id = recorded.encounter_id
    report.ruleset, report.ruleset_version = recorded.ruleset, recorded.ruleset_version
    name = f"ruleset {recorded.ruleset} {recorded.ruleset_version}"
    try:
        ruleset: RulesetBase[Any] | None = ruleset_at(recorded.ruleset, recorded.ruleset_version)
    except FrayError:  # not registered here: the re-run says so and is incomplete
        ruleset = None
    detail = f"encounter {recorded.encounter_id}, {name}"
    if ruleset is None:
        detail += " (not available in this Fray)"
    report.passed("created", detail)
    return Recorded(recorded, ruleset)


def seed_matches(
    recorded: Recorded, envelopes: list[Envelope], given: bytes | None, report: AuditReport
) -> bytes | None:
    """The seed that opens the commitment: revealed by the stream, else given by the
    auditor. None when there is none (the check is incomplete) or it does not match."""
    revealed, source = _revealed_seed(envelopes), "revealed by encounter-ended"
    seed = revealed if revealed is not None else given
    if revealed is None:
        source = "given by the auditor"
    if seed is None:
        report.add(
            "seed",
            "incomplete",
            "not revealed (no encounter-ended) and not given: pass --seed HEX, or --url with "
            "an auditor token",
        )
        return None
    if sha256_hex(seed) != recorded.created.seed_commitment:
        report.failed("seed", f"SHA-256 of the seed ({source}) does not match the commitment")
        return None
    report.passed("seed", f"the seed ({source}) matches the commitment in version 1")
    return seed


def _revealed_seed(envelopes: list[Envelope]) -> bytes | None:
    for envelope in envelopes:
        if envelope.type == "encounter-ended":
            try:
                return bytes.fromhex(str(envelope.data["seed"]))
            except MALFORMED:
                return b""  # a revealed seed that is not hex fails the commitment
    return None


def commands(envelopes: list[Envelope]) -> list[list[Envelope]]:
    """Envelopes grouped by the command that produced them (the first carries `command`)."""
    groups: list[list[Envelope]] = []
    for envelope in envelopes[1:]:
        if envelope.command is not None or not groups:
            groups.append([envelope])
        else:
            groups[-1].append(envelope)
    return groups


def draws(envelopes: list[Envelope], seed: bytes | None, report: AuditReport) -> bool:
    server = [
        (group[0].version, envelope, roll)
        for group in commands(envelopes)
        for envelope in group
        for roll in envelope.rolls
        if not (isinstance(roll, dict) and roll.get("source") == "table")
    ]
    if seed is None:
        report.add("draws", "incomplete", f"{len(server)} server draws not checked: no seed")
        return True
    for v, envelope, roll in server:
        try:
            expected = draw(seed, v, int(roll["n"]), int(roll["k"]))
            if roll.get("kind", "die") == "die":
                expected += 1
            if roll["value"] == expected:
                continue
            problem = (
                f"draw n={roll['n']} ({roll.get('purpose')}) shows {roll['value']} but the "
                f"seed gives {expected}"
            )
        except MALFORMED as error:
            problem = f"a roll record that does not read as a draw ({error!r})"
        return report.failed("draws", f"version {envelope.version}: {problem}")
    return report.passed("draws", f"{len(server)} server draws match the seed", len(server))


def rerun(
    recorded: Recorded, envelopes: list[Envelope], seed: bytes | None, report: AuditReport
) -> None:
    ruleset, created = recorded.ruleset, recorded.created
    if ruleset is None:
        report.add(
            "rerun",
            "incomplete",
            f"ruleset {created.ruleset} {created.ruleset_version} is not available, decide "
            "re-run skipped",
        )
        return
    state: EncounterState = ruleset.initial_state(created)
    saved: dict[int, EncounterState] = {1: state}
    targets = {e.data.get("to_version") for e in envelopes if e.type == "rewound"
               and isinstance(e.data, dict)}  # fmt: skip
    done = skipped = 0
    previous = envelopes[0]
    for group in commands(envelopes):
        version = group[0].version
        if group[0].command is None:
            report.failed(
                "rerun", f"version {version}: events without the command that caused them"
            )
            return
        try:
            server_draws = any(r.get("source") != "table" for e in group for r in e.rolls)
            if seed is None and server_draws:
                skipped += 1
            else:
                problem = _reproduce(ruleset, state, previous, group, seed or b"")
                if problem is not None:
                    report.failed("rerun", f"version {version}: {problem}")
                    return
                done += 1
            for envelope in group:
                # The state as of each event, as the fold keeps it: a rewind may land
                # between the events of one command.
                state = advance(ruleset, state, [envelope], saved)
                if envelope.version in targets:
                    saved[envelope.version] = state
        except UnreadableEvent as error:
            # This Fray lacks an upcaster: the stream may be sound, it cannot tell.
            report.add("rerun", "incomplete", f"version {version}: {error.message}", done)
            return
        except MALFORMED as error:
            report.failed("rerun", f"version {version}: the events do not fold ({error!r})")
            return
        previous = group[-1]
    if skipped:
        report.add(
            "rerun",
            "incomplete",
            f"{reproduce(done)}; {skipped} that drew server dice await the seed",
            done,
        )
    else:
        report.passed("rerun", reproduce(done), done)


def _reproduce(
    ruleset: RulesetBase[Any],
    state: EncounterState,
    previous: Envelope,
    group: list[Envelope],
    seed: bytes,
) -> str | None:
    first = group[0]
    assert first.command is not None
    # The dice of a command that decides a held one (submit-roll, expire-roll-requests) are
    # the faces gathered in the state, not dice its request carried.
    resolves = first.command.get("type") in RESOLVERS
    table_rolls = [r for e in group for r in e.rolls if r.get("source") == "table" and not resolves]
    request = CommandRequest(
        command=first.command,
        dice=[int(r["value"]) for r in table_rolls if r.get("kind") == "die"] or None,
        deck_orders=[list(r["value"]) for r in table_rolls if r.get("kind") == "order"] or None,
    )
    loaded = Loaded(ruleset, state, previous.version, previous.hash)
    try:
        command = ruleset.parse_command(first.command, strict=False)
        _, produced = decide_envelopes(
            loaded,
            command,
            request,
            Actor.from_dict(first.actor),
            first.command_id,
            seed,
            parse_iso(first.at),
            authority=False,
            salts={e.version: e.salt for e in group}.get,
        )
    except FrayError as error:
        return f"re-running the command was rejected ({error.code}: {error.message})"
    if not reproduced(ruleset, group, produced):
        return "re-running the stored command does not reproduce the stored events"
    return None


def reproduce(count: int) -> str:
    if count == 1:
        return "1 command reproduces its events"
    return f"{count} commands reproduce their events"
