// "Jugar ya" (PlayerService's quick match) and the ranking page. Both act as a player, which takes a player token:
// the short-lived JWT an app's backend signs for one of its players. Where this browser's comes from is one
// function, playerToken(): a token the app hands the page (the link's fragment `#jugador=<jwt>`, kept), one pasted
// in the lobby, or one the server's web door mints for the table's own player (POST /table/player-token, see
// README.md), the same player on every visit by the credential this browser keeps; without any, the page says so.
import { type MatchTicket, NoMatch, type PlayerMatch, TicketState, TrucoClient } from "truco-client";
import { holdSeat, keepPlayerName, playerNameKept, toTrucoError, transport } from "./api";
import { h } from "./dom";
import { refusalOf } from "./lobby";
import {
  QUICK,
  matchLine,
  myPlaceLine,
  playersOption,
  rankedLine,
  rankingTab,
  ratingText,
  refusal,
  waitedLine,
  windowLine,
} from "./text";

const PLAYER_TOKEN = "truco:player-token";
/** The credential the web door gave this browser's own player: it brings the same player back on every visit. */
const TABLE_CREDENTIAL = "truco:table-credential";
/** The name the kept token was minted under, when the web door minted it (absent: an app's token). */
const MINTED_FOR = "truco:player-token-name";
/** The web door's endpoint that mints a token for the table's own player (see README.md). */
const MINT_PATH = "/table/player-token";
/** A kept token is asked for again this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;

/** No player token could be had: none handed, none pasted, and the server mints none. */
export class NoPlayerToken extends Error {}

/** The seconds-since-epoch `exp` claim of a JWT, read (not verified: the server verifies), or undefined. */
function expiresAt(token: string): number | undefined {
  try {
    const payload = token.split(".")[1] ?? "";
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === "number" ? exp : undefined;
  } catch {
    return undefined;
  }
}

function fresh(token: string | null): token is string {
  if (!token) return false;
  const exp = expiresAt(token);
  return exp === undefined || exp * 1000 - EXPIRY_MARGIN_MS > Date.now();
}

/** Keeps a token the app handed in the link's fragment (`#jugador=<jwt>`), and takes the fragment off the bar. */
export function takePlayerTokenFromLink(): void {
  const match = /(?:^#|&)jugador=([^&]+)/.exec(window.location.hash);
  if (!match) return;
  keepPlayerToken(decodeURIComponent(match[1]));
  window.history.replaceState({}, "", `${window.location.pathname}${window.location.search}`);
}

/** The token this browser keeps ("" : none). */
export function playerTokenKept(): string {
  return window.localStorage.getItem(PLAYER_TOKEN) ?? "";
}

/** The token an app handed or the player pasted ("": none, or the kept one is the web door's). */
function handedToken(): string {
  return window.localStorage.getItem(MINTED_FOR) === null ? playerTokenKept() : "";
}

/** Keeps a token an app handed or the player pasted ("": none), in place of any the web door minted. */
export function keepPlayerToken(token: string): void {
  window.localStorage.removeItem(MINTED_FOR);
  if (token) window.localStorage.setItem(PLAYER_TOKEN, token);
  else window.localStorage.removeItem(PLAYER_TOKEN);
}

/** What the web door answers: the token, and the credential to keep for the next one. */
interface Minted {
  token: string;
  credential: string;
}

/** The web door refused a token: the reason and message of its Connect error body (QUOTA_EXCEEDED past the new
 * players a minute, say). */
export class MintRefused extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(reason);
  }
}

function refusalIn(answer: unknown): MintRefused {
  const body = answer as { message?: unknown; details?: { debug?: { reason?: unknown } }[] } | undefined;
  const reason = body?.details?.[0]?.debug?.reason;
  return new MintRefused(typeof reason === "string" ? reason : "", typeof body?.message === "string" ? body.message : "");
}

