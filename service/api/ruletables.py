"""The tables of docs/rules/<ruleset>.md that are derived from the models: every field of the
options, the stat block and the ruleset's own commands, with its type, default and bounds.

A derived table sits between `<!-- BEGIN generated: NAME -->` and `<!-- END generated:
NAME -->`, as in docs/api.md (service.api.doctables). `python -m service.api.ruletables`
(`make docs`) rewrites them; tests/api/test_rule_tables.py fails when one has drifted, so a
bound changed in a model (`rest.minutes` up to 1440) is on the page.
"""

from __future__ import annotations

import json
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo

from service.api.doctables import regions, substituted
from service.domain.ruleset import RulesetBase
from service.rules.registry import RULESETS

PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"
Schema = dict[str, Any]
Row = tuple[str, str, str, str]
"""A field's (path, type, default, bounds)."""


def page_of(name: str) -> Path:
    return PAGES / f"{name}.md"


def _resolved(schema: Schema, defs: Schema) -> Schema:
    ref = schema.get("$ref")
    return _resolved(defs[ref.rsplit("/", 1)[-1]], defs) if ref else schema


def _variants(schema: Schema, defs: Schema) -> list[Schema]:
    """The non-null alternatives of a field's schema, resolved."""
    if not isinstance(schema, dict):
        return []  # `additionalProperties: false`
    options = schema.get("anyOf") or schema.get("oneOf") or [schema]
    return [_resolved(o, defs) for o in options if o.get("type") != "null"]


def _named(variant: Schema) -> bool:
    """A shared shape with several spellings (a Cell: `{x, y}` or `[x, y]`): named, not
    taken apart."""
    return "title" in variant and ("anyOf" in variant or "oneOf" in variant)


def _nullable(schema: Schema) -> bool:
    if not isinstance(schema, dict):
        return False
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return any(o.get("type") == "null" for o in options)


def _type(schema: Schema, defs: Schema) -> str:
    names = []
    for variant in _variants(schema, defs):
        if _named(variant):
            names.append(variant["title"])
        elif "const" in variant:
            names.append(json.dumps(variant["const"]))
        elif "enum" in variant:
            names.append(" \\| ".join(json.dumps(v) for v in variant["enum"]))
        elif variant.get("type") == "array" and "prefixItems" in variant:
            names.append(f"[{', '.join(_type(i, defs) for i in variant['prefixItems'])}]")
        elif variant.get("type") == "array":
            names.append(f"list of {_type(variant.get('items', {}), defs)}")
        elif variant.get("type") == "object" and "properties" in variant:
            names.append(variant.get("title", "object"))
        elif variant.get("type") == "object":
            names.append(f"map of {_type(variant.get('additionalProperties', {}), defs)}")
        else:
            names.append(str(variant.get("type", "any")))
    if _nullable(schema):
        names.append("null")
    return " or ".join(dict.fromkeys(names)) or "any"


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _bounds(schema: Schema, defs: Schema) -> str:
    """The limits a value must keep: numbers, lengths, item counts, a pattern."""
    found: list[str] = []
    for variant in _variants(schema, defs):
        if _named(variant):
            continue
        low, high = variant.get("minimum"), variant.get("maximum")
        if low is not None and high is not None:
            found.append(f"{_number(low)} to {_number(high)}")
        elif low is not None:
            found.append(f"≥ {_number(low)}")
        elif high is not None:
            found.append(f"≤ {_number(high)}")
        if "exclusiveMinimum" in variant:
            found.append(f"> {_number(variant['exclusiveMinimum'])}")
        if "exclusiveMaximum" in variant:
            found.append(f"< {_number(variant['exclusiveMaximum'])}")
        for least, most, unit in (
            ("minLength", "maxLength", "characters"),
            ("minItems", "maxItems", "items"),
            ("minProperties", "maxProperties", "entries"),
        ):
            if least in variant or most in variant:
                found.append(_count(variant.get(least), variant.get(most), unit))
        if "pattern" in variant:
            found.append(f"matches `{variant['pattern']}`")
        if variant.get("type") == "array":
            inner = _bounds(variant.get("items", {}), defs)
            if inner:
                found.append(f"each {inner}")
        if variant.get("type") == "object" and "additionalProperties" in variant:
            inner = _bounds(variant["additionalProperties"], defs)
            if inner:
                found.append(f"each value {inner}")
    return "; ".join(dict.fromkeys(found))


def _count(least: int | None, most: int | None, unit: str) -> str:
    if least is not None and least == most:
        return f"exactly {most} {unit}"
    if least and most is not None:
        return f"{least}-{most} {unit}"
    if most is not None:
        return f"up to {most} {unit}"
    return f"at least {least} {unit}"


