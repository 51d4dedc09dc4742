"""A built wheel plays every demo: Fray installed from its wheel, away from the source tree,
reads the examples from its own package data. It holds GraphiQL's page and vendored assets
too, with their licences, and the table view's page and built assets.

The wheel is built from a copy of the files it is made of, so the build leaves nothing in the
working tree, and the copy is deleted before any demo runs. The wheel goes into a fresh venv
with `--no-deps`; its dependencies come from this venv's site-packages, named in a `.pth`
file. A path in a `.pth` file is only added to `sys.path` (the `.pth` files inside it are
not run), so this venv's editable install of Fray, which points at the source tree, stays
out: `service` can only be the installed wheel's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from service.api import graphiql, table
from service.cli import DEMOS

ROOT = Path(__file__).resolve().parents[2]
WHEEL_SOURCES = ("pyproject.toml", "README.md", "service", "workers")
PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
# Where the venv's Python finds the demos, and everywhere it looks.
FOUND = "import json, sys, service.demos; print(json.dumps([service.demos.__file__, sys.path]))"
# GraphiQL's assets (their digests) and page as the installed wheel serves them, and the
# files beside the vendored ones.
GRAPHIQL = """import json
from service.api import graphiql
print(json.dumps({
    "assets": {key: asset.digest for key, asset in graphiql.assets().items()},
    "page": graphiql.page("/graphql/assets"),
    "vendor": sorted(path.name for path in (graphiql.STATIC / "vendor").iterdir()),
}))"""
# The table view's page and assets as the installed wheel serves them.
TABLE = """import json
from service.api import table
print(json.dumps({
    "assets": {key: asset.digest for key, asset in table.assets().items()},
    "page": table.page(),
}))"""
VENDORED = {
    "graphiql.min.js", "graphiql.min.css", "react.production.min.js",
    "react-dom.production.min.js", "LICENSE.graphiql", "LICENSE.react", "LICENSE.react-dom",
    "THIRD-PARTY-NOTICES.txt", "README.md",
}  # fmt: skip


def test_an_installed_wheel_plays_every_demo(tmp_path, redis_url):
    source, dist, venv, cwd = (tmp_path / d for d in ("source", "dist", "venv", "elsewhere"))
    _copy_sources(source)
    _pip("wheel", "--no-deps", "--quiet", "-w", str(dist), str(source))
    shutil.rmtree(source)
    (wheel,) = dist.glob("fray-*.whl")

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _pip("--python", str(python), "install", "--no-deps", "--no-index", "--quiet", str(wheel))
    site = Path(_run(python, "-c", PURELIB).strip())
    (site / "fray-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    cwd.mkdir()
    module, path = json.loads(_run(python, "-c", FOUND))
    assert Path(module).is_relative_to(site), module
    assert str(ROOT) not in path, path
    installed = json.loads(_run(python, "-c", GRAPHIQL))
    assert installed["assets"] == {key: asset.digest for key, asset in graphiql.assets().items()}
    assert installed["page"] == graphiql.page("/graphql/assets")
    assert set(installed["vendor"]) >= VENDORED, installed["vendor"]
    served = json.loads(_run(python, "-c", TABLE))
    assert served["assets"] == {key: asset.digest for key, asset in table.assets().items()}
    assert served["page"] == table.page()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"FRAY_REDIS_URL": redis_url}
    # The demos are independent (each its own encounter), so they run side by side.
    fray = [str(venv / "bin" / "fray"), "demo"]
    running = {name: _start([*fray, name], cwd, env) for name in DEMOS}
    try:
        for name, process in running.items():
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, f"fray demo {name}: {out}{err}"
            assert "  ok    rerun: " in out and "audit FAILED" not in out, out
    finally:
        for process in running.values():
            process.kill()
            process.communicate()


def _start(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _copy_sources(to: Path) -> None:
    to.mkdir()
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, to / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, to / name)


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True, capture_output=True)


def _run(python: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(python), *args], check=True, capture_output=True, text=True, env=env,
        cwd=python.parent,
    ).stdout  # fmt: skip
