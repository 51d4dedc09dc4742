"""Every curl example of docs/api.md, run in order against a real `fray serve`."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

from tests.api.conftest import KEY
from tests.api.process import fray_serve

DOC = Path(__file__).parents[2] / "docs" / "api.md"


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_guide_has_curl_examples_for_every_topic() -> None:
    script = "\n".join(bash_blocks())
    for route in ("/v1/encounters\"", "/tokens", "/commands", "/events", "follow=true",
                  "/seed", "/export", "/legal-actions", "/v1/rulesets"):  # fmt: skip
        assert route in script, route


def test_every_curl_example_runs_against_fray_serve(redis_url: str) -> None:
    blocks = bash_blocks()
    marker = "=====BLOCK====="
    script = "set -euo pipefail\n" + "\n".join(f"echo {marker}\n{b}\necho" for b in blocks)
    with fray_serve(redis_url) as url:
        env = {**os.environ, "FRAY": url, "KEY": KEY, "ENC": f"doc-{uuid.uuid4().hex[:8]}"}
        result = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60
        )
    assert result.returncode == 0, result.stderr
    outputs = result.stdout.split(marker)[1:]
    assert len(outputs) == len(blocks)
    refused = ("internal", "auth/forbidden", "auth/missing", "auth/invalid-token", "auth/expired")
    for block, output in zip(blocks, outputs, strict=True):
        assert output.strip() or re.fullmatch(r"[A-Z]+=\$\(.*\)\s*", block, re.DOTALL), block
        assert not [code for code in refused if f'"{code}"' in output], (block, output)
    joined = "".join(outputs)
    assert '"duplicate":true' in joined
    assert '"code":"encounter/version-conflict"' in joined
    assert "id: " in joined and "event: " in joined
    # Whose turn it is depends on the dice: either way the rules refuse it.
    assert '"code":"turn/not-your-turn"' in joined or '"auth/not-your-combatant"' in joined
