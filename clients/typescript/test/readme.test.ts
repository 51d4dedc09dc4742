/** The README's example is the code readme.example.ts runs, and it does what it says. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { KEY, URL_ } from "./helpers.js";
import { ROOT } from "./paths.js";
import { example } from "./readme.example.js";

const PACKAGE = join(ROOT, "clients", "typescript");

test("README.md shows readme.example.ts's code", () => {
  const source = readFileSync(join(PACKAGE, "test", "readme.example.ts"), "utf8");
  const body = /\/\/ README:start\n([\s\S]*?)\s*\/\/ README:end/.exec(source)![1]!
    .split("\n").map((l) => l.replace(/^ {2}/, "")).join("\n");
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  assert.ok(readme.includes(body), `README.md lacks:\n${body}`);
});

test("the README's example runs: the events followed, then the audit passed", async () => {
  const printed = await example(URL_, KEY);
  assert.equal(printed, ["1 encounter-created", "2 combatant-added", "3 dice-rolled", "passed"].join("\n"));
});
