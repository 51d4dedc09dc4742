"""Health declared where it is defined, and the one walk that hides it.

A field of a stat block, an event, a command or a state model that holds a combatant's
health is annotated `Hidden` (`hp: Annotated[int, Hidden()]`); an untyped dict whose shape a
ruleset defines (its stat block inside `combatant-added`, its reaction windows' triggers) is
annotated `Shape`. From those markers each model gets a plan, built once per class: the
paths that lead to hidden fields, and nothing for a model without any. `hide` walks a JSON
dump along a plan and blanks each hidden field whose combatant the viewer may not see, so a
field marked hidden is hidden in every view built from its model, with no code of its own.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

ShapeName = Literal["stats", "trigger"]
Shapes = tuple[tuple[ShapeName, type[BaseModel]], ...]
Hides = Callable[[object], bool]
"""Whether the viewer may not see the health of the combatant with this id."""


@dataclass(frozen=True, slots=True)
class Hidden:
    """The field is a combatant's health: with `hide_enemy_health`, players and observers
    not on that combatant's side are shown `shown_as` (null unless given) instead.

    `of` names the sibling field that holds the combatant's id (`target` on an attack);
    without it the combatant is the one the enclosing block belongs to (a stat block's
    owner). `rolls` is a glob of the purposes of the draws that made the number
    (`"damage: *"`): they leave the envelope's `rolls` with it."""

    of: str | None = None
    rolls: str | None = None
    shown_as: Any = None


@dataclass(frozen=True, slots=True)
class Shape:
    """An untyped dict whose shape the ruleset defines: `stats` (its stat block model) or
    `trigger` (its reaction-window trigger model); what is hidden in it is what that model
    marks. `of` names the sibling field with the id of the combatant it belongs to."""

    name: ShapeName
    of: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One field on the way to something hidden: blank it, or walk into it."""

    hidden: Hidden | None = None
    inner: Plan | None = None
    of: str | None = None


@dataclass(frozen=True, slots=True)
class Fields:
    """A model: the fields that hold or lead to hidden ones, by name."""

    steps: Mapping[str, Step]


@dataclass(frozen=True, slots=True)
class Items:
    """Every item of a list or tuple."""

    inner: Plan


@dataclass(frozen=True, slots=True)
class Values:
    """Every value of a dict."""

    inner: Plan


Plan = Fields | Items | Values
_SEQUENCES = (list, tuple, set, frozenset, Sequence)
_building: set[tuple[type[BaseModel], Shapes]] = set()


@cache
def plan_of(model: type[BaseModel], shapes: Shapes = ()) -> Fields | None:
    """The paths to `model`'s hidden fields (None: it has none); built once per model."""
    key = (model, shapes)
    if key in _building:  # a model that contains itself: its own plan is being built
        return None
    _building.add(key)
    try:
        steps = {
            name: step for name, info in model.model_fields.items() if (step := _step(info, shapes))
        }
    finally:
        _building.discard(key)
    return Fields(steps) if steps else None


def _step(info: FieldInfo, shapes: Shapes) -> Step | None:
    for marker in info.metadata:
        if isinstance(marker, Hidden):
            return Step(hidden=marker)
        if isinstance(marker, Shape):
            model = dict(shapes).get(marker.name)
            inner = plan_of(model, shapes) if model is not None else None
            return Step(inner=inner, of=marker.of) if inner is not None else None
    plan = _plan_of_type(info.annotation, shapes)
    return Step(inner=plan) if plan is not None else None


def _plan_of_type(kind: Any, shapes: Shapes) -> Plan | None:
    origin, args = get_origin(kind), get_args(kind)
    if origin is Annotated:
        return _plan_of_type(args[0], shapes)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return plan_of(kind, shapes)
    if origin in (Union, types.UnionType):
        return _merged([_plan_of_type(arg, shapes) for arg in args])
    if origin in _SEQUENCES:
        inner = _merged([_plan_of_type(arg, shapes) for arg in args if arg is not Ellipsis])
        return Items(inner) if inner is not None else None
    if origin in (dict, Mapping) and len(args) == 2:
        inner = _plan_of_type(args[1], shapes)
        return Values(inner) if inner is not None else None
    return None


def _merged(plans: list[Plan | None]) -> Plan | None:
    """One plan for a value that may be any of several types (`A | B | None`)."""
    found = [p for p in plans if p is not None]
    if len(found) <= 1:
        return found[0] if found else None
    if all(isinstance(p, Fields) for p in found):
        steps: dict[str, Step] = {}
        for plan in found:
            assert isinstance(plan, Fields)
            for name, step in plan.steps.items():
                steps.setdefault(name, step)
        return Fields(steps)
    return found[0]


def hide(
    value: Any, plan: Plan | None, hides: Hides, whose: object = None
) -> tuple[Any, list[str]]:
    """`value` (a JSON dump) with each hidden field of a combatant `hides` names blanked,
    and the globs of the draws that go with them. `whose` is the combatant the value
    belongs to, for markers without `of`. Unchanged parts are shared, not copied."""
    rolls: list[str] = []
    if plan is None:
        return value, rolls
    return _walk(value, plan, hides, whose, rolls), rolls


def _walk(value: Any, plan: Plan, hides: Hides, whose: object, rolls: list[str]) -> Any:
    match plan:
        case Fields() if isinstance(value, dict):
            return _fields(value, plan, hides, whose, rolls)
        case Items(inner=inner) if isinstance(value, list):
            items = [_walk(item, inner, hides, whose, rolls) for item in value]
            return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        case Values(inner=inner) if isinstance(value, dict):
            values = {k: _walk(v, inner, hides, whose, rolls) for k, v in value.items()}
            return values if any(values[k] is not v for k, v in value.items()) else value
    return value


def _fields(
    value: dict[str, Any], plan: Fields, hides: Hides, whose: object, rolls: list[str]
) -> dict[str, Any]:
    changed: dict[str, Any] | None = None
    for name, step in plan.steps.items():
        if name not in value:
            continue
        old = value[name]
        marker = step.hidden
        if marker is not None:
            if not hides(_owner(value, marker.of, whose)):
                continue
            new = copy.deepcopy(marker.shown_as)
            if marker.rolls is not None:
                rolls.append(marker.rolls)
        else:
            assert step.inner is not None
            new = _walk(old, step.inner, hides, _owner(value, step.of, whose), rolls)
        if new is not old:
            changed = changed if changed is not None else dict(value)
            changed[name] = new
    return changed if changed is not None else value


def _owner(value: dict[str, Any], of: str | None, whose: object) -> object:
    """The combatant a field belongs to: its sibling `of` when set and given, else the one
    the enclosing block belongs to (an `add-combatant` without an id: its event's)."""
    named = value.get(of) if of is not None else None
    return named if named is not None else whose
