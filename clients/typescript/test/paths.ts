import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

// Compiled to dist-test/test/: the repository root is four levels up.
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
