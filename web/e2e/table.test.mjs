// The web table in a real browser: Debian's Chromium driven by playwright-core (no browser download), against a
// real `truco serve` whose web port serves the built page. tests/test_web_browser.py builds the page, starts the
// server and runs this file with TRUCO_WEB_URL (the web port) and TRUCO_ARTIFACTS (where screenshots go).
//
//   node --test e2e/table.test.mjs    # with TRUCO_WEB_URL=http://127.0.0.1:PORT
//
// Whole matches are played by clicking (2 players on a desktop, 4 on a 390×844 phone), a clock runs out and the
// seat is taken back, a reload keeps the log, a rematch starts, and every text the page shows on the way passes the
// same voseo and capitals checks as the catalogue of messages (style-of-messages.mjs). Screenshots, desktop and
// phone, are saved for review.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { problems } from "./style-of-messages.mjs";

const BASE = process.env.TRUCO_WEB_URL;
const ARTIFACTS = process.env.TRUCO_ARTIFACTS ?? join(process.cwd(), "test-artifacts");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
assert.ok(BASE, "set TRUCO_WEB_URL to the server's web port, e.g. http://127.0.0.1:8080");
mkdirSync(ARTIFACTS, { recursive: true });

const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

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

/** A page that fails the test on a script error or a missing file (a 404 for the favicon, say). */
async function open(context) {
  const page = await context.newPage();
  const failures = [];
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    if (response.request().method() === "GET" && response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
  page.failures = failures;
  return page;
}

function shot(page, name) {
  return page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

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

/** Every text the page shows (each element that holds words of its own, with its inline children), checked. */
async function checkTexts(page, where) {
  const texts = await page.evaluate(() => {
    const out = [];
    for (const element of document.querySelectorAll("body *:not(script):not(style):not(svg):not(svg *)")) {
      const own = [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent.trim());
      if (!own || element.closest("[data-testid=game-link]")) continue;
      if (element.parentElement && ["EM", "STRONG", "CODE", "A"].includes(element.tagName) && element.parentElement.closest("p, li")) continue;
      out.push(element.textContent.replace(/\s+/g, " ").trim());
    }
    return out;
  });
  const found = texts.flatMap((text) => problems(text).map((problem) => `${where}: ${problem}: «${text}»`));
  assert.deepEqual(found, []);
  return texts;
}

async function logLines(page) {
  return page.$$eval("[data-testid=log] .line", (nodes) => nodes.map((node) => node.textContent));
}

async function createFromLobby(page, { players, target = "15", bot = "random", name = "Ana", friends = "0", listed = false }) {
  await page.goto(BASE);
  await page.waitForSelector("#create");
  await page.fill("#player-name", name);
  await page.selectOption("#players", String(players));
  await page.selectOption("#target", target);
  await page.selectOption("#bot", bot);
  await page.selectOption("#friends", friends);
  if (listed) await page.check("#public");
  await page.click("#create");
  // With friends to come, nothing is dealt until they sit down: the page says who is missing instead.
  await page.waitForSelector(friends === "0" ? "[data-testid=hand] [data-card]" : "[data-testid=waiting]");
  await page.waitForSelector("#connection[data-state=live]");
  const link = await page.getAttribute("[data-testid=game-link]", "href");
  return new URL(link).searchParams.get("game");
}

/** Click through a match to its end: quiero when asked (but never to a falta, which ends a match in one hand),
 * else a card, else the first button. `each(clicks)` runs before every click. */
async function playToTheEnd(page, each = async () => undefined) {
  let clicks = 0;
  while ((await page.getAttribute("#app", "data-phase")) !== "over") {
    assert.ok(clicks < 900, "the match should end within 900 clicks");
    const ready = await page
      .waitForSelector(
        "#app[data-phase=over], [data-testid=play]:not([disabled]), [data-testid=action]:not([disabled]), [data-testid=resume]",
        { timeout: 30_000 },
      )
      .catch(() => undefined);
    if (!ready || (await ready.getAttribute("id")) === "app") continue;
    await each(clicks);
    const resume = await page.$("[data-testid=resume]:not([disabled])");
    const pending = (await page.textContent("[data-testid=calls]").catch(() => "")) ?? "";
    const accept = /«(Falta envido|Contra flor al resto)»/.test(pending) ? "false" : "true";
    const answer = await page.$(`[data-testid=action][data-kind=answer][data-accept=${accept}]:not([disabled])`);
    const card = await page.$("[data-testid=play]:not([disabled])");
    const button = await page.$("[data-testid=action]:not([disabled])");
    const target = resume ?? answer ?? card ?? button;
    if (!target) continue;
    const version = await page.getAttribute("#app", "data-version");
    await target.click({ timeout: 5_000 }).catch(() => undefined); // the table may re-render under the cursor
    await page
      .waitForFunction((v) => document.querySelector("#app")?.dataset.version !== v || document.querySelector("#app")?.dataset.phase === "over", version, { timeout: 20_000 })
      .catch(() => undefined);
    clicks++;
  }
  return clicks;
}

test("the lobby lists open tables and sits at one; the rules page and the favicon load", async () => {
  // A public table with an open seat, made by someone else.
  const created = await call("CreateGame", { rules: { players: 4, target: 30 }, bots: [{ seat: 1, level: "BOT_LEVEL_EXPERT" }, { seat: 3, kind: "BOT_KIND_RANDOM" }], public: true });
  const id = created.game.name.replace("games/", "");
  for (const [label, options] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    const context = await browser.newContext(options);
    const page = await open(context);
    await page.goto(BASE);
    const listed = page.locator(`[data-testid=open-table][data-game="${id}"]`);
    await listed.waitFor();
    assert.match(await listed.textContent(), /Mesa de 4 · a 30 puntos · 2 asientos libres/);
    assert.match(await listed.textContent(), /Con Tito \(bot experto\) y Beto \(bot\)\./);
    await checkTexts(page, `lobby (${label})`);
    await shot(page, `web-lobby-${label}`);
    await page.click("[data-testid=rules-link]");
    await page.waitForSelector("[data-testid=rules]");
    assert.match(await page.textContent("h2"), /Las reglas en una página/);
    await checkTexts(page, `rules (${label})`);
    await shot(page, `web-rules-${label}`);
    // The full rules are a Spanish page of the table's own, not a file of the project's sources.
    await page.click("[data-testid=full-rules-link]");
    await page.waitForSelector("[data-testid=full-rules]");
    assert.match(await page.textContent("h2"), /Las reglas completas/);
    await checkTexts(page, `full rules (${label})`);
    await page.goBack();
    if (label === "phone") {
      await page.goBack();
      // With the name given in the lobby, "Sentarme" takes the seat without asking for it again.
      await page.fill("#player-name", "Lola");
      await page.click(`[data-testid=open-table][data-game="${id}"] [data-testid=sit]`);
      // One seat is still open: no cards yet, and the page says so, with the link to pass on.
      const waiting = await page.waitForSelector("[data-testid=waiting]");
      assert.match(await waiting.textContent(), /^Falta 1 jugador para empezar\.El partido empieza cuando se sienten todos\. Pasales el link: /);
      assert.equal(await page.$("[data-testid=hand] [data-card]"), null, "nothing is dealt beside an empty seat");
      const seats = await page.$$eval("[data-testid=seat] .name", (nodes) => nodes.map((node) => node.textContent));
      assert.ok(seats.includes("Tito") && seats.includes("Beto") && seats.includes("Vos") && seats.includes("Lugar libre"), seats.join(", "));
      await checkTexts(page, "waiting for a friend");
      await shot(page, "web-waiting-phone");
    }
    const icon = await page.evaluate(async () => (await fetch("./favicon.svg")).status);
    assert.equal(icon, 200);
    assert.deepEqual(page.failures, []);
    await context.close();
  }
});

test("a whole 2-player match by clicking: a refused move's reason, the clock, the end-of-hand summary, a reload that keeps the log, and a rematch", async () => {
  const context = await browser.newContext(DESKTOP);
  const page = await open(context);
  // Hold back live updates at first (the stream, and once the table is shown the re-reads its reconnect loop
  // makes), so the page keeps a view that another move makes stale.
  const block = (route) => route.abort();
  await page.route("**/truco.v1.GameService/WatchGame", block);
  await page.goto(BASE);
  await page.fill("#player-name", "Ana");
  await page.selectOption("#players", "2");
  await page.selectOption("#target", "15");
  await page.selectOption("#bot", "random");
  await page.click("#create");
  await page.waitForSelector("[data-testid=hand] [data-card]");
  await page.route("**/truco.v1.GameService/GetGameView", block);
  const id = new URL(await page.getAttribute("[data-testid=game-link]", "href")).searchParams.get("game");
  assert.match(await page.getAttribute("[data-testid=muestra] [data-card]:not([data-card=''])", "data-card"), /^\d+[ebco]$/);
  assert.match(await page.textContent("[data-testid=piezas]"), /^Piezas: \d+, \d+, \d+, \d+ y \d+ de (espada|basto|oro|copa)$/);
  assert.equal((await page.$$("[data-testid=seat]")).length, 2);
  assert.equal(await page.textContent("[data-seat='1'] .name"), "Tito");

  // The same seat moves from elsewhere (another tab of the same player): the page's view is now stale, and the
  // card it offers is refused by the server with VERSION_CONFLICT, shown with its reason.
  const held = JSON.parse(await page.evaluate((game) => localStorage.getItem(`truco:${game}`), id));
  const legal = await call("ListLegalActions", { name: `games/${id}` }, held.token);
  const elsewhere =
    legal.actions.find((action) => action.playCard) ??
    legal.actions.find((action) => action.answer && !action.answer.accept) ??
    legal.actions.find((action) => !action.goToMazo);
  await call("SubmitCommand", { name: `games/${id}`, command: elsewhere, expectedVersion: legal.version }, held.token);
  const stale = elsewhere.playCard ? page.locator(`[data-testid=play][data-card="${cardId(elsewhere.playCard.card)}"]`) : page.locator("[data-testid=action]").first();
  await stale.click();
  const refused = await page.waitForSelector("[data-testid=error]");
  assert.match(await refused.textContent(), /^La mesa cambió antes de que llegara tu jugada.*\(VERSION_CONFLICT: /);
  await shot(page, "web-table-refused");
  await page.unroute("**/truco.v1.GameService/WatchGame", block);
  await page.unroute("**/truco.v1.GameService/GetGameView", block);
  await page.waitForSelector("#connection[data-state=live]", { timeout: 20_000 });

  // The clock of whoever must decide counts down.
  const clock = page.locator("[data-testid^=clock-][data-kind=decision]").first();
  await clock.waitFor({ timeout: 20_000 });
  const first = Number(await clock.getAttribute("data-left"));
  await page.waitForTimeout(1_300);
  const later = Number((await page.locator("[data-testid^=clock-][data-kind=decision]").first().getAttribute("data-left")) ?? first);
  assert.ok(later < first, `the clock counts down: ${first} then ${later}`);
  await shot(page, "web-table-desktop");

  let summaries = 0;
  let reloaded = false;
  const clicks = await playToTheEnd(page, async (count) => {
    if (!summaries && (await page.$("[data-testid=summary]"))) {
      // The end of a hand stays on screen: who took each round, the points and why.
      summaries++;
      const summary = await page.textContent("[data-testid=summary]");
      assert.match(summary, /^Mano \d+/);
      assert.match(summary, /(Primera: |puntos? por )/);
      await checkTexts(page, "summary");
      await shot(page, "web-summary-desktop");
      await page.click("[data-testid=continue]").catch(() => undefined);
    }
    if (!reloaded && (count >= 10 || summaries > 0)) {
      // A reload mid-match rebuilds the whole log from WatchGame after version 0. After the first hand at the
      // latest: against a random bot that raises, a match to 15 can end within 10 clicks, but not in its first
      // hand (with the falta and the contra flor al resto refused, one hand's stakes stay under 15 points).
      reloaded = true;
      const before = await logLines(page);
      await checkTexts(page, "table");
      await page.reload();
      await page.waitForSelector("[data-testid=hand]");
      await page.waitForFunction((n) => document.querySelectorAll("[data-testid=log] .line").length >= n, before.length, { timeout: 20_000 });
      const afterReload = await logLines(page);
      assert.deepEqual(afterReload.slice(0, before.length), before);
      assert.equal(afterReload[0], "Empieza el partido a 15 puntos.");
    }
  });
  assert.ok(reloaded, "the page was reloaded mid-match");
  assert.ok(summaries > 0, "an end-of-hand summary was shown");
  assert.match(await page.textContent("[data-testid=status]"), /^(¡Ganaste el partido!|Perdiste: ganaron los rivales\.)$/);
  // The move that ends the match answers with the final view; its events reach the log through the watch.
  await page.waitForFunction(() => document.querySelector("[data-testid=log]")?.textContent.includes("¡Partido terminado!"), null, { timeout: 20_000 });
  const points = await page.$$eval("[data-testid=score] .points", (nodes) => nodes.map((node) => Number(node.textContent)));
  assert.ok(Math.max(...points) >= 15, `a team reached 15: ${points}`);
  await checkTexts(page, "match over");
  await shot(page, "web-table-match-over");
  console.log(`2 players: match over after ${clicks} clicks, score ${points.join("-")}`);

  // Revancha: the same seat in the next game, with the same token.
  await page.click("[data-testid=rematch]");
  await page.waitForFunction((old) => !window.location.search.includes(old), id);
  await page.waitForSelector("[data-testid=hand] [data-card]");
  const next = new URL(page.url()).searchParams.get("game");
  assert.notEqual(next, id);
  assert.equal((await call("GetGame", { name: `games/${id}` })).game.nextGame, `games/${next}`);
  assert.equal(await page.getAttribute("#app", "data-phase"), "playing");
  assert.deepEqual(page.failures.filter((failure) => !failure.includes("WatchGame") && !failure.includes("GetGameView")), []);
  await context.close();
});

test("a whole 4-player match on a phone, every button within the first screen", async () => {
  const context = await browser.newContext(PHONE);
  const page = await open(context);
  await createFromLobby(page, { players: 4, bot: "intermediate", target: "30" });
  await shot(page, "web-table-phone");
  let checked = 0;
  let summaryShot = false;
  const clicks = await playToTheEnd(page, async () => {
    if (!summaryShot && (await page.$("[data-testid=summary]"))) {
      summaryShot = true;
      await shot(page, "web-summary-phone");
    }
    if (checked >= 12) return;
    const boxes = await page.$$eval("[data-testid=action], [data-testid=play], [data-testid=status]", (nodes) =>
      nodes.map((node) => {
        const box = node.getBoundingClientRect();
        return { top: box.top + window.scrollY, bottom: box.bottom + window.scrollY, text: node.textContent };
      }),
    );
    for (const box of boxes) assert.ok(box.top >= 0 && box.bottom <= 844, `«${box.text}» at ${box.top}-${box.bottom} px: not on the first screen`);
    if (boxes.length) checked++;
  });
  assert.ok(checked > 0);
  const seats = await page.$$eval("[data-testid=seat] .name", (nodes) => nodes.map((node) => node.textContent));
  assert.deepEqual(seats.sort(), ["Beto", "Marta", "Tito", "Vos"]);
  await checkTexts(page, "phone, match over");
  await shot(page, "web-match-over-phone");
  console.log(`4 players: match over after ${clicks} clicks`);
  assert.deepEqual(page.failures, []);
  await context.close();
});

test("a clock runs out: a bot takes the seat, the table says so, and the player takes it back; leaving and coming back", async () => {
  // Two players, the other one a client of this test that never moves: once a bot has made our move the match
  // waits for that player (a game of bots alone would be played to its end at once).
  const created = await call("CreateGame", {
    rules: { players: 2, target: 15 },
    clock: { decision: "3s", reserve: "0s", onExpiry: "CLOCK_POLICY_TAKEOVER" },
  });
  const id = created.game.name.replace("games/", "");
  await call("JoinGame", { name: created.game.name, seat: 1, playerName: "Tito", requestId: crypto.randomUUID().replaceAll("-", "") });
  const context = await browser.newContext(DESKTOP);
  const page = await open(context);
  await page.goto(`${BASE}/?game=${id}`);
  await page.fill("#player-name", "Ana");
  await page.click("#take-seat");
  await page.waitForSelector("[data-testid=hand] [data-card]");
  // Our clock counts down from 3 s...
  const mine = page.locator("[data-testid=clock-0][data-kind=decision]");
  await mine.waitFor({ timeout: 20_000 });
  const first = Number(await mine.getAttribute("data-left"));
  assert.ok(first <= 3_000);
  await page.waitForTimeout(700);
  const then = await page.getAttribute("[data-testid=clock-0]", "data-left");
  assert.ok(then === null || Number(then) < first, `${first} then ${then}`);
  // ...runs out: a bot plays the seat and the page says so and why.
  const away = await page.waitForSelector("[data-testid=away]", { timeout: 20_000 });
  assert.match(await away.textContent(), /^Se te acabó el tiempo: un bot juega por vos\./);
  // Who acts is plain: the bot, not the player (no "Te toca", no buttons but the way back).
  assert.equal(await page.textContent("[data-testid=status]"), "Un bot juega por vos hasta que vuelvas a la mesa.");
  assert.equal(await page.$("[data-testid=action], [data-testid=play]"), null);
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] .line")].some((line) => line.textContent === "Se te acabó el tiempo: un bot juega por vos."));
  await checkTexts(page, "taken over");
  await shot(page, "web-clock-ran-out");
  // "Volver a la mesa" takes it back.
  await page.click("[data-testid=resume]");
  await page.waitForSelector("[data-testid=away]", { state: "detached", timeout: 5_000 });
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] .line")].some((line) => line.textContent === "Volviste a la mesa."));
  const seat = (await call("GetGame", { name: `games/${id}` })).game.seats.find((s) => (s.seat ?? 0) === 0);
  assert.equal(seat.playerName, "Ana");
  assert.ok(!seat.takenOver, "the seat is the player's again");
  // Leaving asks first, then hands the seat to a bot, which plays; "Volver a la mesa" takes it back.
  await page.click("[data-testid=leave]");
  await page.click("[data-testid=leave-confirm]");
  const left = await page.waitForSelector("[data-testid=away]");
  assert.match(await left.textContent(), /^Dejaste la mesa: un bot juega por vos\.Juega a ritmo de persona: si volvés en \d:\d\d, seguís el mismo partido\.Volver a la mesa/);
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] .line")].some((line) => line.textContent === "Dejaste la mesa: un bot juega por vos."));
  await shot(page, "web-table-left");
  await page.click("[data-testid=resume]");
  await page.waitForSelector("[data-testid=away]", { state: "detached" });
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] .line")].filter((line) => line.textContent === "Volviste a la mesa.").length === 2);
  assert.deepEqual(page.failures, []);
  await context.close();
});

