/**
 * Fray's table view: `/table/{encounter_id}#token=<token>`. The token is read from the URL's
 * fragment (a browser never sends a fragment, so it reaches no server log) and the page then
 * talks to Fray through the TypeScript client only: the encounter as this token may see it,
 * its legal actions, and a live follow over SSE with stream tickets. Each event is logged as
 * it comes and the encounter read again, so the page shows what Fray decided, never a guess.
 */

import { Fray, FrayError, type EncounterClient, type components } from "@fray/client";
import { actionControl, type CommandBody } from "./actions.js";
import { AuditBadge } from "./audit.js";
import { drawField } from "./cards.js";
import { fillForm } from "./cells.js";
import { countDown, formatMs, type Countdown } from "./clocks.js";
import { fill, h } from "./dom.js";
import { keepingInput } from "./keep.js";
import { GM_CLOCK_ACTIONS, renderClockControls } from "./gm.js";
import { drawMap, type Pick } from "./map.js";
import { EventLog } from "./narrate.js";
import { PROMPTED, renderPrompts } from "./prompts.js";
import "./table.css";

type Summary = components["schemas"]["EncounterSummary"];
type Combatant = components["schemas"]["CombatantSummary"];
type Pool = components["schemas"]["PoolView"];
type LegalActions = components["schemas"]["LegalActions"];
type Event = components["schemas"]["Event"];
type ActionOption = components["schemas"]["ActionOption"];

const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;