/** Asks the web door for a token: for the player the credential names, or (none) for a new player. */
async function mint(name: string, credential: string | null): Promise<Minted | MintRefused> {
  let response: Response;
  try {
    response = await fetch(MINT_PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(credential ? { name, credential } : { name }),
    });
  } catch {
    throw new NoPlayerToken();
  }
  // Anything but a JSON answer (a 404 from a server that mints none, the page's own HTML): no token to have.
  const answer: unknown = await response.json().catch(() => undefined);
  if (answer === undefined) throw new NoPlayerToken();
  if (!response.ok) return refusalIn(answer);
  const { token, credential: kept } = answer as { token?: unknown; credential?: unknown };
  if (typeof token !== "string" || !token || typeof kept !== "string") throw new NoPlayerToken();
  return { token, credential: kept };
}

/**
 * This browser's player token: the one kept (handed by the app, or pasted, or minted under the lobby's name) while
 * it is not about to expire, else the next one the server's web door mints for this browser's own player (the same
 * player on every visit, by the credential kept here). Throws NoPlayerToken when there is none to have, and the
 * server's refusal (a quota's, say) as an Error with its message.
 */
export async function playerToken(): Promise<string> {
  const kept = playerTokenKept();
  const name = playerNameKept();
  const mintedFor = window.localStorage.getItem(MINTED_FOR);
  if (fresh(kept) && (mintedFor === null || mintedFor === name)) return kept;
  let minted = await mint(name, window.localStorage.getItem(TABLE_CREDENTIAL));
  if (minted instanceof MintRefused && minted.reason === "TABLE_CREDENTIAL_INVALID") {
    // Kept from another server (or a reset one): this browser starts a new player here.
    window.localStorage.removeItem(TABLE_CREDENTIAL);
    minted = await mint(name, null);
  }
  if (minted instanceof MintRefused) throw minted;
  window.localStorage.setItem(TABLE_CREDENTIAL, minted.credential);
  window.localStorage.setItem(PLAYER_TOKEN, minted.token);
  window.localStorage.setItem(MINTED_FOR, name);
  return minted.token;
}

/** Forgets a minted token the server refused (its key revoked, say): the next try mints the next one for the same
 * player. A token an app handed or the player pasted stays: only its app can give another. */
function forgetRefusedToken(error: unknown): void {
  if (window.localStorage.getItem(MINTED_FOR) === null) return;
  if (toTrucoError(error).reason.startsWith("PLAYER_TOKEN_")) {
    window.localStorage.removeItem(PLAYER_TOKEN);
    window.localStorage.removeItem(MINTED_FOR);
  }
}

/** A client acting as this browser's player. */
export async function playerClient(): Promise<TrucoClient> {
  return new TrucoClient(transport, { playerToken: await playerToken() });
}

function refusalOrNoToken(error: unknown): string {
  if (error instanceof NoPlayerToken) return QUICK.noToken;
  forgetRefusedToken(error);
  return error instanceof MintRefused ? refusal(error.reason, error.detail) : refusalOf(error);
}

// --- Jugar ya ---------------------------------------------------------------------------------------------------

/** The lobby's "Jugar ya" panel: a table size, whether bots may fill after a wait, and the button. */
export function quickPanel(open: (id: string) => void, showError: (message: string) => void, app: HTMLElement): HTMLElement {
  const size = h(
    "select",
    { id: "quick-players", name: "quick-players" },
    ...[2, 4, 6].map((n) => h("option", { value: String(n) }, playersOption(n))),
  ) as HTMLSelectElement;
  const bots = h("input", { id: "quick-bots", name: "quick-bots", type: "checkbox", checked: true }) as HTMLInputElement;
  const token = h("input", { id: "player-token", name: "player-token", placeholder: QUICK.tokenPlaceholder, value: handedToken() }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "panel quick", "data-testid": "quick" },
    h("h2", {}, QUICK.title),
    h("p", { class: "note" }, QUICK.intro),
    h("label", { class: "field" }, h("span", { class: "label" }, QUICK.players), size),
    h("label", { class: "check" }, bots, QUICK.botsFill),
    h("details", { class: "advanced" }, h("summary", {}, QUICK.tokenField), token),
    h("div", { class: "buttons" }, h("button", { id: "quick-play", type: "submit" }, QUICK.play), h("a", { class: "button quiet", href: "?ranking=2", "data-testid": "ranking" }, QUICK.ranking)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (token.value.trim() !== handedToken()) keepPlayerToken(token.value.trim());
    // The name given in the lobby is the one the table's own player is ranked under.
    keepPlayerName((document.getElementById("player-name") as HTMLInputElement | null)?.value.trim() ?? "");
    void quickMatch(app, open, showError, Number(size.value), bots.checked);
  });
  return form;
}

