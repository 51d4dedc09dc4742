/** The README's example, compiled and run by readme.test.ts: the lines between the markers
 * are in README.md as they stand here. */
import { Fray, type Command } from "../src/index.js";

export async function example(FRAY_URL: string, API_KEY: string): Promise<string> {
  const lines: string[] = [];
  const log = (...words: unknown[]): void => void lines.push(words.join(" "));
  const console = { log };
  // README:start
  const fray = new Fray({ baseUrl: FRAY_URL, credential: API_KEY });
  const { encounter_id } = await fray.createEncounter({ ruleset: "freeform", title: "The bridge" });
  const table = fray.encounter(encounter_id);
  await table.send({ type: "add-combatant", name: "Bramli", side: "heroes", stats: { hp: 20 } });
  await table.send({ type: "roll", expression: "1d20+3", purpose: "Bramli spots the trap" });
  for await (const { version, type } of table.follow()) {
    console.log(version, type); // 1 encounter-created, 2 combatant-added, 3 dice-rolled
    if (type === "dice-rolled") break; // a table view would keep following
  }
  await table.send({ type: "end-encounter" }); // reveals the seed: every die can be checked
  console.log((await table.verify()).verdict); // "passed": chain, seed, draws, head receipt
  // README:end
  void ({} as Command);
  return lines.join("\n");
}
