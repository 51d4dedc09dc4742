/** A player's redacted export verified as far as it can be (auditRedacted, docs/audit.md "A
 * player's export"), against the live server: a freeform fight with hidden enemy health, a
 * hidden GM roll and a GM adjustment of the goblin's hit points; then tampered copies. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { auditEnvelopes, auditRedacted, canonicalJson, parseJson, type JsonObject, type RedactedReport } from "../src/audit/index.js";
import type { Command, PublicKey } from "../src/index.js";
import { fray, skirmish } from "./helpers.js";

interface Fight {
  lines: string[];
  trusted: PublicKey[];
  gmLines: JsonObject[];
}

let fight: Promise<Fight> | undefined;

/** Once for every test: the fight, the player's export and the GM's (to say what was hidden). */
function theFight(): Promise<Fight> {
  fight ??= (async () => {
    const client = fray();
    const encounter = await skirmish(client, { hide_enemy_health: true });
    await encounter.send({ type: "roll", expression: "1d20", hidden: true, purpose: "ambush" } as Command);
    await encounter.send({ type: "adjust-resource", combatant_id: "goblin", delta: -3 } as Command);
    await encounter.send({ type: "roll", expression: "2d6", purpose: "in the open" } as Command);
    const { token } = await encounter.mintToken({ role: "player", combatants: ["bramli"] });
    const text = await client.as(token).encounter(encounter.id).export();
    const gmLines = (await encounter.export()).trimEnd().split("\n").slice(1).map((l) => parseJson(l) as JsonObject);
    return { lines: text.trimEnd().split("\n"), trusted: await client.keys(), gmLines };
  })();
  return fight;
}

/** The index in `lines` of version `v` (line 0 is the header). */
const at = (v: number): number => v;

function edited(lines: string[], v: number, edit: (e: JsonObject) => void): string[] {
  const out = [...lines];
  const envelope = parseJson(out[at(v)]!) as JsonObject;
  edit(envelope);
  out[at(v)] = canonicalJson(envelope);
  return out;
}

function failure(report: RedactedReport): string {
  const failed = report.checks.find((c) => c.status === "failed");
  assert.equal(report.verdict, "failed");
  assert.ok(failed, "a failed verdict names its check");
  return `${failed.name}: ${failed.detail}`;
}

function versionOf(lines: string[], predicate: (e: JsonObject) => boolean): number {
  const i = lines.findIndex((l, i) => i > 0 && predicate(parseJson(l) as JsonObject));
  assert.ok(i > 0, "the export has such a line");
  return i;
}

test("a player's export verifies, counting what it recomputed, took as signed and was not shown", async () => {
  const { lines, trusted, gmLines } = await theFight();
  const report = await auditRedacted(`${lines.join("\n")}\n`, { trusted });
  assert.equal(report.verdict, "incomplete", JSON.stringify(report.checks));
  const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
  assert.deepEqual(status, {
    lines: "passed", chain: "passed", created: "passed", seed: "incomplete", draws: "skipped",
    rerun: "skipped", head: "passed", receipts: "skipped",
  });
  // What the GM's export says was hidden from the player: the goblin's added hit points
  // (blanked), the hidden roll and the adjustment (left out).
  const n = gmLines.length;
  const leftOut = gmLines.filter((e) => e.type === "resource-adjusted" || (e.data as JsonObject).hidden === true);
  assert.equal(leftOut.length, 2);
  assert.deepEqual(report.redaction, {
    events: n, recomputed: n - 3, hidden: 1, left_out: 2, linked: n - 1 - 3, unlinked: 3,
  });
  const head = report.checks.find((c) => c.name === "head")!;
  assert.match(head.detail, new RegExp(`^version ${n} is the head, signed by key '`));
  const goblin = versionOf(lines, (e) => e.type === "combatant-added" && (e.data as JsonObject).combatant_id === "goblin");
  assert.deepEqual((parseJson(lines[at(goblin)]!) as JsonObject).redacted, ["command", "data", "salt"]);
});

