"""The rulesets Fray runs: one literal dict of the newest versions, and the earlier versions
still decided for the streams recorded with them.

A stream records its ruleset's name and version in version 1 (`encounter-created`). New
encounters are created with the newest version (`ruleset_named`); a stored encounter is
folded and decided, live and by the auditor, with the version it was created with
(`ruleset_at`), so a stream recorded before an upgrade keeps being decided by the code it
was recorded with. docs/architecture.md, "Bumping a ruleset version", says when and how.
"""

from __future__ import annotations

from typing import Any

from service.domain.errors import FrayError
from service.domain.ruleset import RulesetBase
from service.rules import (
    combat_ii,
    d20_action_points,
    delvers_deep,
    fifty_two,
    freeform,
    hex_tactical,
)
from service.rules.combat_ii import v1_0, v1_1
from service.rules.d20_action_points import v1_0 as d20_v1_0
from service.rules.delvers_deep import v1_1 as delvers_v1_1
from service.rules.fifty_two import v1_0 as fifty_two_v1_0
from service.rules.fifty_two import v1_1 as fifty_two_v1_1
from service.rules.fifty_two import v1_2 as fifty_two_v1_2
from service.rules.freeform import v1_0 as freeform_v1_0
from service.rules.hex_tactical import v1_0 as hex_v1_0

RULESETS: dict[str, RulesetBase[Any]] = {
    freeform.RULESET.name: freeform.RULESET,
    delvers_deep.RULESET.name: delvers_deep.RULESET,
    fifty_two.RULESET.name: fifty_two.RULESET,
    d20_action_points.RULESET.name: d20_action_points.RULESET,
    hex_tactical.RULESET.name: hex_tactical.RULESET,
    combat_ii.RULESET.name: combat_ii.RULESET,
}
"""The newest version of each ruleset: what new encounters are created with."""

EARLIER: tuple[RulesetBase[Any], ...] = (
    v1_0.RULESET_1_0,
    v1_1.RULESET_1_1,
    fifty_two_v1_0.RULESET_1_0,
    fifty_two_v1_1.RULESET_1_1,
    fifty_two_v1_2.RULESET_1_2,
    freeform_v1_0.RULESET_1_0,
    d20_v1_0.RULESET_1_0,
    delvers_v1_1.RULESET_1_1,
    hex_v1_0.RULESET_1_0,
)
"""Earlier versions kept registered, each the ruleset as it decided before a bump (an
instance of a class beside the ruleset that keeps the old decision), so streams recorded
with them still fold, decide and audit the same way (tests/fixtures/streams/older/ holds
the proof): combat-ii 1.0.0 (`attack-rolled.sf` 0 for the movement portion's blows, a
weapon's `damage-rolled.text` without its faces); fifty-two 1.0.0 (every shield's score
counted as magic); and the versions before issue 27's straight-line tie-break, whose moves
took the first of equally cheap paths their search found: combat-ii 1.1.0, fifty-two
1.1.0, freeform 1.0.0, d20-action-points 1.0.0, delvers-deep 1.1.0, hex-tactical 1.0.0."""

VERSIONS: dict[tuple[str, str], RulesetBase[Any]] = {
    (r.name, r.version): r for r in (*EARLIER, *RULESETS.values())
}


class RulesetUnavailable(FrayError):
    """A stored encounter's ruleset version that this Fray does not run: the stream is
    intact, but deciding it with other code could decide it differently."""

    code = "encounter/ruleset-unavailable"


def ruleset_named(name: str, code: str = "encounter/unknown-ruleset") -> RulesetBase[Any]:
    """The newest version of the ruleset `name`: what a new encounter is created with. An
    unknown name is an error with `code` (creating an encounter: a bad body's field)."""
    found = RULESETS.get(name)
    if found is None:
        valid = ", ".join(sorted(RULESETS))
        raise FrayError(
            f"unknown ruleset '{name}'; Fray runs: {valid}",
            code=code,
            details={"valid": sorted(RULESETS)},
        )
    return found


def ruleset_at(name: str, version: str) -> RulesetBase[Any]:
    """The ruleset `name` as it was at `version`: what a stream recorded with that version
    is folded and decided with."""
    found = VERSIONS.get((name, version))
    if found is None:
        available = versions_of(name)
        raise RulesetUnavailable(
            f"ruleset {name} {version} is not available"
            + (f"; this Fray runs {name} {', '.join(available)}" if available else ""),
            details={"ruleset": name, "version": version, "available": available},
        )
    return found


def versions_of(name: str) -> list[str]:
    """The registered versions of the ruleset `name`, oldest first (the last is the newest);
    none for a ruleset Fray does not run."""
    return sorted((v for n, v in VERSIONS if n == name), key=version_key)


def version_key(version: str) -> tuple[int, ...]:
    """`"1.10.0"` after `"1.9.2"`: versions compare by their numbers."""
    return tuple(int(part) for part in version.split("."))
