"""Verify a stream as DESIGN.md's audit algorithm defines it.

Checks, in order: each line is the canonical JSON of its envelope; versions run 1..n; the
hash chain; the seed commitment; every server draw; and that re-running `decide` on each
stored command, at its stored time and with its stored actor, reproduces its events.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from service.deciding import CommandRequest, Loaded, decide_envelopes, reproduced
from service.domain.canonical import ZERO_HASH, canonical_bytes, sha256_hex
from service.domain.common import EncounterCreated
from service.domain.context import Actor
from service.domain.draws import draw
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.domain.fold import advance
from service.domain.ruleset import EncounterState, RulesetBase
from service.domain.timefmt import parse_iso
from service.rules.registry import ruleset_at


@dataclass
class AuditReport:
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, problem: str) -> AuditReport:
        self.problems.append(problem)
        return self


def parse_lines(lines: Iterable[bytes]) -> tuple[list[Envelope], list[str]]:
    """Envelopes from JSONL; a line that is not canonical JSON of an envelope is a problem."""
    envelopes: list[Envelope] = []
    problems: list[str] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip(b"\n")
        if not line:
            continue
        try:
            envelope = Envelope.from_dict(orjson.loads(line))
        except (orjson.JSONDecodeError, KeyError, TypeError) as error:
            problems.append(f"line {number}: not an event envelope ({error})")
            continue
        if canonical_bytes(envelope.to_dict()) != line:
            problems.append(f"line {number}: not in canonical form (edited after it was written?)")
        envelopes.append(envelope)
    return envelopes, problems


def audit(envelopes: list[Envelope], seed: bytes | None = None) -> AuditReport:
    report = AuditReport()
    if not envelopes:
        return report.fail("the stream is empty")
    if not _chain(envelopes, report):
        return report
    first = envelopes[0]
    if first.type != "encounter-created":
        return report.fail("version 1 is not encounter-created")
    created = EncounterCreated.model_validate(first.data)
    try:
        ruleset = ruleset_at(created.ruleset, created.ruleset_version)
    except FrayError as error:
        return report.fail(str(error))
    seed = seed if seed is not None else _revealed_seed(envelopes)
    if seed is None:
        report.checked.append("seed: not revealed yet; draws and dice-using commands not checked")
    elif sha256_hex(seed) != created.seed_commitment:
        return report.fail("seed: SHA-256 of the seed does not match the commitment in version 1")
    else:
        report.checked.append("seed commitment: matches")
        if not _draws(envelopes, seed, report):
            return report
    _rerun(ruleset, created, envelopes, seed, report)
    return report


def _chain(envelopes: list[Envelope], report: AuditReport) -> bool:
    previous = ZERO_HASH
    for expected, envelope in enumerate(envelopes, start=1):
        if envelope.version != expected:
            report.fail(f"version {expected}: found version {envelope.version} (gap or reorder)")
            return False
        if envelope.prev_hash != previous:
            report.fail(
                f"version {expected}: prev_hash does not match the hash of version {expected - 1}"
            )
            return False
        if envelope.computed_hash() != envelope.hash:
            report.fail(f"version {expected}: hash does not match its contents (edited)")
            return False
        previous = envelope.hash
    report.checked.append(f"hash chain: {len(envelopes)} events, versions 1..{len(envelopes)}")
    return True


def _revealed_seed(envelopes: list[Envelope]) -> bytes | None:
    for envelope in envelopes:
        if envelope.type == "encounter-ended":
            return bytes.fromhex(str(envelope.data["seed"]))
    return None


def _commands(envelopes: list[Envelope]) -> list[list[Envelope]]:
    """Envelopes grouped by the command that produced them (the first carries `command`)."""
    groups: list[list[Envelope]] = []
    for envelope in envelopes[1:]:
        if envelope.command is not None or not groups:
            groups.append([envelope])
        else:
            groups[-1].append(envelope)
    return groups


def _draws(envelopes: list[Envelope], seed: bytes, report: AuditReport) -> bool:
    count = 0
    for group in _commands(envelopes):
        v = group[0].version
        for envelope in group:
            for roll in envelope.rolls:
                if roll.get("source") == "table":
                    continue
                expected = draw(seed, v, int(roll["n"]), int(roll["k"]))
                if roll.get("kind", "die") == "die":
                    expected += 1
                if roll["value"] != expected:
                    report.fail(
                        f"version {envelope.version}: draw n={roll['n']} ({roll.get('purpose')}) "
                        f"shows {roll['value']} but the seed gives {expected}"
                    )
                    return False
                count += 1
    report.checked.append(f"draws: {count} server draws match the seed")
    return True


def _rerun(
    ruleset: RulesetBase[Any],
    created: EncounterCreated,
    envelopes: list[Envelope],
    seed: bytes | None,
    report: AuditReport,
) -> None:
    state: EncounterState = ruleset.initial_state(created)
    saved: dict[int, EncounterState] = {1: state}
    targets = {int(e.data["to_version"]) for e in envelopes if e.type == "rewound"}
    rerun = skipped = 0
    previous = envelopes[0]
    for group in _commands(envelopes):
        server_draws = any(r.get("source") != "table" for e in group for r in e.rolls)
        if group[0].command is None:
            report.fail(f"version {group[0].version}: events without the command that caused them")
            return
        if seed is None and server_draws:
            skipped += 1
        else:
            problem = _reproduce(ruleset, state, previous, group, seed or b"")
            if problem is not None:
                report.fail(f"version {group[0].version}: {problem}")
                return
            rerun += 1
        for envelope in group:
            # The state as of each event, as the fold keeps it: a rewind may land between
            # the events of one command.
            state = advance(ruleset, state, [envelope], saved)
            if envelope.version in targets:
                saved[envelope.version] = state
        previous = group[-1]
    note = f", {skipped} awaiting the seed" if skipped else ""
    report.checked.append(f"decide re-run: {rerun} commands reproduce their events{note}")


def _reproduce(
    ruleset: RulesetBase[Any],
    state: EncounterState,
    previous: Envelope,
    group: list[Envelope],
    seed: bytes,
) -> str | None:
    first = group[0]
    assert first.command is not None
    table_rolls = [r for e in group for r in e.rolls if r.get("source") == "table"]
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
        )
    except FrayError as error:
        return f"re-running the command was rejected ({error.code}: {error.message})"
    if not reproduced(ruleset, group, produced):
        return "re-running the stored command does not reproduce the stored events"
    return None
