/** The verifier against docs/audit.md's vectors, every golden export, and tampered copies. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

import {
  auditEnvelopes, auditExport, canonicalJson, drawer, fromHex, keysOf, parseJson, sha256Hex,
  verifyReceipt, type AuditReport, type JsonObject, type JsonValue,
} from "../src/audit/index.js";
import { ROOT } from "./paths.js";

const STREAMS = join(ROOT, "tests", "fixtures", "streams");
// golden.py's SIGNER: the key the suite trusts as an auditor trusts GET /v1/keys.
const GOLDEN_KEYS = [{ kid: "golden", alg: "Ed25519", public_key: "dhYu9NzSuvOm-x9E4QQoMCPaz5_o9O-KTwhyP3SN0RY" }];

function vectors(): Map<string, JsonObject> {
  const page = readFileSync(join(ROOT, "docs", "audit.md"), "utf8");
  const found = new Map<string, JsonObject>();
  for (const match of page.matchAll(/```json\n([\s\S]*?)```/g)) {
    const value = parseJson(match[1]!) as JsonObject;
    if (typeof value.vector === "string") found.set(value.vector, value);
  }
  return found;
}

const VECTORS = vectors();
const vector = (name: string): JsonObject => {
  const found = VECTORS.get(name);
  assert.ok(found, `docs/audit.md has no ${name} vector`);
  return found;
};

function goldens(): string[] {
  const top = readdirSync(STREAMS).filter((f) => f.endsWith(".jsonl")).map((f) => join(STREAMS, f));
  const older = readdirSync(join(STREAMS, "older")).filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(STREAMS, "older", f));
  return [...top, ...older];
}

function statuses(report: AuditReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
}

test("docs/audit.md has every vector", () => {
  for (const name of ["seed", "canonical", "draws", "dice", "shuffle", "envelope", "salted-envelope", "chain", "receipt"]) {
    vector(name);
  }
});

test("the seed vector: SHA-256 of the seed bytes is the commitment", async () => {
  const v = vector("seed");
  assert.equal(await sha256Hex(fromHex(v.seed as string)!), v.seed_commitment);
});

test("the canonical JSON vectors", async () => {
  for (const c of vector("canonical").cases as JsonObject[]) {
    const written = canonicalJson(c.value!);
    assert.equal(written, c.canonical, c.name as string);
    assert.equal(await sha256Hex(written), c.sha256, c.name as string);
    if (typeof c.canonical_utf8 === "string") {
      assert.equal(Buffer.from(written, "utf8").toString("hex"), c.canonical_utf8);
    }
  }
});

test("the draw vectors, the rejected attempt included", async () => {
  const v = vector("draws");
  const draw = await drawer(fromHex(v.seed as string)!);
  for (const d of v.draws as JsonObject[]) {
    assert.equal(await draw(d.v as number, d.n as number, d.k as number), d.value, canonicalJson(d));
  }
});

test("the dice vector: each die is a draw plus one", async () => {
  const v = vector("dice");
  const draw = await drawer(fromHex(v.seed as string)!);
  const dice = v.dice as JsonObject[];
  const records = await Promise.all(dice.map(async (die, n) => ({
    k: die.sides!, kind: "die", n, purpose: die.purpose!,
    value: (await draw(v.v as number, n, die.sides as number)) + 1,
  })));
  assert.equal(canonicalJson(records as JsonValue), canonicalJson(v.records!));
});

test("the shuffle vector: Fisher-Yates from the end", async () => {
  const v = vector("shuffle");
  const draw = await drawer(fromHex(v.seed as string)!);
  const items = [...(v.items as string[])];
  const records: JsonValue[] = [];
  for (let i = items.length - 1, n = 0; i >= 1; i--, n++) {
    const j = await draw(v.v as number, n, i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
    records.push({ k: i + 1, kind: "index", n, purpose: v.purpose!, value: j });
  }
  assert.deepEqual(items, v.result);
  assert.equal(canonicalJson(records), canonicalJson(v.records!));
});

test("the envelope vector: hashed text, hash and line", async () => {
  const v = vector("envelope");
  const envelope = v.envelope as JsonObject;
  const { hash: _hash, ...body } = envelope;
  assert.equal(canonicalJson(body), v.hashed);
  assert.equal(await sha256Hex(v.hashed as string), v.hash);
  assert.equal(canonicalJson(envelope), v.line);
});

test("the salted envelope vector: the salt is hashed, between rolls and schema", async () => {
  const v = vector("salted-envelope");
  const envelope = v.envelope as JsonObject;
  const { hash: _hash, ...body } = envelope;
  assert.equal(canonicalJson(body), v.hashed);
  assert.equal(await sha256Hex(v.hashed as string), v.hash);
  assert.equal(canonicalJson(envelope), v.line);
  const { salt: _salt, ...stripped } = body;
  assert.notEqual(await sha256Hex(canonicalJson(stripped)), v.hash);
  assert.equal(await sha256Hex(canonicalJson(stripped)), vector("envelope").hash);
});

test("the chain vector audits, with its seed", async () => {
  const v = vector("chain");
  const envelopes = (v.lines as string[]).map((l) => parseJson(l) as JsonObject);
  const report = await auditEnvelopes(envelopes, { seed: v.seed as string });
  assert.deepEqual(report.checks.map((c) => c.status).slice(0, 5), ["passed", "passed", "passed", "passed", "passed"]);
  assert.deepEqual(envelopes.map((e) => e.hash), v.hashes);
  assert.equal(report.encounter_id, v.encounter_id);
});

test("the receipt vector verifies, and not with another version", async () => {
  const v = vector("receipt");
  const keys = [{ kid: v.kid, alg: "Ed25519", public_key: v.public_key }];
  const receipt = v.receipt as JsonObject;
  assert.equal(await verifyReceipt(receipt, keys), null);
  assert.match((await verifyReceipt({ ...receipt, version: 3 }, keys))!, /does not verify/);
});

test("docs/audit.md's export of the vector chain passes with the vector seed and key", async () => {
  const page = readFileSync(join(ROOT, "docs", "audit.md"), "utf8");
  const exported = /```jsonl\n([\s\S]*?)```/.exec(page)![1]!;
  const r = vector("receipt");
  const trusted = [{ kid: r.kid as string, alg: "Ed25519", public_key: r.public_key as string }];
  const report = await auditExport(exported, { seed: vector("seed").seed as string, trusted });
  assert.equal(report.verdict, "passed", JSON.stringify(report.checks));
  assert.equal(report.audited_version, 2);
  const untrusted = await auditExport(exported, { seed: vector("seed").seed as string });
  assert.equal(untrusted.verdict, "incomplete");
  assert.equal(statuses(untrusted).head, "incomplete");
});

for (const path of goldens()) {
  const name = path.slice(STREAMS.length + 1);
  test(`golden export ${name} passes`, async () => {
    const text = readFileSync(path, "utf8");
    const report = await auditExport(text, { trusted: GOLDEN_KEYS });
    assert.equal(report.verdict, "passed", JSON.stringify(report.checks, null, 1));
    assert.deepEqual(statuses(report), {
      lines: "passed", chain: "passed", created: "passed", seed: "passed", draws: "passed",
      rerun: "skipped", head: "passed", receipts: "skipped",
    });
    assert.equal(report.audited_version, text.trimEnd().split("\n").length - 1);
  });
}

// Tampering, on a golden stream with server dice: each copy must fail, at the right check.
const SAMPLE = join(STREAMS, "delvers-deep-server-dice.jsonl");

function lines(): string[] {
  return readFileSync(SAMPLE, "utf8").trimEnd().split("\n");
}

async function audited(copy: string[], options = {}): Promise<AuditReport> {
  return auditExport(copy.join("\n") + "\n", { trusted: GOLDEN_KEYS, ...options });
}

function serverDie(copy: string[]): number {
  return copy.findIndex((l, i) => i > 1 && /"kind":"die","n":/.test(l));
}

test("an event edited in place fails the chain", async () => {
  const copy = lines();
  copy[3] = canonicalJson({ ...(parseJson(copy[3]!) as JsonObject), at: "2030-01-01T00:00:00.000Z" });
  const report = await audited(copy);
  assert.equal(report.verdict, "failed");
  assert.equal(statuses(report).chain, "failed");
  assert.equal(statuses(report).draws, "incomplete"); // not run, never passed
});

test("a line no longer canonical fails the lines check", async () => {
  const copy = lines();
  copy[2] = copy[2]!.replace("{", "{ ");
  const report = await audited(copy);
  assert.equal(report.verdict, "failed");
  assert.equal(statuses(report).lines, "failed");
});

test("a forged die, re-hashed and re-chained to the end, fails the draws", async () => {
  const copy = lines();
  const at = serverDie(copy);
  assert.ok(at > 0, "the sample has a server die");
  const { sha256Hex: sha } = await import("../src/audit/crypto.js");
  let previous: string | null = null;
  for (let i = at; i < copy.length; i++) {
    const envelope = parseJson(copy[i]!) as JsonObject;
    if (i === at) {
      const rolls = envelope.rolls as JsonObject[];
      const die = rolls.find((r) => r.kind === "die" && "n" in r)!;
      die.value = ((die.value as number) % (die.k as number)) + 1; // another face of the die
    }
    if (previous !== null) envelope.prev_hash = previous;
    const { hash: _old, ...body } = envelope;
    envelope.hash = await sha(canonicalJson(body));
    previous = envelope.hash as string;
    copy[i] = canonicalJson(envelope);
  }
  const report = await audited(copy);
  assert.equal(report.verdict, "failed");
  assert.deepEqual([statuses(report).chain, statuses(report).draws], ["passed", "failed"]);
});

test("a truncated export fails its head receipt", async () => {
  const copy = lines().slice(0, -1);
  const report = await audited(copy);
  assert.equal(report.verdict, "failed");
  assert.equal(statuses(report).head, "failed");
});

test("a broken receipt fails: a head signed by no trusted key, a kept receipt with a bad sig", async () => {
  const copy = lines();
  const header = parseJson(copy[0]!) as JsonObject;
  const headReceipt = header.head as JsonObject;
  const sig = headReceipt.sig as string;
  const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
  copy[0] = canonicalJson({ ...header, head: { ...headReceipt, sig: flipped } });
  const report = await audited(copy);
  assert.equal(statuses(report).head, "failed");
  assert.equal(report.verdict, "failed");

  const kept = { ...headReceipt, version: 2, sig: headReceipt.sig };
  const broken = await audited(lines(), { receipts: [kept] });
  assert.equal(statuses(broken).receipts, "failed");
  assert.equal(broken.verdict, "failed");
});

test("a receipt a client kept passes while the stream holds its event", async () => {
  const copy = lines();
  const header = parseJson(copy[0]!) as JsonObject;
  const report = await audited(copy, { receipts: [header.head] });
  assert.equal(statuses(report).receipts, "passed");
  assert.equal(report.verdict, "passed");
});

test("a wrong seed fails the commitment; no seed for an open stream is incomplete", async () => {
  const copy = lines();
  const ended = copy.findIndex((l) => l.includes('"type":"encounter-ended"'));
  const open = copy.slice(0, ended); // before the reveal: the header's head no longer matches
  const report = await auditExport(open.join("\n"), { trusted: GOLDEN_KEYS });
  assert.equal(statuses(report).seed, "incomplete");
  assert.equal(statuses(report).draws, "incomplete");
  const wrong = await auditExport(open.join("\n"), { trusted: GOLDEN_KEYS, seed: "00".repeat(32) });
  assert.equal(statuses(wrong).seed, "failed");
  assert.equal(wrong.verdict, "failed");
});

test("the header's own keys are not trusted: the head is incomplete without trusted keys", async () => {
  const text = readFileSync(SAMPLE, "utf8");
  const report = await auditExport(text);
  assert.equal(statuses(report).head, "incomplete");
  assert.equal(report.verdict, "incomplete");
  assert.deepEqual(JSON.parse(JSON.stringify(keysOf(parseJson(text.split("\n")[0]!)))), GOLDEN_KEYS);
});
