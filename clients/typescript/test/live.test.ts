/** The client against a real `fray serve` + `fray worker` (tests/clients/test_typescript.py). */
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  ConflictError, FrayError, NetworkError, auditEnvelopes, envelopeOf, type Command,
  type Event, type Fetch, type LiveEvent,
} from "../src/index.js";
import { PATIENCE_MS, fray, skirmish, uniqueId, within } from "./helpers.js";

const types = (events: { type: string }[]): string[] => events.map((e) => e.type);

test("create and list encounters, page by page", async () => {
  const client = fray();
  const title = uniqueId("listed");
  const made = [];
  for (let i = 0; i < 3; i++) {
    made.push(await client.createEncounter({ ruleset: "freeform", title, encounter_id: uniqueId("ls") }));
  }
  assert.ok(made.every((m) => m.version === 1 && m.ruleset === "freeform" && m.gm_token.startsWith("fray1.")));
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listEncounters({ ruleset: "freeform", limit: 2, ...(cursor ? { cursor } : {}) });
    pages++;
    for (const item of page.encounters) seen.add(item.encounter_id);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  for (const m of made) assert.ok(seen.has(m.encounter_id), `${m.encounter_id} listed`);
  assert.ok(pages >= 2, "more than one page of two");
});

test("a command whose answer is lost is sent again with the same command_id and appended once", async () => {
  const sent: string[] = [];
  let dropped = false;
  // The first answer to a command is lost on the way back (the server did append it).
  const lossy: Fetch = async (request) => {
    const isCommand = request.method === "POST" && request.url.endsWith("/commands");
    if (isCommand) sent.push(((await request.clone().json()) as { command_id: string }).command_id);
    const response = await fetch(request);
    if (isCommand && !dropped) {
      dropped = true;
      await response.body?.cancel();
      throw new TypeError("fetch failed: the connection was reset");
    }
    return response;
  };
  const encounter = await skirmish(fray(), {}, false);
  const viaLossy = fray(lossy).encounter(encounter.id);

  const answer = await viaLossy.send({ type: "roll", expression: "1d20+3", purpose: "once" } as Command);

  assert.equal(sent.length, 2, "sent twice");
  assert.equal(sent[0], sent[1], "with the same command_id");
  assert.equal(answer.command_id, sent[0]);
  assert.equal(answer.duplicate, true, "the resend answers the first outcome");
  const rolled = [];
  for await (const event of encounter.allEvents()) if (event.command_id === sent[0]) rolled.push(event);
  assert.deepEqual(types(rolled), ["dice-rolled"], "one set of events");
});

test("each call gets its own command_id unless one is given", async () => {
  const encounter = await skirmish(fray(), {}, false);
  const roll = { type: "roll", expression: "1d6" } as Command;
  const a = await encounter.send(roll);
  const b = await encounter.send(roll);
  assert.notEqual(a.command_id, b.command_id);
  const again = await encounter.send(roll, { commandId: a.command_id });
  assert.equal(again.duplicate, true);
  assert.equal(again.receipt.version, a.version, "the first outcome's receipt");
  assert.deepEqual(again.events.map((e) => e.hash), a.events.map((e) => e.hash));
});

test("a 409 is a ConflictError: a stale expected_version, a reused id", async () => {
  const encounter = await skirmish(fray());
  const stale = await encounter.send({ type: "roll", expression: "1d6" } as Command, { expectedVersion: 2 })
    .then(() => null, (error: unknown) => error);
  assert.ok(stale instanceof ConflictError, String(stale));
  assert.equal(stale.status, 409);
  assert.equal(stale.code, "encounter/version-conflict");
  assert.deepEqual(Object.keys(stale.details as object).sort(), ["actual", "expected"]);
  assert.equal((stale.details as { expected: number }).expected, 2);

  const first = await encounter.send({ type: "roll", expression: "1d6" } as Command);
  const reused = await encounter.send({ type: "roll", expression: "1d8" } as Command, { commandId: first.command_id })
    .then(() => null, (error: unknown) => error);
  assert.ok(reused instanceof ConflictError);
  assert.equal(reused.code, "command/id-reused");
});