test("a spectator page shows no hidden card", async () => {
  const created = await call("CreateGame", { rules: { players: 2, target: 15 }, bots: [{ seat: 1, kind: "BOT_KIND_RANDOM" }] });
  const name = created.game.name;
  const joined = await call("JoinGame", { name, seat: 0 });
  const mine = joined.view.cards.map(cardId);
  assert.equal(mine.length, 3);
  const context = await browser.newContext(DESKTOP);
  const page = await open(context);
  await page.goto(`${BASE}/?game=${name.replace("games/", "")}&watch=1`);
  await page.waitForSelector("[data-testid=score] .team");
  await page.waitForSelector("#connection[data-state=live]");
  const shown = await page.$$eval("[data-card]", (nodes) => nodes.map((node) => node.getAttribute("data-card")));
  const muestra = await page.getAttribute("[data-testid=muestra] [data-card]:not([data-card=''])", "data-card");
  assert.equal(muestra, cardId(joined.view.public.hand.muestra));
  // Face-down backs (data-card="") for every card in a hand; face-up only the muestra and cards on the table.
  const faceUp = shown.filter(Boolean);
  const played = (joined.view.public.hand.rounds ?? []).flatMap((round) => round.plays.map((play) => cardId(play.card)));
  assert.deepEqual(faceUp.sort(), [muestra, ...played].sort());
  for (const card of mine) assert.ok(!faceUp.includes(card), `seat 0's ${card} is hidden from the spectator`);
  assert.ok(shown.filter((card) => card === "").length >= 3, "the hands are drawn face down");
  assert.equal(await page.$("[data-testid=hand]"), null);
  assert.match(await page.textContent(".topbar"), /Estás mirando el partido/);
  await checkTexts(page, "spectator");
  await shot(page, "web-spectator");
  await context.close();
});

