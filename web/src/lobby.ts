// The lobby: a new table against the server's bots (or with a friend by link), the open tables the server lists
// (ListGames: this browser's own and the public ones) to sit at, and joining by link.
import { BotKind, BotLevel, type Game, SeatKind } from "truco-client";
import { type ClockChoice, apiKey, clientFor, createGame, gameId, holdSeat, keepPlayerName, playerNameKept, setApiKey, toTrucoError } from "./api";
import { h } from "./dom";
import { quickPanel } from "./players";
import { UI, botLabel, openTableLine, openTableSeats, playersOption, playerName, refusal, targetOption, UNREACHABLE } from "./text";

export function refusalOf(error: unknown): string {
  const failure = toTrucoError(error);
  return failure.reason || failure.rawMessage ? refusal(failure.reason, failure.rawMessage) : UNREACHABLE;
}

type Bot = { kind: BotKind; level?: BotLevel };

/** The lobby's bot choices: a level (the server's BotSeat.level), or the random bot. */
const BOTS: Readonly<Record<string, Bot>> = {
  beginner: { kind: BotKind.HEURISTIC, level: BotLevel.BEGINNER },
  intermediate: { kind: BotKind.HEURISTIC, level: BotLevel.INTERMEDIATE },
  expert: { kind: BotKind.HEURISTIC, level: BotLevel.EXPERT },
  random: { kind: BotKind.RANDOM },
};

function select(id: string, options: [string, string][], selected?: string): HTMLSelectElement {
  return h("select", { id, name: id }, ...options.map(([value, label]) => h("option", { value, selected: value === selected }, label))) as HTMLSelectElement;
}

function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h("label", { class: "field" }, h("span", { class: "label" }, label), control, hint ? h("small", {}, hint) : undefined);
}

export function showLobby(app: HTMLElement, open: (id: string) => void, message?: string): void {
  const players = select("players", [2, 4, 6].map((n) => [String(n), playersOption(n)]));
  const target = select("target", [15, 20, 30, 40].map((n) => [String(n), targetOption(n)]), "30");
  const name = h("input", { id: "player-name", name: "player-name", maxlength: 64, placeholder: UI.yourNamePlaceholder, value: playerNameKept() }) as HTMLInputElement;
  const friends = select("friends", [["0", UI.allBots], ["1", UI.oneFriend]]);
  const bot = select("bot", [
    ["intermediate", UI.levelIntermediate],
    ["beginner", UI.levelBeginner],
    ["expert", UI.levelExpert],
    ["random", UI.randomBots],
  ]);
  const clock = select("clock", [["normal", UI.clockNormal], ["fast", UI.clockFast], ["slow", UI.clockSlow], ["none", UI.clockNone]]);
  const listed = h("input", { id: "public", name: "public", type: "checkbox" }) as HTMLInputElement;
  const key = h("input", { id: "api-key", name: "api-key", placeholder: UI.apiKeyPlaceholder, value: apiKey() }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "panel new-table" },
    h("h2", {}, UI.newTable),
    field(UI.yourName, name),
    h("div", { class: "row" }, field(UI.players, players), field(UI.target, target)),
    field(UI.company, friends, UI.oneFriendHint),
    field(UI.level, bot),
    field(UI.clock, clock),
    h("label", { class: "check" }, listed, UI.publicTable),
    h("details", { class: "advanced" }, h("summary", {}, UI.apiKey), key),
    h("button", { id: "create", type: "submit" }, UI.create),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    setApiKey(key.value.trim());
    keepPlayerName(name.value.trim());
    void createAndJoin(app, open, {
      players: Number(players.value),
      target: Number(target.value),
      friends: Number(friends.value),
      bot: BOTS[bot.value] ?? BOTS.intermediate,
      clock: clock.value as ClockChoice,
      listed: listed.checked,
      name: name.value.trim(),
    });
  });

  const join = h("input", { id: "join-link", placeholder: UI.joinPlaceholder }) as HTMLInputElement;
  const joinForm = h("form", { class: "panel join" }, h("h2", {}, UI.joinByLink), join, h("button", { type: "submit" }, UI.goToTable));
  joinForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = join.value.trim();
    const id = /game=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? gameId(text);
    if (id) open(id);
  });

  const list = h("div", { class: "open-tables", "data-testid": "open-tables" });
  const tables = h("section", { class: "panel tables" }, h("h2", {}, UI.openTables), list);
  app.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      message ? h("p", { class: "error", role: "alert", "data-testid": "error" }, message) : undefined,
      form,
      h("div", { class: "lobby-side" }, quickPanel(open, (again) => showLobby(app, open, again), app), tables, joinForm),
    ),
  );
  delete app.dataset.phase;
  void listOpenTables(list, open);
}

