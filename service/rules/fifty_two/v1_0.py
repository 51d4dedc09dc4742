"""fifty-two as it decided at 1.0.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): every shield's score counted towards
the defender's magic (§5.3.2), enchanted or not. 1.1.0 counts an unenchanted shield's only
with the option `shield_magic: "always"`, which is 1.0.0's reading and its only one. Its
paths are 1.1.0's (`v1_1.py`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.rules.fifty_two.state import FiftyTwoOptions, FiftyTwoState
from service.rules.fifty_two.v1_1 import FiftyTwoV1_1


class FiftyTwoOptionsV1_0(FiftyTwoOptions):
    shield_magic: Literal["if-enchanted", "always"] = Field(
        default="always", description="§5.3.2: 1.0.0 counted every shield's score as magic."
    )


class FiftyTwoStateV1_0(FiftyTwoState):
    # A snapshot taken by 1.0.0 holds options without `shield_magic`: read with 1.0.0's.
    options: FiftyTwoOptionsV1_0


class FiftyTwoV1_0(FiftyTwoV1_1):
    version = "1.0.0"
    options_model = FiftyTwoOptionsV1_0
    state_model = FiftyTwoStateV1_0


RULESET_1_0 = FiftyTwoV1_0()