test("a friend joins by link, shows on the host's page within a second, and gets a seña from their partner", async () => {
  const context = await browser.newContext(DESKTOP);
  const host = await open(context);
  await createFromLobby(host, { players: 4, friends: "1", name: "Ana", target: "30" });
  const link = await host.getAttribute("[data-testid=game-link]", "href");

  // The friend opens the link in another browser (its own storage), takes the open seat: seat 2, the partner.
  const other = await browser.newContext(DESKTOP);
  const friend = await open(other);
  await friend.goto(link);
  await friend.fill("#player-name", "Lola");
  assert.equal(await host.textContent("[data-seat='2'] .name"), "Lugar libre");
  assert.match(await host.textContent("[data-testid=waiting]"), /^Falta 1 jugador para empezar\./);
  assert.equal(await host.$("[data-testid=hand] [data-card]"), null, "nothing is dealt beside an empty seat");
  assert.equal(await host.$("[data-kind=decision]"), null, "no clock runs while a seat is empty");
  await friend.click("#take-seat");
  const joined = Date.now();
  // The host's page hears of it on its watch, without a reload: the name, and the clock the full table starts.
  await host.waitForFunction(() => document.querySelector("[data-seat='2'] .name")?.textContent === "Lola", null, { timeout: 1_000 });
  console.log(`the friend's arrival reached the host's page in ${Date.now() - joined} ms`);
  await host.waitForSelector("[data-clock][data-kind=decision]", { timeout: 1_000 });
  await host.waitForSelector("[data-testid=hand] [data-card]", { timeout: 1_000 });
  assert.equal(await host.$("[data-testid=waiting]"), null);
  await friend.waitForSelector("[data-testid=hand] [data-card]");
  await friend.waitForSelector("#connection[data-state=live]");
  assert.equal(await friend.textContent("[data-seat='0'] .name"), "Ana");

  // The host sends one of the señas its cards allow (the server lists only true ones); the partner sees it live.
  await host.click(".senas summary");
  const sena = host.locator("[data-testid=sena]").first();
  const label = await sena.getAttribute("title");
  await sena.click();
  const received = await friend.waitForSelector("[data-testid=sena-received]", { timeout: 20_000 });
  assert.equal(await received.textContent(), `Ana te hace: ${label}.`);
  await checkTexts(friend, "seña");
  await friend.screenshot({ path: join(ARTIFACTS, "web-sena-received.png") });
  await other.close();
  await context.close();
});