test("a rule's refusal is a FrayError with its code and the rule it cites", async () => {
  const encounter = await skirmish(fray());
  const { summary } = await encounter.get();
  const acting = summary.acting?.[0];
  const other = acting === "bramli" ? "goblin" : "bramli";
  const before = (await encounter.get()).version;

  const refused = await encounter.send({ type: "end-turn", combatant_id: other } as Command)
    .then(() => null, (error: unknown) => error);

  assert.ok(refused instanceof FrayError && !(refused instanceof ConflictError), String(refused));
  assert.equal(refused.status, 422);
  assert.equal(refused.code, "turn/not-your-turn");
  assert.equal(refused.rule, "freeform §3");
  assert.match(refused.message, /turn/);
  assert.equal((await encounter.get()).version, before, "nothing appended");
});

test("tokens: a player's and an observer's, each allowed what its role allows", async () => {
  const client = fray();
  const encounter = await skirmish(client);
  const player = await encounter.mintToken({ role: "player", combatants: ["bramli"], subject: "bob" });
  const observer = await encounter.mintToken({ role: "observer" });
  assert.ok(player.token.startsWith("fray1.") && observer.token.startsWith("fray1."));

  const asPlayer = client.as(player.token).encounter(encounter.id);
  const rolled = await asPlayer.send({ type: "roll", combatant_id: "bramli", expression: "1d20" } as Command);
  assert.deepEqual(types(rolled.events), ["dice-rolled"]);

  const asObserver = client.as(observer.token).encounter(encounter.id);
  const forbidden = await asObserver.send({ type: "roll", expression: "1d20" } as Command)
    .then(() => null, (error: unknown) => error);
  assert.ok(forbidden instanceof FrayError);
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.code, "auth/forbidden");
});

test("events page by page: cursors are versions, every event once, in order", async () => {
  const encounter = await skirmish(fray());
  for (let i = 0; i < 3; i++) await encounter.send({ type: "roll", expression: "1d4" } as Command);
  const { version } = await encounter.get();

  const first = await encounter.events(0, 2);
  assert.deepEqual(first.events.map((e) => e.version), [1, 2]);
  assert.equal(first.has_more, true);
  assert.equal(first.next_after, 2);
  const all: Event[] = [];
  for await (const event of encounter.allEvents(0, 2)) all.push(event);
  assert.deepEqual(all.map((e) => e.version), Array.from({ length: version }, (_, i) => i + 1));
});

test("legal actions: what the player may do now, each with its params schema", async () => {
  const client = fray();
  const encounter = await skirmish(client);
  const { summary } = await encounter.get();
  const acting = summary.acting![0]!;
  const player = await encounter.mintToken({ role: "player", combatants: [acting] });

  const legal = await client.as(player.token).encounter(encounter.id).legalActions();

  assert.ok(legal.version >= 5);
  const endTurn = legal.actions.find((a) => a.type === "end-turn");
  assert.ok(endTurn, JSON.stringify(legal.actions.map((a) => a.type)));
  assert.equal(endTurn.actor, acting);
  assert.equal(typeof endTurn.label, "string");
  assert.equal(typeof endTurn.params_schema, "object");
  assert.deepEqual(legal.blocked, []);
});

async function collect(
  stream: AsyncIterable<LiveEvent>, until: (seen: LiveEvent[]) => boolean, during?: (seen: LiveEvent[]) => Promise<void>,
): Promise<LiveEvent[]> {
  const seen: LiveEvent[] = [];
  for await (const live of stream) {
    seen.push(live);
    if (during) await during(seen);
    if (until(seen)) break;
  }
  return seen;
}

