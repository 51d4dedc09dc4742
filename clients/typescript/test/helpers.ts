/** What the live tests share: the servers tests/clients/test_typescript.py started. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";

import { Fray, type Command, type EncounterClient, type Fetch } from "../src/index.js";

export const URL_ = process.env.FRAY_URL ?? "";
export const KEY = process.env.FRAY_KEY ?? "";
export const SPARE_URL = process.env.FRAY_SPARE_URL ?? "";
export const SPARE_PID = Number(process.env.FRAY_SPARE_PID ?? "0");
export const LIVE = URL_ !== "" && KEY !== "";
// How long a test waits for what must come (a worker's deadline, a frame): a guard against
// hanging, not a measure.
export const PATIENCE_MS = 60_000;

export function fray(fetch?: Fetch, baseUrl = URL_): Fray {
  assert.ok(LIVE, "FRAY_URL and FRAY_KEY are set by tests/clients/test_typescript.py");
  return new Fray({ baseUrl, credential: KEY, ...(fetch ? { fetch } : {}) });
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export const BRAMLI = {
  type: "add-combatant", combatant_id: "bramli", name: "Bramli", side: "heroes",
  stats: { initiative_modifier: 3, hp: 20 },
} as Command;
export const GOBLIN = {
  type: "add-combatant", combatant_id: "goblin", name: "Goblin", side: "goblins",
  stats: { initiative_modifier: 1, hp: 7 },
} as Command;

/** A freeform encounter with Bramli and a goblin, started: its client as the tenant key. */
export async function skirmish(
  client: Fray, options: Record<string, unknown> = {}, start = true,
): Promise<EncounterClient> {
  const id = uniqueId("ts");
  await client.createEncounter({ ruleset: "freeform", encounter_id: id, options });
  const encounter = client.encounter(id);
  await encounter.send(BRAMLI);
  await encounter.send(GOBLIN);
  if (start) {
    await encounter.send({ type: "roll-initiative" } as Command);
    await encounter.send({ type: "start-encounter" } as Command);
  }
  return encounter;
}

/** Resolve with `value` or fail after PATIENCE_MS. */
export async function within<T>(what: string, value: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${PATIENCE_MS} ms for ${what}`)), PATIENCE_MS);
  });
  try {
    return await Promise.race([value, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
