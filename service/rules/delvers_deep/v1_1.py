"""delvers-deep as it decided at 1.1.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, a `move` to a
cell and `move-token` took the first the search found, which could zig-zag ((5,4) to (9,4)
on a Chebyshev map by (7,2)); 1.2.0 takes the one nearest the straight line
(service.domain.straight_paths). No earlier version is registered: 1.0.0 was raised to
1.1.0 a week before Fray kept versions (docs/rules/delvers-deep.md, "Versions")."""

from __future__ import annotations

from service.rules.delvers_deep import DelversDeep


class DelversDeepV1_1(DelversDeep):
    version = "1.1.0"
    straight_paths = False


RULESET_1_1 = DelversDeepV1_1()
