// The web table's build: one page, TypeScript, bundled by Vite into dist/ (served by `truco serve` at / on the
// web port). The TypeScript SDK (clients/ts, package "truco-client") is bundled with it; the Connect and
// protobuf runtimes are deduplicated so the SDK and this page share one copy of each.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The SDK is the local package truco-client (file:../clients/ts, installed as a copy: .npmrc install-links), taken
// from its TypeScript sources so the page needs no separate SDK build.
const sdk = fileURLToPath(new URL("./src/sdk.ts", import.meta.url));

export default defineConfig({
  base: "./",
  resolve: {
    alias: { "truco-client": sdk },
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect"],
  },
  server: {
    // `npm run dev` on http://localhost:5173 calls a server started with --cors-origin http://localhost:5173.
    port: 5173,
  },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024 },
});
