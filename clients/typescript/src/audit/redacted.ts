/**
 * A redacted export verified as far as it can be (docs/audit.md, "A player's export"): what a
 * player or an observer downloads, one line per version of the stream. An event shown whole
 * is its stored bytes, so its hash is recomputed; one with hidden parts (`redacted` names the
 * members blanked) keeps its stored `hash` and `prev_hash`, which are taken as given: they
 * must still link both ways, and the head's signed receipt commits to them; an event left out
 * is `{"left_out": true, "version": v}`, and the links on either side of it cannot be
 * checked, only counted.
 *
 * What passes shows: every version up to the head Fray signed is accounted for, in order;
 * every event shown whole is as it was recorded; every pair of shown events next to each other
 * links. It does not show what an event with hidden parts holds (the parts shown included),
 * nor what an event left out holds, nor that Fray hid no more than the viewer's role hides.
 * An event whose hash does not match and that is not marked `redacted` fails, never passes
 * as hidden.
 */

import { canonicalJson, parseJson, type JsonObject, type JsonValue } from "./canonical.js";
import { Ed25519Unsupported } from "./crypto.js";
import {
  ENVELOPE_FIELDS, OPTIONAL_FIELDS, Report, ZERO_HASH, envelopeHash, envelopeProblem, isObject, keysOf, pick,
  readCreated, seedMatches, show, verifyReceipt, type AuditOptions, type AuditReport,
  type Envelope, type Receipt,
} from "./verify.js";

/** What a redacted export holds, and so what its verdict covers. */
export interface Redaction {
  /** Versions 1 … head: every event of the stream, shown or not. */
  events: number;
  /** Shown whole: the hash recomputed from the contents. */
  recomputed: number;
  /** Shown with hidden parts: the stored hash taken as signed (it links both ways). */
  hidden: number;
  /** Not shown: a stub with its version only. */
  left_out: number;
  /** Links checked: `prev_hash` of a shown event is the hash of the shown one before it. */
  linked: number;
  /** Links that cannot be checked, to or from an event left out. */
  unlinked: number;
}

export interface RedactedReport extends AuditReport {
  redaction: Redaction;
}

type Line =
  | { version: number; envelope: null }
  | { version: number; envelope: Envelope; redacted: boolean };

/** Members an envelope may have: its own and the optional ones (`salt`). */
const MEMBERS: readonly string[] = [...ENVELOPE_FIELDS, ...OPTIONAL_FIELDS];
/** Members an envelope may have blanked: never its place in the chain. */
const REDACTABLE = new Set<string>(MEMBERS.filter((f) => !["version", "prev_hash", "hash"].includes(f)));

interface Read {
  header: JsonObject | null;
  lines: Line[];
  problem: string | null;
}

function readLines(text: string): Read {
  const out: Read = { header: null, lines: [], problem: null };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    let value: JsonValue;
    try {
      value = parseJson(line);
    } catch (error) {
      out.problem = `line ${number}: not JSON (${(error as Error).message})`;
      return out;
    }
    if (number === 1 && isObject(value) && "fray_export" in value) {
      out.header = value;
      continue;
    }
    const read = isObject(value) ? readLine(value) : "not an event envelope (not a JSON object)";
    const where = isObject(value) && typeof value.version === "number"
      ? `line ${number} (version ${value.version})` : `line ${number}`;
    if (typeof read === "string") {
      out.problem = `${where}: ${read}`;
      return out;
    }
    if (canonicalJson(value) !== line) {
      out.problem = `${where}: not in canonical form (edited after it was written?)`;
      return out;
    }
    out.lines.push(read);
  }
  return out;
}

function readLine(value: JsonObject): Line | string {
  if ("left_out" in value) {
    const keys = Object.keys(value).sort().join(",");
    const version = value.version;
    if (keys !== "left_out,version" || value.left_out !== true || typeof version !== "number") {
      return "a left-out event is {\"left_out\": true, \"version\": v} and nothing else";
    }
    return { version, envelope: null };
  }
  const problem = envelopeProblem(value);
  if (problem !== null) return problem;
  const extra = Object.keys(value).filter((k) => !MEMBERS.includes(k));
  if (extra.some((k) => k !== "redacted")) return `an envelope with a member '${extra.find((k) => k !== "redacted")!}'`;
  const redacted = value.redacted;
  if (redacted === undefined) return { version: value.version as number, envelope: pick(value), redacted: false };
  if (!Array.isArray(redacted) || redacted.length === 0
    || !redacted.every((m) => typeof m === "string" && REDACTABLE.has(m))) {
    return `'redacted' names the members blanked (of ${[...REDACTABLE].join(", ")}), not ${canonicalJson(redacted)}`;
  }
  return { version: value.version as number, envelope: pick(value), redacted: true };
}

/** Audit a redacted export (`GET /v1/encounters/{id}/export` as a player or an observer, or
 * anyone's that Fray redacted): see this module's comment for what it proves. A complete
 * export passes too, every event recomputed. `trusted` are the keys you fetched yourself. */
