/** Prompts at the top of the page: the open reaction windows the viewer may answer, and the
 * dice Fray asks the viewer to roll (`dice: prompt`). Both come from what Fray answers, the
 * summary's `reaction_windows` and the legal actions `answer-reaction` and `submit-roll`, so
 * a prompt goes away once Fray closes its window or has its dice. A prompt is a labelled
 * region, not a modal: the rest of the page stays usable by keyboard. */

import { FrayError, type EncounterClient, type components } from "@fray/client";
import { countDown, type Countdown } from "./clocks.js";
import { fill, h } from "./dom.js";

type Summary = components["schemas"]["EncounterSummary"];
type Window = components["schemas"]["WindowView"];
type ActionOption = components["schemas"]["ActionOption"];

/** The legal actions the prompts draw: the generic action list leaves them out. */
export const PROMPTED = new Set(["answer-reaction", "submit-roll"]);

export interface PromptHost {
  encounter: EncounterClient;
  summary: Summary;
  actions: ActionOption[];
  names: Map<string, string>;
  /** The viewer is the GM: it sees every open window and who is still to answer. */
  gm: boolean;
  refresh: () => void;
}

const KINDS: Record<string, string> = {
  "attack": "attacks",
  "opportunity-attack": "gives an opening (attack of opportunity) to",
  "morale-broken": "breaks in morale",
  "parting-shot": "leaves, open to a parting shot from",
  "interact": "acts on",
};

/** What opened the window, in words: who did what to whom, with what. */
export function triggerText(trigger: Record<string, unknown>, names: Map<string, string>): string {
  const name = (id: unknown): string => names.get(String(id)) ?? String(id);
  const attack = (trigger.attack ?? {}) as Record<string, unknown>;
  const kind = String(trigger.kind ?? "reaction");
  const actor = trigger.actor !== undefined ? name(trigger.actor) : "someone";
  const target = trigger.target !== undefined && trigger.target !== trigger.actor ? name(trigger.target) : "";
  const weapon = trigger.weapon ?? attack.weapon;
  const damage = trigger.damage ?? attack.damage;
  const parts = [actor, KINDS[kind] ?? kind.replace(/-/g, " "), target].filter(Boolean);
  if (typeof weapon === "string") parts.push(`with the ${weapon}`);
  if (typeof damage === "string" || typeof damage === "number") parts.push(`(damage ${damage})`);
  if (typeof trigger.reason === "string") parts.push(`: ${trigger.reason}`);
  if (typeof trigger.description === "string") parts.push(`: ${trigger.description}`);
  return parts.join(" ").replace(" :", ":");
}

function deadlineOf(deadline: string | null | undefined, countdowns: Countdown[]): HTMLElement | null {
  if (!deadline) return null;
  const remaining = h("span", { class: "remaining" }, "");
  countdowns.push({ element: remaining, remainingMs: Date.parse(deadline) - Date.now(), receivedAt: performance.now() });
  return h("p", { class: "deadline" }, "answer within ", remaining);
}

async function sending(host: PromptHost, form: HTMLElement, command: Record<string, unknown>): Promise<void> {
  const out = form.querySelector(".refusal") as HTMLElement;
  out.textContent = "";
  for (const b of Array.from(form.querySelectorAll("button"))) b.disabled = true;
  try {
    await host.encounter.send(command as never);
    host.refresh();
  } catch (error) {
    fill(out, error instanceof FrayError
      ? [h("strong", {}, error.message), ` ${error.code}`, error.rule ? ` (${error.rule})` : ""]
      : String(error));
    for (const b of Array.from(form.querySelectorAll("button"))) b.disabled = false;
  }
}

