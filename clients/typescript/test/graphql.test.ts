/** Following over GraphQL (graphql-ws) against the real `fray serve`. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { FrayError, type Command, type SubscribedEvent } from "../src/index.js";
import { fray, skirmish, within } from "./helpers.js";

test("encounterEvents: the history, then a new event with its receipt", async () => {
  const encounter = await skirmish(fray());
  const { version } = await encounter.get();
  const subscription = encounter.subscribe();
  const seen: SubscribedEvent[] = [];
  await within("the subscribed roll", (async () => {
    for await (const event of subscription) {
      seen.push(event);
      if (seen.length === version) await encounter.send({ type: "roll", expression: "1d10" } as Command);
      if (seen.length === version + 1) break;
    }
  })());

  assert.deepEqual(seen.map((e) => e.version), Array.from({ length: version + 1 }, (_, i) => i + 1));
  const last = seen.at(-1)!;
  assert.equal(last.type, "dice-rolled");
  assert.equal(last.receipt!.version, last.version);
  assert.equal(last.receipt!.hash, last.hash);
  assert.equal(seen[1]!.prevHash, seen[0]!.hash);
});

test("a dropped websocket is subscribed again after the last version: no gap, no duplicate", async () => {
  const encounter = await skirmish(fray());
  const { version } = await encounter.get();
  const resubscribed: { reason: string; after: number }[] = [];
  const subscription = encounter.subscribe({ onResubscribe: (r) => resubscribed.push(r) });
  const seen: number[] = [];
  await within("the events after the drop", (async () => {
    for await (const event of subscription) {
      seen.push(event.version);
      if (seen.length === version) {
        subscription.reconnect();
        for (let i = 0; i < 2; i++) await encounter.send({ type: "roll", expression: "1d4" } as Command);
      }
      if (seen.length === version + 2) break;
    }
  })());

  assert.deepEqual(seen, Array.from({ length: version + 2 }, (_, i) => i + 1));
  assert.deepEqual(resubscribed, [{ reason: "reconnect asked", after: version }]);
  assert.equal(subscription.subscriptions, 2);
});

test("a subscription with a bad credential is refused, not retried for ever", async () => {
  const encounter = await skirmish(fray());
  const stranger = encounter.fray.as("not-a-key").encounter(encounter.id).subscribe();
  const error = await within("the refusal", (async () => {
    try {
      for await (const _ of stranger) return null;
    } catch (e) {
      return e;
    }
    return null;
  })());
  assert.ok(error instanceof FrayError, String(error));
  assert.equal(error.code, "auth/invalid-token");
  assert.equal(stranger.subscriptions, 1, "not subscribed again");
});
