// The web table: create a game against the server's bots or join one by link, then play it through the legal
// actions the server lists, with live updates from WatchGame. Everything goes through "truco-client" (the project's
// TypeScript SDK, compiled from clients/ts/src) over the Connect protocol to the web port that served this page.
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  type Card,
  type Command,
  type Event,
  type MatchView,
  NotFound,
  PermissionDenied,
  Phase,
  type SeatView,
  Suit,
  TrucoClient,
  type TrucoError,
  Unauthenticated,
  toTrucoError,
} from "truco-client";
import { STANDING_NAMES, SENA_NAMES, actionLabel, cardId, cardName, describeEvent, refusal } from "./text";
import "./style.css";

// A server started with --require-api-key wants an API key (x-api-key) to create or join games: the lobby asks
// for one and this browser keeps it.
const API_KEY = "truco:api-key";
const transport = createConnectTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
  interceptors: [
    (next) => async (request) => {
      const key = window.localStorage.getItem(API_KEY);
      if (key) request.header.set("x-api-key", key);
      return next(request);
    },
  ],
});
const app = document.getElementById("app") as HTMLElement;
const connection = document.getElementById("connection") as HTMLElement;

/** A seat this browser holds, kept per game in localStorage so a reload (or the same link) resumes it. */
interface Held {
  seat: number;
  token: string;
}

function heldSeat(game: string): Held | undefined {
  const text = window.localStorage.getItem(`truco:${game}`);
  return text ? (JSON.parse(text) as Held) : undefined;
}

function holdSeat(game: string, held: Held): void {
  window.localStorage.setItem(`truco:${game}`, JSON.stringify(held));
}

// --- A tiny DOM helper ----------------------------------------------------------------------------------------

type Attrs = Record<string, string | boolean | ((event: MouseEvent) => void) | undefined>;

function h(tag: string, attrs: Attrs = {}, ...children: (Node | string | undefined | false)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(key.replace(/^on/, ""), value as EventListener);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== undefined && child !== false) element.append(child);
  }
  return element;
}

function cardFace(card: Card | undefined, extra: Attrs = {}, pieza = false): HTMLElement {
  const suit = card ? (Suit[card.suit] ?? "").toLowerCase() : "back";
  return h(
    extra.onclick ? "button" : "span",
    { class: `card ${suit}${pieza ? " pieza" : ""}`, "data-card": cardId(card), title: cardName(card), ...extra },
    h("span", { class: "rank" }, card ? String(card.rank) : ""),
    h("span", { class: "suit" }, card ? cardName(card).split(" de ")[1] : ""),
    pieza ? h("span", { class: "badge" }, "pieza") : undefined,
  );
}

/** The piezas of a muestra: its 2, 4, 5, 11 and 10; when the muestra is one of them, the 12 takes its place. */
function piezas(muestra: Card | undefined): Card[] {
  if (!muestra) return [];
  return [2, 4, 5, 11, 10].map((rank) => ({ ...muestra, rank: rank === muestra.rank ? 12 : rank }));
}

function isPieza(card: Card, muestra: Card | undefined): boolean {
  return piezas(muestra).some((p) => p.rank === card.rank && p.suit === card.suit);
}

// --- The lobby ------------------------------------------------------------------------------------------------