async function listOpenTables(list: HTMLElement, open: (id: string) => void): Promise<void> {
  const games: Game[] = [];
  try {
    for await (const game of clientFor().listGames(20)) {
      games.push(game);
      if (games.length >= 20) break;
    }
  } catch (error) {
    list.replaceChildren(h("p", { class: "note" }, refusalOf(error)));
    return;
  }
  if (!games.length) {
    list.replaceChildren(h("p", { class: "note" }, UI.noOpenTables));
    return;
  }
  list.replaceChildren(
    ...games.map((game) => {
      const players = game.rules?.players ?? 2;
      const free = game.seats.filter((s) => s.kind === SeatKind.OPEN).length;
      const taken = game.seats.flatMap((s) => (s.kind === SeatKind.BOT ? [botLabel(s.seat, s.botLevel)] : s.kind === SeatKind.TAKEN ? [s.playerName || playerName(s.seat)] : []));
      const id = gameId(game.name);
      return h(
        "div",
        { class: "open-table", "data-testid": "open-table", "data-game": id },
        h("div", {}, h("strong", {}, openTableLine(players, game.rules?.target ?? 30, free)), h("div", { class: "note" }, openTableSeats(taken))),
        h("button", { "data-testid": "sit", onclick: () => void sitAt(id, open) }, UI.sit),
      );
    }),
  );
}

/** "Sentarme": with the name already given (the lobby's field, or the one kept from before), the seat is taken at
 * once; without one, or if the seat went meanwhile, the game's page asks and says why. */
async function sitAt(id: string, open: (id: string) => void): Promise<void> {
  const field = document.getElementById("player-name") as HTMLInputElement | null;
  const name = field?.value.trim() || playerNameKept();
  if (name) {
    try {
      keepPlayerName(name);
      const joined = await clientFor().joinGame(`games/${id}`, { playerName: name });
      holdSeat(id, { seat: joined.seat, token: joined.token });
    } catch {
      // the game's page offers the seat again, or says it is gone
    }
  }
  open(id);
}

async function createAndJoin(
  app: HTMLElement,
  open: (id: string) => void,
  choice: { players: number; target: number; friends: number; bot: Bot; clock: ClockChoice; listed: boolean; name: string },
): Promise<void> {
  try {
    // Seat 0 is ours; with a friend, the friend's seat is our partner in team games (seat 2), else the rival.
    const friendSeats = choice.friends > 0 ? [choice.players > 2 ? 2 : 1] : [];
    const bots = [];
    for (let seat = 1; seat < choice.players; seat++) if (!friendSeats.includes(seat)) bots.push({ seat, ...choice.bot });
    const game = await createGame({ players: choice.players, target: choice.target, bots, clock: choice.clock, public: choice.listed });
    const client = clientFor();
    const joined = await client.joinGame(game.name, { seat: 0, playerName: choice.name });
    const id = gameId(game.name);
    holdSeat(id, { seat: joined.seat, token: joined.token });
    open(id);
  } catch (error) {
    showLobby(app, open, refusalOf(error));
  }
}
