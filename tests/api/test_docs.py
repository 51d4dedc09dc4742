"""Every example of docs/api.md, curl and GraphQL (Python with `gql`), run in order against
a real `fray serve`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from tests.api.conftest import KEY
from tests.api.process import fray_serve

DOC = Path(__file__).parents[2] / "docs" / "api.md"


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def runnable_blocks() -> list[tuple[str, str]]:
    """Every bash and python block, in the guide's order, as (language, code)."""
    return re.findall(r"```(bash|python)\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def as_bash(language: str, code: str) -> str:
    if language == "bash":
        return code
    # A python example reads the shell's variables from the environment (`set -a`).
    return f"\"$PYTHON\" - <<'PYTHON_EXAMPLE'\n{code}PYTHON_EXAMPLE\n"


def test_the_guide_has_curl_examples_for_every_topic() -> None:
    script = "\n".join(bash_blocks())
    for route in ("/v1/encounters\"", "/tokens", "/commands", "/events", "follow=true",
                  "/stream-tickets", "ticket=$TICKET", "/v1/rulesets/combat-ii",
                  "/seed", "/export", "/audit", "/legal-actions", "/v1/rulesets",
                  "/v1/keys", "/v1/encounters?", "-X DELETE", "/v1/webhooks"):  # fmt: skip
        assert route in script, route


def test_the_guide_has_graphql_examples_for_queries_mutations_and_subscriptions() -> None:
    python = "\n".join(code for language, code in runnable_blocks() if language == "python")
    for needed in ("query Encounter", "submitCommand", "CommandRejected", "__typename",
                   "subscription Events", "encounterEvents", "GRAPHQLWS_SUBPROTOCOL",
                   "init_payload"):  # fmt: skip
        assert needed in python, needed
    assert "/graphql" in "\n".join(bash_blocks())


def test_every_example_runs_against_fray_serve(redis_url: str) -> None:
    runnable = runnable_blocks()
    blocks = [code for _, code in runnable]
    marker = "=====BLOCK====="
    script = "set -euo pipefail\nset -a\n" + "\n".join(
        f"echo {marker}\n{as_bash(language, code)}\necho" for language, code in runnable
    )
    with fray_serve(redis_url) as url:
        env = {
            **os.environ,
            "FRAY": url,
            "KEY": KEY,
            "ENC": f"doc-{uuid.uuid4().hex[:8]}",
            "PYTHON": sys.executable,
        }
        result = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60
        )
    assert result.returncode == 0, result.stderr
    outputs = result.stdout.split(marker)[1:]
    assert len(outputs) == len(blocks)
    refused = ("internal", "auth/forbidden", "auth/missing", "auth/invalid-token", "auth/expired",
               "auth/invalid-ticket")  # fmt: skip
    for block, output in zip(blocks, outputs, strict=True):
        assert output.strip() or re.fullmatch(r"[A-Z]+=\$\(.*\)\s*", block, re.DOTALL), block
        assert not [code for code in refused if f'"{code}"' in output], (block, output)
    joined = "".join(outputs)
    assert '"duplicate":true' in joined
    assert '"alg":"Ed25519"' in joined and "verifies with key" in joined
    assert '"code":"encounter/version-conflict"' in joined
    assert '"status":"archived"' in joined and '"code":"encounter/archived"' in joined
    assert "id: " in joined and "event: " in joined
    assert '"secret":"whsec_' in joined and "a signed delivery verifies" in joined
    assert "\n422\n" in joined  # a private webhook URL, without FRAY_WEBHOOK_ALLOW_PRIVATE
    # Whose turn it is depends on the dice: either way the rules refuse it.
    assert '"code":"turn/not-your-turn"' in joined or '"auth/not-your-combatant"' in joined
    graphql = [out for (_, code), out in zip(runnable, outputs, strict=True) if "graphql" in code]
    assert len(graphql) == 3
    curl, commands, subscription = graphql
    assert '"data":{"encounter":{"version":' in curl and '"errors"' not in curl
    assert "accepted: now at version" in commands
    assert "rejected: encounter/version-conflict" in commands
    # The player's subscription: the whole history from version 1, in order.
    versions = [int(line.split()[0]) for line in subscription.split("\n") if line.strip()]
    assert versions[:2] == [1, 2] and versions == sorted(set(versions))
    assert "1 encounter-created" in subscription
