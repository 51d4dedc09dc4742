/** The encounter's map as SVG: square or hex cells (service/domain/grid.py: hexes are
 * pointy-top, axial q = x and r = y, the map the parallelogram 0 <= q < width, 0 <= r <
 * height), terrain, hex-tactical's cover, tokens, and on the acting player's view the overlays
 * its legal actions carry: `params.reachable` ([{cell, cost}]) and `params.threatened`
 * ({side: [cell]}). Cells that can be chosen are buttons: a reachable cell (for the action
 * listing it), every cell once the GM has chosen a token to move (`move-token`) or a form's
 * cell field is armed (cells.ts). Choosing tells `onPick` what to fill in; choosing the same
 * cell again asks for the command to be sent. What Fray sent is all it draws. */

import type { components } from "@fray/client";
import { arm, armedField, fillArmed, isCellSchema, onArmed, type Cell } from "./cells.js";
import { fill, h } from "./dom.js";
import "./map.css";

type Summary = components["schemas"]["EncounterSummary"];
type Combatant = components["schemas"]["CombatantSummary"];
type ActionOption = components["schemas"]["ActionOption"];
type GridMap = components["schemas"]["GridMap"];
type TerrainKind = "normal" | "difficult" | "impassable";

export interface MapView {
  summary: Summary;
  /** The ruleset's state as the viewer may see it: the map is `state.table.map` in every
   * ruleset (service/domain/table.py), cover hex-tactical's `state.cover`. */
  state: Record<string, unknown>;
  actions: ActionOption[];
}

/** What a map click chose: the action's fields to fill, and whether to send it now. */
export interface Pick {
  action: ActionOption;
  values: Record<string, unknown>;
  send: boolean;
  /** Whether to move the keyboard's focus to the form's button. */
  focus: boolean;
}

interface Reach {
  action: ActionOption;
  cost: number | null;
}

interface Cover {
  cell: Cell;
  name: string;
  kind: string;
}