export async function auditRedacted(text: string, options: AuditOptions = {}): Promise<RedactedReport> {
  const read = readLines(text);
  const counts: Redaction = { events: read.lines.length, recomputed: 0, hidden: 0, left_out: 0, linked: 0, unlinked: 0 };
  const report = new Report(read.lines.length);
  const done = (why?: string): RedactedReport => {
    if (why !== undefined) report.notRun(why);
    return { ...report.done(), redaction: counts };
  };
  if (read.problem !== null) {
    report.failed("lines", read.problem);
    return done("the export does not read");
  }
  report.passed("lines", `${read.lines.length} versions, each the canonical JSON of an envelope or a left-out stub`, read.lines.length);
  if (read.lines.length === 0) {
    report.failed("chain", "the stream is empty");
    return done("there is no stream");
  }
  if (!(await chain(read.lines, counts, report))) return done("the hash chain is broken");
  const whole = read.lines.flatMap((l) => (l.envelope !== null && !l.redacted ? [l.envelope] : []));
  const first = read.lines[0]!;
  if (first.envelope === null || whole[0] !== first.envelope) {
    report.failed("created", "version 1 is not shown whole, so nothing says what the encounter is");
    return done("version 1 does not say what the encounter is");
  }
  const created = readCreated(whole, report);
  if (created === null) return done("version 1 does not say what the encounter is");
  await seedMatches(created, whole, options.seed, report);
  if (report.failure) return done("the seed does not match its commitment");
  report.add("draws", "skipped", "a redacted export's draws are not checked (the rolls of hidden "
    + "parts are left out of it): the GM's or an auditor's export checks them");
  report.add("rerun", "skipped", "the decide re-run needs every event and Fray's ruleset code (run `fray audit`)");
  await head(read, created.encounter_id, options, report);
  report.add("receipts", "skipped", options.receipts?.length
    ? "kept receipts are checked against a complete export (auditExport)" : "no receipts given");
  return done();
}

async function chain(lines: Line[], counts: Redaction, report: Report): Promise<boolean> {
  let previous: Line | null = null;
  for (const [i, line] of lines.entries()) {
    const v = i + 1;
    if (line.version !== v) {
      return report.failed("chain", `version ${v}: missing, found version ${show(line.version)} `
        + "in its place (an event removed or events reordered)");
    }
    if (line.envelope === null) {
      counts.left_out++;
      if (previous !== null) counts.unlinked++;
      previous = line;
      continue;
    }
    const before = previous === null ? ZERO_HASH : previous.envelope?.hash ?? null;
    if (before === null) counts.unlinked++;
    else if (line.envelope.prev_hash !== before) {
      return report.failed("chain", `version ${v}: prev_hash does not match the hash of ${v === 1 ? "nothing (64 zeros)" : `version ${v - 1}`}`);
    } else if (v > 1) counts.linked++;
    if ((await envelopeHash(line.envelope)) === line.envelope.hash) counts.recomputed++;
    else if (line.redacted) counts.hidden++;
    else {
      return report.failed("chain", `version ${v}: hash does not match its contents (edited), `
        + "and the export does not mark it redacted");
    }
    previous = line;
  }
  const n = lines.length;
  return report.passed("chain", `versions 1..${n}: ${counts.recomputed} recomputed, ${counts.hidden} `
    + `with hidden parts taken as signed, ${counts.left_out} left out; ${counts.linked} links `
    + `checked, ${counts.unlinked} next to a left-out event not`, n - counts.left_out);
}

async function head(read: Read, encounterId: string, options: AuditOptions, report: Report): Promise<void> {
  const last = read.lines[read.lines.length - 1]!;
  const receipt = read.header?.head ?? null;
  if (read.header === null || receipt === null) {
    report.add("head", "incomplete", read.header === null
      ? "the export has no header line: nothing anchors its last event"
      : "the export's head is not signed (the Fray that exported it had no signing key)");
    return;
  }
  let problem: string | null;
  try {
    problem = (await verifyReceipt(receipt, options.trusted ?? keysOf(read.header))) ?? names(receipt as unknown as Receipt, encounterId, last);
  } catch (error) {
    if (!(error instanceof Ed25519Unsupported)) throw error;
    report.add("head", "incomplete", "unsupported: this runtime's WebCrypto does not verify "
      + "Ed25519, so the head's receipt was not checked");
    return;
  }
  if (problem !== null) {
    report.failed("head", `version ${last.version}: the export's head receipt: ${problem}`);
    return;
  }
  const kid = (receipt as unknown as Receipt).kid;
  const what = last.envelope === null ? `version ${last.version} (not shown to you, so its hash is taken as signed)` : `version ${last.version}`;
  if (options.trusted === undefined) {
    report.add("head", "incomplete", `${what} is signed by key '${kid}', which only the export `
      + "itself lists: give trusted keys (GET /v1/keys) to check that it is Fray's");
    return;
  }
  report.passed("head", `${what} is the head, signed by key '${kid}'`);
}

function names(receipt: Receipt, encounterId: string, last: Line): string | null {
  if (receipt.encounter_id !== encounterId) {
    return `it is for encounter '${show(receipt.encounter_id)}', not '${encounterId}'`;
  }
  if (receipt.version !== last.version) {
    return `it names version ${show(receipt.version)} but the export ends at version ${last.version} (truncated or extended)`;
  }
  if (last.envelope !== null && receipt.hash !== last.envelope.hash) {
    return `the hash it signs is not that of version ${last.version}`;
  }
  return null;
}
