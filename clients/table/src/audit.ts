/** The audit badge: the encounter's export verified in the browser with the TypeScript
 * verifier (`auditExport`, WebCrypto): the hash chain, the seed commitment and the server's
 * draws, the head's receipt against the keys Fray serves (docs/audit.md). Everything of
 * `fray audit` but the decide re-run. It says what it checked, in words, and what it could
 * not check and why; it verifies again when events arrive, at most once a few seconds.
 *
 * What a viewer may check: the export is the stored bytes for the GM, the tenant key and
 * auditors, so their chain is the stream's. Anyone else reads a redacted export (events they
 * may not see left out, hidden health blanked), which chains only where nothing was hidden
 * from them; and only those who may read the seed (the GM, auditors, everyone after the end;
 * nobody before the end in fifty-two) can check the draws. */

import { FrayError, auditEnvelopes, auditExport, readExport, type AuditReport, type Check, type EncounterClient, type PublicKey } from "@fray/client";
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
 * version), what could not be checked and why; and the badge's state: `redacted` where the
 * failure may be the viewer's redaction rather than a forgery (drawn calmer than `failed`). */
export function describe(report: AuditReport, seed: Seed): { verdict: string; notes: string[]; state: string } {
  const failed = report.checks.find((c) => c.status === "failed");
  const notes: string[] = [];
  if (failed) {
    const verdict = `not verified: ${failed.name}: ${failed.detail}`;
    if ("refused" in seed && ["lines", "chain", "head"].includes(failed.name)) {
      notes.push("Your role reads a redacted export (what it may not see left out or blanked), "
        + "so a break in its chain does not by itself show tampering: the GM's badge checks the stored stream.");
      return { verdict, notes, state: "redacted" };
    }
    return { verdict, notes, state: "failed" };
  }
  for (const check of report.checks) {
    if (check.status !== "incomplete") continue;
    const why = check.name === "seed" && "refused" in seed ? `the seed is not yours to read (${seed.refused})` : check.detail;
    notes.push(`not checked: ${check.name}: ${why}`);
  }
  notes.push("not re-run: the rules' decisions (fray audit does that with Fray's ruleset code)");
  return { verdict: passedText(report), notes, state: "verified" };
}

/** Who may read the seed gets the stored bytes (service/app/views.py: both are the GM's,
 * the key's and auditors', and in fifty-two nobody's before the end): their export is
 * audited line for line. Anyone else's export is each envelope as they may see it,
 * serialised again (so not the stored bytes): its envelopes are audited as read, which
 * still checks the chain of every event that was left as it is. */
async function audited(text: string, seed: Seed, keys: PublicKey[] | undefined): Promise<AuditReport> {
  const trusted = keys ? { trusted: keys } : {};
  if ("hex" in seed) return auditExport(text, { ...trusted, seed: seed.hex });
  const exported = readExport(text);
  return auditEnvelopes(exported.envelopes, { ...trusted, head: exported.header?.head ?? undefined });
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
