/** A few lines of DOM building instead of a framework: every text goes in as a text node
 * (never as HTML), so nothing the server or another player wrote can run in the page. */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Replace what `parent` holds with `children`. */
export function fill(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren(...children.flat().filter((c): c is Node | string => !!c));
}
