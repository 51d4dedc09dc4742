/** A card field, where a ruleset has one (fifty-two §4.2: columns of face-up cards dealt
 * from a face-down pool), drawn from the encounter's state as the viewer may see it: each
 * column top card first (a column's first card is its bottom row), the pool's size, and
 * the acting combatant's action points left this turn (§5.4). Nothing for other rulesets. */

import { fill, h } from "./dom.js";

interface Field {
  columns: string[][];
  pool_size?: number | null;
}
interface Turn {
  combatant_id: string;
  points: number;
}

const SUIT: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME: Record<string, string> = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

function face(card: string): HTMLElement {
  const [, rank = card, suit = "", primes = ""] = /^(.+?)([SHDC])('*)$/.exec(card) ?? [];
  const red = suit === "H" || suit === "D";
  return h("li", { class: red ? "card red" : "card", "data-card": card,
    "aria-label": `${rank} of ${SUIT_NAME[suit] ?? suit}${primes}` }, `${rank}${SUIT[suit] ?? suit}${primes}`);
}

function isField(value: unknown): value is Field {
  const columns = (value as Field | null)?.columns;
  return Array.isArray(columns) && columns.every((c) => Array.isArray(c) && c.every((x) => typeof x === "string"));
}

/** Draw the state's field into `#field` (made after the combatants the first time), or
 * hide it when the state has none. */
export function drawField(state: Record<string, unknown>, names: Map<string, string>): void {
  let section = document.getElementById("field");
  if (!isField(state.field)) {
    if (section) section.hidden = true;
    return;
  }
  if (!section) {
    section = h("section", { id: "field", "aria-labelledby": "h-field" });
    document.getElementById("combatants")?.after(section);
  }
  section.hidden = false;
  const field = state.field;
  const turn = state.turn as Turn | null | undefined;
  fill(section,
    h("h2", { id: "h-field" }, "Field"),
    h("ol", { class: "field" }, field.columns.map((column, n) =>
      h("li", { class: "column", "data-column": n + 1 },
        h("span", { class: "column-name" }, `column ${n + 1}`),
        h("ol", { "aria-label": `column ${n + 1}, top card first` }, [...column].reverse().map(face))))),
    h("p", { class: "pool-size" }, `pool: ${field.pool_size ?? "?"} cards face down`),
    turn && typeof turn.points === "number"
      ? h("p", { class: "points", "data-points": turn.points },
          `${names.get(turn.combatant_id) ?? turn.combatant_id}: ${turn.points} action points left`)
      : null);
}
