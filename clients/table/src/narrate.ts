/** A line for an event in the log. Fray narrates events in Python (each ruleset's
 * `narrate`), which the API does not serve yet; until it does, the log says what happened
 * in the event's own words: its type, who did it, and its data with combatants named. */

import type { components } from "@fray/client";

type Event = components["schemas"]["Event"];

function value(v: unknown, names: Map<string, string>): string {
  if (typeof v === "string") return names.get(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => value(x, names)).join(", ");
  if (v !== null && typeof v === "object") {
    const text = JSON.stringify(v);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return String(v);
}

export function narrate(event: Event, names: Map<string, string>): string {
  const who = (event.actor as { id?: string; role?: string }).role ?? "";
  const data = Object.entries(event.data)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${value(v, names)}`)
    .join("; ");
  return `${event.type.replace(/-/g, " ")}${who ? ` (${who})` : ""}${data ? ` — ${data}` : ""}`;
}