test("the host starts a table waiting for friends with bots, at 1280×800 and 390×844", async () => {
  for (const [device, label] of [[{ viewport: { width: 1280, height: 800 } }, "desktop"], [PHONE, "phone"]]) {
    // Four seats: a bot, the host (the first to sit down), a friend, and one seat still open.
    const { game } = await call("CreateGame", { rules: { players: 4, target: 15 }, bots: [{ seat: 3, level: "BOT_LEVEL_BEGINNER" }] });
    const link = `${BASE}/?game=${game.name.replace("games/", "")}`;
    const pages = [];
    for (const name of ["Ana", "Lola"]) {
      const page = await open(await browser.newContext(device));
      await page.goto(link);
      await page.fill("#player-name", name);
      await page.click("#take-seat");
      await page.waitForSelector("[data-testid=waiting]");
      await page.waitForSelector("#connection[data-state=live]");
      pages.push(page);
    }
    const [host, friend] = pages;
    await host.waitForFunction(() => document.querySelector("[data-seat='1'] .name")?.textContent === "Lola", null, { timeout: 2_000 });
    assert.equal(await friend.$("[data-testid=start-with-bots]"), null, `${label}: only the host may start`);
    const start = await host.waitForSelector("[data-testid=start-with-bots]");
    assert.equal(await start.textContent(), "Empezar con bots");
    const fits = await start.evaluate((button) => {
      const b = button.getBoundingClientRect();
      return b.left >= 0 && b.top >= 0 && b.right <= document.documentElement.clientWidth && b.bottom <= window.innerHeight;
    });
    assert.ok(fits, `${label}: «Empezar con bots» is whole on the first screen`);
    const waiting = (await layoutProblems(host)).filter((problem) => problem !== "the piezas line is hidden"); // no muestra yet
    assert.deepEqual(waiting, [], label);
    await checkTexts(host, `waiting, the host (${label})`);
    await shot(host, `web-start-with-bots-${label}`);

    await start.click();
    // Both pages are dealt; the open seat is a bot's now, named as bots are, on the friend's page too.
    for (const page of pages) {
      await page.waitForSelector("[data-testid=hand] [data-card]", { timeout: 5_000 });
      await page.waitForFunction(() => !document.querySelector("[data-testid=waiting]"), null, { timeout: 2_000 });
      await page.waitForFunction(() => !["", "Lugar libre"].includes(document.querySelector("[data-seat='2'] .name")?.textContent ?? ""), null, { timeout: 2_000 });
      assert.deepEqual(await layoutProblems(page), [], label);
    }
    await checkTexts(friend, `started with bots (${label})`);
    for (const page of pages) {
      assert.deepEqual(page.failures, []);
      await page.context().close();
    }
  }
});

