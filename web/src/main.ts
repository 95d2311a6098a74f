// The web table: the lobby (a new game against the server's bots, "Jugar ya", the open tables, a link to join),
// the page to take a seat at a game by link, the ranking (?ranking=N), and the table itself. Everything goes through "truco-client" (the project's
// TypeScript SDK, compiled from clients/ts/src) over the Connect protocol to the web port that served this page.
import { clientFor, heldSeat, holdSeat, keepPlayerName, playerNameKept } from "./api";
import { installDeck } from "./deck";
import { h } from "./dom";
import { refusalOf, showLobby } from "./lobby";
import { showRanking, takePlayerTokenFromLink } from "./players";
import { Table } from "./table";
import { UI, joinTitle } from "./text";
import { onRenderAgain, renderTable, tickClocks } from "./view";
import "./style.css";

const app = document.getElementById("app") as HTMLElement;
const connection = document.getElementById("connection") as HTMLElement;
let table: Table | undefined;
let ticker: number | undefined;

const CONNECTION = { live: UI.live, reconnecting: UI.reconnecting, over: UI.over } as const;

function setConnection(state: keyof typeof CONNECTION | ""): void {
  connection.dataset.state = state;
  connection.textContent = state ? CONNECTION[state] : "";
}

function leaveTable(): void {
  table?.close();
  table = undefined;
  if (ticker !== undefined) window.clearInterval(ticker);
  ticker = undefined;
}

/** Goes to a game's page (the browser's history keeps it: back returns to the lobby or the previous game). */
function go(id: string): void {
  window.history.pushState({}, "", `?game=${encodeURIComponent(id)}`);
  void openTable(id);
}

async function openTable(id: string): Promise<void> {
  leaveTable();
  const held = heldSeat(id);
  const watching = new URLSearchParams(window.location.search).has("watch");
  if (!held && !watching) {
    showJoin(id);
    return;
  }
  app.replaceChildren(h("p", { class: "note loading" }, UI.loading));
  const link = `${window.location.origin}${window.location.pathname}?game=${id}`;
  const render = () => {
    if (table === current) renderTable(current, app, link);
  };
  const current: Table = new Table(id, clientFor(watching ? undefined : held?.token), watching ? undefined : held?.seat, render, (state) => setConnection(state), go);
  table = current;
  onRenderAgain(render);
  try {
    await current.start();
  } catch (error) {
    leaveTable();
    showLobby(app, go, refusalOf(error));
    return;
  }
  ticker = window.setInterval(() => {
    if (table !== current) return;
    if (current.summary && Date.now() >= current.summary.until) render();
    else tickClocks(current);
  }, 250);
}

function showJoin(id: string): void {
  setConnection("");
  const name = h("input", { id: "player-name", value: playerNameKept(), placeholder: UI.yourNamePlaceholder, maxlength: 64 }) as HTMLInputElement;
  const message = h("p", { class: "error", role: "alert", "data-testid": "error", hidden: true });
  const take = h("button", { id: "take-seat" }, UI.takeSeat);
  take.addEventListener("click", async () => {
    try {
      keepPlayerName(name.value.trim());
      const joined = await clientFor().joinGame(`games/${id}`, { playerName: name.value.trim() });
      holdSeat(id, { seat: joined.seat, token: joined.token });
      await openTable(id);
    } catch (error) {
      message.hidden = false;
      message.textContent = refusalOf(error);
    }
  });
  app.replaceChildren(
    h(
      "section",
      { class: "panel join-page" },
      h("h2", {}, joinTitle(id)),
      h("label", { class: "field" }, h("span", { class: "label" }, UI.yourName), name),
      h("div", { class: "buttons" }, take, h("a", { class: "button quiet", href: `?game=${id}&watch=1`, id: "watch" }, UI.justWatch)),
      message,
    ),
  );
}

/** A link to come back from another device carries the seat and its token in the fragment (`#asiento=1.TOKEN`):
 * this browser holds the seat from now on, and the fragment leaves the address bar. */
function takeHeldFromLink(game: string): void {
  const match = /^#asiento=(\d+)\.(.+)$/.exec(window.location.hash);
  if (!match) return;
  holdSeat(game, { seat: Number(match[1]), token: decodeURIComponent(match[2]) });
  window.history.replaceState({}, "", `${window.location.pathname}${window.location.search}`);
}

function route(): void {
  takePlayerTokenFromLink();
  const ranking = new URLSearchParams(window.location.search).get("ranking");
  if (ranking) {
    leaveTable();
    setConnection("");
    void showRanking(app, [2, 4, 6].includes(Number(ranking)) ? Number(ranking) : 2);
    return;
  }
  const game = new URLSearchParams(window.location.search).get("game");
  if (game) takeHeldFromLink(game.replace(/^games\//, ""));
  if (game) void openTable(game.replace(/^games\//, ""));
  else {
    leaveTable();
    setConnection("");
    showLobby(app, go);
  }
}

installDeck();
window.addEventListener("popstate", route);
route();
