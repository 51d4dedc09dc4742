/**
 * The audit of docs/audit.md in TypeScript, ported from service/audit/ (the checks, their
 * order, what stops what, and the verdict): every check of `fray audit` but the decide
 * re-run, which needs Fray's ruleset code and is reported `skipped` with that said.
 *
 * A verdict means what `fray audit`'s does: `passed` only when every check that ran passed
 * and none could not run; `failed` when one found a forgery; `incomplete` when one could not
 * run (no seed, no trusted key, no Ed25519 in this runtime's WebCrypto). A failure stops the
 * checks after it, which are reported `incomplete` ("not run: …"), never `passed`.
 */

import { canonicalBytes, canonicalJson, parseJson, type JsonObject, type JsonValue, JsonFloat } from "./canonical.js";
import {
  Ed25519Unsupported, drawer, fromBase64url, fromHex, sha256Hex, verifyEd25519,
} from "./crypto.js";

export type Status = "passed" | "failed" | "incomplete" | "skipped";
export type Verdict = "passed" | "failed" | "incomplete";

/** Every check, in the order `fray audit` runs them. */
export const CHECKS = ["lines", "chain", "created", "seed", "draws", "rerun", "head", "receipts"] as const;
export type CheckName = (typeof CHECKS)[number];

export interface Check {
  name: CheckName;
  status: Status;
  count: number | null;
  detail: string;
}

/** A key as `GET /v1/keys` lists it. */
export interface PublicKey {
  kid: string;
  alg: string;
  public_key: string;
}

export interface Receipt {
  kid: string;
  encounter_id: string;
  version: number;
  hash: string;
  sig: string;
}

export interface AuditReport {
  verdict: Verdict;
  encounter_id: string | null;
  ruleset: string | null;
  ruleset_version: string | null;
  audited_version: number;
  checks: Check[];
}

export interface AuditOptions {
  /** The seed (64 hex digits or 32 bytes), for a stream that has not revealed it. */
  seed?: string | Uint8Array;
  /** Keys you trust to sign receipts: fetched from the server yourself (`GET /v1/keys`),
   * never the ones an export lists (its forger could have listed their own). */
  trusted?: readonly PublicKey[];
  /** Receipts a client kept, each checked against the stream as it is now. */
  receipts?: readonly unknown[];
}

export interface EnvelopesOptions extends AuditOptions {
  /** The receipt that anchors the head (e.g. the last one a live stream carried); without
   * it nothing shows that events were not dropped from the end, and `head` is incomplete. */
  head?: unknown;
}

/** An event envelope as stored: its members, read keeping every number's kind. */
export type Envelope = JsonObject & {
  version: number;
  type: string;
  data: JsonObject;
  command: JsonObject | null;
  rolls: JsonValue[];
  prev_hash: string;
  hash: string;
  /** 128 secret random bits hashed with the rest (docs/audit.md, "The salt"): absent from
   * events recorded before salts, and from an event shown with parts hidden. */
  salt?: string;
};

/** The members every envelope has. */
export const ENVELOPE_FIELDS = [
  "version", "type", "schema", "data", "at", "command_id", "actor", "command", "rolls",
  "prev_hash", "hash",
] as const;
/** The members an envelope may have: hashed, like the others, when present. */
export const OPTIONAL_FIELDS = ["salt"] as const;
export const ZERO_HASH = "0".repeat(64);

/** The checks as they run (shared with ./redacted.ts, not exported by the package). */
export class Report {
  checks: Check[] = [];
  encounter_id: string | null = null;
  ruleset: string | null = null;
  ruleset_version: string | null = null;
  constructor(public audited_version: number) {}

  add(name: CheckName, status: Status, detail: string, count: number | null = null): void {
    this.checks.push({ name, status, count, detail });
  }
  passed(name: CheckName, detail: string, count: number | null = null): true {
    this.add(name, "passed", detail, count);
    return true;
  }
  failed(name: CheckName, detail: string): false {
    this.add(name, "failed", detail);
    return false;
  }
  get failure(): boolean {
    return this.checks.some((c) => c.status === "failed");
  }
  notRun(why: string): void {
    const done = new Set(this.checks.map((c) => c.name));
    for (const name of CHECKS) if (!done.has(name)) this.add(name, "incomplete", `not run: ${why}`);
  }
  done(): AuditReport {
    const statuses = new Set(this.checks.map((c) => c.status));
    const verdict: Verdict = statuses.has("failed")
      ? "failed"
      : statuses.has("incomplete") || this.checks.length === 0 ? "incomplete" : "passed";
    return {
      verdict,
      encounter_id: this.encounter_id,
      ruleset: this.ruleset,
      ruleset_version: this.ruleset_version,
      audited_version: this.audited_version,
      checks: this.checks,
    };
  }
}