// The browser tests' server plays an away seat at 0.25 s a decision with a 20 s grace (tests/test_web_browser.py):
// the product's 3 s a decision, twelve times faster. Five seconds away here are the 60 s of the product's pace.
const STEP_AWAY_MS = 5_000;

/** A rival played by this test over the API: when its seat may act it plays a card, or says no, so that no bet of
 * its own ends the match while Ana is away (a falta envido accepted could, in a handful of decisions). */
async function calmRival(name, token) {
  let view;
  try {
    view = (await call("ListLegalActions", { name }, token));
  } catch {
    return; // the match moved on meanwhile
  }
  const actions = (view.actions ?? []).filter((a) => !a.sendSena);
  const choice = actions.find((a) => a.playCard) ?? actions.find((a) => a.answer && !a.answer.accept) ?? actions.find((a) => !a.call) ?? actions[0];
  if (!choice) return;
  await call("SubmitCommand", { name, command: choice, expectedVersion: view.version }, token).catch(() => undefined);
}

test("a player who steps away for a minute comes back to the same match, from another device (2 and 4 players)", async () => {
  for (const [players, device, name] of [[2, DESKTOP, "desktop"], [4, PHONE, "phone"]]) {
    // Ana at seat 0, her rivals people of this test's (seats 1 and 3), her partner a bot in four.
    const created = await call("CreateGame", {
      rules: { players, target: 30 },
      bots: players === 4 ? [{ seat: 2, level: "BOT_LEVEL_BEGINNER" }] : [],
      clock: { decision: "30s", reserve: "120s", onExpiry: "CLOCK_POLICY_TAKEOVER" },
    });
    const game = created.game.name;
    const id = game.replace("games/", "");
    const rivals = [];
    for (const seat of players === 4 ? [1, 3] : [1]) {
      const joined = await call("JoinGame", { name: game, seat, playerName: `Rival ${seat}`, requestId: crypto.randomUUID().replaceAll("-", "") });
      rivals.push(joined.seatToken);
    }
    const context = await browser.newContext(device);
    const page = await open(context);
    await page.goto(`${BASE}/?game=${id}`);
    await page.fill("#player-name", "Ana");
    await page.click("#take-seat");
    await page.waitForSelector("[data-testid=hand] [data-card]");
    // "Dejar la mesa" asks first; "Seguir jugando" keeps the seat.
    await page.click("[data-testid=leave]");
    const question = await page.waitForSelector("[data-testid=leave-question]");
    assert.match(await question.textContent(), /^¿Dejás la mesa\? Un bot juega por vos, a ritmo de persona/);
    await checkTexts(page, `leave question (${name})`);
    await page.click("[data-testid=leave-cancel]");
    await page.waitForSelector("[data-testid=leave-question]", { state: "detached" });
    await page.click("[data-testid=leave]");
    await page.click("[data-testid=leave-confirm]");
    const banner = await page.waitForSelector("[data-testid=away]");
    assert.match(await banner.textContent(), /si volvés en 0:(19|20), seguís el mismo partido/);
    assert.equal(await page.textContent("[data-testid=status]"), "Un bot juega por vos hasta que vuelvas a la mesa.");
    await checkTexts(page, `away (${name})`);
    await shot(page, `web-away-${name}`);
    // Away for a minute of the product's pace: the bot plays the seat among people, and the match goes on.
    const leftAt = Number(await page.getAttribute("#app", "data-version"));
    const until = Date.now() + STEP_AWAY_MS;
    while (Date.now() < until) {
      for (const token of rivals) await calmRival(game, token);
      await page.waitForTimeout(100);
    }
    const later = Number(await page.getAttribute("#app", "data-version"));
    assert.ok(later > leftAt, `the stand-in played (${leftAt} then ${later})`);
    assert.equal(await page.getAttribute("#app", "data-phase"), "playing", "the match waited at a person's pace");
    assert.match(await page.textContent("[data-testid=grace]"), /si volvés en 0:1\d, seguís el mismo partido/);
    // Back from another device: the banner's link holds the seat there, and "Volver a la mesa" takes it back.
    const link = await page.getAttribute("[data-testid=other-device]", "href");
    const other = await browser.newContext(device);
    const phone = await open(other);
    await phone.goto(link);
    await phone.waitForSelector("[data-testid=away]");
    assert.equal(new URL(phone.url()).hash, "", "the token leaves the address bar");
    await phone.click("[data-testid=resume]");
    await phone.waitForSelector("[data-testid=away]", { state: "detached" });
    await page.waitForSelector("[data-testid=away]", { state: "detached", timeout: 5_000 }); // told by the watch
    assert.equal(new URL(phone.url()).searchParams.get("game"), id, "the same match");
    assert.equal(await phone.getAttribute("#app", "data-phase"), "playing");
    const seat = (await call("GetGame", { name: game })).game.seats.find((s) => (s.seat ?? 0) === 0);
    assert.ok(!seat.takenOver && seat.playerName === "Ana", "the seat is Ana's again");
    assert.deepEqual([...page.failures, ...phone.failures], []);
    await other.close();
    await context.close();
  }
});

test("a rematch is offered to every human at the table, and the first deal passes on", async () => {
  // Two people and a clock that concedes: nobody moves, seat 0 (the mano) runs out, the match is over at once.
  const created = await call("CreateGame", { rules: { players: 2, target: 15 }, clock: { decision: "1s", onExpiry: "CLOCK_POLICY_FORFEIT" } });
  const id = created.game.name.replace("games/", "");
  const pages = [];
  for (const name of ["Ana", "Lola"]) {
    const context = await browser.newContext(DESKTOP);
    const page = await open(context);
    await page.goto(`${BASE}/?game=${id}`);
    await page.fill("#player-name", name);
    await page.click("#take-seat");
    await page.waitForSelector("#app[data-phase]");
    pages.push(page);
  }
  for (const page of pages) await page.waitForSelector("#app[data-phase=over] [data-testid=rematch]", { timeout: 20_000 });
  const [ana, lola] = pages;
  assert.equal(await lola.$("[data-testid=rematch-offered]"), null);
  await ana.click("[data-testid=rematch]");
  await ana.waitForURL((url) => url.searchParams.get("game") !== id);
  const next = new URL(ana.url()).searchParams.get("game");
  // Lola is told on her page, without a reload, and her "Revancha" sits her at the same table.
  await lola.waitForSelector("[data-testid=rematch-offered]", { timeout: 3_000 });
  assert.equal(await lola.textContent("[data-testid=rematch-offered]"), "Te esperan para la revancha.");
  await checkTexts(lola, "rematch offered");
  await lola.click("[data-testid=rematch]");
  await lola.waitForURL((url) => url.searchParams.get("game") === next);
  const again = (await call("GetGameView", { name: `games/${next}` })).public;
  assert.equal(again.hand.dealer ?? 0, 0, "the first game's first dealer was seat 1: the rematch's is seat 0");
  assert.equal(again.hand.mano, 1, "so Lola is the mano now");
  for (const page of pages) {
    assert.deepEqual(page.failures, []);
    await page.context().close();
  }
});

