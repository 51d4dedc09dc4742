/** The spare `fray serve` (one command a second per credential), then its shutdown: the
 * tests of this file run in order, the last one ends that server. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { Fray, type Command, type Fetch, type LiveEvent } from "../src/index.js";
import { SPARE_PID, SPARE_URL, URL_, fray, skirmish, within } from "./helpers.js";

test("429s are sent again after Retry-After, with the same command ids, each appended once", async () => {
  assert.ok(SPARE_URL !== "" && SPARE_PID > 0);
  const encounter = await skirmish(fray());
  const { token } = await encounter.mintToken({ role: "gm", subject: "burst" });
  const statuses: number[] = [];
  const waits: string[] = [];
  const counting: Fetch = async (request) => {
    const response = await fetch(request);
    statuses.push(response.status);
    if (response.status === 429) waits.push(response.headers.get("Retry-After") ?? "");
    return response;
  };
  const limited = new Fray({ baseUrl: SPARE_URL, credential: token, fetch: counting, retry: { attempts: 10 } })
    .encounter(encounter.id);

  const answers = await Promise.all([1, 2, 3].map((i) =>
    limited.send({ type: "roll", expression: "1d6", purpose: `burst ${i}` } as Command)));

  assert.ok(statuses.includes(429), `one a second, three at once: ${statuses.join(" ")}`);
  assert.ok(waits.every((w) => Number(w) >= 1), `Retry-After: ${waits.join(" ")}`);
  assert.deepEqual(answers.map((a) => a.duplicate), [false, false, false]);
  const ids = new Set(answers.map((a) => a.command_id));
  const rolled = [];
  for await (const event of encounter.allEvents()) if (ids.has(event.command_id)) rolled.push(event.type);
  assert.deepEqual(rolled, ["dice-rolled", "dice-rolled", "dice-rolled"]);
});

test("a follow outlives its server's shutdown: the goodbye frame's retry hint, then another instance resumes", async () => {
  const encounter = await skirmish(fray());
  // A load balancer: the spare serves the stream until it drains, then the main server does.
  let target = SPARE_URL;
  const balancer: Fetch = async (request) => {
    const url = new URL(request.url);
    const to = new URL(target);
    url.protocol = to.protocol;
    url.host = to.host;
    return fetch(new Request(url, request));
  };
  const reconnects: { reason: string; delayMs: number; lastEventId: number }[] = [];
  // Its own token: the spare's limit of one a second counts per credential across
  // instances, and the other tests use the key on the main server meanwhile.
  const { token } = await encounter.mintToken({ role: "gm", subject: "deploy" });
  const viaBalancer = new Fray({ baseUrl: "http://fray.invalid", credential: token, fetch: balancer });
  let sent: Promise<unknown> | null = null;
  const following = viaBalancer.encounter(encounter.id).follow({
    onReconnect: (r) => {
      reconnects.push(r);
      // Sent once the spare said goodbye, so the event can only come through the other.
      sent ??= encounter.send({ type: "roll", expression: "1d12", purpose: "after the deploy" } as Command);
    },
  });
  const { version } = await encounter.get();
  const seen: LiveEvent[] = [];
  await within("the stream across the shutdown", (async () => {
    for await (const live of following) {
      seen.push(live);
      if (seen.length === version) {
        process.kill(SPARE_PID, "SIGTERM");
        target = URL_;
      }
      if (seen.length === version + 1) break;
    }
  })());
  following.close();
  await sent;

  assert.deepEqual(seen.map((e) => e.version), Array.from({ length: version + 1 }, (_, i) => i + 1));
  assert.equal(reconnects[0]!.reason, "server/shutting-down");
  assert.ok(reconnects[0]!.delayMs >= 500 && reconnects[0]!.delayMs <= 3000, `the hint: ${reconnects[0]!.delayMs}`);
  assert.equal(reconnects[0]!.lastEventId, version);
  assert.equal(following.connections, 2);
});