/** An export read back: its header (outside the chain) and its envelopes. */
export interface Export {
  header: JsonObject | null;
  envelopes: Envelope[];
  problems: string[];
  lines: number;
}

export function readExport(text: string): Export {
  const out: Export = { header: null, envelopes: [], problems: [], lines: 0 };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  lines.forEach((line, index) => {
    const number = index + 1;
    if (line === "") return;
    let value: JsonValue;
    try {
      value = parseJson(line);
    } catch (error) {
      out.problems.push(`line ${number}: not JSON (${(error as Error).message})`);
      return;
    }
    if (number === 1 && isObject(value) && "fray_export" in value) {
      out.header = value;
      return;
    }
    out.lines++;
    const problem = envelopeProblem(value);
    if (problem !== null) {
      out.problems.push(`line ${number}: ${problem}`);
      return;
    }
    const envelope = pick(value as JsonObject);
    if (canonicalJson(envelope) !== line) {
      out.problems.push(`line ${number}: not in canonical form (edited after it was written?)`);
    }
    out.envelopes.push(envelope);
  });
  return out;
}

export function envelopeProblem(value: JsonValue): string | null {
  if (!isObject(value)) return "not an event envelope (not a JSON object)";
  const missing = ENVELOPE_FIELDS.find((f) => !(f in value));
  return missing === undefined ? null : `not an event envelope (no '${missing}')`;
}

/** The envelope's own members (an SSE frame's `receipt`, beside them, is not hashed); a
 * null `salt` (GraphQL's for none) is no salt, as Fray reads one. */
export function pick(value: JsonObject): Envelope {
  const out: JsonObject = Object.create(null) as JsonObject;
  for (const name of ENVELOPE_FIELDS) out[name] = value[name]!;
  for (const name of OPTIONAL_FIELDS) if (value[name] !== undefined && value[name] !== null) out[name] = value[name]!;
  return out as Envelope;
}

/** Audit an export (`GET /v1/encounters/{id}/export`, `fray export`): its head anchored by
 * its header's receipt, which counts only when signed by a key in `trusted`. */
export async function auditExport(text: string, options: AuditOptions = {}): Promise<AuditReport> {
  const exported = readExport(text);
  const report = new Report(exported.envelopes.length);
  if (exported.problems.length > 0) {
    report.failed("lines", exported.problems[0]!);
    report.notRun("the export does not read");
    return report.done();
  }
  report.passed(
    "lines", `${exported.lines} events, each the canonical JSON of an envelope`, exported.lines,
  );
  const anchor: Anchor = { kind: "export", header: exported.header };
  return run(exported.envelopes, options, anchor, report);
}

/** Audit envelopes read another way (parsed with `parseJson` from SSE frames or an events
 * page's raw text, so that floats stay floats): `head` is the receipt that anchors the end. */
export async function auditEnvelopes(
  envelopes: readonly JsonObject[], options: EnvelopesOptions = {},
): Promise<AuditReport> {
  const report = new Report(envelopes.length);
  for (const [i, value] of envelopes.entries()) {
    const problem = envelopeProblem(value);
    if (problem !== null) {
      report.failed("lines", `event ${i + 1}: ${problem}`);
      report.notRun("the events do not read");
      return report.done();
    }
  }
  report.passed("lines", `${envelopes.length} events read`, envelopes.length);
  const anchor: Anchor = { kind: "receipt", receipt: options.head };
  return run(envelopes.map(pick), options, anchor, report);
}

type Anchor =
  | { kind: "export"; header: JsonObject | null }
  | { kind: "receipt"; receipt: unknown };

