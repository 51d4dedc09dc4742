"""Each new envelope's salt, and who is shown it (docs/audit.md, "The salt"): whoever sees an
event whole, never whoever sees it with a part hidden, whatever the door (`redacted_envelope`
serves REST, SSE, GraphQL, exports, command answers and webhooks alike)."""

from __future__ import annotations

import itertools
from functools import partial

from service.app.views import redacted_envelope
from service.app.webhook_models import Webhook
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.domain.redaction import unsalted
from service.rules.freeform import RULESET
from tests.rules.harness import Table

PLAYER = Actor("p1", "player", frozenset({"bramli"}))


def fight(**options: object) -> Table:
    salts = (f"{n:032x}" for n in itertools.count(1))
    table = Table(RULESET, dict(options), salt=partial(next, salts))
    for cid, side in (("bramli", "heroes"), ("goblin", "goblins")):
        command = {"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                   "side": side, "stats": {"hp": 9}}  # fmt: skip
        table.send(command)
    table.send({"type": "add-note", "text": "a torch gutters"})
    return table


def shown(table: Table, envelope: Envelope, viewer: Actor) -> dict[str, object] | None:
    assert table.state is not None
    return redacted_envelope(RULESET, envelope, viewer, table.state)


def test_every_envelope_gets_its_own_salt_and_the_gm_sees_each():
    table = fight(hide_enemy_health=True)
    salts = [e.salt for e in table.envelopes]
    assert salts == [f"{n:032x}" for n in range(1, 5)]
    assert all(shown(table, e, GM) == e.to_dict() for e in table.envelopes)


def test_a_player_gets_the_salt_of_what_it_sees_whole_and_not_of_what_is_hidden():
    table = fight(hide_enemy_health=True)
    _, bramli, goblin, note = table.envelopes
    for whole in (bramli, note):
        assert shown(table, whole, PLAYER) == whole.to_dict()
    seen = shown(table, goblin, PLAYER)
    assert seen is not None and "salt" not in seen
    assert seen["hash"] == goblin.hash and seen["data"] != goblin.data


def test_without_hidden_health_the_player_sees_the_goblin_whole_with_its_salt():
    table = fight()
    goblin = table.envelopes[2]
    assert shown(table, goblin, PLAYER) == goblin.to_dict()


def test_a_player_view_webhook_is_shown_what_the_player_is():
    table = fight(hide_enemy_health=True)
    hook = Webhook(
        id="w1", tenant="acme", url="https://example.org/hook", events=("*",),
        encounter_id=None, view=("bramli",), description=None, secret="s", enabled=True,
        disabled_reason=None, created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z",
    )  # fmt: skip
    goblin, note = table.envelopes[2], table.envelopes[3]
    seen = shown(table, goblin, hook.actor())
    assert seen is not None and "salt" not in seen
    assert shown(table, note, hook.actor()) == note.to_dict()


def test_an_envelope_recorded_before_salts_is_shown_as_it_was():
    table = Table(RULESET, {"hide_enemy_health": True})  # no salt source: none
    for cid in ("bramli", "goblin"):
        table.send({"type": "add-combatant", "combatant_id": cid, "name": cid, "side": cid})
    assert all("salt" not in e.to_dict() for e in table.envelopes)
    seen = shown(table, table.envelopes[2], PLAYER)
    assert seen is not None and "salt" not in seen and seen["hash"] == table.envelopes[2].hash


def test_unsalted_drops_the_salt_when_any_member_differs():
    envelope = fight().envelopes[3]
    whole = envelope.to_dict()
    assert unsalted(envelope, whole) is whole
    assert unsalted(envelope, None) is None
    for member, value in (("data", {}), ("command", None), ("rolls", [{"n": 0}])):
        less = unsalted(envelope, {**whole, member: value})
        assert less is not None and "salt" not in less and less[member] == value
