// The table view's build: src/main.ts and its stylesheet into service/api/static/table/,
// under fixed names (Fray names each asset's URL by its digest, service/api/table.py), as
// one ES module with no split chunks, so the page loads exactly the two files page.html
// names. The client comes from its sources (../typescript/src); its three dependencies are
// this package's own, pinned at the client's versions, so one lock file decides the build.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const out = process.env.FRAY_TABLE_OUT ?? here("../../service/api/static/table/assets");

export default defineConfig({
  logLevel: "warn",
  resolve: {
    alias: {
      "@fray/client": here("../typescript/src/index.ts"),
      "openapi-fetch": here("node_modules/openapi-fetch/dist/index.mjs"),
      "graphql-ws": here("node_modules/graphql-ws/dist/client.js"),
    },
  },
  build: {
    outDir: out,
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    modulePreload: false,
    cssCodeSplit: false,
    rollupOptions: {
      input: here("src/main.ts"),
      output: {
        format: "es",
        entryFileNames: "table.js",
        assetFileNames: "table.[ext]",
        inlineDynamicImports: true,
      },
    },
  },
});