function showLobby(message?: string): void {
  connection.textContent = "";
  const players = h("select", { id: "players", name: "players" }, ...[2, 4, 6].map((n) => h("option", { value: String(n) }, `${n} jugadores`)));
  const target = h("select", { id: "target", name: "target" }, ...[15, 20, 30, 40].map((n) => h("option", { value: String(n), selected: n === 30 }, `a ${n} puntos`)));
  const friends = h("select", { id: "friends", name: "friends" }, h("option", { value: "0" }, "ninguno (todos bots)"), h("option", { value: "1" }, "1 amigo por link"));
  const bot = h("select", { id: "bot", name: "bot" }, h("option", { value: "heuristic" }, "bots que piensan"), h("option", { value: "random" }, "bots al azar"));
  const key = h("input", { id: "api-key", name: "api-key", placeholder: "solo si el servidor la pide", value: window.localStorage.getItem(API_KEY) ?? "" });
  const create = h("button", { id: "create", type: "submit" }, "Crear partido");
  const form = h("form", { class: "lobby" }, h("h2", {}, "Nueva mesa"), h("label", {}, "Mesa de ", players), h("label", {}, "Partido ", target), h("label", {}, "Humanos invitados ", friends), h("label", {}, "Rivales ", bot), h("label", {}, "Clave de API ", key), create);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const apiKey = (key as HTMLInputElement).value.trim();
    if (apiKey) window.localStorage.setItem(API_KEY, apiKey);
    else window.localStorage.removeItem(API_KEY);
    void createAndJoin(
      Number((players as HTMLSelectElement).value),
      Number((target as HTMLSelectElement).value),
      Number((friends as HTMLSelectElement).value),
      (bot as HTMLSelectElement).value,
    );
  });
  const join = h("input", { id: "join-link", placeholder: "pegá el link o games/…" });
  const joinForm = h("form", { class: "lobby" }, h("h2", {}, "Unirse por link"), join, h("button", { type: "submit" }, "Ir a la mesa"));
  joinForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = (join as HTMLInputElement).value.trim();
    const id = /game=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? text.replace(/^games\//, "");
    if (id) window.location.search = `?game=${encodeURIComponent(id)}`;
  });
  app.replaceChildren(message ? h("p", { class: "error", role: "alert", "data-testid": "error" }, message) : "", form, joinForm);
}

