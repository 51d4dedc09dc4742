/** Keyboard focus across a redraw: the page draws its actions afresh after every event, and
 * a keyboard user would otherwise be sent back to the top of the page each time. The
 * focused control is found again in the new drawing by what it is (its action, its label,
 * its field), and focused there. */

function key(element: Element | null): string | null {
  if (!(element instanceof HTMLElement)) return null;
  const form = element.closest("form");
  const action = form?.querySelector("[data-action]");
  const name = element.getAttribute("name") ?? "";
  return `${action?.getAttribute("data-action") ?? ""}|${action?.textContent ?? ""}|${element.tagName}|${name}`;
}

/** Run `redraw` on `container`; give the focus back to the same control if it is still there. */
export function keepingFocus(container: HTMLElement, redraw: () => void): void {
  const focused = container.contains(document.activeElement) ? key(document.activeElement) : null;
  redraw();
  if (focused === null) return;
  const again = Array.from(container.querySelectorAll<HTMLElement>("button, input, select, textarea"))
    .find((element) => key(element) === focused);
  again?.focus();
}
