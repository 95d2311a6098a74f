// The web table's build: one page, TypeScript, bundled by Vite into dist/ (served by `truco serve` at / on the
// web port), with the Connect and protobuf runtimes deduplicated (one copy of each in the bundle).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// "truco-client" is the page's own client over its generated stubs (src/sdk.ts, src/gen); pointing this alias
// (and tsconfig's paths) at the TypeScript SDK of clients/ts moves the page onto that SDK.
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
