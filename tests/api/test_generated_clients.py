"""Clients generated from openapi/openapi.yaml type the commands: openapi-typescript's types
let tsc pass a correct command and refuse a misspelt field, a wrong type or an unknown
command type; openapi-python-client's models build a correct command, which the real app
accepts, and refuse a misspelt field. The Node tools are tools/typegen's (`npm ci`, which
`make unit` runs first)."""

from __future__ import annotations

import fcntl
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.api.conftest import Api

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi" / "openapi.yaml"
TYPEGEN = ROOT / "tools" / "typegen"
NODE_BIN = TYPEGEN / "node_modules" / ".bin"
PACKAGE = "fray_generated_client"


def run(*argv: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def node_tools(shared: Path) -> None:
    """tools/typegen installed from its lockfile, once for every xdist worker."""
    with (shared / "npm-ci.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (NODE_BIN / "tsc").exists() or not (NODE_BIN / "openapi-typescript").exists():
            done = run("npm", "ci", "--no-audit", "--no-fund", cwd=TYPEGEN)
            assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def typescript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with fray.d.ts, generated as docs/api.md says."""
    node_tools(tmp_path_factory.getbasetemp().parent)
    directory = tmp_path_factory.mktemp("typescript")
    made = run(
        NODE_BIN / "openapi-typescript",
        SPEC,
        "--default-non-nullable=false",
        "-o",
        directory / "fray.d.ts",
    )
    assert made.returncode == 0, made.stderr
    return directory


def tsc(directory: Path, name: str, body: str) -> subprocess.CompletedProcess[str]:
    source = directory / f"{name}.ts"
    source.write_text(
        'import type { components } from "./fray";\n'
        'type S = components["schemas"];\n'
        "export {};\n" + body
    )
    return run(NODE_BIN / "tsc", "--noEmit", "--strict", "--target", "es2022", source)


CORRECT = """
const roll: S["CommandRequest"] = {
  command_id: "bob-roll-1",
  command: { type: "roll", expression: "1d20+3" },
};
const attack: S["CombatIiCommand"] = {
  type: "attack",
  combatant_id: "archer",
  targets: ["orc"],
  step: [1, 2],
};
const move: S["Command"] = { type: "move-token", combatant_id: "orc", to: { x: 3, y: 4 } };
const swing: S["DelversDeepCommand"] = {
  type: "attack",
  combatant_id: "bramli",
  weapon: "axe",
  target: "goblin",
};
"""


def test_a_typescript_client_compiles_correct_commands(typescript: Path) -> None:
    checked = tsc(typescript, "correct", CORRECT)

    assert checked.returncode == 0, checked.stdout


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        pytest.param(
            'const r: S["CommandRequest"] = { command: { type: "roll", expresion: "1d20" } };',
            "'expresion' does not exist",
            id="misspelt field",
        ),
        pytest.param(
            'const r: S["CommandRequest"] = { command: { type: "roll", expression: 20 } };',
            "is not assignable",
            id="number for a string",
        ),
        pytest.param(
            'const r: S["CommandRequest"] = { command: { type: "fly", expression: "1d20" } };',
            '"fly"',
            id="unknown command type",
        ),
        pytest.param(
            'const a: S["CombatIiCommand"] = { type: "attack", combatant_id: "a", targets: [], '
            'target: "b" };',
            "'target' does not exist",
            id="another ruleset's field",
        ),
    ],
)
def test_a_typescript_client_refuses_a_wrong_command(
    typescript: Path, body: str, complaint: str
) -> None:
    checked = tsc(typescript, "wrong", body)

    assert checked.returncode != 0
    assert complaint in checked.stdout, checked.stdout


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates, imported."""
    directory = tmp_path_factory.mktemp("python")
    generator = Path(sys.executable).parent / "openapi-python-client"
    made = run(
        generator,
        "generate",
        "--path",
        SPEC,
        "--output-path",
        directory / PACKAGE,
        "--meta",
        "none",
    )
    assert made.returncode == 0, made.stdout + made.stderr
    # Every schema made it into the client (the export's NDJSON is the one thing it skips).
    for dropped in ("Unable to parse", "Unable to process", "Failure to process"):
        assert dropped not in made.stdout, made.stdout
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(directory))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def models(client: ModuleType) -> Any:
    return importlib.import_module(f"{client.__name__}.models")


async def test_a_python_client_sends_a_typed_command_the_app_accepts(
    api: Api, python_client: ModuleType
) -> None:
    gm = await api.skirmish("generated-python")
    m = models(python_client)
    submit = importlib.import_module(f"{python_client.__name__}.api.commands.submit_command")
    client = python_client.AuthenticatedClient(
        base_url="http://fray",
        token=gm,
        httpx_args={"transport": httpx.ASGITransport(app=api.client.app)},  # type: ignore[attr-defined]
    )
    body = m.CommandRequest(command_id="typed-1", command=m.Roll(expression="1d20+3"))

    response = await submit.asyncio_detailed("generated-python", client=client, body=body)

    assert response.status_code == 201, response.content
    assert isinstance(response.parsed, m.CommandAccepted)
    assert [e.type_ for e in response.parsed.events] == ["dice-rolled"]


def test_a_python_client_refuses_a_misspelt_field(python_client: ModuleType) -> None:
    m = models(python_client)
    assert m.Roll(expression="1d20").to_dict() == {
        "type": "roll",
        "expression": "1d20",
        "purpose": "roll",  # the defaults, filled in
        "hidden": False,
    }

    with pytest.raises(TypeError, match="expresion"):
        m.Roll(expresion="1d20")
    with pytest.raises(TypeError, match="'target'"):
        m.CombatIiAttack(combatant_id="archer", targets=["orc"], target="orc")


def test_a_python_client_has_each_rulesets_own_command_model(python_client: ModuleType) -> None:
    m = models(python_client)
    combat = m.CombatIiAttack(combatant_id="archer", targets=["orc"], step=[1, 2]).to_dict()
    delvers = m.DelversDeepAttack(combatant_id="bramli", weapon="axe", target="goblin").to_dict()

    assert combat == {
        "type": "attack",
        "combatant_id": "archer",
        "targets": ["orc"],
        "twice": False,
        "step": [1, 2],
    }
    assert delvers == {
        "type": "attack",
        "combatant_id": "bramli",
        "weapon": "axe",
        "target": "goblin",
        "extra": 0,
    }