/** How long the server waits before its bots fill a quick match's free seats, when the player allows it. */
const BOTS_AFTER_MS = 30_000;

/** The waiting page: the ticket's state, its window and the time waited, with Cancelar; then into the table. */
async function quickMatch(app: HTMLElement, open: (id: string) => void, showError: (message: string) => void, players: number, bots: boolean): Promise<void> {
  const controller = new AbortController();
  const state = h("p", { class: "quick-state", "data-testid": "quick-state" }, QUICK.searching);
  const windowText = h("p", { class: "note", "data-testid": "quick-window" });
  const waited = h("p", { class: "note", "data-testid": "quick-waited" });
  const cancel = h("button", { id: "quick-cancel", class: "quiet", onclick: () => controller.abort() }, QUICK.cancel);
  app.replaceChildren(h("section", { class: "panel quick-wait", "data-testid": "quick-wait" }, h("h2", {}, QUICK.title), state, windowText, waited, cancel));
  const show = (ticket: MatchTicket) => {
    state.textContent = ticket.state === TicketState.WAITING_FOR_PARTY ? QUICK.waitingForParty : ticket.state === TicketState.MATCHED ? QUICK.matched : QUICK.searching;
    if (ticket.windowHigh > ticket.windowLow) windowText.textContent = windowLine(ticket.windowLow, ticket.windowHigh);
    waited.textContent = waitedLine(Number(ticket.waited?.seconds ?? 0n));
  };
  try {
    const player = await playerClient();
    const match = await player.quickMatch({
      rules: { players },
      botsAfterMs: bots ? BOTS_AFTER_MS : undefined,
      signal: controller.signal,
      onTicket: show,
    });
    const id = match.game.replace(/^games\//, "");
    holdSeat(id, { seat: match.seat, token: match.client.token ?? "" });
    open(id);
  } catch (error) {
    if (controller.signal.aborted) showError(QUICK.cancelled);
    else if (error instanceof NoMatch) showError(QUICK.expired);
    else showError(refusalOrNoToken(error));
  }
}

// --- The ranking ------------------------------------------------------------------------------------------------

/** The ranking page (`?ranking=N`): the top of table size N, the page around this player, and its history. */
export async function showRanking(app: HTMLElement, players: number): Promise<void> {
  const tabs = h(
    "nav",
    { class: "ranking-tabs" },
    ...[2, 4, 6].map((n) => h("a", { class: n === players ? "button" : "button quiet", href: `?ranking=${n}`, "data-testid": `ranking-${n}` }, rankingTab(n))),
  );
  const top = h("div", { "data-testid": "ranking-top" }, h("p", { class: "note" }, QUICK.loadingRanking));
  const mine = h("div", { "data-testid": "ranking-mine" });
  const history = h("div", { "data-testid": "history" });
  app.replaceChildren(
    h(
      "div",
      { class: "ranking" },
      h("section", { class: "panel" }, h("h2", {}, QUICK.ranking), tabs, h("h3", {}, QUICK.rankingTop), top, h("h3", {}, QUICK.rankingAroundMe), mine),
      h("section", { class: "panel" }, h("h2", {}, QUICK.history), history, h("a", { class: "button quiet", href: "./" }, QUICK.back)),
    ),
  );
  let client: TrucoClient;
  try {
    client = await playerClient();
  } catch (error) {
    top.replaceChildren(h("p", { class: "error", role: "alert", "data-testid": "error" }, refusalOrNoToken(error)));
    return;
  }
  await Promise.all([fillTop(client, players, top), fillMine(client, players, mine), fillHistory(client, history)]);
}

function board(entries: readonly { rank: number; player: string; displayName: string; rating?: { ordinal: number; matches: number; wins: number } }[], me?: string): HTMLElement {
  return h(
    "table",
    { class: "leaderboard" },
    h("thead", {}, h("tr", {}, ...[QUICK.rank, QUICK.player, QUICK.rating, QUICK.played, QUICK.wins].map((label) => h("th", {}, label)))),
    h(
      "tbody",
      {},
      ...entries.map((entry) =>
        h(
          "tr",
          { class: entry.player === me ? "me" : undefined },
          h("td", {}, String(entry.rank)),
          h("td", {}, entry.displayName || entry.player.replace(/^players\//, "")),
          h("td", {}, ratingText(entry.rating?.ordinal ?? 0)),
          h("td", {}, String(entry.rating?.matches ?? 0)),
          h("td", {}, String(entry.rating?.wins ?? 0)),
        ),
      ),
    ),
  );
}

async function fillTop(client: TrucoClient, players: number, into: HTMLElement): Promise<void> {
  try {
    const page = await client.listLeaderboard(players, { pageSize: 20 });
    const entries = page.entries.length ? board(page.entries) : h("p", { class: "note" }, QUICK.rankingEmpty);
    into.replaceChildren(entries, h("p", { class: "note", "data-testid": "ranked" }, rankedLine(page.total)));
  } catch (error) {
    forgetRefusedToken(error);
    into.replaceChildren(h("p", { class: "error", role: "alert" }, refusalOf(error)));
  }
}

async function fillMine(client: TrucoClient, players: number, into: HTMLElement): Promise<void> {
  try {
    const me = await client.getPlayer("me");
    const page = await client.listLeaderboard(players, { pageSize: 11, aroundPlayer: "me" });
    const mine = page.entries.find((entry) => entry.player === me.name);
    into.replaceChildren(mine ? h("p", {}, myPlaceLine(mine.rank, mine.rating?.ordinal ?? 0)) : "", board(page.entries, me.name));
  } catch (error) {
    // Not ranked at this table size yet (no rated match played there): a note, not a refusal.
    const unranked = toTrucoError(error).reason === "PLAYER_NOT_FOUND";
    into.replaceChildren(h("p", { class: "note", "data-testid": unranked ? "not-ranked" : undefined }, unranked ? QUICK.notRankedYet : refusalOf(error)));
  }
}

async function fillHistory(client: TrucoClient, into: HTMLElement): Promise<void> {
  let matches: PlayerMatch[];
  try {
    matches = (await client.listPlayerMatches("me", { pageSize: 20 })).matches;
  } catch (error) {
    into.replaceChildren(h("p", { class: "note" }, refusalOf(error)));
    return;
  }
  if (!matches.length) {
    into.replaceChildren(h("p", { class: "note" }, QUICK.historyEmpty));
    return;
  }
  into.replaceChildren(
    ...matches.map((match) => {
      const id = match.game.replace(/^games\//, "");
      const ended = match.endTime ? new Date(Number(match.endTime.seconds) * 1000) : undefined;
      const outcome = match.won ? QUICK.won : QUICK.lost;
      return h(
        "div",
        { class: "past-match", "data-testid": "past-match", "data-game": id },
        h("div", {}, h("strong", {}, outcome), match.rated ? "" : h("span", { class: "note" }, ` · ${QUICK.unrated}`), h("div", { class: "note" }, matchLine(match.players, match.scores, ended))),
        // A finished game replays whole as a spectator's watch from version 0 (the table rebuilds its log).
        h("a", { class: "button quiet", href: `?game=${id}&watch=1`, "data-testid": "replay" }, QUICK.replay),
      );
    }),
  );
}
