"""The event log as sentences in GraphQL (`Encounter.narration`: REST's `listNarration`)."""

from __future__ import annotations

from typing import Any

import strawberry


@strawberry.type(
    description="One event told as a sentence, as you may see it: no sentence names what you "
    "may not see (an enemy's health, a hidden note)."
)
class NarrationLine:
    version: int = strawberry.field(description="The event's version.")
    type: str = strawberry.field(description="The event's type, e.g. `attack-rolled`.")
    at: str = strawberry.field(description="When it was recorded: the event's `at`.")
    text: str = strawberry.field(
        description="The ruleset's sentence, with combatants named as the encounter names "
        "them now (a combatant removed since is named by its id)."
    )

    @classmethod
    def of(cls, line: dict[str, Any]) -> NarrationLine:
        return cls(version=line["version"], type=line["type"], at=line["at"], text=line["text"])


@strawberry.type
class NarrationEdge:
    cursor: str = strawberry.field(
        description="The event's version, as a string; pass it as `after` to resume."
    )
    node: NarrationLine