test("follow live over SSE with a stream ticket: history, then new events with receipts, auditable", async () => {
  const client = fray();
  const encounter = await skirmish(client);
  const { version } = await encounter.get();
  const tickets: string[] = [];
  const watching: Fetch = async (request) => {
    const url = new URL(request.url);
    if (url.searchParams.get("follow") === "true") {
      tickets.push(url.searchParams.get("ticket") ?? "");
      assert.equal(request.headers.get("Authorization"), null, "a ticket, not the credential");
    }
    return fetch(request);
  };
  const stream = fray(watching).encounter(encounter.id).follow();
  let sent: string | null = null;
  const seen = await within("the live roll", collect(stream, (s) => s.some((e) => e.event.command_id === sent), async (s) => {
    if (s.length === version && sent === null) {
      sent = (await encounter.send({ type: "roll", expression: "2d6", purpose: "live" } as Command)).command_id;
    }
  }));
  stream.close();

  assert.deepEqual(seen.map((e) => e.version), Array.from({ length: version + 1 }, (_, i) => i + 1));
  assert.equal(seen.at(-1)!.type, "dice-rolled");
  assert.equal(seen.at(-1)!.receipt!.version, version + 1);
  assert.equal(tickets.length, 1);
  assert.ok(tickets[0]!.length > 0);

  const [keys, seed] = await Promise.all([client.keys(), encounter.seed()]);
  const report = await auditEnvelopes(seen.map(envelopeOf), {
    seed: seed.seed!, trusted: keys, head: seen.at(-1)!.receipt, receipts: seen.map((e) => e.receipt),
  });
  assert.equal(report.verdict, "passed", JSON.stringify(report.checks, null, 1));
});

test("a follow whose connection is cut resumes with Last-Event-ID and a new ticket: no gap, no duplicate", async () => {
  const encounter = await skirmish(fray());
  const opened: { ticket: string | null; lastEventId: string | null }[] = [];
  const watching: Fetch = async (request) => {
    const url = new URL(request.url);
    if (url.searchParams.get("follow") === "true") {
      opened.push({ ticket: url.searchParams.get("ticket"), lastEventId: request.headers.get("Last-Event-ID") });
    }
    return fetch(request);
  };
  const reasons: string[] = [];
  const following = fray(watching).encounter(encounter.id).follow({ onReconnect: (r) => reasons.push(r.reason) });
  const { version } = await encounter.get();
  let cutAt = 0;
  const seen = await within("the events after the cut", collect(following, (s) => s.length >= version + 3, async (s) => {
    if (s.length === version && cutAt === 0) {
      cutAt = s.at(-1)!.version;
      following.reconnect();
      // Sent while no connection is open, or while the new one opens.
      for (let i = 0; i < 3; i++) await encounter.send({ type: "roll", expression: "1d8" } as Command);
    }
  }));
  following.close();

  assert.deepEqual(seen.map((e) => e.version), Array.from({ length: version + 3 }, (_, i) => i + 1));
  assert.equal(following.connections, 2);
  assert.deepEqual(reasons, ["reconnect asked"]);
  const follows = opened.filter((o) => o.ticket !== null);
  assert.equal(follows.length, 2);
  assert.equal(follows[0]!.lastEventId, null);
  assert.equal(follows[1]!.lastEventId, String(cutAt));
  assert.notEqual(follows[0]!.ticket, follows[1]!.ticket, "a ticket serves one connection");
});

test("a roll request: the command is held for the player's die, and released by submit-roll", async () => {
  const client = fray();
  const id = uniqueId("prompt");
  await client.createEncounter({ ruleset: "freeform", encounter_id: id, options: { dice: "prompt" } });
  const gm = client.encounter(id);
  await gm.send({ type: "add-combatant", combatant_id: "bramli", name: "Bramli", side: "heroes", stats: { hp: 20 } } as Command);
  const { token } = await gm.mintToken({ role: "player", combatants: ["bramli"] });
  const player = client.as(token).encounter(id);

  const held = await player.send(
    { type: "roll", combatant_id: "bramli", expression: "2d8", purpose: "axe" } as Command, { dice: [6] },
  );
  assert.deepEqual(types(held.events), ["command-held", "roll-requested"]);
  const request = held.events[1]!.data as { request_id: string; roller: string; sides: number; count: number };
  assert.deepEqual([request.roller, request.sides, request.count], ["bramli", 8, 1]);
  const legal = await player.legalActions();
  assert.deepEqual(legal.actions.map((a) => a.type), ["submit-roll"]);
  const pending = await gm.send({ type: "roll", expression: "1d4" } as Command).then(() => null, (e: unknown) => e);
  assert.ok(pending instanceof ConflictError && pending.code === "dice/roll-pending");

  const released = await player.submitRoll(request.request_id, [4]);

  assert.deepEqual(types(released.events), ["roll-submitted", "command-released", "dice-rolled"]);
  assert.equal((released.events[2]!.data as { total: number }).total, 10);
});

