/** What the user was doing, kept across a redraw. The page draws its actions afresh after
 * every event; without this, a keyboard user would be sent back to the top of the page and
 * a half-filled form (a target chosen, a cell picked on the map, "more options" opened)
 * would be emptied by whatever happened at the table meanwhile.
 *
 * A control is found again in the new drawing by what it is: its action, the action's
 * label, its tag and its field name. A cell field armed to be filled from the map stays
 * armed (cells.ts). Only what the user changed is carried over: each
 * control's value as drawn is remembered, and a control still at that value takes the new
 * drawing's (the server's default may have moved on). A form just sent is not carried
 * over: its values were spent, and the next drawing starts afresh. */

import { arm, armedField } from "./cells.js";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const drawnAs = new WeakMap<Control, string>();

function key(element: Element | null): string | null {
  if (!(element instanceof HTMLElement)) return null;
  const form = element.closest("form");
  const action = form?.querySelector("[data-action]");
  const name = element.getAttribute("name") ?? "";
  return `${action?.getAttribute("data-action") ?? ""}|${action?.textContent ?? ""}|${element.tagName}|${name}`;
}

function read(control: Control): string {
  if (control instanceof HTMLSelectElement) {
    return JSON.stringify(Array.from(control.selectedOptions, (option) => option.value));
  }
  if (control instanceof HTMLInputElement && (control.type === "checkbox" || control.type === "radio")) {
    return String(control.checked);
  }
  return control.value;
}

/** Set `control` to a value `read` gave; false, and nothing changed, when it cannot take it
 * (a choice that is no longer offered). */
function write(control: Control, value: string): boolean {
  if (control instanceof HTMLSelectElement) {
    const chosen = JSON.parse(value) as string[];
    const offered = new Set(Array.from(control.options, (option) => option.value));
    if (!chosen.every((v) => offered.has(v))) return false;
    for (const option of Array.from(control.options)) option.selected = chosen.includes(option.value);
    return true;
  }
  if (control instanceof HTMLInputElement && (control.type === "checkbox" || control.type === "radio")) {
    control.checked = value === "true";
    return true;
  }
  control.value = value;
  return true;
}

const SENT = "data-sent";

/** Mark `form` as sent: a redraw starts it afresh. Changing a field unmarks it (the
 * command was refused and the user is fixing it). */
export function markSent(form: HTMLFormElement): void {
  form.setAttribute(SENT, "");
  const unmark = (): void => form.removeAttribute(SENT);
  form.addEventListener("input", unmark, { once: true });
  form.addEventListener("change", unmark, { once: true });
}

function controls(container: HTMLElement): Control[] {
  return Array.from(container.querySelectorAll<Control>("input, select, textarea"));
}

/** Run `redraw` on `container`; give back the focus, the values the user changed and the
 * "more options" they opened, wherever the same control is drawn again. */
export function keepingInput(container: HTMLElement, redraw: () => void): void {
  const focused = container.contains(document.activeElement) ? key(document.activeElement) : null;
  const armed = armedField();
  const armedKey = armed && container.contains(armed) ? key(armed) : null;
  const changed = new Map<string, string>();
  for (const control of controls(container)) {
    const k = key(control);
    const now = read(control);
    if (k === null || control.closest(`form[${SENT}]`) || now === drawnAs.get(control)) continue;
    if (!changed.has(k)) changed.set(k, now);
  }
  const opened = new Set(Array.from(container.querySelectorAll("details[open]"))
    .filter((details) => !details.closest(`form[${SENT}]`))
    .map((details) => key(details)));

  redraw();

  for (const control of controls(container)) drawnAs.set(control, read(control));
  for (const control of controls(container)) {
    const value = changed.get(key(control) ?? "");
    if (value !== undefined) write(control, value);
  }
  for (const details of Array.from(container.querySelectorAll("details"))) {
    if (opened.has(key(details))) details.open = true;
  }
  if (armedKey !== null) {
    const again = controls(container).find((control) => key(control) === armedKey);
    arm(again instanceof HTMLInputElement ? again : null);
  }
  if (focused === null) return;
  const again = Array.from(container.querySelectorAll<HTMLElement>("button, input, select, textarea"))
    .find((element) => key(element) === focused);
  again?.focus();
}