const SVG = "http://www.w3.org/2000/svg";
const SQUARE = 40; // a square cell's side, in viewBox units
const HEX = 23; // a hex's centre-to-corner
const SIDE_COLOURS = ["#2a7de1", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a8b"];

const round = (v: number): string => String(Math.round(v * 100) / 100 + 0); // never "-0"
const key = (c: Cell): string => `${c.x},${c.y}`;

function s<K extends keyof SVGElementTagNameMap>(
  tag: K, attrs: Record<string, string | number | null | undefined> = {}, ...children: (Node | string | null)[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null) element.append(child);
  return element;
}

/** Where a cell is drawn: its centre, its outline, and the whole board's size. */
interface Geometry {
  centre(c: Cell): [number, number];
  outline(c: Cell): string; // polygon points
  width: number;
  height: number;
  unit: number; // a cell's size, for tokens and text
}

function geometry(grid: GridMap): Geometry {
  if (grid.kind === "square") {
    return {
      centre: (c) => [(c.x + 0.5) * SQUARE, (c.y + 0.5) * SQUARE],
      outline: (c) => {
        const [x, y] = [c.x * SQUARE, c.y * SQUARE];
        return `${x},${y} ${x + SQUARE},${y} ${x + SQUARE},${y + SQUARE} ${x},${y + SQUARE}`;
      },
      width: grid.width * SQUARE,
      height: grid.height * SQUARE,
      unit: SQUARE,
    };
  }
  // Pointy-top axial: x = √3·R·(q + r/2), y = 1.5·R·r (redblobgames' "hex to pixel").
  const across = Math.sqrt(3) * HEX;
  const centre = (c: Cell): [number, number] => [across * (c.x + c.y / 2) + across / 2, 1.5 * HEX * c.y + HEX];
  return {
    centre,
    outline: (c) => {
      const [cx, cy] = centre(c);
      return [0, 1, 2, 3, 4, 5].map((i) => {
        const angle = (Math.PI / 180) * (60 * i - 30);
        return `${round(cx + HEX * Math.cos(angle))},${round(cy + HEX * Math.sin(angle))}`;
      }).join(" ");
    },
    width: across * (grid.width + (grid.height - 1) / 2),
    height: 1.5 * HEX * (grid.height - 1) + 2 * HEX,
    unit: across,
  };
}

function gridOf(state: Record<string, unknown>): GridMap | null {
  const table = state.table as { map?: GridMap | null } | undefined;
  return table?.map ?? null;
}

function coverOf(state: Record<string, unknown>): Cover[] {
  const cover = state.cover as Record<string, Cover> | undefined;
  return cover ? Object.values(cover) : [];
}

/** The cell field an action's form has (hex-tactical and delvers-deep's `to`). */
function cellFieldOf(action: ActionOption): string | null {
  const properties = ((action.params_schema ?? {}) as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
  return Object.entries(properties).find(([, p]) => isCellSchema(p))?.[0] ?? null;
}

/** Reachable cells, each for the first action listing it (delvers-deep lists walk, jog and
 * sprint in that order: a cell goes to the cheapest effort that reaches it). */
function reachable(actions: ActionOption[]): Map<string, Reach> {
  const out = new Map<string, Reach>();
  for (const action of actions) {
    const listed = (action.params as { reachable?: { cell: Cell; cost?: number }[] }).reachable;
    if (!Array.isArray(listed) || !cellFieldOf(action)) continue;
    for (const r of listed) {
      if (!out.has(key(r.cell))) out.set(key(r.cell), { action, cost: typeof r.cost === "number" ? r.cost : null });
    }
  }
  return out;
}

/** Cells the other sides threaten, from the acting combatant's point of view. */
function threatened(actions: ActionOption[], combatants: Combatant[]): Set<string> {
  const out = new Set<string>();
  for (const action of actions) {
    const bySide = (action.params as { threatened?: Record<string, Cell[]> }).threatened;
    if (!bySide || typeof bySide !== "object") continue;
    const own = combatants.find((c) => c.id === action.actor)?.side;
    for (const [side, cells] of Object.entries(bySide)) {
      if (side !== own) for (const c of cells) out.add(key(c));
    }
  }
  return out;
}

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const [first = "", second = ""] = words;
  const letters = second ? first.charAt(0) + second.charAt(0) : name.slice(0, 2);
  return letters.toUpperCase();
}

function terrainOf(grid: GridMap): Map<string, TerrainKind> {
  return new Map((grid.terrain ?? []).map((t) => [key(t.cell as Cell), (t.terrain.kind ?? "normal") as TerrainKind]));
}

// What the module remembers between draws: the last view, the token the GM chose to move,
// and the cell chosen last (choosing it again sends).
let last: { section: HTMLElement; view: MapView; onPick: (pick: Pick) => void } | null = null;
let chosenToken: string | null = null;
let selected: string | null = null;
// The last pick, to fill in again when the page is drawn anew (each event redraws the forms).
let picked: { action: string; values: Record<string, unknown> } | null = null;
let version = -1; // the encounter's, as last drawn: a new one ends the pick (it was sent, or is stale)

const identity = (a: ActionOption): string => `${a.type}|${a.actor ?? ""}|${a.label}`;

onArmed(() => {
  if (last) redraw();
});

const listening = new WeakSet<HTMLElement>();

/** Draw the map into `section` (hidden when the encounter has none). */
export function drawMap(section: HTMLElement, view: MapView, onPick: (pick: Pick) => void): void {
  if (!listening.has(section)) {
    // Escape lets go of a chosen token or an armed cell field.
    listening.add(section);
    section.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || (!chosenToken && !armedField())) return;
      chosenToken = null;
      arm(null); // redraws the map
    });
  }
  last = { section, view, onPick };
  if (view.summary.version !== version) {
    version = view.summary.version ?? -1;
    picked = null;
    chosenToken = null;
  }
  // The forms were drawn again: the last pick is filled in again while its action is still
  // offered, and the focus the redraw took from its button given back.
  const focusLost = document.activeElement === null || document.activeElement === document.body;
  const action = picked ? view.actions.find((a) => identity(a) === picked?.action) : undefined;
  if (!picked || !action) {
    picked = null;
    selected = null;
  }
  redraw();
  if (picked && action) onPick({ action, values: picked.values, send: false, focus: focusLost });
}

function pickNow(action: ActionOption, values: Record<string, unknown>, send: boolean): void {
  picked = send ? null : { action: identity(action), values };
  last?.onPick({ action, values, send, focus: true });
}

