"""`fray demo fifty-two`: the seed's worked example (fifty-two §1 to §5.4) through the engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from service.audit import audit
from service.demos.fifty_two import DECK, DEMO
from service.demos.runner import play
from service.domain.envelope import Envelope
from service.rules.fifty_two import card_actions
from service.rules.fifty_two.cards import full_deck, parse_card
from service.rules.fifty_two.layout import Battlefield
from service.rules.fifty_two.views import DASH
from tests.e2e.test_cli import fray
from tests.engine_helpers import run

CHART = [
    ["alphonse", 15],
    ["evans", 14],
    ["eckhart", 13],
    ["alan", 12],
    ["esther", 11],
    ["emberry", 10],
    ["artichoke", 9],
    ["alice", 8],
    ["able", 7],
]

PAIR_LINE = f"Alphonse removes the 10♠{DASH}10♦ pair: critical opportunity."
FIELD_EVENTS = ("field-dealt", "surprise-card-added", "cards-removed", "pair-removed")


@dataclass
class Fight:
    lines: list[str]
    stream: list[Envelope]
    hp: dict[str, int]
    fields: dict[int, Battlefield]  # the field after each event that changed it, by version

    def events(self, kind: str) -> list[Envelope]:
        return [e for e in self.stream if e.type == kind]

    def after(self, kind: str, **data: Any) -> Battlefield:
        """The field right after the first `kind` event whose data has `data`."""
        for envelope in self.events(kind):
            if all(envelope.data.get(k) == v for k, v in data.items()):
                return self.fields[envelope.version]
        raise AssertionError(f"no {kind} event with {data}")


@pytest.fixture(scope="module")
def fight() -> Fight:
    async def scenario(engine):
        played = await play(engine, DEMO)
        encounter_id, lines = played.encounter_id, played.lines
        stream = [Envelope.from_body(s.body) for s in await engine.store.read(encounter_id)]
        table = (await engine.load(encounter_id)).state.table
        hp = {cid: c.resource_values()["hp"] for cid, c in table.combatants.items()}
        fields = {}
        for envelope in stream:
            if envelope.type in FIELD_EVENTS:
                state = (await engine.load_at(encounter_id, envelope.version)).state
                fields[envelope.version] = state.field
        return Fight(lines, stream, hp, fields)

    return run(scenario)


def pairs(field: Battlefield) -> set[frozenset[str]]:
    return {frozenset((a.text, b.text)) for a, b in card_actions.pairs(field)}


def criticals(field: Battlefield) -> set[str]:
    """Every card action that would create a critical opportunity: pairs, and removals that
    clear a column or take four cards along a row."""
    found = {"-".join(sorted(pair)) for pair in pairs(field)}
    for column in field.columns:
        for row, card in enumerate(column):
            remove = card_actions.remove_from_bottom if row == 0 else card_actions.remove_elsewhere
            if remove(field, card).critical:
                found.add(card.text)
    return found


def top_cards(field: Battlefield) -> list[str]:
    return [column[-1].text if column else "" for column in field.columns]


def test_the_demo_audits(fight):
    report = audit(fight.stream)
    assert report.ok, report.problems
    assert {c.name: c.status for c in report.checks}["rerun"] == "passed"
    assert fight.stream[-1].type == "encounter-ended"


def test_the_deck_is_a_deck():
    assert sorted(DECK) == sorted(card.text for card in full_deck())


def test_the_initiative_chart_of_the_seed(fight):
    assert fight.events("initiative-set")[0].data["chart"] == CHART
    assert (
        "Initiative: Alphonse 15, Evans 14, Eckhart 13, Alan 12, Esther 11, Emberry 10, "
        "Artichoke 9, Alice 8, Able 7." in fight.lines
    )
    assert "Tie at 13: Eckhart goes before Alan (surprise); Alan takes 12." in fight.lines
    assert "Tie at 8: Alice goes before Able (highest initial total); Able takes 7." in fight.lines


def test_the_surprise_round(fight):
    assert "Surprise round: Eckhart, Evans, Emberry, Esther." in fight.lines
    hits = [
        (e.data["combatant_id"], e.data["target"], e.data["damage"])
        for e in fight.events("surprise-attacked")
    ]
    assert hits == [
        ("eckhart", "alphonse", 9),
        ("evans", "alan", 10),
        ("emberry", "alan", 17),
        ("esther", "able", 12),
    ]
    # §4.1: 158-27=131, 72-9=63, 39-12 (the seed's 28 is a slip), 44 and 83 untouched.
    hp = {cid: hp for cid, hp in fight.hp.items() if cid != "eckhart"}
    assert hp == {
        "alan": 131,
        "alphonse": 63,
        "able": 27,
        "artichoke": 44,
        "alice": 83,
        "evans": 133,
        "emberry": 85,
        "esther": 75,
    }


def test_alan_adds_a_column_for_seven(fight):
    chosen = fight.events("columns-chosen")[0]
    assert chosen.actor["combatants"] == ["alan"]
    assert chosen.data == {"side": "allies", "modifier": 1, "columns": 7}
    dealt = fight.events("field-dealt")[0].data
    assert len(dealt["columns"]) == 7 and dealt["depth"] == 5 and dealt["source"] == "table"
    assert "The field will be 7 columns wide." in fight.lines


def test_the_enemies_surprise_cards_go_where_the_seed_put_them(fight):
    dealt = fight.after("field-dealt")
    added = [
        (e.data["combatant_id"], e.data["card"], top_cards(dealt)[e.data["column"] - 1])
        for e in fight.events("surprise-card-added")
    ]
    assert added == [
        ("evans", "QS", "9H"),
        ("eckhart", "10H", "8S"),
        ("esther", "KS", "2D"),
        ("emberry", "JS", "5H"),
    ]
    assert "Evans adds Q♠ to column 6." in fight.lines


def test_the_only_critical_chance_is_the_10_of_spades_next_to_the_10_of_diamonds(fight):
    laid = fight.after("surprise-card-added", combatant_id="emberry")
    assert criticals(laid) == {"10D-10S"}
    assert PAIR_LINE in fight.lines
    # "There are no remaining critical hit opportunities."
    assert criticals(fight.after("pair-removed", cards=["10S", "10D"])) == set()


def test_the_6s_brings_the_trio_of_hearts_into_play(fight):
    field = fight.after("cards-removed", card="6S")
    assert fight.events("cards-removed")[0].data["cards"] == ["6S"]
    trio = card_actions.remove_from_bottom(field, field.columns[0][0]).cards
    assert [card.suit for card in trio] == ["H", "H", "H"]
    assert criticals(field) == set()


def test_the_6d_creates_the_critical_with_the_two_eights(fight):
    assert criticals(fight.after("cards-removed", card="6D")) == {"8C-8S"}
    # "The 10 and King of Hearts drop down ... a vertical critical on offer with the two Kings"
    field = fight.after("pair-removed", cards=["8S", "8C"])
    assert criticals(field) == {"KC-KH"}
    assert field.find(parse_card("KC")) == (4, 1) and field.find(parse_card("KH")) == (4, 2)
    # "removing them would create still one more critical chance by emptying the column"
    field = fight.after("pair-removed", cards=["KC", "KH"])
    assert [len(column) for column in field.columns][4] == 1
    assert criticals(field) == {field.columns[4][0].text}


def test_alphonse_lands_three_criticals_on_eckhart(fight):
    started = fight.events("turn-started")[0].data
    assert (started["combatant_id"], started["bonus"], started["points"]) == ("alphonse", 8, 9)
    attacks = [e.data for e in fight.events("attack-executed")]
    assert [(a["critical"], a["registered"], a["rating"], a["damage"]) for a in attacks] == [
        (True, True, 3, 20),
        (True, True, 3, 17),
        (True, True, 3, 17),
    ]
    assert fight.hp["eckhart"] == 48
    assert "Eckhart's hp went from 65 to 48." in fight.lines
    ended = fight.events("turn-ended")[0].data
    assert (ended["combatant_id"], ended["forfeited"]) == ("alphonse", 1)


def test_the_field_is_drawn_three_times(fight):
    for when in ("after the deal", "after the surprise cards", "at the end of Alphonse's turn"):
        assert f"The field {when}:" in fight.lines
    assert "    1     2     3     4     5     6     7" in fight.lines


def test_fray_demo_fifty_two(redis_url):
    result = fray("demo", "fifty-two", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert PAIR_LINE in result.stdout
    assert "  ok    rerun: " in result.stdout
    assert "audit FAILED" not in result.stdout
