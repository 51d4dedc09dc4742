"""hex-tactical as it decided at 1.0.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, a `move`
without a `path` took the first in reading order of its search and `move-token` the first
its search found, either of which could zig-zag; 1.1.0 takes the one nearest the straight
line (service.domain.straight_paths)."""

from __future__ import annotations

from service.rules.hex_tactical import HexTactical


class HexTacticalV1_0(HexTactical):
    version = "1.0.0"
    straight_paths = False


RULESET_1_0 = HexTacticalV1_0()
