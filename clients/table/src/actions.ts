/** Legal actions as buttons, or as small forms built from an action's `params_schema` (the
 * JSON Schema of the command's fields but `type`, docs/api.md "Legal actions"). What Fray
 * already decided goes in unasked: the acting combatant, and the ruleset's hints (`params`)
 * where they are single values; a target is chosen from `targets` (else every combatant), a
 * field from the list the hints offer for it (`options` for `option`); what is left is asked
 * for by the field's type. */

import type { components } from "@fray/client";
import { cellField, isCellSchema, parseCell } from "./cells.js";
import { h } from "./dom.js";
import { markSent } from "./keep.js";

type ActionOption = components["schemas"]["ActionOption"];
type Schema = Record<string, unknown>;
export type CommandBody = { type: string } & Record<string, unknown>;
export interface Named {
  id: string;
  name: string;
}

// The names rulesets give the field of the combatant who acts (fifty-two: combatant_id).
const ACTOR_FIELDS = ["combatant_id", "actor", "combatant", "attacker", "actor_id"];
const COMBATANT_FIELD = /^(combatant_id|combatant|target|target_id|enemy|of)$/;
// A field naming several (delvers-deep's `pick`: combatant_ids): chosen from a list.
const COMBATANTS_FIELD = /^(combatant_ids|combatants|targets)$/;

function branch(schema: Schema): Schema {
  // `X | None` is anyOf [X, null]: the form asks for X, and leaves the field out when empty.
  const anyOf = schema.anyOf as Schema[] | undefined;
  return anyOf?.find((s) => s.type !== "null") ?? schema;
}

function scalar(value: unknown): value is string | number | boolean {
  return ["string", "number", "boolean"].includes(typeof value);
}

function choiceList(value: unknown): value is (string | number | boolean)[] {
  return Array.isArray(value) && value.length > 0 && value.every(scalar);
}

/** The command's fields Fray already knows, the fields left to ask for, and the optional
 * ones (`more`: drawn folded away, sent only when filled in, so Fray's default stands). */
export function plan(action: ActionOption): {
  known: Record<string, unknown>; ask: [string, Schema][]; more: [string, Schema][];
} {
  const schema = (action.params_schema ?? {}) as Schema;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const known: Record<string, unknown> = {};
  const ask: [string, Schema][] = [];
  const more: [string, Schema][] = [];
  const actorField = ACTOR_FIELDS.find((name) => name in properties);
  for (const [name, property] of Object.entries(properties)) {
    if (name === "type") continue;
    const hint = (action.params as Record<string, unknown>)[name];
    if (name === actorField && action.actor) known[name] = action.actor;
    else if (scalar(hint)) known[name] = hint;
    // A list hint for a list field is the value itself (fifty-two's pair: `cards`); for a
    // single value, the choices on offer (fifty-two's column `modifier`: -1, 0 or 1).
    else if (choiceList(hint) && branch(property).type === "array") known[name] = hint;
    else if (required.has(name) || /target/.test(name) || choiceList(hint) || isCellSchema(property)) {
      ask.push([name, property]);
    } else {
      more.push([name, property]);
    }
  }
  return { known, ask, more };
}

function label(name: string, property: Schema): string {
  return (property.title as string | undefined) ?? name.replace(/_/g, " ");
}

let serial = 0;

/** A field's input; an `optional` one starts empty (a list with "—" chosen) and sends
 * nothing until it is filled in. */
