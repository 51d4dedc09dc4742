/** fifty-two's Reflex save as a prompt (docs/rules/fifty-two.md §8): a spell with a
 * `reflex_dc` cast at a standing combatant waits for its target's `reflex-save`. The prompt is
 * drawn from that legal action alone (its params: the caster, the spell, the DC, the costs of
 * §8.1 to §8.3), so only the target's controller and the GM, who may answer for it, see it. */

import type { components } from "@fray/client";
import { h } from "./dom.js";

type ActionOption = components["schemas"]["ActionOption"];
type Summary = components["schemas"]["EncounterSummary"];

export interface ReflexParams {
  caster: string;
  spell: string;
  dc: number | null;
  attempt_cost: number;
  success_cost: number;
  cover_discount: number;
  charged_to: "this-round" | "next-round";
  step_feet: number;
  dive_limit: number;
}

export interface ReflexHost {
  summary: Summary;
  names: Map<string, string>;
  gm: boolean;
  send: (form: HTMLElement, command: Record<string, unknown>) => void;
}

const points = (n: number): string => `${n} action point${n === 1 ? "" : "s"}`;

/** The words of the prompt's heading: "Reflex save: Evans casts Fireball at Alice (DC 15)". */
export function reflexHeading(p: ReflexParams, target: string, names: Map<string, string>): string {
  const dc = p.dc === null ? "" : ` (DC ${p.dc})`;
  return `Reflex save: ${names.get(p.caster) ?? p.caster} casts ${p.spell} at ${target}${dc}`;
}

/** What each answer costs (§8.1 to §8.3), from the action's params. */
function costs(p: ReflexParams, target: string): string {
  const when = p.charged_to === "next-round"
    ? `from ${target}'s points next round (${target} has acted this round, §8.1)`
    : `from ${target}'s points this round (${target} has not acted yet, §8.2)`;
  return `Attempting costs ${points(p.attempt_cost)}, and ${p.success_cost} more if the save ` +
    `succeeds, ${when}; cover in reach takes ${p.cover_discount} off (§8.3). ` +
    "Taking it costs nothing: the spell lands in full.";
}

export function reflexPrompt(action: ActionOption, host: ReflexHost): HTMLElement {
  const p = action.params as unknown as ReflexParams;
  const combatant = action.actor ?? "";
  const target = host.names.get(combatant) ?? combatant;
  const heading = `reflex-${combatant}`;
  // The save is not timed (docs/rules/fifty-two.md §8). From fifty-two 1.3.0 on §4.5's
  // decision clock stops while the spell waits; in an encounter of an earlier version it runs
  // on, timing the acting combatant's turn, and its running out ends that turn.
  const clock = (host.summary.clocks ?? []).find((c) => c.status === "running");
  const controller = (host.summary.combatants ?? []).find((c) => c.id === combatant)?.controller;
  const cover = h("input", {
    type: "number", min: 0, max: 200, step: 1, value: p.step_feet, id: `${heading}-cover`,
    name: "cover_feet", inputmode: "numeric", "aria-describedby": `${heading}-cover-help`,
  }) as HTMLInputElement;
  const withCover = h("button", { type: "button", class: "with-cover" }) as HTMLButtonElement;
  const label = (): void => {
    withCover.textContent = `Attempt, with cover ${cover.value || "…"} ft away`;
    withCover.disabled = cover.value === "";
  };
  cover.addEventListener("input", label);
  label();
  const group: HTMLElement = h("form", { class: "answers reflex-answers", novalidate: true,
    "aria-label": `${target}'s Reflex save` },
    host.gm ? h("span", { class: "who" }, `Answer for ${target}: `) : null,
    h("button", { type: "button", class: "attempt",
      onclick: () => host.send(group, { type: "reflex-save", combatant_id: combatant, attempt: true }),
    }, "Attempt the save"),
    h("label", { for: cover.id }, "Cover, in feet away ", cover),
    withCover,
    h("button", { type: "button", class: "decline",
      onclick: () => host.send(group, { type: "reflex-save", combatant_id: combatant, attempt: false }),
    }, "Take it"),
    h("p", { class: "hint", id: `${heading}-cover-help` },
      `Cover ${p.step_feet} ft away or nearer is a step; further, up to ${p.dive_limit} ft, ` +
      `a dive that leaves ${target} prone (standing up costs an action point).`),
    h("p", { class: "refusal", role: "alert" }));
  // Fray checks the distance (and names the limit when it is out of reach), not the browser.
  withCover.addEventListener("click", () => {
    if (cover.value === "") return; // no distance typed: not "0 feet away"
    host.send(group, {
      type: "reflex-save", combatant_id: combatant, attempt: true, cover_feet: Number(cover.value),
    });
  });
  group.addEventListener("submit", (event) => { event.preventDefault(); withCover.click(); });
  return h("section", { class: "prompt reflex", role: "dialog", "aria-labelledby": heading, "data-reflex": combatant },
    h("h3", { id: heading }, reflexHeading(p, target, host.names)),
    h("p", { class: "untimed" }, "Not timed: the fight waits for this answer",
      clock ? ` (the clock running, ${clock.label}, times the turn, not this save).` : "."),
    host.gm ? h("p", { class: "waiting" }, `waiting for: ${target}${controller ? ` (${controller})` : ""}`) : null,
    h("p", { class: "cost" }, costs(p, target)),
    group);
}
