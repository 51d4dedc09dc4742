"""`fray serve` as a real process against the suite's Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from service.embedded_redis import free_port
from tests.api.conftest import KEY, SECRET

FRAY = str(Path(sys.executable).parent / "fray")


@contextmanager
def fray_serve(redis_url: str, **env: str) -> Iterator[str]:
    """The base URL of a `fray serve` process, up and ready."""
    with fray_serve_process(redis_url, **env) as (url, _):
        yield url


@contextmanager
def fray_serve_process(
    redis_url: str, *args: str, **env: str
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A `fray serve` process (given further `args`, e.g. `--workers 2`), up and ready: its
    base URL and the process."""
    port = free_port()
    environment = {
        **os.environ,
        "FRAY_REDIS_URL": redis_url,
        "FRAY_API_KEYS": f"acme:{KEY}",
        "FRAY_TOKEN_SECRET": SECRET,
        **env,
    }
    process = subprocess.Popen(
        [FRAY, "serve", "--port", str(port), *args], env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                # Still starting after the deadline: stop it, or reading its output waits forever.
                process.kill()
                output = process.communicate(timeout=20)[0]
                raise RuntimeError(f"fray serve did not come up: {output}")
            time.sleep(0.1)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=20)
