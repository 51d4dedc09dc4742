"""The event log as sentences: each event a viewer may see, told as its ruleset tells it.

A line is narrated from the event as the viewer gets it (redacted, `service.app.views`), so
a sentence never says what the event's data did not: a player who may not see an enemy's
health reads "hits" where the GM reads "hits for 7". Combatants are named as the encounter
names them now (its current state, which the page's redaction reads anyway): one load per
page, not a replay to each event's version; a combatant removed since is named by its id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.deciding import Loaded
from service.domain.narration import namer


@dataclass(frozen=True)
class NarrationPage:
    lines: list[dict[str, Any]]  # {version, type, at, text}: one per event the viewer sees
    last: int  # the last version read (a cursor: pass it as `after` for the next page)
    head: int  # the version the page was read up to

    @property
    def has_more(self) -> bool:
        return self.last < self.head


def narrated(loaded: Loaded, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per event of `seen` (envelopes as the viewer may see them)."""
    names = namer(loaded.state.table.combatants)
    narrate = loaded.ruleset.narrate
    return [
        {
            "version": e["version"],
            "type": e["type"],
            "at": e["at"],
            "text": narrate(e["type"], e["data"], names),
        }
        for e in seen
    ]
