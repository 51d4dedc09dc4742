/** Prompts at the top of the page: the open reaction windows the viewer may answer, the
 * dice Fray asks the viewer to roll (`dice: prompt`), and fifty-two's pending Reflex save
 * (reflex.ts). All come from what Fray answers, the summary's `reaction_windows` and the legal
 * actions `answer-reaction`, `submit-roll` and `reflex-save`, so a prompt goes away once Fray
 * closes its window, has its dice or the spell has landed. A prompt is a labelled
 * region, not a modal: the rest of the page stays usable by keyboard. */

import { FrayError, type EncounterClient, type components } from "@fray/client";
import { countDown, type Countdown } from "./clocks.js";
import { fill, h } from "./dom.js";
import { reflexPrompt } from "./reflex.js";

type Summary = components["schemas"]["EncounterSummary"];
type Window = components["schemas"]["WindowView"];
type ActionOption = components["schemas"]["ActionOption"];

/** The legal actions the prompts draw: the generic action list leaves them out. */
export const PROMPTED = new Set(["answer-reaction", "submit-roll", "reflex-save"]);

export interface PromptHost {
  encounter: EncounterClient;
  summary: Summary;
  actions: ActionOption[];
  names: Map<string, string>;
  /** The viewer is the GM: it sees every open window and who is still to answer. */
  gm: boolean;
  refresh: () => void;
}

// Each kind of window the rulesets open, as a sentence: `a` who set it off, `t` whom it is
// about (empty when that is `a`).
const KINDS: Record<string, (a: string, t: string) => string> = {
  "attack": (a, t) => `${a} attacks ${t}`,
  "opportunity-attack": (a) => `${a} gives an opening for attacks of opportunity`,
  "morale-broken": (a) => `${a}'s morale breaks`,
  "parting-shot": (a) => `${a} withdraws, open to a parting shot`,
  "interact": (a, t) => `${a} acts on ${t || "something"}`,
  "readied": (a) => `${a}'s readied action is set off`,
  "reserved-move": (a, t) => `${a}'s reserved move is set off${t ? ` by ${t}` : ""}`,
  "overwatch": (a, t) => `${a}'s overwatch is set off${t ? ` by ${t}` : ""}`,
};

/** What opened the window, in words: who did what to whom, with what. */
export function triggerText(trigger: Record<string, unknown>, names: Map<string, string>): string {
  const name = (id: unknown): string => names.get(String(id)) ?? String(id);
  const attack = (trigger.attack ?? {}) as Record<string, unknown>;
  const kind = String(trigger.kind ?? "reaction");
  const actor = trigger.actor !== undefined ? name(trigger.actor) : "someone";
  const target = trigger.target !== undefined && trigger.target !== trigger.actor ? name(trigger.target) : "";
  const sentence = KINDS[kind] ?? ((a: string, t: string) => `${a}: ${kind.replace(/-/g, " ")}${t ? ` (${t})` : ""}`);
  const weapon = trigger.weapon ?? attack.weapon;
  const damage = trigger.damage ?? attack.damage;
  let text = sentence(actor, target);
  if (typeof weapon === "string") text += ` with the ${weapon}`;
  if (typeof damage === "string" || typeof damage === "number") text += ` (damage ${damage})`;
  for (const more of [trigger.reason, trigger.description, trigger.text]) {
    if (typeof more === "string" && more) text += `: ${more}`;
  }
  return text;
}

function deadlineOf(deadline: string | null | undefined): HTMLElement | null {
  if (!deadline) return null;
  return h("p", { class: "deadline" }, "answer within ", h("span", { class: "remaining", "data-deadline": deadline }));
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

function windowPrompt(window: Window, answers: ActionOption[], host: PromptHost): HTMLElement {
  const name = (id: string): string => host.names.get(id) ?? id;
  const heading = `w-${window.window_id}`;
  const section = h("section", {
    class: "prompt reaction", role: "dialog", "aria-labelledby": heading, "data-window": window.window_id,
  },
    h("h3", { id: heading }, `Reaction: ${triggerText(window.trigger, host.names)}`),
    deadlineOf(window.deadline),
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

function dicePrompt(action: ActionOption, host: PromptHost): HTMLElement {
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
    deadlineOf(p.deadline), form);
}

/** Draw the prompts: each open window the viewer may answer (the GM: every open window),
 * each roll asked of the viewer. A prompt that is still open is kept as it is (its typed
 * faces, its focus), so only a new one is announced. */
export function renderPrompts(root: HTMLElement, host: PromptHost): void {
  const answersTo = (w: Window) => host.actions.filter((a) => a.type === "answer-reaction" &&
    (a.params as { window_id?: string }).window_id === w.window_id);
  const wanted: [string, () => HTMLElement][] = [];
  for (const w of host.summary.reaction_windows ?? []) {
    const answers = answersTo(w);
    if (!host.gm && answers.length === 0) continue;
    const key = JSON.stringify(["window", w.window_id, w.eligible, answers.map((a) => [a.actor, a.params])]);
    wanted.push([key, () => windowPrompt(w, answers, host)]);
  }
  for (const a of host.actions.filter((x) => x.type === "submit-roll")) {
    wanted.push([JSON.stringify(["roll", a.actor, a.params]), () => dicePrompt(a, host)]);
  }
  for (const a of host.actions.filter((x) => x.type === "reflex-save")) {
    const running = (host.summary.clocks ?? []).find((c) => c.status === "running")?.label;
    wanted.push([JSON.stringify(["reflex", a.actor, a.params, running]), () => reflexPrompt(a, {
      summary: host.summary, names: host.names, gm: host.gm,
      send: (form, command) => void sending(host, form, command),
    })]);
  }
  const kept = new Map(Array.from(root.children as HTMLCollectionOf<HTMLElement>, (e) => [e.dataset.key, e]));
  const prompts = wanted.map(([key, build]) => {
    const old = kept.get(key);
    if (old) return old;
    const made = build();
    made.dataset.key = key;
    return made;
  });
  // A kept prompt stays where it is: taking it out and putting it back (replaceChildren)
  // would blur the field or button the viewer is on.
  for (const child of Array.from(root.children)) {
    if (!prompts.includes(child as HTMLElement)) child.remove();
  }
  prompts.forEach((prompt, i) => {
    if (root.children[i] !== prompt) root.insertBefore(prompt, root.children[i] ?? null);
  });
  root.hidden = wanted.length === 0;
  const now = performance.now();
  const countdowns: Countdown[] = Array.from(root.querySelectorAll<HTMLElement>(".remaining[data-deadline]"), (element) => ({
    element, remainingMs: Date.parse(element.dataset.deadline ?? "") - Date.now(), receivedAt: now,
  }));
  countDown(countdowns, "prompts");
}
