"""Node packages for the tests that build or run TypeScript (clients/typescript,
clients/table): installed with `npm ci` from the package's lock file, once for every xdist
worker, and again whenever the lock file changes."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
from pathlib import Path

import pytest


def npm_ci(package: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`package` with its node_modules as its package-lock.json says."""
    shared = tmp_path_factory.getbasetemp().parent
    installed = package / "node_modules" / ".installed-lock"
    with (shared / f"npm-ci-{package.parent.name}-{package.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted = hashlib.sha256((package / "package-lock.json").read_bytes()).hexdigest()
        if not installed.exists() or installed.read_text() != wanted:
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"], cwd=package, capture_output=True,
                text=True, timeout=300, env=dict(os.environ),
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            installed.write_text(wanted)
    return package