test("a player gets each event's salt where it sees the event whole, and none where a part is hidden", async () => {
  const { lines, gmLines } = await theFight();
  let whole = 0;
  for (const [i, line] of lines.slice(1).entries()) {
    const shown = parseJson(line) as JsonObject;
    const stored = gmLines[i]!;
    assert.match(stored.salt as string, /^[0-9a-f]{32}$/, `version ${i + 1} of the GM's export is salted`);
    if ("left_out" in shown) continue;
    if ("redacted" in shown) {
      assert.equal(shown.salt, undefined, `version ${i + 1} has hidden parts: no salt`);
    } else {
      assert.equal(shown.salt, stored.salt, `version ${i + 1} is whole: its salt`);
      assert.equal(line, canonicalJson(stored));
      whole++;
    }
  }
  assert.equal(whole, gmLines.length - 3);
});

test("the GM's salted export passes; a salt stripped or changed fails the chain at its version", async () => {
  const { gmLines } = await theFight();
  const clean = await auditEnvelopes(gmLines);
  assert.equal(clean.checks.find((c) => c.name === "chain")!.status, "passed", JSON.stringify(clean.checks));
  assert.notEqual(clean.verdict, "failed", JSON.stringify(clean.checks));
  const v = gmLines.findIndex((e) => (e.data as JsonObject).purpose === "in the open") + 1;
  const cases: [string, (e: JsonObject) => void][] = [
    ["stripped", (e) => { delete e.salt; }],
    ["changed", (e) => { e.salt = "0".repeat(32); }],
  ];
  for (const [name, edit] of cases) {
    const copy = gmLines.map((e) => parseJson(canonicalJson(e)) as JsonObject);
    edit(copy[v - 1]!);
    const report = await auditEnvelopes(copy);
    const chain = report.checks.find((c) => c.name === "chain")!;
    assert.equal(report.verdict, "failed", name);
    assert.equal(chain.detail, `version ${v}: hash does not match its contents (edited)`, name);
  }
});

test("a whole event of a player's export with its salt stripped fails, and names the version", async () => {
  const { lines, trusted } = await theFight();
  const roll = versionOf(lines, (e) => (e.data as JsonObject | undefined)?.purpose === "in the open");
  const copy = edited(lines, roll, (e) => { delete e.salt; });
  const report = await auditRedacted(`${copy.join("\n")}\n`, { trusted });
  assert.equal(failure(report), `chain: version ${roll}: hash does not match its contents (edited), `
    + "and the export does not mark it redacted");
});

test("each tampering of a player's export fails and names the version", async () => {
  const { lines, trusted } = await theFight();
  const goblin = versionOf(lines, (e) => Array.isArray(e.redacted));
  const roll = versionOf(lines, (e) => (e.data as JsonObject | undefined)?.purpose === "in the open");
  const last = lines.length - 1;
  const header = parseJson(lines[0]!) as JsonObject;
  const head = header.head as JsonObject;
  const sig = head.sig as string;
  const cases: [string, string[], string][] = [
    ["a whole event's data edited", edited(lines, roll, (e) => { (e.data as JsonObject).total = 1; }),
      `chain: version ${roll}: hash does not match its contents (edited), and the export does not mark it redacted`],
    ["a blanked event's hash changed", edited(lines, goblin, (e) => { e.hash = "0".repeat(64); }),
      `chain: version ${goblin + 1}: prev_hash does not match the hash of version ${goblin}`],
    ["a blanked event not marked", edited(lines, goblin, (e) => { delete e.redacted; }),
      `chain: version ${goblin}: hash does not match its contents (edited), and the export does not mark it redacted`],
    ["two events swapped", lines.map((l, i) => (i === 4 ? lines[5]! : i === 5 ? lines[4]! : l)),
      "chain: version 4: missing, found version 5 in its place (an event removed or events reordered)"],
    ["a shown event removed", lines.filter((_, i) => i !== 2),
      "chain: version 2: missing, found version 3 in its place (an event removed or events reordered)"],
    ["the head receipt's signature changed",
      [canonicalJson({ ...header, head: { ...head, sig: `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}` } }), ...lines.slice(1)],
      `head: version ${last}: the export's head receipt: the receipt's signature does not verify with key '${head.kid as string}'`],
  ];
  for (const [name, copy, expected] of cases) {
    const report = await auditRedacted(`${copy.join("\n")}\n`, { trusted });
    assert.ok(failure(report).startsWith(expected), `${name}: ${failure(report)}`);
  }
});