async function run(
  envelopes: Envelope[], options: AuditOptions, anchor: Anchor, report: Report,
): Promise<AuditReport> {
  if (envelopes.length === 0) {
    report.failed("chain", "the stream is empty");
    report.notRun("there is no stream");
    return report.done();
  }
  if (!(await chain(envelopes, report))) {
    report.notRun("the hash chain is broken");
    return report.done();
  }
  const created = readCreated(envelopes, report);
  if (created === null) {
    report.notRun("version 1 does not say what the encounter is");
    return report.done();
  }
  const seed = await seedMatches(created, envelopes, options.seed, report);
  if (report.failure) {
    report.notRun("the seed does not match its commitment");
    return report.done();
  }
  if (!(await draws(envelopes, seed, report))) {
    report.notRun("a draw does not match the seed");
    return report.done();
  }
  const commandCount = commands(envelopes).length;
  report.add("rerun", "skipped", `${commandCount} commands not re-decided: the decide re-run `
    + "needs Fray's ruleset code (run `fray audit` for it)");
  await head(envelopes, created.encounter_id, anchor, options.trusted, report);
  await receipts(envelopes, created.encounter_id, options.receipts, options.trusted, report);
  return report.done();
}

async function chain(envelopes: Envelope[], report: Report): Promise<boolean> {
  let previous = ZERO_HASH;
  for (const [i, envelope] of envelopes.entries()) {
    const expected = i + 1;
    if (envelope.version !== expected) {
      return report.failed("chain", `version ${expected}: found version ${show(envelope.version)} (gap or reorder)`);
    }
    if (envelope.prev_hash !== previous) {
      return report.failed("chain", `version ${expected}: prev_hash does not match the hash of version ${expected - 1}`);
    }
    if ((await envelopeHash(envelope)) !== envelope.hash) {
      return report.failed("chain", `version ${expected}: hash does not match its contents (edited)`);
    }
    previous = envelope.hash;
  }
  const n = envelopes.length;
  return report.passed("chain", `${n} events, versions 1..${n}, each linked and hashed`, n);
}

/** SHA-256 (hex) of the canonical JSON of the envelope without its `hash`. */
export async function envelopeHash(envelope: JsonObject): Promise<string> {
  const body: JsonObject = Object.create(null) as JsonObject;
  for (const [key, value] of Object.entries(envelope)) if (key !== "hash") body[key] = value;
  return sha256Hex(canonicalBytes(body));
}

export interface Created {
  encounter_id: string;
  seed_commitment: string;
}

export function readCreated(envelopes: Envelope[], report: Report): Created | null {
  const first = envelopes[0]!;
  if (first.type !== "encounter-created") {
    report.failed("created", `version 1 is '${show(first.type)}', not encounter-created`);
    return null;
  }
  const data = first.data;
  const wanted = ["encounter_id", "ruleset", "ruleset_version", "seed_commitment"] as const;
  const bad = isObject(data) ? wanted.find((k) => typeof data[k] !== "string") : "data";
  if (bad !== undefined) {
    report.failed("created", `version 1 does not read as encounter-created (${bad})`);
    return null;
  }
  const encounterId = data.encounter_id as string;
  report.encounter_id = encounterId;
  report.ruleset = data.ruleset as string;
  report.ruleset_version = data.ruleset_version as string;
  report.passed("created", `encounter ${encounterId}, ruleset ${report.ruleset} ${report.ruleset_version}`);
  return { encounter_id: encounterId, seed_commitment: data.seed_commitment as string };
}

export async function seedMatches(
  created: Created, envelopes: Envelope[], given: string | Uint8Array | undefined, report: Report,
): Promise<Uint8Array | null> {
  const revealed = revealedSeed(envelopes);
  const source = revealed !== null ? "revealed by encounter-ended" : "given by the auditor";
  const seed = revealed ?? (typeof given === "string" ? fromHex(given) ?? new Uint8Array() : given ?? null);
  if (seed === null) {
    report.add("seed", "incomplete", "not revealed (no encounter-ended) and not given: pass "
      + "the seed (an auditor token or the GM may read it before the end)");
    return null;
  }
  if ((await sha256Hex(seed)) !== created.seed_commitment) {
    report.failed("seed", `SHA-256 of the seed (${source}) does not match the commitment`);
    return null;
  }
  report.passed("seed", `the seed (${source}) matches the commitment in version 1`);
  return seed;
}

function revealedSeed(envelopes: Envelope[]): Uint8Array | null {
  for (const envelope of envelopes) {
    if (envelope.type === "encounter-ended") {
      const seed = isObject(envelope.data) ? envelope.data.seed : undefined;
      // A revealed seed that is not hex fails the commitment, as in fray audit.
      return typeof seed === "string" ? fromHex(seed) ?? new Uint8Array() : new Uint8Array();
    }
  }
  return null;
}