/** The boxes the layout must keep apart, measured on the page as it is: each played card against every seat's
 * name, clock and avatar, the muestra and the piezas line; what must be on the first screen; and whether any button
 * is cut by the viewport. An empty list: nothing overlaps, nothing is clipped. */
async function layoutProblems(page) {
  return page.evaluate(() => {
    const box = (element) => element.getBoundingClientRect();
    const shown = (element) => { const b = box(element); return b.width > 0 && b.height > 0 && getComputedStyle(element).visibility !== "hidden"; };
    const cross = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const name = (element) => element.dataset.testid ?? element.className ?? element.tagName;
    const found = [];
    const keepOut = [...document.querySelectorAll(".seat .plate, .seat .avatar, [data-testid=muestra] .card, .piezas, .center-label")].filter(shown);
    const piles = [...document.querySelectorAll("[data-testid=played]")];
    for (const [index, played] of piles.entries()) {
      for (const other of piles.slice(index + 1)) {
        if (cross(box(played), box(other))) found.push(`the cards played by seats ${played.dataset.seat} and ${other.dataset.seat} overlap`);
      }
      for (const other of keepOut) {
        if (other.closest("[data-testid=played]")) continue;
        if (cross(box(played), box(other))) found.push(`the card played by seat ${played.dataset.seat} covers ${name(other)} ${other.closest("[data-seat]")?.dataset.seat ?? ""}`.trim());
      }
    }
    const width = document.documentElement.clientWidth;
    for (const button of document.querySelectorAll("button, a.button")) {
      if (!shown(button)) continue;
      const b = box(button);
      if (b.left < -1 || b.right > width + 1) found.push(`the button «${button.textContent}» is cut by the screen's edge`);
    }
    const piezas = document.querySelector(".piezas");
    if (piezas && !shown(piezas)) found.push("the piezas line is hidden");
    return found;
  });
}

/** Whatever of the summary is clipped, see-through or off the screen. */
async function summaryProblems(page) {
  return page.evaluate(() => {
    const summary = document.querySelector("[data-testid=summary]");
    const found = [];
    const b = summary.getBoundingClientRect();
    const alpha = getComputedStyle(summary).backgroundColor.match(/rgba?\(([^)]*)\)/)[1].split(",").map(Number)[3] ?? 1;
    if (alpha < 1) found.push(`the summary is see-through (alpha ${alpha})`);
    if (summary.scrollHeight > summary.clientHeight + 1) found.push("the summary overflows: part of it needs scrolling");
    if (b.top < 0 || b.bottom > window.innerHeight + 1 || b.left < 0 || b.right > document.documentElement.clientWidth + 1) found.push("the summary is off the screen");
    const button = summary.querySelector("[data-testid=continue]");
    if (button) {
      const k = button.getBoundingClientRect();
      if (k.bottom > b.bottom + 1 || k.right > b.right + 1 || k.top < b.top - 1) found.push("«Seguir» is clipped");
    }
    return found;
  });
}

test("the table's boxes neither overlap nor clip at 1280×800 and 390×844", async () => {
  for (const [players, device, label] of [[2, { viewport: { width: 1280, height: 800 } }, "desktop"], [4, PHONE, "phone"], [6, PHONE, "phone, 6 players"]]) {
    const context = await browser.newContext(device);
    const page = await open(context);
    await createFromLobby(page, { players, target: "30", bot: "beginner", name: "Ana" });
    const problems = new Set();
    if (label === "desktop") {
      // The first screen holds the hand with its PIEZA/MATA tags and the envido line.
      const fold = await page.evaluate(() => Math.max(...[...document.querySelectorAll("[data-testid=hand] .card, [data-testid=tantos]")].map((e) => e.getBoundingClientRect().bottom)));
      if (fold > 800) problems.add(`the hand and the envido line end at ${fold}px, below the first 800px`);
    }
    let summaries = 0;
    for (let clicks = 0; clicks < 60 && summaries < 2; clicks++) {
      if (await page.$("[data-testid=summary]")) {
        for (const problem of await summaryProblems(page)) problems.add(`${label}, summary: ${problem}`);
        if (summaries === 0) await shot(page, `web-layout-summary-${label.replaceAll(/[ ,]+/g, "-")}`);
        summaries++;
        await page.click("[data-testid=continue]").catch(() => undefined);
        continue;
      }
      for (const problem of await layoutProblems(page)) problems.add(`${label}: ${problem}`);
      const pending = (await page.textContent("[data-testid=calls]").catch(() => "")) ?? "";
      const accept = /«(Falta envido|Contra flor al resto)»/.test(pending) ? "false" : "true";
      const target = (await page.$(`[data-testid=action][data-kind=answer][data-accept=${accept}]:not([disabled])`)) ?? (await page.$("[data-testid=play]:not([disabled])"));
      if (!target) {
        await page.waitForTimeout(150);
        continue;
      }
      if ((await page.$$("[data-testid=played]")).length >= Math.min(players, 3) - 1) await shot(page, `web-layout-${label.replaceAll(/[ ,]+/g, "-")}`);
      const version = await page.getAttribute("#app", "data-version");
      await target.click({ timeout: 5_000 }).catch(() => undefined);
      await page.waitForFunction((v) => document.querySelector("#app")?.dataset.version !== v, version, { timeout: 10_000 }).catch(() => undefined);
    }
    assert.ok(summaries > 0, `${label}: a hand ended and its summary was measured`);
    assert.deepEqual([...problems], []);
    await context.close();
  }
});

// --- Jugar ya and the ranking -----------------------------------------------------------------------------------

/** A protobuf message's bytes, by hand (the few fields the quick-match stream needs). */
const varint = (n) => { const out = []; while (n > 127) { out.push((n & 127) | 128); n = Math.floor(n / 128); } out.push(n); return out; };
const pbString = (no, text) => { const bytes = [...Buffer.from(text)]; return [(no << 3) | 2, ...varint(bytes.length), ...bytes]; };
const pbNumber = (no, n) => [(no << 3) | 0, ...varint(n)];
const pbMessage = (no, bytes) => [(no << 3) | 2, ...varint(bytes.length), ...bytes];
const pbDouble = (no, x) => { const b = Buffer.alloc(8); b.writeDoubleLE(x); return [(no << 3) | 1, ...b]; };

