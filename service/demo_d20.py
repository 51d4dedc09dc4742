"""`fray demo d20-action-points`: the scripted fight of examples/d20-action-points/ through
the real pipeline, narrated event by event.

The script has the same shape as Delver's Deep's (service/demo_delvers.py), whose runner
plays it: `encounter.json` names its ruleset, the stat-block files to add and the steps to
play, each `{actor, command, dice?, note?}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.demo_delvers import Script, StepRefused, run_delvers_demo
from service.demo_delvers import load_script as _load_script
from service.engine import Engine

EXAMPLES = Path(__file__).resolve().parent / "demos" / "examples" / "d20-action-points"

__all__ = ["EXAMPLES", "StepRefused", "load_script", "run_d20_demo"]


def load_script(directory: Path = EXAMPLES) -> tuple[Script, list[dict[str, Any]]]:
    """The script and the `add-combatant` commands for its combatants, in order."""
    return _load_script(directory)


async def run_d20_demo(
    engine: Engine, directory: Path = EXAMPLES, encounter_id: str | None = None
) -> tuple[str, list[str]]:
    """Play the script; return the encounter id and one narration line per event."""
    return await run_delvers_demo(engine, directory, encounter_id)
