/** The audit badge: the encounter's export verified in the browser with the TypeScript
 * verifier (WebCrypto), against the keys Fray serves (docs/audit.md). It says what it
 * checked, in words, and what it could not check and why; it verifies again when events
 * arrive, at most once a few seconds.
 *
 * Who may read the seed (the GM, the tenant key, auditors; in fifty-two nobody before the
 * end) gets the stored bytes and audits them whole (`auditExport`): the hash chain, the seed
 * commitment and the server's draws, the head's receipt; everything of `fray audit` but the
 * decide re-run. Anyone else reads a redacted export (`auditRedacted`, docs/audit.md "A
 * player's export"): every event shown whole is recomputed, events with hidden parts are taken
 * as signed only where the export marks them, events not shown are counted, and every version
 * up to the signed head is accounted for, in order. */

import {
  FrayError, auditExport, auditRedacted, type AuditReport, type Check, type EncounterClient, type PublicKey,
  type RedactedReport,
} from "@fray/client";
import { fill, h } from "./dom.js";

const SETTLE_MS = 1500;

type Seed = { hex: string } | { refused: string };

function because(error: unknown): string {
  return error instanceof FrayError ? error.message : String(error);
}

async function seedOf(encounter: EncounterClient): Promise<Seed> {
  try {
    return { hex: (await encounter.seed()).seed };
  } catch (error) {
    return { refused: because(error) };
  }
}

function passedText(report: AuditReport): string {
  const passed = (name: Check["name"]) => report.checks.find((c) => c.name === name && c.status === "passed");
  const chain = passed("chain");
  const parts = ["hash chain"];
  if (passed("seed")) parts.push("seed commitment");
  const draws = passed("draws");
  if (draws) parts.push(`${draws.count ?? 0} draws`);
  const head = passed("head");
  if (head) parts.push("the head's signed receipt");
  const last = parts.pop();
  const listed = parts.length ? `${parts.join(", ")} and ${last}` : last;
  return `verified: ${chain?.count ?? report.audited_version} events, ${listed}`;
}

/** The verdict in words: what passed, what failed (its check and detail, which names the
 * version), what could not be checked and why, and for a redacted export what its verdict
 * does not cover; and the badge's state (`verified`, `failed`). */
export function describe(report: AuditReport | RedactedReport, seed: Seed): { verdict: string; notes: string[]; state: string } {
  const failed = report.checks.find((c) => c.status === "failed");
  if (failed) return { verdict: `not verified: ${failed.name}: ${failed.detail}`, notes: [], state: "failed" };
  const notes: string[] = "redaction" in report ? unproven(report) : [];
  for (const check of report.checks) {
    if (check.status !== "incomplete") continue;
    const why = check.name === "seed" && "refused" in seed ? `the seed is not yours to read (${seed.refused})` : check.detail;
    notes.push(`not checked: ${check.name}: ${why}`);
  }
  if ("redaction" in report) notes.push("not checked: the draws (the GM's and auditors' badges check them)");
  notes.push("not re-run: the rules' decisions (fray audit does that with Fray's ruleset code)");
  const verdict = "redaction" in report ? redactedText(report) : passedText(report);
  return { verdict, notes, state: "verified" };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function redactedText(report: RedactedReport): string {
  const { events, recomputed, hidden, left_out: leftOut } = report.redaction;
  const signed = report.checks.some((c) => c.name === "head" && c.status === "passed");
  const parts = [`${recomputed} recomputed`];
  if (hidden > 0) parts.push(`${hidden} with hidden parts taken as signed`);
  if (leftOut > 0) parts.push(`${leftOut} not shown to you`);
  return `verified: ${plural(events, "event", "events")} in order up to ${signed ? "the signed head" : `version ${events}`}; ${parts.join(", ")}`;
}

/** What a redacted export's verdict does not show (docs/audit.md, "A player's export"). */
function unproven(report: RedactedReport): string[] {
  const { hidden, left_out: leftOut, unlinked } = report.redaction;
  const notes: string[] = [];
  if (hidden > 0) {
    notes.push(`not proven: the contents of ${plural(hidden, "event", "events")} with hidden parts `
      + "(the parts you see included), only their place in the chain that Fray signed");
  }
  if (leftOut > 0) {
    notes.push(`not proven: the contents of ${plural(leftOut, "event", "events")} not shown to you; `
      + `${plural(unlinked, "link", "links")} next to them cannot be checked`);
  }
  return notes;
}

/** Who may read the seed gets the stored bytes (service/app/views.py: both are the GM's,
 * the key's and auditors', and in fifty-two nobody's before the end): their export is
 * audited whole. Anyone else's is redacted, and audited as far as it can be. */
async function audited(text: string, seed: Seed, keys: PublicKey[] | undefined): Promise<AuditReport | RedactedReport> {
  const trusted = keys ? { trusted: keys } : {};
  if ("hex" in seed) return auditExport(text, { ...trusted, seed: seed.hex });
  return auditRedacted(text, trusted);
}

export class AuditBadge {
  private timer: number | undefined;
  private running = false;
  private again = false;

  constructor(private readonly element: HTMLElement, private readonly encounter: EncounterClient) {}

  /** Verify soon: many events arriving together make one verification. */
  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer === undefined) this.timer = window.setTimeout(() => void this.run(), SETTLE_MS);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    this.again = false;
    this.element.dataset.state = "checking";
    try {
      await this.verify();
    } catch (error) {
      this.show("cannot verify", [because(error)], "unknown");
    } finally {
      this.running = false;
      if (this.again) this.poke();
    }
  }

  private async verify(): Promise<void> {
    if (!globalThis.crypto?.subtle) {
      this.show("cannot verify", ["the browser offers WebCrypto (SHA-256, Ed25519) only to a "
        + "secure page: open the table over https, or from localhost"], "unknown");
      return;
    }
    let text: string;
    try {
      text = await this.encounter.export();
    } catch (error) {
      this.show("cannot verify", [`the export could not be read: ${because(error)}`], "unknown");
      return;
    }
    const [keys, seed] = await Promise.all([
      this.encounter.fray.keys().catch((): PublicKey[] | undefined => undefined),
      seedOf(this.encounter),
    ]);
    const report = await audited(text, seed, keys);
    const { verdict, notes, state } = describe(report, seed);
    this.show(verdict, notes, state);
  }

  private show(verdict: string, notes: string[], state: string): void {
    this.element.dataset.state = state;
    fill(this.element, h("span", { class: "verdict" }, verdict),
      notes.length ? h("details", {}, h("summary", {}, "what this checks"),
        h("ul", {}, notes.map((n) => h("li", {}, n)))) : null);
  }
}
