"""The OpenAPI components that type the command envelope: each ruleset's commands.

A command is validated by its encounter's ruleset, which the body does not name (the URL's
encounter does), and the same `type` means different commands in different rulesets
(`attack` in delvers-deep and in combat-ii), so no one discriminator can pick a command
over every ruleset. The document has instead, per ruleset, a union discriminated by `type`
(`CombatIiCommand`: a `oneOf` of that ruleset's commands with `discriminator: type`), and
`Command` is an `anyOf` of those unions: a command valid in several rulesets (every
ruleset's `roll`) matches several members, which `oneOf` would refuse. Generated clients
read both as a union of the per-ruleset unions.

The models are the ruleset's (`service.domain.schemas`). The commands every ruleset shares
(`service.domain.common`) and the shapes they use keep their names (`Roll`, `Cell`); a
ruleset's own are prefixed with the ruleset's name as GraphQL's inputs are
(`CombatIiAttack`), so two rulesets' `Attack` never meet and adding a ruleset never renames
a component.
"""

from __future__ import annotations

from typing import Any

from service.domain.common import COMMON_COMMANDS
from service.domain.ruleset import RulesetBase
from service.domain.schemas import LOCAL_REF, union_schema

LOCAL = LOCAL_REF.split("{model}")[0]


def pascal(name: str) -> str:
    """`combat-ii` -> `CombatIi`: a ruleset's prefix (GraphQL's, too)."""
    return "".join(part.capitalize() for part in name.split("-"))


def _rewritten(node: Any, target: dict[str, str]) -> Any:
    """`node` with each local `$ref` (and each discriminator mapping) pointing at `target`."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(LOCAL):
                out[key] = target[value.removeprefix(LOCAL)]
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {kind: target[ref.removeprefix(LOCAL)] for kind, ref in value.items()}
            else:
                out[key] = _rewritten(value, target)
        return out
    if isinstance(node, list):
        return [_rewritten(item, target) for item in node]
    return node


def _shared(others: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """The shared commands' shapes: each one's component name and schema. A shape that
    reads differently on input than the document's other components show it on output
    (`Cell` also takes `[x, y]`) is `<name>Input`, as pydantic names such pairs."""
    out = {}
    for name, body in union_schema(COMMON_COMMANDS, "validation")["$defs"].items():
        out[name] = (name if others.get(name, body) == body else f"{name}Input", body)
    return out


def command_components(
    rulesets: list[RulesetBase[Any]], ref: str, others: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The components that type commands (`ref` formats a component's `$ref`; `others` are
    the document's other components), and the `Command` schema: the `anyOf` of every
    ruleset's union."""
    shared = _shared(others)
    components: dict[str, Any] = {}
    unions = []
    for ruleset in rulesets:
        schema = union_schema(ruleset.command_models.values(), "validation")
        prefix = pascal(ruleset.name)
        names = {
            name: shared[name][0] if shared.get(name, ("", None))[1] == body else prefix + name
            for name, body in schema["$defs"].items()
        }
        target = {name: ref.format(model=renamed) for name, renamed in names.items()}
        for name, body in schema["$defs"].items():
            renamed = names[name]
            # Generators name a model by its title: two rulesets' `Attack` would meet.
            rewritten = {**_rewritten(body, target), "title": renamed}
            assert components.setdefault(renamed, rewritten) == rewritten, renamed
        union_name = f"{prefix}Command"
        assert union_name not in components, union_name
        components[union_name] = {
            "title": union_name,
            "description": f"A command of the {ruleset.name} ruleset ({ruleset.title}).",
            "oneOf": _rewritten(schema["oneOf"], target),
            "discriminator": _rewritten(schema["discriminator"], target),
        }
        unions.append({"$ref": ref.format(model=union_name)})
    command = {
        "title": "Command",
        "description": "A command of the encounter's ruleset: one of the rulesets' unions, "
        "each discriminated by `type` (GET /v1/rulesets/{name} and schema/<name>/commands.json "
        "have each ruleset's alone). A command valid in several rulesets matches several.",
        "anyOf": unions,
    }
    return dict(sorted(components.items())), command
