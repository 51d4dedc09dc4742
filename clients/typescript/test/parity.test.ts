/** The TypeScript verifier and `fray audit` agree, check by check (the decide re-run aside,
 * which only `fray audit` runs), on a golden export and on tampered copies of it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

import { auditExport, canonicalJson, parseJson, sha256Hex, type JsonObject } from "../src/audit/index.js";
import { ROOT } from "./paths.js";

const run = promisify(execFile);
const FRAY = process.env.FRAY_BIN ?? "";
const KEYS = { keys: [{ kid: "golden", alg: "Ed25519", public_key: "dhYu9NzSuvOm-x9E4QQoMCPaz5_o9O-KTwhyP3SN0RY" }] };
const GOLDEN = join(ROOT, "tests", "fixtures", "streams", "hex-tactical-server-dice.jsonl");

async function rechained(lines: string[], from: number, edit: (e: JsonObject) => void): Promise<string[]> {
  const out = [...lines];
  let previous: string | null = null;
  for (let i = from; i < out.length; i++) {
    const envelope = parseJson(out[i]!) as JsonObject;
    if (i === from) edit(envelope);
    if (previous !== null) envelope.prev_hash = previous;
    const { hash: _hash, ...body } = envelope;
    envelope.hash = await sha256Hex(canonicalJson(body));
    previous = envelope.hash as string;
    out[i] = canonicalJson(envelope);
  }
  return out;
}

function lastCommandStart(lines: string[]): number {
  for (let i = lines.length - 1; i > 1; i--) {
    if ((parseJson(lines[i]!) as JsonObject).command !== null) return i;
  }
  throw new Error("no command");
}

async function copies(): Promise<Record<string, string[]>> {
  const lines = readFileSync(GOLDEN, "utf8").trimEnd().split("\n");
  const die = lines.findIndex((l, i) => i > 1 && /"kind":"die","n":/.test(l));
  const header = parseJson(lines[0]!) as JsonObject;
  const head = header.head as JsonObject;
  return {
    golden: lines,
    "an edited event": lines.map((l, i) => (i === 4 ? l.replace('"at":"', '"at":"1') : l)),
    "a line not canonical": lines.map((l, i) => (i === 3 ? l.replace(":", ": ") : l)),
    "a forged die": await rechained(lines, die, (e) => {
      const roll = (e.rolls as JsonObject[]).find((r) => r.kind === "die" && "n" in r)!;
      roll.value = ((roll.value as number) % (roll.k as number)) + 1;
    }),
    // Cut where a command starts: a command cut in two is the re-run's to find.
    "a truncated export": lines.slice(0, lastCommandStart(lines)),
    "a head not signed by its key": [canonicalJson({ ...header, head: { ...head, hash: "0".repeat(64) } }), ...lines.slice(1)],
    "no header": lines.slice(1),
  };
}

test("the TypeScript verifier and fray audit give the same verdict and statuses", async () => {
  assert.ok(FRAY !== "", "FRAY_BIN: tests/clients/test_typescript.py sets it");
  const directory = mkdtempSync(join(tmpdir(), "fray-parity-"));
  const keys = join(directory, "keys.json");
  writeFileSync(keys, JSON.stringify(KEYS));
  const cases = Object.entries(await copies());
  await Promise.all(cases.map(async ([name, lines], i) => {
    const file = join(directory, `${i}.jsonl`);
    const text = lines.join("\n") + "\n";
    writeFileSync(file, text);
    const python = await run(FRAY, ["audit", "--file", file, "--keys", keys, "--json"]).then(
      (done) => done.stdout, (failed: { stdout: string }) => failed.stdout,
    );
    const theirs = JSON.parse(python) as { verdict: string; checks: { name: string; status: string }[] };
    const ours = await auditExport(text, { trusted: KEYS.keys });
    const statuses = (checks: { name: string; status: string }[]) =>
      Object.fromEntries(checks.filter((c) => c.name !== "rerun").map((c) => [c.name, c.status]));
    assert.deepEqual(statuses(ours.checks), statuses(theirs.checks), name);
    assert.equal(ours.verdict, theirs.verdict, name);
    assert.equal(ours.audited_version, (theirs as unknown as { audited_version: number }).audited_version, name);
  }));
});
