"""freeform as it decided at 1.0.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, `move-token`
took the first its search found, which could zig-zag ((5,4) to (9,4) on a Chebyshev map by
(7,2)); 1.1.0 takes the one nearest the straight line (service.domain.straight_paths)."""

from __future__ import annotations

from service.rules.freeform import Freeform


class FreeformV1_0(Freeform):
    version = "1.0.0"
    straight_paths = False


RULESET_1_0 = FreeformV1_0()
