// The web table in a real browser: Debian's Chromium driven by playwright-core (no browser download), against a
// real `truco serve` whose web port serves the built page. tests/test_web_browser.py builds the page, starts the
// server and runs this file with TRUCO_WEB_URL (the web port) and TRUCO_ARTIFACTS (where screenshots go).
//
//   node --test e2e/                  # with TRUCO_WEB_URL=http://127.0.0.1:PORT
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

const BASE = process.env.TRUCO_WEB_URL;
const ARTIFACTS = process.env.TRUCO_ARTIFACTS ?? join(process.cwd(), "test-artifacts");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
assert.ok(BASE, "set TRUCO_WEB_URL to the server's web port, e.g. http://127.0.0.1:8080");
mkdirSync(ARTIFACTS, { recursive: true });

let browser;

before(async () => {
  // Playwright starts Chromium with a fresh, empty profile (its own temporary --user-data-dir) on each launch.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
});

/** A Connect JSON call, as the README's curl examples make them. */
async function call(method, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${BASE}/truco.v1.GameService/${method}`, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method}: ${JSON.stringify(json)}`);
  return json;
}

const cardId = (card) => `${card.rank}${{ SUIT_ESPADA: "e", SUIT_BASTO: "b", SUIT_ORO: "o", SUIT_COPA: "c" }[card.suit]}`;

test("a whole 2-player match against a bot, by clicking; a refused move shows its reason", async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  // Hold back live updates at first (the stream, and once the table is shown the re-reads its reconnect loop
  // makes), so the page keeps a view that another move makes stale.
  const block = (route) => route.abort();
  await page.route("**/truco.v1.GameService/WatchGame", block);

  await page.goto(BASE);
  await page.selectOption("#players", "2");
  await page.selectOption("#target", "15");
  await page.selectOption("#bot", "random");
  await page.click("#create");
  await page.waitForSelector("[data-testid=hand] [data-card]");
  await page.route("**/truco.v1.GameService/GetGameView", block);
  const link = await page.textContent("[data-testid=game-link]");
  assert.match(link, /\?game=[0-9a-f]+$/);
  const muestra = await page.getAttribute("[data-testid=muestra] [data-card]", "data-card");
  assert.match(muestra, /^\d+[ebco]$/);
  assert.match(await page.textContent("[data-testid=piezas]"), /Piezas: (\d+ de \w+, ){4}\d+ de \w+/);
  assert.equal((await page.$$("[data-testid=score] .team")).length, 2);

  // The same seat moves from elsewhere (another tab of the same player): the page's view is now stale, and the
  // card it offers is refused by the server with VERSION_CONFLICT, shown with its reason.
  const id = new URL(link).searchParams.get("game");
  const held = JSON.parse(await page.evaluate((game) => localStorage.getItem(`truco:${game}`), id));
  const legal = await call("ListLegalActions", { name: `games/${id}` }, held.token);
  const elsewhere =
    legal.actions.find((action) => action.playCard) ??
    legal.actions.find((action) => action.answer && !action.answer.accept) ??
    legal.actions.find((action) => !action.goToMazo);
  assert.ok(elsewhere, `something to do: ${JSON.stringify(legal.actions)}`);
  await call("SubmitCommand", { name: `games/${id}`, command: elsewhere, expectedVersion: legal.version }, held.token);
  const stale = elsewhere.playCard
    ? page.locator(`[data-testid=play][data-card="${cardId(elsewhere.playCard.card)}"]`)
    : page.locator("[data-testid=action]").first();
  await stale.click();
  const refused = await page.waitForSelector("[data-testid=error]");
  const message = await refused.textContent();
  assert.match(message, /VERSION_CONFLICT/);
  assert.match(message, /La mesa cambió/);
  await page.screenshot({ path: join(ARTIFACTS, "web-table-refused.png"), fullPage: true });

  // Live updates come back: the watch is resumed after the reconnect.
  await page.unroute("**/truco.v1.GameService/WatchGame", block);
  await page.unroute("**/truco.v1.GameService/GetGameView", block);
  await page.waitForSelector("#connection[data-state=live]", { timeout: 20_000 });
  await page.screenshot({ path: join(ARTIFACTS, "web-table-playing.png"), fullPage: true });

  // Play to the end through the buttons the server's legal actions made: quiero when asked, else a card.
  let clicks = 0;
  while ((await page.getAttribute("#app", "data-phase")) !== "over") {
    assert.ok(clicks < 600, "the match should end within 600 clicks");
    const button = await page.waitForSelector(
      "#app[data-phase=over], [data-testid=action][data-kind=answer]:not([disabled]), [data-testid=play]:not([disabled]), [data-testid=action]:not([disabled])",
      { timeout: 20_000 },
    );
    if ((await button.getAttribute("id")) === "app") break;
    // Quiero, but not to a falta (envido or flor al resto), which would end a match in one hand.
    const pending = (await page.textContent("[data-testid=calls]")) ?? "";
    const accept = /Canto pendiente: (Falta envido|Contra flor al resto)/.test(pending) ? "false" : "true";
    const answer = await page.$(`[data-testid=action][data-kind=answer][data-accept=${accept}]:not([disabled])`);
    const card = await page.$("[data-testid=play]:not([disabled])");
    const target = answer ?? card ?? button;
    const before = await page.getAttribute("#app", "data-version");
    await target.click().catch(() => undefined); // the table may re-render under the cursor: try again
    await page.waitForFunction((v) => document.querySelector("#app")?.dataset.version !== v || document.querySelector("#app")?.dataset.phase === "over", before, { timeout: 20_000 }).catch(() => undefined);
    clicks++;
  }
  const status = await page.textContent("[data-testid=status]");
  assert.match(status, /Partido terminado: (tu equipo ganó|los rivales ganaron)/);
  const points = await page.$$eval("[data-testid=score] .points", (nodes) => nodes.map((node) => Number(node.textContent)));
  assert.ok(Math.max(...points) >= 15, `a team reached 15: ${points}`);
  assert.match(await page.textContent("[data-testid=log]"), /Partido terminado/);
  await page.screenshot({ path: join(ARTIFACTS, "web-table-match-over.png"), fullPage: true });
  console.log(`match over after ${clicks} clicks, score ${points.join("-")}`);
  await context.close();
});