async function createAndJoin(players: number, target: number, friends: number, bot: string): Promise<void> {
  const client = new TrucoClient(transport);
  try {
    // Seat 0 is ours; with a friend, the friend's seat is our partner in team games (seat 2), else the rival.
    const friendSeats = friends > 0 ? [players > 2 ? 2 : 1] : [];
    const bots: Record<number, string> = {};
    for (let seat = 1; seat < players; seat++) if (!friendSeats.includes(seat)) bots[seat] = bot;
    const game = await client.createGame({ rules: { players, target }, bots });
    const joined = await client.joinGame(game.name, { seat: 0, playerName: "web" });
    const id = game.name.replace(/^games\//, "");
    holdSeat(id, { seat: joined.seat, token: joined.token });
    window.history.pushState({}, "", `?game=${encodeURIComponent(id)}`);
    await openTable(id);
  } catch (error) {
    showLobby(refusalOf(error));
  }
}

function refusalOf(error: unknown): string {
  const failure = toTrucoError(error);
  return refusal(failure.reason, failure.rawMessage);
}

// --- The table ------------------------------------------------------------------------------------------------

class Table {
  private view: SeatView | undefined;
  private publicView: MatchView | undefined;
  private version = 0n;
  private logged = 0n;
  private readonly log: string[] = [];
  private error = "";
  private sending = false;
  private readonly stop = new AbortController();

  constructor(
    readonly id: string,
    readonly client: TrucoClient,
    readonly seat: number | undefined,
  ) {}

  get name(): string {
    return `games/${this.id}`;
  }

  who = (seat: number): string => {
    if (seat === this.seat) return "Vos";
    if (this.seat === undefined) return `Asiento ${seat}`;
    return `${seat % 2 === this.seat % 2 ? "Compañero" : "Rival"} (asiento ${seat})`;
  };

  /** A team's name; with verbs, as a subject: "tu equipo suma", "los rivales suman". */
  team = (team: number, singular = "", plural = ""): string => {
    const mine = this.seat !== undefined && team === this.seat % 2;
    const name = this.seat === undefined ? `el equipo ${team === 0 ? "A" : "B"}` : mine ? "tu equipo" : "los rivales";
    const verb = this.seat === undefined || mine ? singular : plural;
    return verb ? `${name} ${verb}` : name;
  };

  async start(): Promise<void> {
    const response = await this.client.getView(this.name);
    this.view = response.seat;
    this.publicView = response.public ?? response.seat?.public;
    this.version = this.publicView?.version ?? 0n;
    this.logged = this.version;
    this.render();
    void this.follow();
  }

  /** WatchGame from the last version seen, for as long as the match goes on; after any failure (a dropped
   * connection, a server restart) the view is read again and the watch resumes after the last version shown. */
  private async follow(): Promise<void> {
    let failures = 0;
    while (!this.stop.signal.aborted) {
      try {
        this.setConnection("live", "en vivo");
        for await (const item of this.client.watch(this.name, this.version, {
          signal: this.stop.signal,
          onResume: () => this.setConnection("reconnecting", "reconectando…"),
        })) {
          failures = 0;
          this.setConnection("live", "en vivo");
          if (item.event) this.note(item.event);
          if (item.event && item.event.version < this.version) continue;
          this.version = item.event?.version ?? this.version;
          this.view = item.seat ?? this.view;
          this.publicView = item.public ?? this.publicView;
          this.render();
        }
        if (this.over()) {
          this.setConnection("over", "partido terminado");
          return;
        }
      } catch (error) {
        const failure = toTrucoError(error);
        if (failure instanceof NotFound || failure instanceof PermissionDenied || failure instanceof Unauthenticated) {
          this.fail(failure);
          return;
        }
      }
      failures++;
      this.setConnection("reconnecting", "reconectando…");
      await new Promise((resolve) => setTimeout(resolve, Math.min(3000, 200 * 2 ** Math.min(failures, 4))));
      try {
        await this.refresh();
      } catch {
        // still unreachable: try again after the next delay
      }
    }
  }

  private async refresh(): Promise<void> {
    const response = await this.client.getView(this.name);
    const view = response.public ?? response.seat?.public;
    if (view && view.version >= this.version) {
      this.view = response.seat ?? this.view;
      this.publicView = view;
      this.version = view.version;
      this.render();
    }
  }

  private setConnection(state: string, text: string): void {
    connection.dataset.state = state;
    connection.textContent = text;
  }

  private note(event: Event): void {
    // A seña keeps the version of the event before it; anything else older than the last line was shown already.
    if (event.kind.case === "senaSent" ? event.version < this.logged : event.version <= this.logged) return;
    this.logged = event.version;
    const line = describeEvent(event, this.who, this.team);
    if (line) this.log.push(line);
    if (this.log.length > 200) this.log.splice(0, this.log.length - 200);
  }

  private over(): boolean {
    return this.publicView?.phase === Phase.MATCH_OVER;
  }

  private fail(failure: TrucoError): void {
    this.error = refusal(failure.reason, failure.rawMessage);
    this.render();
  }

  /** Send one of the legal actions, chosen at the version on screen; a refusal is shown with its reason. */
  async act(command: Command): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    this.error = "";
    try {
      const response = await this.client.submit(this.name, command, { expectedVersion: this.version });
      if (response.version >= this.version && response.view) {
        this.version = response.version;
        this.view = response.view;
        this.publicView = response.view.public ?? this.publicView;
      }
    } catch (error) {
      const failure = toTrucoError(error);
      this.error = refusal(failure.reason, failure.rawMessage);
      if (failure.reason === "VERSION_CONFLICT") {
        await this.refresh().catch(() => undefined);
      }
    } finally {
      this.sending = false;
      this.render();
    }
  }

  render(): void {
    const pub = this.publicView;
    const view = this.view;
    const hand = pub?.hand;
    const muestra = hand?.muestra;
    const players = pub?.rules?.players ?? 2;
    const target = pub?.rules?.target ?? 30;
    const legal = view?.legalActions ?? [];
    const myTurn = legal.some((command) => command.kind.case !== "sendSena"); // señas may be sent at any time

    const link = `${window.location.origin}${window.location.pathname}?game=${this.id}`;
    const head = h(
      "section",
      { class: "head" },
      h("div", {}, this.seat === undefined ? "Mirando el partido (sin cartas ocultas)" : `Sos el asiento ${this.seat} · ${players} jugadores · a ${target}`),
      h("div", { class: "link" }, "Link para invitar o mirar: ", h("a", { href: link, "data-testid": "game-link" }, link)),
    );

    const score = h(
      "section",
      { class: "score", "data-testid": "score" },
      ...(pub?.scores ?? []).map((s) =>
        h(
          "div",
          { class: `team${this.seat !== undefined && s.team === this.seat % 2 ? " mine" : ""}`, "data-team": String(s.team) },
          h("span", { class: "who" }, this.team(s.team)),
          h("span", { class: "points", "data-testid": `points-${s.team}` }, String(s.points)),
          h("span", { class: "standing" }, STANDING_NAMES[s.standing] ?? ""),
        ),
      ),
    );

    const calls: string[] = [];
    if (hand) {
      if (hand.pending) calls.push(`Canto pendiente: ${actionLabel({ kind: { case: "call", value: { call: hand.pending.call } } } as Command)} de ${this.who(hand.pending.seat)}`);
      if (hand.trucoValue > 1) calls.push(`La mano vale ${hand.trucoValue}${hand.trucoOwner !== undefined ? ` (palabra de ${this.team(hand.trucoOwner)})` : ""}`);
      if (hand.envidoChain.length) calls.push(`Envido: ${hand.envidoChain.map((c) => actionLabel({ kind: { case: "call", value: { call: c } } } as Command)).join(", ")}`);
      if (hand.envidoClosed) calls.push("El envido ya no se canta");
      if (hand.florSung.length) calls.push(`Flor cantada por ${hand.florSung.map(this.who).join(", ")}`);
      if (hand.perrosPending) calls.push("Perros echados: falta la respuesta");
    }
    const turn = pub?.toAct ?? [];
    const status = this.over()
      ? `Partido terminado: ${pub?.winnerTeam === undefined ? "" : this.team(pub.winnerTeam, "ganó", "ganaron")}`
      : myTurn
        ? "Te toca"
        : turn.length
          ? `Espera a ${turn.map(this.who).join(", ")}`
          : "";

    const middle = h(
      "section",
      { class: "middle" },
      h(
        "div",
        { class: "muestra", "data-testid": "muestra" },
        h("h3", {}, "Muestra"),
        muestra ? cardFace(muestra) : h("span", {}, "—"),
        h("div", { class: "piezas", "data-testid": "piezas" }, "Piezas: ", piezas(muestra).map(cardName).join(", ")),
      ),
      h(
        "div",
        { class: "rounds", "data-testid": "rounds" },
        h("h3", {}, hand ? `Mano ${hand.number} · mano: ${this.who(hand.mano)}` : "Mano"),
        ...(hand?.rounds ?? []).map((round, index) =>
          h(
            "div",
            { class: "round" },
            h("span", { class: "label" }, `Ronda ${index + 1}${round.finished ? (round.winnerTeam === undefined ? " · parda" : ` · ${this.team(round.winnerTeam)}`) : ""}`),
            ...round.plays.map((play) => h("span", { class: "play" }, h("small", {}, this.who(play.seat)), cardFace(play.card, {}, isPieza(play.card!, muestra)))),
          ),
        ),
        h("div", { class: "left" }, ...(hand?.cardsLeft ?? []).filter((c) => c.seat !== this.seat).map((c) => h("span", { class: "others", "data-seat": String(c.seat) }, `${this.who(c.seat)}: `, ...Array.from({ length: c.count }, () => cardFace(undefined))))),
      ),
      h("div", { class: "calls", "data-testid": "calls" }, h("h3", {}, "En juego"), ...(calls.length ? calls : ["Nada cantado"]).map((c) => h("div", {}, c))),
    );

    const playable = new Map(legal.filter((c) => c.kind.case === "playCard").map((c) => [cardId(c.kind.case === "playCard" ? c.kind.value.card : undefined), c]));
    const mine =
      this.seat === undefined
        ? h("section", { class: "hand" }, h("p", {}, "Los espectadores no ven cartas ocultas."))
        : h(
            "section",
            { class: "hand", "data-testid": "hand" },
            h("h3", {}, `Tus cartas${view?.envido !== undefined ? ` · envido ${view.envido}` : ""}${view?.flor !== undefined ? ` · flor ${view.flor}` : ""}`),
            ...(view?.cards ?? []).map((card) => {
              const command = playable.get(cardId(card));
              return cardFace(card, command ? { onclick: () => void this.act(command), "data-testid": "play", disabled: this.sending } : { "aria-disabled": "true" }, isPieza(card, muestra));
            }),
          );

    const others = legal.filter((c) => c.kind.case !== "playCard" && c.kind.case !== "sendSena");
    const senas = legal.filter((c) => c.kind.case === "sendSena");
    const actions = h(
      "section",
      { class: "actions", "data-testid": "actions" },
      h("div", { class: "status", "data-testid": "status" }, status),
      ...others.map((command) =>
        h(
          "button",
          {
            "data-testid": "action",
            "data-kind": command.kind.case ?? "",
            "data-accept": command.kind.case === "answer" ? String(command.kind.value.accept) : undefined,
            onclick: () => void this.act(command),
            disabled: this.sending,
          },
          actionLabel(command),
        ),
      ),
      senas.length
        ? h("details", { class: "senas" }, h("summary", {}, "Señas a tu compañero"), ...senas.map((command) => h("button", { "data-testid": "sena", onclick: () => void this.act(command) }, actionLabel(command))))
        : undefined,
    );
    const received = (view?.senas ?? []).map((s) => h("div", { class: "sena-received", "data-testid": "sena-received" }, `${this.who(s.seat)} te hace: ${SENA_NAMES[s.sena] ?? ""}`));
    const error = this.error ? h("p", { class: "error", role: "alert", "data-testid": "error" }, this.error) : undefined;
    const log = h("section", { class: "log", "data-testid": "log" }, h("h3", {}, "Lo que pasó"), ...this.log.slice(-12).reverse().map((line) => h("div", {}, line)));
    app.replaceChildren(head, score, error ?? "", middle, mine, actions, ...received, log);
    app.dataset.phase = this.over() ? "over" : "playing";
    app.dataset.version = String(this.version);
  }
}

