"""fifty-two as it decided at 1.2.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): while a spell waited for a Reflex save
(§8), the caster's decision clock (§4.5) ran on, so the caster's turn could time out while
the defender decided; and once the spell had landed the clock was not started afresh. 1.3.0
stops the clock while the spell waits and starts it afresh for the caster once it lands
(`FiftyTwoState.saves_hold_clock`)."""

from __future__ import annotations

from service.rules.fifty_two import FiftyTwo


class FiftyTwoV1_2(FiftyTwo):
    version = "1.2.0"
    saves_hold_clock = False


RULESET_1_2 = FiftyTwoV1_2()