function redraw(): void {
  if (!last) return;
  const { section, view } = last;
  // A redraw replaces the cells: the one the keyboard was on gets the focus back.
  const active = document.activeElement;
  const hadFocus = active && section.contains(active)
    ? active.getAttribute("data-cell") ?? active.getAttribute("data-token") : null;
  const grid = gridOf(view.state);
  section.hidden = grid === null;
  if (!grid) {
    section.replaceChildren();
    return;
  }
  const combatants = view.summary.combatants ?? [];
  const moveToken = view.actions.find((a) => a.type === "move-token") ?? null;
  if (chosenToken && !moveToken?.targets?.includes(chosenToken)) chosenToken = null;
  const reach = reachable(view.actions);
  const efforts = new Set([...reach.values()].map((r) => r.action)).size;
  const threat = threatened(view.actions, combatants);
  const armed = armedField();
  const anyCell = armed !== null || chosenToken !== null;
  const feet = (view.state.options as { cell_feet?: number } | undefined)?.cell_feet;
  const g = geometry(grid);
  const terrain = terrainOf(grid);
  const occupied = new Set(combatants.filter((c) => c.position && !c.out_of_fight).map((c) => key(c.position as Cell)));

  const choose = (cell: Cell): void => {
    const k = key(cell);
    if (fillArmed(cell)) {
      picked = null; // the field's form has the cell; disarming redrew the map
      return;
    }
    const again = selected === k;
    if (chosenToken && moveToken) {
      const field = cellFieldOf(moveToken) ?? "to";
      selected = k;
      redraw();
      pickNow(moveToken, { combatant_id: chosenToken, [field]: cell }, again);
      return;
    }
    const found = reach.get(k);
    if (!found) return;
    selected = k;
    redraw();
    pickNow(found.action, { [cellFieldOf(found.action) ?? "to"]: cell }, again);
  };

  const cells: SVGElement[] = [];
  for (let y = 0; y < grid.height; y++) {
    for (let x = 0; x < grid.width; x++) {
      const cell = { x, y };
      const k = key(cell);
      const kind = terrain.get(k) ?? "normal";
      const r = reach.get(k);
      const choosable = kind !== "impassable" && (r !== undefined || (anyCell && (armed !== null || !occupied.has(k))));
      const words = [`cell ${x}, ${y}`];
      if (kind !== "normal") words.push(kind);
      if (r) words.push(r.cost === null ? "reachable" : `reachable, cost ${r.cost}${feet ? ` (${r.cost * feet} ft)` : ""}`);
      // Which of several moves reaches it (delvers-deep's walk, jog or sprint).
      if (r && efforts > 1) words.push(`by ${r.action.label}`);
      if (threat.has(k)) words.push("threatened");
      if (selected === k) words.push("chosen");
      const classes = ["cell", kind, r ? "reachable" : "", threat.has(k) ? "threatened" : "",
        choosable ? "choosable" : "", selected === k ? "selected" : ""].filter(Boolean).join(" ");
      const [cx, cy] = g.centre(cell);
      const group = s("g", {
        class: classes, "data-cell": k,
        role: choosable ? "button" : null, tabindex: choosable ? 0 : null,
        "aria-label": choosable ? `${words[0]}: ${words.slice(1).join(", ") || "choose"}` : null,
      },
        s("title", {}, words.join(", ")),
        s("polygon", { points: g.outline(cell), class: "ground" }),
        kind === "difficult" ? s("polygon", { points: g.outline(cell), class: "rough", fill: "url(#rough)" }) : null,
        threat.has(k) ? s("polygon", { points: g.outline(cell), class: "threat", fill: "url(#threat)" }) : null,
        r && r.cost !== null
          ? s("text", { x: cx, y: cy + g.unit * 0.38, class: "cost", "text-anchor": "middle" }, String(r.cost))
          : null,
      );
      if (choosable) {
        group.addEventListener("click", () => choose(cell));
        group.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            choose(cell);
          }
        });
      }
      cells.push(group);
    }
  }

  // The chosen cell's outline on top of its neighbours' (drawn after them, it is not hidden).
  const [sx, sy] = selected ? selected.split(",").map(Number) : [];
  const selection = sx !== undefined && sy !== undefined
    ? s("polygon", { points: g.outline({ x: sx, y: sy }), class: "selection" }) : null;

  const coverMarks = coverOf(view.state).map((c) => {
    const [cx, cy] = g.centre(c.cell);
    const size = g.unit * 0.3;
    return s("rect", {
      class: `cover ${c.kind}`, x: cx - size / 2, y: cy - size / 2 - g.unit * 0.18, width: size, height: size,
      "data-cover": key(c.cell),
    }, s("title", {}, `cover: ${c.name} (${c.kind}) at ${c.cell.x}, ${c.cell.y}`));
  });

  const sides = [...new Set(combatants.map((c) => c.side))];
  const colour = (side: string): string => SIDE_COLOURS[sides.indexOf(side) % SIDE_COLOURS.length] ?? "#666";
  const acting = new Set(view.summary.acting ?? []);
  const tokens = combatants.filter((c) => c.position).map((c) => {
    const position = c.position as Cell;
    const [cx, cy] = g.centre(position);
    const movable = moveToken?.targets?.includes(c.id) ?? false;
    const chosen = chosenToken === c.id;
    const about = [c.name, `side ${c.side}`, acting.has(c.id) ? "acting" : "", c.out_of_fight ? "out of the fight" : "",
      `at ${position.x}, ${position.y}`, chosen ? "chosen to move" : ""].filter(Boolean).join(", ");
    const token = s("g", {
      class: ["token", acting.has(c.id) ? "acting" : "", c.out_of_fight ? "out" : "", movable ? "movable" : "", chosen ? "chosen" : ""]
        .filter(Boolean).join(" "),
      "data-token": c.id, "data-at": key(position),
      role: movable ? "button" : "img", tabindex: movable ? 0 : null,
      "aria-label": movable ? `${about}: ${chosen ? "choose again to cancel" : "choose to move"}` : about,
      "aria-pressed": movable ? String(chosen) : null,
    },
      s("title", {}, c.name),
      acting.has(c.id) ? s("circle", { cx, cy, r: g.unit * 0.44, class: "acting-ring" }) : null,
      s("circle", { cx, cy, r: g.unit * 0.34, fill: colour(c.side), class: "disc" }),
      s("text", { x: cx, y: cy, class: "initials", "text-anchor": "middle", "dominant-baseline": "central" }, initials(c.name)),
    );
    if (movable) {
      const toggle = (): void => {
        chosenToken = chosen ? null : c.id;
        selected = null;
        picked = null;
        redraw();
        section.querySelector<SVGElement>(`[data-token="${c.id}"]`)?.focus();
      };
      token.addEventListener("click", toggle);
      token.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle();
        }
      });
    }
    return token;
  });

  const pad = 4;
  const svg = s("svg", {
    xmlns: SVG, class: `board ${grid.kind}`, width: "100%", role: "group",
    viewBox: `${-pad} ${-pad} ${round(g.width + 2 * pad)} ${round(g.height + 2 * pad)}`,
    "aria-label": `${grid.kind} map, ${grid.width} by ${grid.height}`,
  },
    s("defs", {},
      s("pattern", { id: "threat", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        s("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch" })),
      s("pattern", { id: "rough", width: 10, height: 10, patternUnits: "userSpaceOnUse" },
        s("circle", { cx: 3, cy: 3, r: 1.6, class: "dot" }), s("circle", { cx: 8, cy: 8, r: 1.6, class: "dot" }))),
    ...cells, selection, ...coverMarks, ...tokens,
  );

  const hint = armed ? `Choose a cell on the map for "${armed.name.replace(/_/g, " ")}".`
    : chosenToken ? `Moving ${combatants.find((c) => c.id === chosenToken)?.name ?? chosenToken}: choose the cell to move to, then choose it again or press "${moveToken?.label}".`
    : reach.size ? "Choose a marked cell to move there, then choose it again or press the move button."
    : moveToken ? "Choose a token to move it." : "";

  fill(section,
    h("h2", { id: "h-map" }, "Map"),
    svg,
    h("p", { class: "map-hint", "aria-live": "polite" }, hint),
    legend(grid, terrain, coverMarks.length > 0, reach.size > 0, threat.size > 0, sides, colour),
  );
  if (hadFocus) {
    section.querySelector<SVGElement>(`[data-cell="${hadFocus}"][tabindex], [data-token="${hadFocus}"][tabindex]`)?.focus();
  }
}

