/** The log: one line per event, newest first, in Fray's words. Each ruleset narrates its
 * events in Python (`narrate`); Fray serves the sentences as `GET .../narration`, told from
 * the copy of the event this token is sent, so a line never says what the viewer may not
 * see. Lines are asked for in batches: an event that comes while nothing is being asked for
 * starts one request, and every event that comes while it runs waits for the next one, so
 * a burst of events costs one or two requests, not one each. Only when the request fails
 * does a line fall back to the event's own words (`rawLine`). */

import type { EncounterClient, components } from "@fray/client";
import { h } from "./dom.js";

type Event = components["schemas"]["Event"];
type NarrationLine = components["schemas"]["NarrationLine"];

const PAGE = 1000; // the API's largest page

function value(v: unknown, names: Map<string, string>): string {
  if (typeof v === "string") return names.get(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => value(x, names)).join(", ");
  if (v !== null && typeof v === "object") {
    const text = JSON.stringify(v);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return String(v);
}

/** The event in its own words: its type, who did it, and its data with combatants named. */
export function rawLine(event: Event, names: Map<string, string>): string {
  const who = (event.actor as { id?: string; role?: string }).role ?? "";
  const data = Object.entries(event.data)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${value(v, names)}`)
    .join("; ");
  return `${event.type.replace(/-/g, " ")}${who ? ` (${who})` : ""}${data ? ` — ${data}` : ""}`;
}

export class EventLog {
  /** The events logged but not yet told, by version. */
  private readonly waiting = new Map<number, { event: Event; text: HTMLElement }>();
  private asking = false;
  private scheduled = false;

  constructor(
    private readonly list: HTMLElement,
    private readonly encounter: EncounterClient,
    private readonly names: Map<string, string>,
  ) {}

  /** Log an event (they come in version order): its line now, its sentence soon. */
  add(event: Event): void {
    const text = h("span", { class: "text", "aria-busy": "true" }, "…");
    this.list.prepend(h("li", { "data-version": event.version },
      h("span", { class: "version" }, `#${event.version}`), " ", text));
    this.waiting.set(event.version, { event, text });
    this.schedule();
  }

  /** Ask once the events that arrived together are all in (a task later, not a microtask:
   * the frames of one network read are handed over one microtask after another). */
  private schedule(): void {
    if (this.asking || this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.ask();
    }, 0);
  }

  private async ask(): Promise<void> {
    const batch = new Map(this.waiting);
    this.waiting.clear();
    this.asking = true;
    try {
      const told = await this.sentences(Math.min(...batch.keys()) - 1, Math.max(...batch.keys()));
      for (const [version, { event, text }] of batch) {
        this.show(text, told.get(version) ?? rawLine(event, this.names));
      }
    } catch {
      for (const { event, text } of batch.values()) this.show(text, rawLine(event, this.names));
    } finally {
      this.asking = false;
      if (this.waiting.size > 0) this.schedule();
    }
  }

  /** The sentences of the versions after `after` up to `last`, page by page. */
  private async sentences(after: number, last: number): Promise<Map<number, string>> {
    const told = new Map<number, string>();
    let cursor = after;
    for (;;) {
      const page = await this.encounter.narration(cursor, Math.min(PAGE, last - cursor));
      for (const line of page.lines as NarrationLine[]) told.set(line.version, line.text);
      if (!page.has_more || page.next_after >= last) return told;
      cursor = page.next_after;
    }
  }

  private show(text: HTMLElement, sentence: string): void {
    text.textContent = sentence;
    text.removeAttribute("aria-busy");
  }
}