def _default(schema: Schema, required: bool, field: FieldInfo | None) -> str:
    if required:
        return "required"
    if "default" in schema:
        value = schema["default"]
    elif field is not None and field.default_factory is not None:
        value = TypeAdapter(Any).dump_python(
            field.get_default(call_default_factory=True), mode="json"
        )
    else:
        return "computed"
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _models(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Every model inside `model`'s fields, by the title its JSON Schema gives it."""
    found: dict[str, type[BaseModel]] = {}

    def visit(kind: Any) -> None:
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            title = kind.model_config.get("title") or kind.__name__
            if title in found:
                return
            found[title] = kind
            for info in kind.model_fields.values():
                visit(info.annotation)
        for arg in typing.get_args(kind):
            visit(arg)

    visit(model)
    return found


def _nested(schema: Schema, defs: Schema) -> Iterator[tuple[str, Schema]]:
    """The object models inside a field, with the suffix its path takes: `[]` for a list's
    items, `{}` for a map's values."""
    for variant in _variants(schema, defs):
        if _named(variant):
            continue
        if variant.get("type") == "object" and "properties" in variant:
            yield "", variant
        elif variant.get("type") == "array":
            for suffix, inner in _nested(variant.get("items", {}), defs):
                yield f"[]{suffix}", inner
        elif variant.get("type") == "object" and "additionalProperties" in variant:
            for suffix, inner in _nested(variant["additionalProperties"], defs):
                yield f"{{}}{suffix}", inner


def rows(model: type[BaseModel]) -> list[Row]:
    """Every field of a model and of the models inside it, depth first."""
    schema = model.model_json_schema()
    return _rows(schema, "", schema.get("$defs", {}), _models(model))


def _rows(
    schema: Schema, prefix: str, defs: Schema, models: dict[str, type[BaseModel]]
) -> list[Row]:
    required = set(schema.get("required", ()))
    model = models.get(schema.get("title", ""))
    out: list[Row] = []
    for name, field in schema.get("properties", {}).items():
        if name == "type" and "const" in _resolved(field, defs):
            continue  # a command's discriminator: the command's name
        path = f"{prefix}{name}"
        info = model.model_fields.get(name) if model is not None else None
        default = _default(field, name in required, info)
        out.append((path, _type(field, defs), default, _bounds(field, defs)))
        seen: set[str] = set()
        for suffix, inner in _nested(field, defs):
            key = f"{suffix}{inner.get('title')}"
            if key not in seen:
                seen.add(key)
                out += _rows(inner, f"{path}{suffix}.", defs, models)
    return out


def _table(header: str, lines: list[str]) -> str:
    return "\n".join([header, "|" + "---|" * header.count("|", 1), *lines]) + "\n"


def _field_table(model: type[BaseModel]) -> str:
    lines = [
        f"| `{path}` | {kind} | {default} | {bounds or '—'} |"
        for path, kind, default, bounds in rows(model)
    ]
    return _table("| Field | Type | Default | Bounds |", lines)


def options(ruleset: RulesetBase[Any]) -> str:
    return _field_table(ruleset.options_model)


def stat_block(ruleset: RulesetBase[Any]) -> str:
    return _field_table(ruleset.stats_model)


def commands(ruleset: RulesetBase[Any]) -> str:
    """The ruleset's own commands (the shared ones are in docs/api.md), in its order."""
    lines = []
    for kind, model in ruleset.command_models.items():
        if not model.__module__.startswith("service.rules."):
            continue
        fields = rows(model)
        if not fields:
            lines.append(f"| `{kind}` | — | | | |")
        for path, kind_of, default, bounds in fields:
            lines.append(f"| `{kind}` | `{path}` | {kind_of} | {default} | {bounds or '—'} |")
    return _table("| Command | Field | Type | Default | Bounds |", lines)


TABLES: dict[str, Callable[[RulesetBase[Any]], str]] = {
    "options": options,
    "stat-block": stat_block,
    "commands": commands,
}


def rendered(text: str, ruleset: RulesetBase[Any]) -> str:
    """`text` with every derived table of `ruleset` rendered afresh."""
    return substituted(text, lambda name: TABLES[name](ruleset))


def drifted(name: str) -> dict[str, str]:
    """The derived tables of `name`'s page that differ from the models, as they should be."""
    text = page_of(name).read_text()
    fresh = regions(rendered(text, RULESETS[name]))
    return {k: v for k, v in fresh.items() if regions(text).get(k) != v}


def main(argv: list[str]) -> int:
    for name in argv or sorted(RULESETS):
        path = page_of(name)
        path.write_text(rendered(path.read_text(), RULESETS[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