/** Envelopes grouped by the command that produced them (the first carries `command`). */
export function commands(envelopes: readonly Envelope[]): Envelope[][] {
  const groups: Envelope[][] = [];
  for (const envelope of envelopes.slice(1)) {
    if (envelope.command !== null || groups.length === 0) groups.push([envelope]);
    else groups[groups.length - 1]!.push(envelope);
  }
  return groups;
}

async function draws(envelopes: Envelope[], seed: Uint8Array | null, report: Report): Promise<boolean> {
  const server: [number, Envelope, JsonValue][] = [];
  for (const group of commands(envelopes)) {
    for (const envelope of group) {
      // Rolls that are not a list are one record that does not read as a draw.
      const rolls = Array.isArray(envelope.rolls) ? envelope.rolls : [null];
      for (const roll of rolls) {
        if (!(isObject(roll) && roll.source === "table")) server.push([group[0]!.version, envelope, roll]);
      }
    }
  }
  if (seed === null) {
    report.add("draws", "incomplete", `${server.length} server draws not checked: no seed`);
    return true;
  }
  const draw = await drawer(seed);
  for (const [v, envelope, roll] of server) {
    let problem: string;
    const r = isObject(roll) ? roll : null;
    const n = r === null ? undefined : integer(r.n);
    const k = r === null ? undefined : integer(r.k);
    if (r === null || n === undefined || k === undefined || k < 1 || !("value" in r)) {
      problem = `a roll record that does not read as a draw (${canonicalJson(roll)})`;
    } else {
      let expected = await draw(v, n, k);
      if ((r.kind ?? "die") === "die") expected += 1;
      if (numeric(r.value) === expected) continue;
      problem = `draw n=${n} (${show(r.purpose)}) shows ${canonicalJson(r.value!)} but the seed gives ${expected}`;
    }
    return report.failed("draws", `version ${envelope.version}: ${problem}`);
  }
  return report.passed("draws", `${server.length} server draws match the seed`, server.length);
}

async function head(
  envelopes: Envelope[], encounterId: string, anchor: Anchor,
  trusted: readonly PublicKey[] | undefined, report: Report,
): Promise<void> {
  const last = envelopes[envelopes.length - 1]!;
  let receipt: unknown;
  let keys: readonly unknown[] | undefined = trusted;
  if (anchor.kind === "export") {
    if (anchor.header === null) {
      report.add("head", "incomplete", "the export has no header line: nothing anchors its "
        + "last event, so a truncated export would look the same");
      return;
    }
    receipt = anchor.header.head ?? null;
    if (receipt === null) {
      report.add("head", "incomplete", "the export's head is not signed (the Fray that "
        + "exported it had no signing key)");
      return;
    }
    keys ??= keysOf(anchor.header);
  } else {
    receipt = anchor.receipt;
    if (receipt === undefined || receipt === null) {
      report.add("head", "incomplete", "no receipt given for the last event: nothing shows "
        + "that events were not dropped from the end");
      return;
    }
    if (keys === undefined) {
      report.add("head", "incomplete", "no trusted keys to check the head's receipt with");
      return;
    }
  }
  let problem: string | null;
  try {
    problem = (await verifyReceipt(receipt, keys)) ?? names(receipt as Receipt, encounterId, last);
  } catch (error) {
    if (!(error instanceof Ed25519Unsupported)) throw error;
    report.add("head", "incomplete", "unsupported: this runtime's WebCrypto does not verify "
      + "Ed25519, so the head's receipt was not checked");
    return;
  }
  if (problem !== null) {
    report.failed("head", `the ${anchor.kind === "export" ? "export's " : ""}head receipt: ${problem}`);
    return;
  }
  const kid = (receipt as Receipt).kid;
  if (trusted === undefined) {
    report.add("head", "incomplete", `version ${last.version} is signed by key '${kid}', which `
      + "only the export itself lists: give trusted keys (GET /v1/keys) to check that it is Fray's");
    return;
  }
  report.passed("head", `version ${last.version} is the head, signed by key '${kid}'`);
}

function names(receipt: Receipt, encounterId: string, last: Envelope): string | null {
  if (receipt.encounter_id !== encounterId) {
    return `it is for encounter '${show(receipt.encounter_id)}', not '${encounterId}'`;
  }
  if (receipt.version !== last.version) {
    return `it names version ${show(receipt.version)} but the export ends at version ${last.version} (truncated or extended)`;
  }
  if (receipt.hash !== last.hash) return `the hash it signs is not that of version ${last.version}`;
  return null;
}