test("a spectator page shows no hidden card", async () => {
  const created = await call("CreateGame", { rules: { players: 2, target: 15 }, bots: [{ seat: 1, kind: "BOT_KIND_RANDOM" }] });
  const name = created.game.name;
  const joined = await call("JoinGame", { name, seat: 0 });
  const mine = joined.view.cards.map(cardId);
  assert.equal(mine.length, 3);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${BASE}/?game=${name.replace("games/", "")}&watch=1`);
  await page.waitForSelector("[data-testid=score] .team");
  await page.waitForSelector("#connection[data-state=live]");
  const shown = await page.$$eval("[data-card]", (nodes) => nodes.map((node) => node.getAttribute("data-card")));
  const muestra = await page.getAttribute("[data-testid=muestra] [data-card]", "data-card");
  assert.equal(muestra, cardId(joined.view.public.hand.muestra));
  // Face-down backs (data-card="") for every card in a hand; face-up only the muestra and cards on the table.
  const faceUp = shown.filter(Boolean);
  const played = (joined.view.public.hand.rounds ?? []).flatMap((round) => round.plays.map((play) => cardId(play.card)));
  assert.deepEqual(faceUp.sort(), [muestra, ...played].sort());
  for (const card of mine) assert.ok(!faceUp.includes(card), `seat 0's ${card} is hidden from the spectator`);
  assert.ok(shown.filter((card) => card === "").length >= 3, "the hands are drawn face down");
  assert.equal(await page.$("[data-testid=hand]"), null);
  assert.match(await page.textContent(".head"), /Mirando el partido/);
  await page.screenshot({ path: join(ARTIFACTS, "web-spectator.png"), fullPage: true });
  await context.close();
});

test("a friend joins by link and gets a seña from their partner", async () => {
  const context = await browser.newContext();
  const host = await context.newPage();
  await host.goto(BASE);
  await host.selectOption("#players", "4");
  await host.selectOption("#friends", "1");
  await host.click("#create");
  await host.waitForSelector("[data-testid=hand] [data-card]");
  const link = await host.textContent("[data-testid=game-link]");

  // The friend opens the link in another browser (its own storage), takes the open seat: seat 2, the partner.
  const other = await browser.newContext();
  const friend = await other.newPage();
  await friend.goto(link);
  await friend.click("#take-seat");
  await friend.waitForSelector("[data-testid=hand] [data-card]");
  assert.match(await friend.textContent(".head"), /Sos el asiento 2 · 4 jugadores/);
  await friend.waitForSelector("#connection[data-state=live]");

  // The host sends one of the señas its cards allow (the server lists only true ones); the partner sees it live.
  const sena = host.locator("[data-testid=sena]").first();
  await host.click(".senas summary");
  const label = (await sena.textContent()).replace(/^Seña: /, "");
  await sena.click();
  const received = await friend.waitForSelector("[data-testid=sena-received]", { timeout: 20_000 });
  assert.equal(await received.textContent(), `Compañero (asiento 0) te hace: ${label}`);
  await friend.screenshot({ path: join(ARTIFACTS, "web-sena-received.png"), fullPage: true });
  await other.close();
  await context.close();
});
