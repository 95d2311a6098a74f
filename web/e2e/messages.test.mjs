// Every message the web table can show, checked for the rioplatense voseo, capitals and punctuation: e2e/catalogue.ts
// makes them all with src/text.ts (bundled here by Vite, the page's own build tool, into e2e/.build/); the browser
// test (table.test.mjs) runs the same checks on the text of the page as it is played. No browser and no server
// are needed here.
//
//   node --test e2e/messages.test.mjs
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { problems } from "./style-of-messages.mjs";

const WEB = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(WEB, "e2e", ".build");
/** The Spanish catalogue the page's words come from (its `web` section), shared with `truco play`. */
const WORDS = join(WEB, "..", "clients", "terminal", "src", "truco", "terminal", "catalogue", "es.json");

let built;
function catalogue() {
  built ??= bundle();
  return built;
}

async function bundle() {
  await build({
    configFile: join(WEB, "vite.config.ts"),
    logLevel: "warn",
    build: {
      ssr: join(WEB, "e2e", "catalogue.ts"),
      outDir: OUT,
      emptyOutDir: true,
      rollupOptions: { input: join(WEB, "e2e", "catalogue.ts"), output: { entryFileNames: "catalogue.mjs" } },
    },
    ssr: { noExternal: true },
  });
  return import(join(OUT, "catalogue.mjs"));
}

test("every message of the table speaks voseo, starts with a capital and closes what it opens", async () => {
  const { everyMessage, eventKinds } = await catalogue();
  const messages = everyMessage();
  assert.ok(messages.length > 1000, `a catalogue of ${messages.length} messages`);
  const found = messages.flatMap((message) => problems(message.text, message.aboutViewer).map((problem) => `${message.source}: ${problem}: «${message.text}»`));
  assert.deepEqual(found, []);
  // Each kind of event of the protocol has its line (but the hand's end, told by the summary).
  for (const kind of eventKinds()) {
    const lines = messages.filter((message) => message.source.startsWith(`event ${kind} `));
    assert.ok(kind === "handEnded" || lines.length > 0, `no line for the event ${kind}`);
  }
  // The viewer is never named in the third person: the verb says "vos".
  const aboutViewer = messages.filter((message) => message.aboutViewer && message.source.startsWith("event"));
  assert.ok(aboutViewer.length > 50);
  for (const message of aboutViewer) assert.doesNotMatch(message.text, /\bAna\b/, message.source);
});

test("every template of the catalogue's web words is in a message checked above", async () => {
  const { everyMessage } = await catalogue();
  const texts = everyMessage().map((message) => message.text);
  const missing = [];
  const walk = (node, path) => {
    if (typeof node !== "string") {
      for (const [key, value] of Object.entries(node)) walk(value, path ? `${path}.${key}` : key);
      return;
    }
    const parts = node.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const pattern = new RegExp(parts.join(".*?"), "i");
    if (!texts.some((text) => pattern.test(text))) missing.push(`${path}: «${node}»`);
  };
  walk(JSON.parse(readFileSync(WORDS, "utf8")).web, "");
  assert.deepEqual(missing, []);
});

test("the page's other modules hold no prose: every sentence is in src/text.ts", () => {
  const src = join(WEB, "src");
  const prose = /(["'`])(?:(?!\1).)*\b[A-ZÁÉÍÓÚÑ]?[a-záéíóúñ]{2,} (?:[a-záéíóúñ]{2,} ){1,}[a-záéíóúñ]{2,}(?:(?!\1).)*\1/;
  for (const file of readdirSync(src).filter((name) => name.endsWith(".ts") && name !== "text.ts")) {
    const lines = readFileSync(join(src, file), "utf8").split("\n");
    lines.forEach((line, index) => {
      if (/^\s*(\/\/|\*|\/\*\*)/.test(line)) return; // comments say why, in English
      const match = prose.exec(line.replace(/class: `[^`]*`|class: "[^"]*"/g, ""));
      assert.equal(match, null, `${file}:${index + 1} has words of its own: ${match?.[0]}`);
    });
  }
});
