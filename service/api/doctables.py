"""The tables of docs/api.md that are derived from code, and the check that they are.

A derived table sits between `<!-- BEGIN generated: NAME -->` and `<!-- END generated:
NAME -->`. `python -m service.api.doctables` (`make docs`) rewrites them;
tests/api/test_docs.py fails when one has drifted.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.api import catalogue
from service.api.shapes import described_fields
from service.domain.envelope import Envelope

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
_JSON_TYPES = {int: "integer", str: "string", dict: "object", list: "array"}


def _json_type(kind: Any) -> str:
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if type(None) in typing.get_args(kind):
        return f"{_json_type(args[0])} or null"
    return _JSON_TYPES[typing.get_origin(kind) or kind]


def envelope() -> str:
    """The fields of an event envelope."""
    lines = ["| Field | Type | What |", "|---|---|---|"]
    optional = {f.name for f in dataclasses.fields(Envelope) if f.default is None}
    for name, kind, info in described_fields(Envelope):
        shape = _json_type(kind)
        if name in optional:
            shape = f"{_json_type(typing.get_args(kind)[0])}, optional"
        lines.append(f"| `{name}` | {shape} | {info.description} |")
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[], str]] = {"errors": catalogue.markdown, "envelope": envelope}
_REGION = re.compile(
    r"(<!-- BEGIN generated: (?P<name>[a-z-]+) [^\n]*-->\n)(?P<body>.*?)(<!-- END generated: "
    r"(?P=name) -->)",
    re.DOTALL,
)


def rendered(text: str) -> str:
    """`text` with every derived table rendered afresh."""
    return substituted(text, lambda name: TABLES[name]())


def substituted(text: str, render: Callable[[str], str]) -> str:
    """`text` with each derived table replaced by `render(its name)`."""
    return _REGION.sub(lambda m: m[1] + render(m["name"]) + m[4], text)


def regions(text: str) -> dict[str, str]:
    """Each derived table of `text`, by name, as it stands."""
    return {m["name"]: m["body"] for m in _REGION.finditer(text)}


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else GUIDE
    text = path.read_text()
    path.write_text(rendered(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