async function receipts(
  envelopes: Envelope[], encounterId: string, held: readonly unknown[] | undefined,
  trusted: readonly PublicKey[] | undefined, report: Report,
): Promise<void> {
  if (held === undefined || held.length === 0) {
    report.add("receipts", "skipped", "no receipts given");
    return;
  }
  if (trusted === undefined) {
    report.add("receipts", "incomplete", `${held.length} receipts not checked: no trusted keys`);
    return;
  }
  for (const [i, receipt] of held.entries()) {
    let problem: string | null;
    try {
      problem = (await verifyReceipt(receipt, trusted)) ?? prefix(receipt as Receipt, encounterId, envelopes);
    } catch (error) {
      if (!(error instanceof Ed25519Unsupported)) throw error;
      report.add("receipts", "incomplete", `unsupported: this runtime's WebCrypto does not `
        + `verify Ed25519, so ${held.length} receipts were not checked`);
      return;
    }
    if (problem !== null) {
      report.failed("receipts", `receipt ${i + 1}: ${problem}`);
      return;
    }
  }
  report.passed("receipts", `${held.length} receipts each name an event of this stream as it is`, held.length);
}

function prefix(receipt: Receipt, encounterId: string, envelopes: Envelope[]): string | null {
  const version = receipt.version;
  if (receipt.encounter_id !== encounterId) {
    return `it is for encounter '${show(receipt.encounter_id)}', not '${encounterId}'`;
  }
  if (!Number.isSafeInteger(version) || version < 1) return `it names version ${show(version)}, not a version`;
  if (version > envelopes.length) {
    return `it names version ${version} but the stream ends at version ${envelopes.length}: `
      + "the stream was truncated after the receipt was given";
  }
  if (envelopes[version - 1]!.hash !== receipt.hash) {
    return `version ${version} is not the event the receipt was given for: history up to it `
      + "was rewritten (a fork or an edit)";
  }
  return null;
}

const RECEIPT_FIELDS = ["kid", "encounter_id", "version", "hash", "sig"] as const;

/** What is wrong with `receipt` against `keys` (as GET /v1/keys lists them), or null when
 * its Ed25519 signature verifies with the key it names (service/domain/receipts.py).
 * Throws `Ed25519Unsupported` where WebCrypto has no Ed25519. */
export async function verifyReceipt(receipt: unknown, keys: readonly unknown[]): Promise<string | null> {
  if (!isPlain(receipt)) return "a receipt is a JSON object";
  const missing = RECEIPT_FIELDS.filter((f) => !(f in receipt));
  if (missing.length > 0) return `the receipt has no ${missing.map((m) => `'${m}'`).join(", ")}`;
  const { kid, sig, encounter_id: encounterId, version, hash } = receipt as Record<string, unknown>;
  if (![kid, sig, encounterId, hash].every((v) => typeof v === "string")) {
    return "the receipt's kid, encounter_id, hash and sig are strings";
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version)) return "the receipt's version is an integer";
  const key = keys.find((k): k is Record<string, unknown> => isPlain(k) && k.kid === kid);
  if (key === undefined) return `the receipt's key '${kid as string}' is not among the trusted keys`;
  const raw = typeof key.public_key === "string" ? fromBase64url(key.public_key) : null;
  if (key.alg !== "Ed25519" || raw === null || raw.length !== 32) {
    return `the key '${kid as string}' is not an Ed25519 public key (32 bytes, base64url)`;
  }
  const signature = fromBase64url(sig as string);
  if (signature === null) return "the receipt's sig is not base64url";
  const signed = canonicalBytes({ encounter_id: encounterId as string, hash: hash as string, version });
  if (!(await verifyEd25519(raw, signature, signed))) {
    return `the receipt's signature does not verify with key '${kid as string}': it was not made `
      + "by that key for this encounter, version and hash";
  }
  return null;
}

/** The keys of a `GET /v1/keys` answer or an export header. */
export function keysOf(listing: unknown): PublicKey[] {
  const keys = isPlain(listing) ? listing.keys : undefined;
  return Array.isArray(keys) ? (keys.filter(isPlain) as unknown as PublicKey[]) : [];
}

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonFloat);
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonFloat);
}

function integer(value: JsonValue | undefined): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
}

function numeric(value: JsonValue | undefined): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof JsonFloat) return value.value;
  return undefined;
}

export function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, (_, v: unknown) =>
    typeof v === "bigint" ? v.toString() : v instanceof JsonFloat ? v.value : v) ?? "undefined";
}
