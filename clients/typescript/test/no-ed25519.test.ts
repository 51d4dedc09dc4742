/** A runtime whose WebCrypto has no Ed25519 (older browsers): receipts are reported
 * "unsupported" and the verdict incomplete, never passed. This file runs in its own process
 * (node's test runner gives each file one), whose importKey refuses Ed25519 as such a
 * browser's does. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { auditExport, ed25519Supported, parseJson, type JsonObject } from "../src/audit/index.js";
import { ROOT } from "./paths.js";

const subtle = globalThis.crypto.subtle;
const importKey = subtle.importKey.bind(subtle);
Object.defineProperty(subtle, "importKey", {
  value: (...args: Parameters<SubtleCrypto["importKey"]>) => {
    const algorithm = args[2] as { name?: string } | string;
    const name = typeof algorithm === "string" ? algorithm : algorithm.name;
    if (name === "Ed25519") {
      return Promise.reject(new DOMException("Unrecognized algorithm name", "NotSupportedError"));
    }
    return importKey(...args);
  },
});

const GOLDEN = join(ROOT, "tests", "fixtures", "streams", "freeform-server-dice.jsonl");
const KEYS = [{ kid: "golden", alg: "Ed25519", public_key: "dhYu9NzSuvOm-x9E4QQoMCPaz5_o9O-KTwhyP3SN0RY" }];

test("without Ed25519 the head and the receipts are unsupported: incomplete, never passed", async () => {
  assert.equal(await ed25519Supported(), false);
  const text = readFileSync(GOLDEN, "utf8");
  const head = (parseJson(text.split("\n")[0]!) as JsonObject).head;

  const report = await auditExport(text, { trusted: KEYS, receipts: [head] });

  const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
  assert.equal(report.verdict, "incomplete");
  assert.equal(byName.chain!.status, "passed");
  assert.equal(byName.draws!.status, "passed");
  assert.equal(byName.head!.status, "incomplete");
  assert.match(byName.head!.detail, /unsupported/);
  assert.equal(byName.receipts!.status, "incomplete");
  assert.match(byName.receipts!.detail, /unsupported/);
});

test("a forgery is still a failure without Ed25519", async () => {
  const lines = readFileSync(GOLDEN, "utf8").trimEnd().split("\n");
  lines[2] = lines[2]!.replace('"version":2', '"version":3');
  const report = await auditExport(lines.join("\n"), { trusted: KEYS });
  assert.equal(report.verdict, "failed");
});
