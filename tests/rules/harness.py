"""Given events, when a command, then events: ruleset specs without Redis.

The harness seals envelopes exactly as the pipeline does (engine.decide_envelopes), so
ruleset tests see the same events, rolls and hashes the service would store; unsalted, as
the streams recorded before salts, unless given a `salt` source as the engine is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.deciding import CommandRequest, Loaded, decide_envelopes
from service.domain.canonical import ZERO_HASH, sha256_hex
from service.domain.common import EncounterCreated
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope, seal
from service.domain.errors import RuleViolation
from service.domain.fold import replay
from service.domain.ruleset import EncounterState, RulesetBase
from service.domain.timefmt import iso

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@dataclass
class Table:
    ruleset: RulesetBase[Any]
    options: dict[str, Any] = field(default_factory=dict)
    seed: bytes = b"\x07" * 32
    now: datetime = START
    envelopes: list[Envelope] = field(default_factory=list)
    state: EncounterState | None = None
    salt: Callable[[], str] | None = None  # each envelope's, as `Engine.salt`; None: none

    def __post_init__(self) -> None:
        options = self.ruleset.parse_options(self.options)
        created = EncounterCreated(
            encounter_id="test",
            ruleset=self.ruleset.name,
            ruleset_version=self.ruleset.version,
            options=options.model_dump(mode="json"),
            seed_commitment=sha256_hex(self.seed),
        )
        kind, schema, data = self.ruleset.event_data(created)
        first = seal(
            version=1, type=kind, schema=schema, data=data, at=iso(self.now),
            command_id="create", actor=GM.to_dict(), command=None, rolls=[],
            prev_hash=ZERO_HASH, salt=None if self.salt is None else self.salt(),
        )  # fmt: skip
        self.envelopes.append(first)
        self.state = self.ruleset.initial_state(created)

    @property
    def version(self) -> int:
        return self.envelopes[-1].version

    def loaded(self) -> Loaded:
        assert self.state is not None
        return Loaded(self.ruleset, self.state, self.version, self.envelopes[-1].hash)

    def send(
        self,
        command: dict[str, Any],
        actor: Actor = GM,
        dice: list[int] | None = None,
        orders: list[list[int]] | None = None,
    ) -> list[Envelope]:
        """Decide and append a command; return its envelopes (RuleViolation propagates)."""
        request = CommandRequest(command=command, dice=dice, deck_orders=orders)
        parsed = self.ruleset.parse_command(command)
        salts = None if self.salt is None else self._salts
        events, envelopes = decide_envelopes(
            self.loaded(), parsed, request, actor, f"c{self.version + 1}", self.seed, self.now,
            salts=salts,
        )  # fmt: skip
        self.envelopes += envelopes
        if any(e.type == "rewound" for e in envelopes):
            self.state = replay(self.ruleset, self.envelopes)
        else:
            self.state = self.ruleset.apply(self.loaded().state, events)
        return envelopes

    def _salts(self, version: int) -> str:
        assert self.salt is not None
        return self.salt()

    def types(self, envelopes: list[Envelope]) -> list[str]:
        return [e.type for e in envelopes]

    def wait(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def replayed(self) -> EncounterState:
        return replay(self.ruleset, self.envelopes)


def refused(
    table: Table,
    command: dict[str, Any],
    actor: Actor = GM,
    dice: list[int] | None = None,
) -> RuleViolation:
    """Send a command the rules forbid: return the violation and check nothing was stored."""
    before = list(table.envelopes)
    state = table.state
    with pytest.raises(RuleViolation) as caught:
        table.send(command, actor=actor, dice=dice)
    assert table.envelopes == before and table.state == state
    return caught.value