async function openTable(id: string): Promise<void> {
  const held = heldSeat(id);
  const watching = new URLSearchParams(window.location.search).has("watch");
  const client = new TrucoClient(transport, { token: watching ? undefined : held?.token });
  if (!held && !watching) {
    showJoin(id, client);
    return;
  }
  const table = new Table(id, client, watching ? undefined : held?.seat);
  try {
    await table.start();
  } catch (error) {
    showLobby(refusalOf(error));
  }
}

function showJoin(id: string, client: TrucoClient): void {
  const name = h("input", { id: "player-name", value: "", placeholder: "tu nombre" });
  const take = h("button", { id: "take-seat" }, "Sentarme a jugar");
  const watch = h("a", { href: `?game=${id}&watch=1`, id: "watch" }, "Solo mirar");
  const message = h("p", { class: "error", role: "alert", "data-testid": "error", hidden: true });
  take.addEventListener("click", async () => {
    try {
      const joined = await client.joinGame(`games/${id}`, { playerName: (name as HTMLInputElement).value || "web" });
      holdSeat(id, { seat: joined.seat, token: joined.token });
      await openTable(id);
    } catch (error) {
      message.hidden = false;
      message.textContent = refusalOf(error);
    }
  });
  app.replaceChildren(h("section", { class: "lobby" }, h("h2", {}, `Partido ${id}`), name, take, watch, message));
}

const game = new URLSearchParams(window.location.search).get("game");
if (game) void openTable(game.replace(/^games\//, ""));
else showLobby();
