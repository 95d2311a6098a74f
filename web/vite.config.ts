// The web table's build: three pages (the table, index.html, the rules help, reglas.html, and the full rules in
// Spanish, reglas-completas.html) bundled by Vite into
// dist/ (served by `truco serve` at / on the web port) with public/ (the favicon) copied as is, and the Connect
// and protobuf runtimes deduplicated (one copy of each in the bundle).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// "truco-client" is the project's TypeScript SDK, compiled from its sources in clients/ts/src (its main entry
// imports nothing of Node's), so a fresh clone builds the page with web/'s `npm ci` alone: no build of clients/ts
// first. Its imports of @bufbuild/protobuf and @connectrpc/connect resolve, through `dedupe`, to web/'s own copies
// (the same pinned versions as clients/ts/package.json) even when clients/ts/node_modules exists; tsconfig.json's
// paths do the same for tsc.
const sdk = fileURLToPath(new URL("../clients/ts/src/index.ts", import.meta.url));
// "table-words" is the folder of the tables' catalogues, one per language: every word of the page is in its
// Spanish one, which `truco play` (the terminal client, whose package ships them) speaks from too.
const words = fileURLToPath(new URL("../clients/terminal/src/truco/terminal/catalogue", import.meta.url));
const page = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export default defineConfig({
  base: "./",
  resolve: {
    alias: { "truco-client": sdk, "table-words": words },
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect"],
  },
  server: {
    // `npm run dev` on http://localhost:5173 calls a server started with --cors-origin http://localhost:5173.
    port: 5173,
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 1024,
    rollupOptions: { input: { main: page("index.html"), rules: page("reglas.html"), fullRules: page("reglas-completas.html") } },
  },
});
