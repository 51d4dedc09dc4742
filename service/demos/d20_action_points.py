"""`fray demo d20-action-points`: a party ambushes a goblin band, played from
examples/d20-action-points/encounter.json."""

from __future__ import annotations

from functools import partial

from service.demos.runner import Demo
from service.demos.scripts import examples, read_script

EXAMPLES = examples("d20-action-points")

DEMO = Demo(
    about="an ambush on a goblin band (a morale break with a parting shot, a grapple)",
    script=partial(read_script, EXAMPLES),
)