function windowPrompt(window: Window, host: PromptHost, countdowns: Countdown[]): HTMLElement {
  const name = (id: string): string => host.names.get(id) ?? id;
  const heading = `w-${window.window_id}`;
  const answers = host.actions.filter((a) => a.type === "answer-reaction" &&
    (a.params as { window_id?: string }).window_id === window.window_id);
  const section = h("section", {
    class: "prompt reaction", role: "dialog", "aria-labelledby": heading, "data-window": window.window_id,
  },
    h("h3", { id: heading }, `Reaction: ${triggerText(window.trigger, host.names)}`),
    deadlineOf(window.deadline, countdowns),
    host.gm ? h("p", { class: "waiting" }, `waiting for: ${Object.keys(window.eligible).map(name).join(", ")}`) : null,
  );
  for (const answer of answers) {
    const combatant = answer.actor ?? "";
    const options = ((answer.params as { options?: string[] }).options) ?? window.eligible[combatant] ?? [];
    const group = h("div", { class: "answers", role: "group", "aria-label": `${name(combatant)} answers` },
      answers.length > 1 || host.gm ? h("span", { class: "who" }, `${name(combatant)}: `) : null,
      options.map((option) => h("button", {
        type: "button", "data-option": option, "data-combatant": combatant,
        onclick: () => void sending(host, group, {
          type: "answer-reaction", window_id: window.window_id, combatant_id: combatant, option,
        }),
      }, option)),
      h("p", { class: "refusal", role: "alert" }));
    section.append(group);
  }
  return section;
}

/** `count` faces from the browser's CSPRNG, each uniform on 1..sides (rejection sampling,
 * so no face is likelier than another). */
export function rollFaces(sides: number, count: number): number[] {
  const limit = Math.floor(0x1_0000_0000 / sides) * sides;
  const faces: number[] = [];
  const word = new Uint32Array(1);
  while (faces.length < count) {
    crypto.getRandomValues(word);
    if (word[0]! < limit) faces.push((word[0]! % sides) + 1);
  }
  return faces;
}

function dicePrompt(action: ActionOption, host: PromptHost, countdowns: Countdown[]): HTMLElement {
  const p = action.params as { request_id: string; sides: number; count: number; expression: string; purpose?: string; deadline?: string | null };
  const heading = `r-${p.request_id}`;
  const roller = action.actor ? host.names.get(action.actor) ?? action.actor : "the GM";
  const inputs = Array.from({ length: p.count }, (_, i) => h("input", {
    type: "number", min: 1, max: p.sides, step: 1, required: true, name: "face",
    id: `${heading}-${i}`, inputmode: "numeric",
  }));
  // No browser validation: Fray says what is wrong with a face (and why), in its words.
  const form = h("form", { class: "dice", novalidate: true },
    inputs.map((input, i) => h("label", { for: input.id }, `d${p.sides} #${i + 1} `, input)),
    h("button", { type: "button", class: "roll-for-me", onclick: () => {
      rollFaces(p.sides, p.count).forEach((face, i) => { inputs[i]!.value = String(face); });
    } }, "Roll for me"),
    h("button", { type: "submit" }, "Submit"),
    h("p", { class: "refusal", role: "alert" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const faces = inputs.map((input) => Number(input.value));
    void sending(host, form, { type: "submit-roll", request_id: p.request_id, faces });
  });
  return h("section", { class: "prompt dice-prompt", role: "dialog", "aria-labelledby": heading, "data-request": p.request_id },
    h("h3", { id: heading }, `Roll ${p.expression} for ${roller}: ${p.purpose ?? "a roll"}`),
    h("p", {}, `${p.count} d${p.sides}: type the faces rolled at the table, or let the browser roll.`),
    deadlineOf(p.deadline, countdowns), form);
}

/** Draw the prompts: each open window the viewer may answer (the GM: every open window),
 * each roll asked of the viewer. A dice prompt still open keeps its typed faces. */
export function renderPrompts(root: HTMLElement, host: PromptHost): void {
  const countdowns: Countdown[] = [];
  const windows = (host.summary.reaction_windows ?? []).filter((w) => host.gm ||
    host.actions.some((a) => a.type === "answer-reaction" && (a.params as { window_id?: string }).window_id === w.window_id));
  const kept = new Map(Array.from(root.querySelectorAll<HTMLElement>(".dice-prompt"), (e) => [e.dataset.request, e]));
  const dice = host.actions.filter((a) => a.type === "submit-roll").map((a) => {
    const id = (a.params as { request_id: string }).request_id;
    const old = kept.get(id);
    if (!old) return dicePrompt(a, host, countdowns);
    const left = old.querySelector<HTMLElement>(".deadline .remaining");
    const deadline = (a.params as { deadline?: string | null }).deadline;
    if (left && deadline) countdowns.push({ element: left, remainingMs: Date.parse(deadline) - Date.now(), receivedAt: performance.now() });
    return old;
  });
  fill(root, windows.map((w) => windowPrompt(w, host, countdowns)), dice);
  root.hidden = windows.length + dice.length === 0;
  countDown(countdowns, "prompts");
}