function legend(
  grid: GridMap, terrain: Map<string, TerrainKind>, cover: boolean, reach: boolean, threat: boolean,
  sides: string[], colour: (side: string) => string,
): HTMLElement {
  const kinds = new Set(terrain.values());
  // Swatches are little SVGs: the page's CSP allows no inline style for a side's colour.
  const item = (swatch: string, text: string, fillColour?: string): HTMLElement =>
    h("li", {}, s("svg", { class: `swatch ${swatch}`, viewBox: "0 0 10 10", "aria-hidden": "true" },
      s("rect", { x: 0.5, y: 0.5, width: 9, height: 9, rx: swatch === "side" ? 4.5 : 1, fill: fillColour })), text);
  return h("ul", { class: "map-legend", "aria-label": "map legend" },
    item("normal", grid.kind === "hex" ? "open hex" : "open square"),
    kinds.has("difficult") ? item("difficult", "difficult terrain (costs double)") : null,
    kinds.has("impassable") ? item("impassable", "impassable") : null,
    cover ? item("cover-partial", "partial cover") : null,
    cover ? item("cover-total", "total cover") : null,
    reach ? item("reachable", "reachable (number: cost)") : null,
    threat ? item("threatened", "threatened by the other side") : null,
    sides.map((side) => item("side", `side ${side}`, colour(side))),
    item("acting", "acting now"),
  );
}
