"""Random legal play of fifty-two folds back to the live state, and no card is ever made or
lost: after every command the layout, the pool and the discard stack are the dealt deck.

Each example builds a fight (one to three Allies, one to three Enemies in one or two
factions, random stats, options and surprise), starts it with the server's dice, then
plays options drawn from `legal_actions` for the GM (who acts for everyone), now and then
lets the decision clock run out, for a few rounds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.context import GM, SYSTEM
from service.domain.errors import RuleViolation
from service.domain.views import ActionOption
from service.rules.fifty_two import RULESET
from tests.rules.fifty_two.given import state_of
from tests.rules.harness import Table

# The ruleset's options this test knows how to fill in; the shared ones (add-combatant,
# end-encounter, roll, the clocks) are left out.
PLAYED = {
    "surprise-attack", "pass-surprise", "choose-columns", "deal", "take-card",
    "add-surprise-card", "choose-foe", "remove-card", "add-cards", "remove-pair",
    "execute-attack", "raise-initiative", "hold-action", "other-action", "move", "step",
    "end-turn",
}  # fmt: skip
# Options the rules may still refuse with the parameters drawn here.
MAY_REFUSE = {"choose-foe", "add-surprise-card", "add-cards", "other-action"}

ARMOR = st.sampled_from(("none", "soft-leather", "chain", "ring", "full-plate"))
STATS = st.fixed_dictionaries(
    {
        "hp": st.integers(5, 40),
        "attack_bonus": st.integers(0, 4),
        "armor": ARMOR,
        "armor_enchantment": st.integers(0, 2),
        "surprise": st.booleans(),
        "normal_damage": st.sampled_from(("1d6", "3")),
        "critical_damage": st.sampled_from(("2d6+2", "8")),
        "weapon": st.fixed_dictionaries(
            {"damage_type": st.sampled_from(("slashing", "piercing", "crushing"))}
        ),
    }
)
OPTIONS = st.fixed_dictionaries(
    {
        "armor_hits": st.sampled_from(("reset", "carry")),
        "depth": st.sampled_from((4, 5)),
        "add_row_in_round": st.sampled_from((None, 2)),
        "decision_seconds": st.sampled_from((None, 20.0)),
    }
)


def send(table: Table, command: dict[str, Any], actor=GM) -> bool:
    before, state = list(table.envelopes), table.state
    try:
        table.send(command, actor=actor)
    except RuleViolation:
        assert table.envelopes == before and table.state == state
        return False
    return True


def command_for(option: ActionOption, data: st.DataObject) -> dict[str, Any]:
    command: dict[str, Any] = {"type": option.type}
    if option.actor is not None:
        command["combatant_id"] = option.actor
    params = option.params
    match option.type:
        case "surprise-attack" | "execute-attack":
            command["target"] = data.draw(st.sampled_from(option.targets))
            if option.type == "execute-attack":
                command["critical"] = params["critical"]
        case "choose-columns":
            command["modifier"] = data.draw(st.sampled_from(params["modifier"]))
        case "take-card":
            command["card"] = data.draw(st.sampled_from(params["cards"]))
        case "add-surprise-card":
            command["column"] = data.draw(st.sampled_from(params["columns"]))
        case "remove-card":
            command["card"] = params["card"]
        case "remove-pair":
            command["cards"] = params["cards"]
        case "add-cards":
            command["column"] = params["column"]
            command["count"] = data.draw(st.integers(1, params["max"]))
        case "choose-foe":
            command["foe"] = data.draw(st.sampled_from(("goblins", "enemies")))
        case "other-action":
            command["description"] = "stand up"
    return command


def dealt(table: Table) -> Counter[str]:
    (deal,) = [e.data for e in table.envelopes if e.type == "field-dealt"]
    return Counter([*(c for column in deal["columns"] for c in column), *deal["pool"]])


def in_play(table: Table) -> Counter[str]:
    field = state_of(table).field
    assert field is not None
    return Counter(card.text for card in field.cards())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    allies=st.lists(STATS, min_size=1, max_size=3),
    enemies=st.lists(STATS, min_size=1, max_size=3),
    goblins=st.booleans(),
    options=OPTIONS,
    data=st.data(),
)
def test_random_legal_play_folds_back_and_keeps_every_card(allies, enemies, goblins, options, data):
    table = Table(RULESET, options)
    for n, stats in enumerate(allies):
        table.send({"type": "add-combatant", "combatant_id": f"ally{n}", "name": f"Ally {n}",
                    "side": "allies", "stats": stats})  # fmt: skip
    for n, stats in enumerate(enemies):
        side = "goblins" if goblins and n % 2 else "enemies"
        table.send({"type": "add-combatant", "combatant_id": f"foe{n}", "name": f"Foe {n}",
                    "side": side, "stats": stats})  # fmt: skip
    table.send({"type": "start-encounter"})

    for _ in range(60):
        state = state_of(table)
        if state.round > 3:
            break
        clock = state.table.clocks.get("decision")
        if clock is not None and clock.status == "running" and data.draw(st.integers(0, 9)) == 0:
            expiry = {
                "type": "expire-clock",
                "clock_id": "decision",
                "generation": clock.generation,
            }
            assert send(table, expiry, SYSTEM)
        else:
            # A surprising Enemy may find every column taken (§4.4), and a surprise attacker
            # every opponent down: they can only pass.
            options_now = [
                o
                for o in RULESET.legal_actions(state, GM)
                if o.type in PLAYED
                and not (o.type == "add-surprise-card" and not o.params["columns"])
                and not (o.type == "surprise-attack" and not o.targets)
            ]
            assert options_now, state.phase
            option = data.draw(st.sampled_from(options_now))
            command = command_for(option, data)
            assert send(table, command) or option.type in MAY_REFUSE, command
        if state_of(table).field is not None:
            assert in_play(table) == dealt(table)
        assert table.replayed() == table.state
