"""fifty-two as it decided at 1.1.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, `move-token`
(52 itself has no map, but the shared commands place and move tokens) took the first its
search found, which could zig-zag; 1.2.0 takes the one nearest the straight line
(service.domain.straight_paths). Its Reflex saves are 1.2.0's (`v1_2.py`)."""

from __future__ import annotations

from service.rules.fifty_two.v1_2 import FiftyTwoV1_2


class FiftyTwoV1_1(FiftyTwoV1_2):
    version = "1.1.0"
    straight_paths = False


RULESET_1_1 = FiftyTwoV1_1()
