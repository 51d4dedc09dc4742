"""One English sentence per event, for logs and chat integrations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Names = Callable[[str | None], str]


def namer(combatants: Mapping[str, Any]) -> Names:
    def name(combatant_id: str | None) -> str:
        if combatant_id is None:
            return "someone"
        found = combatants.get(combatant_id)
        return str(found.name) if found is not None else combatant_id

    return name


def _rounds(n: Any) -> str:
    return "" if n is None else f" for {n} round{'s' if n != 1 else ''}"


COMMON: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "encounter-created": lambda d, n: f"A {d['ruleset']} encounter was created.",
    "combatant-added": lambda d, n: f"{d['name']} joined the {d['side']}.",
    "combatant-updated": lambda d, n: f"{n(d['combatant_id'])} was updated.",
    "combatant-removed": lambda d, n: f"{n(d['combatant_id'])} left the encounter.",
    "map-set": lambda d, n: (
        f"The map was set ({d['map']['width']}x{d['map']['height']} {d['map']['kind']})."
    ),
    "token-placed": lambda d, n: f"{n(d['combatant_id'])} was placed on the map.",
    "token-moved": lambda d, n: (
        f"{n(d['combatant_id'])} moved {len(d['path']) - 1} cells (cost {d['cost']})."
    ),
    "encounter-started": lambda d, n: "The encounter began.",
    "encounter-ended": lambda d, n: f"The encounter ended: {d['reason']}.",
    "resource-adjusted": lambda d, n: (
        f"{n(d['combatant_id'])}'s {d['resource']} went from {d['before']} to {d['after']}."
    ),
    "condition-applied": lambda d, n: (
        f"{n(d['combatant_id'])} is now {d['condition']}{_rounds(d.get('rounds'))}."
    ),
    "condition-removed": lambda d, n: f"{n(d['combatant_id'])} is no longer {d['condition']}.",
    "condition-ticked": lambda d, n: (
        f"{n(d['combatant_id'])} stays {d['condition']}{_rounds(d['rounds_left'])} more."
    ),
    "condition-expired": lambda d, n: f"{n(d['combatant_id'])} is no longer {d['condition']}.",
    "combatant-downed": lambda d, n: f"{n(d['combatant_id'])} is down.",
    "combatant-revived": lambda d, n: f"{n(d['combatant_id'])} is back in the fight.",
    "note-added": lambda d, n: f"Note: {d['text']}",
    "rewound": lambda d, n: f"The encounter was rewound to version {d['to_version']}.",
    "reaction-policy-set": lambda d, n: f"{n(d['combatant_id'])} set a reaction policy.",
    "clock-started": lambda d, n: (
        f"The clock '{d['label']}' started: {d['duration_ms'] / 1000:g} s."
    ),
    "clock-paused": lambda d, n: f"The clock '{d['clock_id']}' was paused.",
    "clock-resumed": lambda d, n: f"The clock '{d['clock_id']}' resumed.",
    "clock-expired": lambda d, n: f"Time ran out on the clock '{d['clock_id']}'.",
    "clock-stopped": lambda d, n: f"The clock '{d['clock_id']}' stopped.",
    "clocks-paused": lambda d, n: (
        f"Nobody at the table for {d['timeouts']} timeouts in a row: the clocks are paused "
        "until the GM resumes them."
    ),
    "clocks-resumed": lambda d, n: "The GM resumed the clocks.",
    "reaction-window-opened": lambda d, n: (
        f"{', '.join(n(c) for c in d['order'])} may react ({d['trigger'].get('kind', 'reaction')})."
    ),
    "reaction-answered": lambda d, n: f"{n(d['combatant_id'])} chose {d['option']}.",
    "reaction-window-closed": lambda d, n: "The reaction window closed.",
    "dice-rolled": lambda d, n: (
        f"{n(d.get('combatant_id')) if d.get('combatant_id') else d['by']} rolled {d['text']}."
    ),
    "command-held": lambda d, n: f"'{d['command'].get('type')}' waits for dice.",
    "roll-requested": lambda d, n: (
        f"{'The GM' if d['roller'] == 'gm' else n(d['roller'])} is asked to roll "
        f"{d['count']}d{d['sides']} ({d['purpose']})."
    ),
    "roll-submitted": lambda d, n: f"{d['by']} rolled {', '.join(map(str, d['faces']))}.",
    "command-released": lambda d, n: (
        "Every die is in."
        if d["reason"] == "dice-in"
        else "Time ran out for the dice: Fray rolled the rest."
        if d.get("dropped") is None
        else f"Time ran out for the dice, and the command no longer stands ({d['message']})."
    ),
}


def narrate_with(
    templates: Mapping[str, Callable[[dict[str, Any], Names], str]],
    kind: str,
    data: dict[str, Any],
    names: Names,
) -> str:
    template = templates.get(kind) or COMMON.get(kind)
    if template is None:
        return f"{kind.replace('-', ' ').capitalize()}."
    return template(data, names)
