"""`fray demo delvers-deep`: the seed's five heroes against a troll, two orcs and a ghost,
played from examples/delvers-deep/encounter.json."""

from __future__ import annotations

from functools import partial

from service.demos.runner import Demo
from service.demos.scripts import examples, read_script

EXAMPLES = examples("delvers-deep")

DEMO = Demo(
    about="the seed's heroes against a troll, orcs and a ghost",
    script=partial(read_script, EXAMPLES),
)
