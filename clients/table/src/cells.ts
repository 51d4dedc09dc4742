/** Cell fields in the action forms: a command's field whose schema is a map cell (`$ref` to
 * `Cell`/`CellInput`) is a text box that takes "x, y" (or the JSON Fray accepts) and is filled
 * by clicking the map. "Pick on the map" arms the field: the map then lets every cell be
 * chosen, and the cell chosen goes into the field (map.ts). */

import { h } from "./dom.js";

export interface Cell {
  x: number;
  y: number;
}
type Schema = Record<string, unknown>;

const CELL_REF = /\/(Cell|CellInput)$/;

/** Whether a property's schema is a cell, or a cell or null. */
export function isCellSchema(property: Schema): boolean {
  const refs = [property, ...((property.anyOf as Schema[] | undefined) ?? [])];
  return refs.some((s) => typeof s.$ref === "string" && CELL_REF.test(s.$ref));
}

export function formatCell(cell: Cell): string {
  return `${cell.x}, ${cell.y}`;
}

/** "3, 4", "3 4", "[3, 4]" or {"x": 3, "y": 4}; empty is no cell; else an error naming the field. */
export function parseCell(name: string, text: string): Cell | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const pair = /^\[?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\]?$/.exec(trimmed);
  if (pair) return { x: Number(pair[1]), y: Number(pair[2]) };
  try {
    const value = JSON.parse(trimmed) as unknown;
    if (value && typeof value === "object" && "x" in value && "y" in value) {
      const { x, y } = value as Cell;
      if (Number.isInteger(x) && Number.isInteger(y)) return { x, y };
    }
  } catch {
    // not JSON either: the error below says what to give
  }
  throw new Error(`${name.replace(/_/g, " ")}: give a cell as x, y (for example 3, 4), or click the map`);
}

let armed: HTMLInputElement | null = null;
const listeners = new Set<() => void>();

/** The cell field a map click fills, if one is armed. */
export function armedField(): HTMLInputElement | null {
  return armed && armed.isConnected ? armed : null;
}

export function onArmed(listener: () => void): void {
  listeners.add(listener);
}

export function arm(input: HTMLInputElement | null): void {
  armed = input;
  for (const button of document.querySelectorAll<HTMLButtonElement>("button.pick-cell")) {
    button.setAttribute("aria-pressed", String(input !== null && button.dataset.for === input.id));
  }
  for (const listener of listeners) listener();
}

/** A map click on `cell` for the armed field: filled, disarmed, its form's button focused. */
export function fillArmed(cell: Cell): boolean {
  const input = armedField();
  if (!input) return false;
  input.value = formatCell(cell);
  arm(null);
  input.form?.querySelector<HTMLButtonElement>("button[type=submit]")?.focus();
  return true;
}

/** The field: its label and text box, and beside them (not in the label, which names the box)
 * the button that arms it. */
export function cellField(id: string, name: string, text: string): HTMLElement {
  const input = h("input", {
    id, name, type: "text", "data-cell": true, size: 7, placeholder: "x, y", autocomplete: "off",
  });
  const pick = h("button", {
    type: "button", class: "pick-cell", "data-for": id, "aria-pressed": "false",
    "aria-label": `pick on map: the cell for "${text}"`,
  }, "pick on map");
  pick.addEventListener("click", () => arm(armedField() === input ? null : input));
  return h("span", { class: "cell-field" }, h("label", { for: id }, text, " ", input), " ", pick);
}

/** Fill a form's fields with what a map click chose (a cell as "x, y") and focus its button,
 * (with `focus`), so Enter or a second click sends it. Fields the form does not have are left alone. */
export function fillForm(form: HTMLFormElement, values: Record<string, unknown>, focus = true): void {
  for (const [name, value] of Object.entries(values)) {
    const element = form.elements.namedItem(name);
    if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement)) continue;
    element.value = typeof value === "object" && value !== null ? formatCell(value as Cell) : String(value);
  }
  if (focus) form.querySelector<HTMLButtonElement>("button[type=submit]")?.focus();
}
