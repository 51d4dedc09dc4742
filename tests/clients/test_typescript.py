"""The TypeScript client (clients/typescript) against the whole service: one redis-server for
the store and one for the queue, `fray serve`, `fray worker`, and a spare `fray serve` (rate
limited to one command a second, and shut down by the client's tests to show a follow
surviving a deploy). The client's own suite (`npm test`: tsc, then node's test runner) gets
their URLs and the tenant key in its environment (and `fray`, whose `fray audit` its verifier
is compared with) and must exit 0. Its types are generated
from openapi/openapi.yaml and checked in; a drift test generates them again and compares.

The Node packages are installed with `npm ci` from the committed lock file, once for every
xdist worker (tests/api/test_generated_clients.py does the same for tools/typegen)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import KEY
from tests.api.process import FRAY, fray_serve_process
from tests.node import npm_ci
from tests.workers.conftest import fray_worker

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "typescript"
GENERATED = PACKAGE / "src" / "generated"


def run(*argv: str | Path, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], cwd=PACKAGE, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **env},
    )  # fmt: skip


@pytest.fixture(scope="module")
def node_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """clients/typescript's packages, from its lock file, once for every xdist worker."""
    return npm_ci(PACKAGE, tmp_path_factory)


def test_the_generated_types_are_those_of_the_openapi_document(
    node_packages: Path, tmp_path: Path
) -> None:
    """`make client-types` writes them; this fails when openapi/openapi.yaml moved on."""
    made = run("node", "scripts/generate.mjs", tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    for name in sorted(p.name for p in GENERATED.iterdir()):
        assert (tmp_path / name).read_text() == (GENERATED / name).read_text(), (
            f"clients/typescript/src/generated/{name} is stale: run `make client-types`"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in GENERATED.iterdir())


def test_the_typescript_client_suite_passes_against_the_service(
    node_packages: Path, redis_url: str, queue_url: str
) -> None:
    with (
        fray_serve_process(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as (url, _),
        fray_serve_process(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_RATE_LIMIT="1") as (
            spare,
            spare_process,
        ),
        fray_worker(redis_url, queue_url),
    ):
        done = run(
            "npm", "test", timeout=600,
            FRAY_URL=url, FRAY_KEY=KEY, FRAY_SPARE_URL=spare, FRAY_SPARE_PID=str(spare_process.pid),
            FRAY_BIN=FRAY,
        )  # fmt: skip
        print(done.stdout[-600:])  # node's summary: tests, passes, duration (pytest -s)
        assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