function credentials(): { encounterId: string; token: string } | null {
  const encounterId = decodeURIComponent(location.pathname.replace(/^\/table\/?/, "").replace(/\/$/, ""));
  const token = new URLSearchParams(location.hash.replace(/^#/, "")).get("token") ?? "";
  return encounterId && token ? { encounterId, token } : null;
}

function poolBar(name: string, pool: Pool): HTMLElement {
  const max = pool.max ?? null;
  const value = pool.current ?? null;
  const text = value === null ? "?" : max === null ? `${value}` : `${value} / ${max}`;
  const bar = max !== null && value !== null
    ? h("progress", { max, value: Math.max(0, value), "aria-label": `${name} ${text}` })
    : null;
  return h("div", { class: "pool", "data-pool": name }, h("span", { class: "pool-name" }, name), bar, h("span", { class: "pool-value" }, text));
}

function combatantCard(c: Combatant, acting: boolean): HTMLElement {
  // `health` is the `hp` pool again (service/domain/redaction.py), so the pools are drawn
  // once; where the encounter hides this combatant's health, Fray sends no pools, a word.
  const health = c.health_word
    ? h("div", { class: "pool" }, h("span", { class: "pool-name" }, "health"), h("span", { class: "health-word" }, c.health_word))
    : null;
  return h("li", {
    class: ["combatant", acting ? "acting" : "", c.out_of_fight ? "out" : ""].join(" ").trim(),
    "data-combatant": c.id, "aria-current": acting ? "true" : null,
  },
    h("h3", {}, c.name, acting ? h("span", { class: "badge" }, " acting") : null),
    c.epithet ? h("p", { class: "epithet" }, c.epithet) : null,
    h("p", { class: "side" }, `side: ${c.side}`, c.out_of_fight ? " · out of the fight" : ""),
    health,
    Object.entries(c.pools ?? {}).map(([name, pool]) => poolBar(name, pool)),
    (c.conditions ?? []).length > 0
      ? h("ul", { class: "conditions", "aria-label": "conditions" },
          (c.conditions ?? []).map((k) => h("li", {}, conditionText(k))))
      : null,
  );
}

function conditionText(condition: components["schemas"]["ConditionView"]): string {
  const { name, ...rest } = condition as { name?: string } & Record<string, unknown>;
  const more = Object.entries(rest).filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
  return [name ?? "condition", ...more].join(" · ");
}

class Table {
  private summary: Summary | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private readonly names = new Map<string, string>();
  private readonly eventLog: EventLog;
  private readonly audit: AuditBadge;
  private readonly forms = new Map<ActionOption, HTMLFormElement>();

  constructor(private readonly encounter: EncounterClient) {
    this.eventLog = new EventLog($("log"), encounter, this.names);
    this.audit = new AuditBadge($("audit"), encounter);
  }

  async start(): Promise<void> {
    this.audit.poke();
    await this.refresh();
    void this.follow();
  }

  /** Read the encounter and its legal actions again (one read at a time; events that come
   * during a read ask for one more). */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        const [encounter, legal] = await Promise.all([this.encounter.get(), this.encounter.legalActions()]);
        this.render(encounter.summary, legal, encounter.viewer.role === "gm");
        drawField(encounter.state as Record<string, unknown>, this.names);
        drawMap($("map"), { summary: encounter.summary, state: encounter.state, actions: legal.actions },
          (pick) => this.pickFromMap(pick));
      } while (this.again);
    })().catch((error: unknown) => this.status(error)).finally(() => { this.refreshing = null; });
    return this.refreshing;
  }

  private async follow(): Promise<void> {
    const stream = this.encounter.follow({
      onReconnect: ({ reason }) => this.status(`reconnecting: ${reason}`),
    });
    try {
      for await (const live of stream) {
        this.log(live.event);
        $("live").textContent = `live · version ${live.version}`;
        void this.refresh();
        this.audit.poke();
      }
    } catch (error) {
      this.status(error);
    }
  }

  private log(event: Event): void {
    this.eventLog.add(event);
  }

  private status(what: unknown): void {
    const text = what instanceof FrayError ? `${what.code}: ${what.message}` : String(what);
    $("status").textContent = text;
  }

  private async send(command: CommandBody): Promise<void> {
    const out = $("refusal");
    out.textContent = "";
    try {
      await this.encounter.send(command as never);
      void this.refresh();
    } catch (error) {
      if (error instanceof FrayError) {
        fill(out, h("strong", {}, error.message), " ",
          h("span", { class: "code" }, error.code),
          error.rule ? h("span", { class: "rule" }, ` (${error.rule})`) : null);
      } else {
        out.textContent = String(error);
      }
    }
  }

  private render(summary: Summary, legal: LegalActions, gm: boolean): void {
    this.summary = summary;
    const combatants = summary.combatants ?? [];
    for (const c of combatants) this.names.set(c.id, c.name);
    const acting = new Set(summary.acting ?? []);
    const actingNames = [...acting].map((id) => this.names.get(id) ?? id);
    fill($("turn"),
      h("span", { class: "phase" }, summary.phase),
      // Some rulesets' phase already says the round ("round 1: Hero's turn").
      summary.round && !summary.phase.includes("round")
        ? h("span", { class: "round" }, ` · round ${summary.round}`) : null,
      actingNames.length ? h("span", { class: "acting-now" }, ` · acting: ${actingNames.join(", ")}`) : null);
    fill($("combatants"), combatants.map((c) => combatantCard(c, acting.has(c.id))));

    const countdowns: Countdown[] = [];
    const receivedAt = performance.now();
    fill($("clocks"), (summary.clocks ?? []).map((clock) => {
      // A paused clock says what it has left; a running one its deadline.
      const left = typeof clock.remaining_ms === "number" ? clock.remaining_ms
        : clock.deadline ? Date.parse(clock.deadline) - Date.now() : null;
      const shown = h("span", { class: "remaining" }, left === null ? "" : formatMs(left));
      if (clock.status === "running" && left !== null) {
        countdowns.push({ element: shown, remainingMs: left, receivedAt });
      }
      return h("li", { "data-clock": clock.id }, `${clock.label} (${clock.status}) `, shown);
    }));
    countDown(countdowns);

    const named = combatants.map((c) => ({ id: c.id, name: c.name }));
    const send = (command: CommandBody) => void this.send(command);
    const drawnElsewhere = (type: string) => PROMPTED.has(type) || GM_CLOCK_ACTIONS.has(type);
    this.forms.clear();
    keepingInput($("actions"), () => fill($("actions"),
      legal.actions.filter((a) => !drawnElsewhere(a.type)).map((a) => {
        const form = actionControl(a, named, send) as HTMLFormElement;
        this.forms.set(a, form);
        return form;
      })));
    fill($("blocked"), (legal.blocked ?? []).map((b) => h("li", {}, `${this.names.get(b.actor) ?? b.actor}: ${b.reason}`)));
    // The encounter says who is looking (`viewer`): the GM's controls for the GM only.
    $("gm").hidden = !gm;
    renderClockControls($("gm-clocks"), legal.actions, send);
    renderPrompts($("prompts"), {
      encounter: this.encounter, summary, actions: legal.actions, names: this.names, gm,
      refresh: () => void this.refresh(),
    });
  }

  /** A map click fills its action's form (map.ts, cells.ts); a second click on the cell sends. */
  private pickFromMap({ action, values, send, focus }: Pick): void {
    const form = this.forms.get(action);
    if (!form) return;
    fillForm(form, values, focus);
    if (send) form.requestSubmit();
  }

  bindGm(): void {
    $("rewind").addEventListener("submit", (event) => {
      event.preventDefault();
      const to = Number(($("rewind-to") as HTMLInputElement).value);
      void this.send({ type: "rewind", to_version: to });
    });
  }
}

function boot(): void {
  const found = credentials();
  if (!found) {
    $("status").textContent =
      "Open this page as /table/<encounter id>#token=<token> (a tenant key or an encounter token).";
    return;
  }
  // The token stays in memory; the address bar keeps only the encounter.
  history.replaceState(null, "", location.pathname);
  const fray = new Fray({ baseUrl: location.origin, credential: found.token });
  $("encounter").textContent = found.encounterId;
  const table = new Table(fray.encounter(found.encounterId));
  table.bindGm();
  void table.start();
}

boot();
