"""docs/rules/fifty-two.md's short turn (Alphonse's first three actions of §5.4, then
`end-turn`) is machine-checkable: its request bodies are played after the demo's opening and
the events the page shows are the ones the service stores (issue 27: the page said
`forfeited: 5` where the service, correctly, says 6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.demos.fifty_two import DEMO
from service.demos.runner import Demo, Script, Step, play
from service.domain.envelope import Envelope
from tests.engine_helpers import run

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules" / "fifty-two.md"


def json_block_after(text: str, heading: str) -> list[dict[str, Any]]:
    """The JSON values of the first ```json block after the line starting with `heading`."""
    start = text.index("```json\n", text.index(heading)) + len("```json\n")
    body = text[start : text.index("```", start)]
    decoder, values, at = json.JSONDecoder(), [], 0
    while body[at:].strip():
        at += len(body[at:]) - len(body[at:].lstrip())
        value, at = decoder.raw_decode(body, at)
        values.append(value)
    return values


def matches(shown: Any, stored: Any) -> bool:
    """`shown` is `stored`, where the page's `["..."]` stands for any list."""
    if shown == ["..."]:
        return isinstance(stored, list)
    if isinstance(shown, dict):
        return (
            isinstance(stored, dict)
            and shown.keys() == stored.keys()
            and all(matches(v, stored[k]) for k, v in shown.items())
        )
    return bool(shown == stored)


def test_the_short_alphonse_turn_on_the_rules_page_is_what_the_service_answers() -> None:
    text = PAGE.read_text()
    requests = json_block_after(text, "A short turn: Alphonse's first three actions")
    shown = json_block_after(text, "and the events it produces")
    opening = DEMO.script()
    first_turn = next(i for i, s in enumerate(opening.steps) if s.actor == "alphonse")
    steps = [
        *opening.steps[:first_turn],
        *(Step(r["command"], actor="alphonse", dice=r.get("dice")) for r in requests),
    ]
    demo = Demo(about="", script=lambda: Script("fifty-two", "", steps, opening.options))

    async def scenario(engine: Any) -> list[Envelope]:
        played = await play(engine, demo)
        return [Envelope.from_body(s.body) for s in await engine.store.read(played.encounter_id)]

    stream = run(scenario)
    ours = next(i for i, e in enumerate(stream) if e.command_id == f"step-{first_turn + 1}")
    begun = max(
        i
        for i, e in enumerate(stream[:ours])
        if e.type == "turn-started" and e.data["combatant_id"] == "alphonse"
    )  # the page opens with the turn-started that the opening's last command produced
    stored = [{"type": e.type, **e.data} for e in stream[begun:]]

    assert len(stored) == len(shown), [s["type"] for s in stored]
    for page, service in zip(shown, stored, strict=True):
        assert matches(page, service), (page, service)