/** A FindMatchResponse: the ticket in `state` (1 WAITING, 3 MATCHED), waited 4 s, window 3.2 to 9.8; MATCHED
 * with the game, seat and seat token. */
function ticketMessage(state, matched) {
  const ticket = [...pbString(1, "tickets/t1"), ...pbNumber(2, state), ...pbMessage(6, pbNumber(1, 4)), ...pbDouble(7, 3.2), ...pbDouble(8, 9.8)];
  const seat = matched ? [...pbString(2, matched.game), ...pbNumber(3, matched.seat), ...pbString(4, matched.token)] : [];
  return [...pbMessage(1, ticket), ...seat];
}

/** A Connect server-streaming body (binary): each message in its envelope, then the end of the stream. */
function connectStream(messages) {
  const envelope = (flags, bytes) => { const head = Buffer.alloc(5); head.writeUInt8(flags, 0); head.writeUInt32BE(bytes.length, 1); return Buffer.concat([head, Buffer.from(bytes)]); };
  return Buffer.concat([...messages.map((bytes) => envelope(0, bytes)), envelope(2, [...Buffer.from("{}")])]);
}

/** The boxes of a page that must not overlap (the lobby's panels, the waiting page's parts), and buttons cut. */
async function panelProblems(page, selector) {
  return page.evaluate((selector) => {
    const found = [];
    const boxes = [...document.querySelectorAll(selector)].map((element) => [element, element.getBoundingClientRect()]).filter(([, b]) => b.width > 0 && b.height > 0);
    const cross = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    for (const [index, [element, box]] of boxes.entries()) {
      for (const [other, otherBox] of boxes.slice(index + 1)) {
        if (!element.contains(other) && !other.contains(element) && cross(box, otherBox)) found.push(`${element.className} overlaps ${other.className}`);
      }
    }
    const width = document.documentElement.clientWidth;
    for (const button of document.querySelectorAll("button, a.button")) {
      const b = button.getBoundingClientRect();
      if (b.width > 0 && (b.left < -1 || b.right > width + 1)) found.push(`the button «${button.textContent}» is cut by the screen's edge`);
    }
    return found;
  }, selector);
}

test("Jugar ya: the lobby's panel, the page without a player token, the ranking, waiting with Cancelar, and into the table once matched", async () => {
  // A game the (stand-in) ticket stream hands over, with this player's seat in it.
  const created = await call("CreateGame", { rules: { players: 2, target: 15 }, bots: [{ seat: 1, kind: "BOT_KIND_RANDOM" }] });
  const joined = await call("JoinGame", { name: created.game.name, seat: 0, playerName: "Ana", requestId: crypto.randomUUID().replaceAll("-", "") });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = ["eyJhbGciOiJIUzI1NiJ9", Buffer.from(JSON.stringify({ sub: "ana", exp })).toString("base64url"), "firma"].join(".");
  for (const [label, options] of [["desktop", { viewport: { width: 1280, height: 800 } }], ["phone", PHONE]]) {
    const context = await browser.newContext(options);
    const page = await open(context);
    await page.goto(BASE);
    await page.waitForSelector("[data-testid=quick] #quick-play");
    assert.deepEqual(await panelProblems(page, ".lobby .panel"), [], `${label}: the lobby's panels`);
    await checkTexts(page, `lobby with Jugar ya (${label})`);
    await shot(page, `web-quick-lobby-${label}`);

    // No token handed or pasted, and a server that mints none (its web door's answer held back here): the page
    // says what is missing.
    await page.route("**/table/player-token", (route) => route.fulfill({ status: 404, contentType: "text/plain", body: "Not Found" }));
    await page.click("#quick-play");
    const error = await page.waitForSelector("[data-testid=error]");
    assert.match(await error.textContent(), /necesitás un pase de jugador/);
    await page.goto(`${BASE}/?ranking=4`);
    assert.match(await (await page.waitForSelector("[data-testid=ranking-top] [data-testid=error]")).textContent(), /pase de jugador/);
    assert.equal(await page.getAttribute("[data-testid=ranking-4]", "class"), "button");
    await checkTexts(page, `ranking without a token (${label})`);

    await page.unroute("**/table/player-token");

    // With a token (the app's, in the link's fragment), a ticket waits: its page, then Cancelar.
    await page.route("**/truco.v1.PlayerService/FindMatch", () => undefined); // held: the ticket waits
    await page.goto(`${BASE}/#jugador=${jwt}`);
    assert.equal(new URL(page.url()).hash, "", "the token leaves the address bar");
    await page.selectOption("#quick-players", "4");
    await page.click("#quick-play");
    const state = await page.waitForSelector("[data-testid=quick-state]");
    assert.equal(await state.textContent(), "Buscando rivales…");
    assert.deepEqual(await panelProblems(page, ".quick-wait > *"), [], `${label}: the waiting page`);
    await checkTexts(page, `waiting for a match (${label})`);
    await shot(page, `web-quick-waiting-${label}`);
    await page.click("#quick-cancel");
    assert.match(await (await page.waitForSelector("[data-testid=error]")).textContent(), /Cancelaste la búsqueda\./);
    await page.unroute("**/truco.v1.PlayerService/FindMatch");

    // The ticket's stream says WAITING, then MATCHED: the page takes the seat and opens the table.
    let asked;
    await page.route("**/truco.v1.PlayerService/FindMatch", (route) => {
      asked = route.request().headers()["x-player-token"];
      const matched = { game: created.game.name, seat: 0, token: joined.seatToken };
      return route.fulfill({ status: 200, contentType: "application/connect+proto", body: connectStream([ticketMessage(1), ticketMessage(3, matched)]) });
    });
    await page.click("#quick-play");
    await page.waitForSelector("[data-testid=hand] [data-card]");
    assert.equal(asked, jwt, "FindMatch carries the player token");
    assert.equal(new URL(page.url()).searchParams.get("game"), created.game.name.replace("games/", ""));
    await checkTexts(page, `the table after a quick match (${label})`);
    assert.deepEqual(page.failures, []);
    await context.close();
  }
});

/** A player token for `sub`, signed as an app's backend signs one (HS256 with the app's signing key, which
 * tests/test_web_browser.py registers on the server's store and hands over in the environment). */
