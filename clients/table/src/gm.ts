/** The GM's clock controls in the GM section: pause every running clock, or resume them,
 * as Fray's legal actions offer them (service/domain/legal.py: `pause-clocks` while a clock
 * runs, `resume-clocks` while one is paused or the clocks are on hold). */

import type { components } from "@fray/client";
import type { CommandBody } from "./actions.js";
import { fill, h } from "./dom.js";

type ActionOption = components["schemas"]["ActionOption"];

/** The legal actions drawn here: the generic action list leaves them out. */
export const GM_CLOCK_ACTIONS = new Set(["pause-clocks", "resume-clocks"]);

export function renderClockControls(root: HTMLElement, actions: ActionOption[], send: (command: CommandBody) => void): void {
  const offered = actions.filter((a) => GM_CLOCK_ACTIONS.has(a.type));
  fill(root, offered.length === 0
    ? h("p", { class: "note" }, "No clock is running or paused.")
    : offered.map((a) => h("button", {
        type: "button", "data-action": a.type, onclick: () => send({ type: a.type }),
      }, a.type === "pause-clocks" ? "Pause clocks" : "Resume clocks")));
}
