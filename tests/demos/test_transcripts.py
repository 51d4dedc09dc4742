"""`fray demo <ruleset>` prints exactly the checked-in transcript.

Each transcript was written from the demos as they stood before they became `service/demos/`,
so a change to the runner that moves, drops or rewords a line fails here. Two things vary
from run to run and are pinned: the encounter id (uuid4) is replaced by `<id>` wherever it
is printed, and the seed that the server's dice come from (freeform rolls initiative with
them) is fixed, by giving the engine's `secrets.token_bytes` a constant. The other demos
roll table dice only.

After a deliberate change to a demo, rewrite its transcript with
`FRAY_WRITE_TRANSCRIPTS=1 .venv/bin/pytest tests/demos/test_transcripts.py` and read the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from service.cli import main

TRANSCRIPTS = Path(__file__).parent / "transcripts"
SEED = bytes(range(32))
RULESETS = [
    "freeform",
    "delvers-deep",
    "fifty-two",
    "d20-action-points",
    "hex-tactical",
    "combat-ii",
]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_fray_demo_prints_its_transcript(ruleset, redis_url, monkeypatch, capsys):
    monkeypatch.setenv("FRAY_REDIS_URL", redis_url)
    monkeypatch.setattr("secrets.token_bytes", lambda n: SEED[:n])
    assert main(["demo", ruleset]) == 0
    out = capsys.readouterr().out
    found = re.search(r"^encounter (\S+)$", out, flags=re.M)
    assert found is not None
    printed = out.replace(found.group(1), "<id>")
    expected = TRANSCRIPTS / f"{ruleset}.txt"
    if os.environ.get("FRAY_WRITE_TRANSCRIPTS") == "1":
        expected.write_text(printed, encoding="utf-8")
    assert printed == expected.read_text(encoding="utf-8")
