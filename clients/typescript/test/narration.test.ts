/** The event log as sentences (`narration`, `allNarration`) against a real `fray serve`. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { FrayError, type Command } from "../src/index.js";
import { fray, skirmish, uniqueId } from "./helpers.js";

test("narration pages as events do, each event as the ruleset's sentence", async () => {
  const encounter = await skirmish(fray());
  await encounter.send({ type: "roll", expression: "1d6" } as Command);
  const first = await encounter.narration(0, 3);
  assert.deepEqual(first.lines.map((l) => l.text), [
    "A freeform encounter was created.", "Bramli joined the heroes.", "Goblin joined the goblins.",
  ]);
  assert.deepEqual([first.next_after, first.has_more], [3, true]);
  const lines = [];
  for await (const line of encounter.allNarration(0, 2)) lines.push(line);
  const events = [];
  for await (const event of encounter.allEvents()) events.push(event);
  assert.deepEqual(lines.map((l) => [l.version, l.type, l.at]), events.map((e) => [e.version, e.type, e.at]));
  assert.match(lines.at(-1)?.text ?? "", /^.+ rolled 1d6/);
});

test("a player reads a GM's hidden note as no line at all", async () => {
  const client = fray();
  const encounter = await skirmish(client);
  await encounter.send({ type: "add-note", text: "the goblin has 7 hp", hidden: true } as Command);
  const { token } = await encounter.mintToken({ role: "player", combatants: ["bramli"] });
  const asPlayer = client.as(token).encounter(encounter.id);
  const gm = (await encounter.narration()).lines.map((l) => l.text);
  const player = (await asPlayer.narration()).lines.map((l) => l.text);
  assert.ok(gm.includes("Note: the goblin has 7 hp"), gm.join("\n"));
  assert.equal(player.length, gm.length - 1);
  assert.ok(!player.some((t) => t.includes("goblin has 7")), player.join("\n"));
});

test("narration of an unknown encounter is a FrayError encounter/not-found", async () => {
  const missing = fray().encounter(uniqueId("nope"));
  await assert.rejects(missing.narration(), (error: unknown) =>
    error instanceof FrayError && error.status === 404 && error.code === "encounter/not-found");
});