test("a turn timer run out: the worker's expiry is seen on the stream", async () => {
  const encounter = await skirmish(fray(), { turn_time_limit: 1 });
  const stream = encounter.follow();
  const seen = await within("the worker's clock-expired", collect(stream, (s) => s.some((e) => e.type === "clock-expired")));
  stream.close();
  const expired = seen.find((e) => e.type === "clock-expired")!;
  assert.equal((expired.event.actor as { id: string }).id, "system");
  assert.ok(seen.some((e) => e.type === "clock-started"));
  assert.ok(PATIENCE_MS > 0);
});

test("an encounter ended verifies here, with WebCrypto, as the server's audit does", async () => {
  const encounter = await skirmish(fray());
  await encounter.send({ type: "roll", expression: "3d6" } as Command);
  await encounter.send({ type: "end-encounter" } as Command);

  const report = await encounter.verify();

  assert.equal(report.verdict, "passed", JSON.stringify(report.checks, null, 1));
  const draws = report.checks.find((c) => c.name === "draws")!;
  assert.ok(draws.count! >= 5, "the initiative dice and the 3d6");
});

test("no answer at all is a NetworkError after the bounded attempts", async () => {
  const client = fray(undefined, "http://127.0.0.1:9");
  const attempts: string[] = [];
  const counting: Fetch = async (request) => {
    attempts.push(request.url);
    return fetch(request);
  };
  const unreachable = client.as("nobody", { fetch: counting, retry: { attempts: 3, baseDelayMs: 1 } });
  const error = await unreachable.encounter("x").get().then(() => null, (e: unknown) => e);
  assert.ok(error instanceof NetworkError, String(error));
  assert.equal(error.status, 0);
  assert.equal(error.code, "client/network");
  assert.equal(attempts.length, 3);
});

test("a preview answers what a command would do, appending nothing; a refused one its error", async () => {
  const encounter = await skirmish(fray());
  const { version, summary } = await encounter.get();
  const other = summary.acting?.[0] === "bramli" ? "goblin" : "bramli";

  const roll = await encounter.preview({ type: "roll", expression: "1d20" } as Command);
  const refused = await encounter.preview({ type: "end-turn", combatant_id: other } as Command);

  assert.ok(roll.accepted);
  assert.deepEqual(types(roll.events), ["dice-rolled"]);
  assert.ok(!refused.accepted);
  assert.equal(refused.error.code, "turn/not-your-turn");
  assert.equal((await encounter.get()).version, version, "nothing appended");
});

test("a follow may send the credential in the Authorization header instead of a ticket", async () => {
  const encounter = await skirmish(fray(), {}, false);
  const urls: string[] = [];
  const watching: Fetch = async (request) => {
    if (request.headers.get("Accept") === "text/event-stream") {
      urls.push(request.url);
      assert.equal(request.headers.get("Authorization"), `Bearer ${process.env.FRAY_KEY}`);
    }
    return fetch(request);
  };
  const stream = fray(watching).encounter(encounter.id).follow({ tickets: false, after: 1 });
  const seen = await within("the events", collect(stream, (s) => s.length === 2));
  assert.deepEqual(seen.map((e) => e.version), [2, 3]);
  assert.equal(urls.length, 1);
  assert.equal(new URL(urls[0]!).searchParams.get("ticket"), null);
});