function field(
  name: string, property: Schema, action: ActionOption, combatants: Named[], optional = false,
): HTMLElement {
  const shape = branch(property);
  // Numbered: one actor may be offered one action type more than once (delvers-deep's walk,
  // jog and sprint; fifty-two's normal and critical attacks), and a label names its field.
  const id = `f-${action.type}-${action.actor ?? "gm"}-${name}-${++serial}`;
  // A cell: "x, y" typed, or clicked on the map (cells.ts).
  if (isCellSchema(property)) return cellField(id, name, label(name, property));
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  // The ruleset's hint of the choices on offer: `options` for the field `option` (a
  // reaction window's answers), else the schema's enum.
  const hints = action.params as Record<string, unknown>;
  const offered = [hints[`${name}s`], hints[name]].find(choiceList);
  const choices = (offered ?? (shape.enum as unknown[] | undefined))?.map(String);
  // A field naming a combatant (a target, an enemy, a `combatant_id` the acting combatant
  // does not fill): chosen from the action's targets, else from every combatant.
  if (COMBATANT_FIELD.test(name) && shape.type === "string" || /target/.test(name) && shape.type !== "array") {
    const ids = action.targets ?? combatants.map((c) => c.id);
    const names = new Map(combatants.map((c) => [c.id, c.name]));
    input = h("select", { id, name }, unset(optional),
      ids.map((t) => h("option", { value: t }, names.get(t) ?? t)));
  } else if (COMBATANTS_FIELD.test(name) && shape.type === "array") {
    input = combatantsSelect(id, name, action, combatants, optional);
  } else if (choices) {
    const numeric = shape.type === "integer" || shape.type === "number";
    input = h("select", { id, name, "data-number": numeric }, unset(optional),
      choices.map((c) => h("option", { value: c, selected: !optional && c === String(shape.default) }, c)));
  } else if (shape.type === "integer" || shape.type === "number") {
    const start = (shape.default as number | undefined) ?? (shape.minimum as number | undefined) ?? 0;
    input = h("input", {
      id, name, type: "number", step: shape.type === "integer" ? 1 : "any",
      min: shape.minimum as number | undefined, max: shape.maximum as number | undefined,
      value: optional ? null : start, placeholder: optional ? String(start) : null,
    });
  } else if (shape.type === "boolean" && optional) {
    // A checkbox always says yes or no; an optional yes/no may be left unsaid.
    input = h("select", { id, name, "data-boolean": true }, unset(true),
      h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
  } else if (shape.type === "boolean") {
    input = h("input", { id, name, type: "checkbox", checked: shape.default === true });
  } else if (shape.type === "string") {
    input = h("input", {
      id, name, type: "text", value: optional ? null : (shape.default as string | undefined) ?? "",
      placeholder: optional && typeof shape.default === "string" ? shape.default : null,
    });
  } else {
    // An object, an array, a cell ($ref): JSON, as the command's schema has it.
    input = h("textarea", { id, name, rows: 2, "data-json": true, placeholder: "JSON" });
  }
  return h("label", { for: id }, label(name, property), " ", input);
}

/** The empty choice an optional list starts on: it sends nothing. */
function unset(optional: boolean): HTMLOptionElement | null {
  return optional ? h("option", { value: "", selected: true }, "—") : null;
}

function combatantsSelect(
  id: string, name: string, action: ActionOption, combatants: Named[], optional: boolean,
): HTMLSelectElement {
  const ids = action.targets ?? combatants.map((c) => c.id);
  const names = new Map(combatants.map((c) => [c.id, c.name]));
  return h("select", { id, name, multiple: true, size: Math.min(ids.length, 4), "data-optional": optional },
    ids.map((t, i) => h("option", { value: t, selected: !optional && i === 0 }, names.get(t) ?? t)));
}

function valueOf(input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): unknown {
  if (input instanceof HTMLSelectElement && input.multiple) {
    const chosen = Array.from(input.selectedOptions, (o) => o.value);
    return chosen.length === 0 && input.hasAttribute("data-optional") ? undefined : chosen;
  }
  if (input.value === "" && input instanceof HTMLSelectElement) return undefined;
  if (input.hasAttribute("data-boolean")) return input.value === "true";
  if (input instanceof HTMLInputElement && input.type === "checkbox") return input.checked;
  if (input instanceof HTMLInputElement && input.type === "number") {
    return input.value === "" ? undefined : Number(input.value);
  }
  if (input.hasAttribute("data-number")) return Number(input.value);
  if (input.hasAttribute("data-cell")) return parseCell(input.name, input.value);
  if (input.hasAttribute("data-json")) return input.value.trim() === "" ? undefined : JSON.parse(input.value);
  return input.value === "" ? undefined : input.value;
}

/** One action: a button, or a form with its fields and a button. `send` gets the command. */
export function actionControl(
  action: ActionOption,
  combatants: Named[],
  send: (command: CommandBody) => void,
): HTMLElement {
  const { known, ask, more } = plan(action);
  const button = h("button", { type: "submit", "data-action": action.type }, action.label);
  const cost = action.cost
    ? h("span", { class: "cost" }, Object.entries(action.cost).map(([k, v]) => `${v} ${k}`).join(", "))
    : null;
  const optional = more.length > 0
    ? h("details", { class: "more" }, h("summary", {}, "more options"),
        more.map(([n, p]) => field(n, p, action, combatants, true)))
    : null;
  const form = h("form", { class: "action" }, button, cost,
    ask.map(([n, p]) => field(n, p, action, combatants)), optional);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const command: CommandBody = { ...known, type: action.type };
    try {
      for (const element of Array.from(form.elements)) {
        if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement ||
              element instanceof HTMLTextAreaElement) || !element.name) continue;
        const value = valueOf(element);
        if (value !== undefined) command[element.name] = value;
      }
    } catch (error) {
      const why = error instanceof SyntaxError ? "That field is not JSON." : String((error as Error).message);
      form.querySelector(".refusal")?.remove();
      form.append(h("p", { class: "refusal", role: "alert" }, why));
      return;
    }
    markSent(form);
    send(command);
  });
  return form;
}