function playerJwt(sub, name) {
  const { TRUCO_PLAYER_KEY_ID: iss, TRUCO_PLAYER_KID: kid, TRUCO_PLAYER_SECRET: secret } = process.env;
  assert.ok(iss && kid && secret, "set TRUCO_PLAYER_KEY_ID, TRUCO_PLAYER_KID and TRUCO_PLAYER_SECRET (an app's HS256 signing key)");
  const part = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const signed = `${part({ alg: "HS256", typ: "JWT", kid })}.${part({ iss, sub, name, aud: "truco", iat: now, exp: now + 3600 })}`;
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
}

test("Jugar ya against the server: two players, on a desktop and a phone, are matched to one table; the ranking page reads the leaderboard and the history", async () => {
  const players = [["desktop", { viewport: { width: 1280, height: 800 } }, "web-ana", "Ana"], ["phone", PHONE, "web-beto", "Beto"]];
  const pages = [];
  for (const [label, options, sub, name] of players) {
    const context = await browser.newContext(options);
    const page = await open(context);
    page.label = label;
    await page.goto(`${BASE}/#jugador=${playerJwt(sub, name)}`);
    await page.waitForSelector("#quick-play");
    await page.uncheck("#quick-bots"); // only each other: no bots fill the table
    pages.push(page);
  }
  for (const page of pages) {
    await page.click("#quick-play");
    await page.waitForSelector("[data-testid=quick-state]");
  }
  for (const page of pages) {
    await page.waitForSelector("[data-testid=hand] [data-card]", { timeout: 30_000 });
    await checkTexts(page, `a quick match's table (${page.label})`);
    await shot(page, `web-quick-matched-${page.label}`);
  }
  const games = pages.map((page) => new URL(page.url()).searchParams.get("game"));
  assert.ok(games[0] && games[0] === games[1], `both players sit at one table: ${games.join(", ")}`);
  const seats = await Promise.all(pages.map((page) => page.$$eval("[data-testid=seat] .name", (nodes) => nodes.map((node) => node.textContent))));
  assert.ok(seats[0].includes("Vos") && seats[0].includes("Beto") && seats[1].includes("Vos") && seats[1].includes("Ana"), JSON.stringify(seats));

  // The ranking: the server's leaderboard (no rated match has ended here) and the player's empty history.
  const [page] = pages;
  await page.goto(`${BASE}/?ranking=2`);
  assert.match(await (await page.waitForSelector("[data-testid=ranking-top] [data-testid=ranked]")).textContent(), /^\d+ jugadores? en el ranking\.$/);
  assert.match(await (await page.waitForSelector("[data-testid=not-ranked]")).textContent(), /Todavía no tenés puesto/);
  assert.match(await (await page.waitForSelector("[data-testid=history] .note")).textContent(), /Todavía no terminaste ningún partido/);
  assert.equal(await page.$("[data-testid=ranking-top] [data-testid=error]"), null);
  assert.deepEqual(await panelProblems(page, ".ranking > .panel"), []);
  await checkTexts(page, "the ranking");
  await shot(page, "web-ranking-desktop");
  for (const each of pages) {
    assert.deepEqual(each.failures, []);
    await each.context().close();
  }
});

test("Jugar ya with the table's own players: two browsers with no token are matched, play a rated match, and find it in their ranking", async () => {
  const players = [["desktop", DESKTOP, "Caro"], ["phone", PHONE, "Dani"]];
  const pages = [];
  for (const [label, options, name] of players) {
    const context = await browser.newContext(options);
    const page = await open(context);
    page.label = label;
    page.asked = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/truco.v1.PlayerService/FindMatch")) page.asked.push(request.headers()["x-player-token"]);
    });
    await page.goto(BASE);
    await page.waitForSelector("#quick-play");
    await page.fill("#player-name", name);
    await page.uncheck("#quick-bots"); // only each other: a rated match
    pages.push(page);
  }
  for (const page of pages) {
    await page.click("#quick-play");
    await page.waitForSelector("[data-testid=quick-state]");
  }
  for (const page of pages) await page.waitForSelector("[data-testid=hand] [data-card]", { timeout: 30_000 });
  const game = new URL(pages[0].url()).searchParams.get("game");
  assert.ok(game && game === new URL(pages[1].url()).searchParams.get("game"), "both players sit at one table");
  const kept = await Promise.all(pages.map((page) => page.evaluate(() => ({ token: localStorage.getItem("truco:player-token"), credential: localStorage.getItem("truco:table-credential") }))));
  for (const [index, page] of pages.entries()) {
    assert.ok(kept[index].credential, `${page.label}: the credential is kept`);
    assert.equal(page.asked[0], kept[index].token, `${page.label}: FindMatch carries the minted token`);
  }
  const seats = await pages[0].$$eval("[data-testid=seat] .name", (nodes) => nodes.map((node) => node.textContent));
  assert.ok(seats.includes("Vos") && seats.includes("Dani"), seats.join(", "));

  const clicks = await Promise.all(pages.map((page) => playToTheEnd(page)));
  console.log(`the table's own players: match over after ${clicks.join(" + ")} clicks`);

  // The match counts within moments of its end: both are ranked, each finds it (rated) in its history, and the
  // phone, back on a later visit (a new page of the same browser), is still the same player.
  for (const page of pages) {
    await page.goto(`${BASE}/?ranking=2`);
    let ranked = "";
    for (let tries = 0; tries < 30 && !/^2 jugadores en el ranking\.$/.test(ranked); tries++) {
      if (tries) await page.reload();
      ranked = (await (await page.waitForSelector("[data-testid=ranking-top] [data-testid=ranked]")).textContent()) ?? "";
      if (!/^2 /.test(ranked)) await page.waitForTimeout(500);
    }
    assert.equal(ranked, "2 jugadores en el ranking.", page.label);
    const mine = await page.waitForSelector("[data-testid=ranking-mine] > p");
    assert.match(await mine.textContent(), /^Estás en el puesto [12] con /);
    const past = await page.waitForSelector(`[data-testid=past-match][data-game="${game}"]`);
    assert.doesNotMatch(await past.textContent(), /No suma/, `${page.label}: the match is rated`);
    await checkTexts(page, `the ranking of the table's own player (${page.label})`);
  }
  await shot(pages[0], "web-ranking-own-player-desktop");
  const later = await pages[1].context().newPage();
  await later.goto(`${BASE}/?ranking=2`);
  await later.waitForSelector(`[data-testid=past-match][data-game="${game}"]`);
  assert.equal(await later.evaluate(() => localStorage.getItem("truco:table-credential")), kept[1].credential);
  for (const page of pages) {
    assert.deepEqual(page.failures, []);
    await page.context().close();
  }
});
