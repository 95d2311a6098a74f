// The table drawn from a Table's state: the seats around a felt (names, bots, whose turn, the clocks, the cards
// left and the cards played), the muestra and its piezas in the middle, the player's hand with piezas and matas
// marked, the legal actions, the end-of-hand summary, the score with malas/buenas, what is in play and the log.
import { type Card, type Command, type HandSummary, Phase } from "truco-client";
import { reserveLeft, seatClock } from "./clock";
import { cardSvg, isMata, isPieza, piezas, suitId } from "./deck";
import { type Child, h } from "./dom";
import type { Table } from "./table";
import {
  STANDING_NAMES,
  SENA_NAMES,
  UI,
  actionLabel,
  awayBanner,
  awayLabel,
  graceLine,
  missingLine,
  callLines,
  cardId,
  cardName,
  clockLabel,
  miniScore,
  piezasLine,
  senaReceived,
  shownLine,
  statusLine,
  summaryEnd,
  summaryEnvido,
  summaryFlor,
  summaryRound,
  summaryScore,
  summaryUnfinished,
  summaryTitle,
  tableLine,
  tantosLine,
  teamName,
  capital,
} from "./text";

/** Where each seat sits around the felt (percent of its box), by its place after the viewer's seat. */
const PLACES: Readonly<Record<number, [number, number][]>> = {
  2: [[50, 86], [50, 14]],
  4: [[50, 86], [88, 50], [50, 14], [12, 50]],
  6: [[50, 86], [86, 70], [86, 30], [50, 14], [14, 30], [14, 70]],
};

function place(players: number, seat: number, me: number): [number, number] {
  const places = PLACES[players] ?? PLACES[2];
  return places[(seat - me + players) % players];
}

/** A card: its face (or back) drawn in SVG, with the marks the table needs. */
export function cardView(card: Card | undefined, options: { muestra?: Card; button?: Command; onclick?: () => void; disabled?: boolean; small?: boolean } = {}): HTMLElement {
  const pieza = card !== undefined && isPieza(card, options.muestra);
  const mata = card !== undefined && isMata(card, options.muestra);
  const classes = ["card", suitId(card), pieza ? "pieza" : "", mata ? "mata" : "", options.small ? "small" : ""].filter(Boolean).join(" ");
  const element = h(
    options.onclick ? "button" : "span",
    {
      class: classes,
      "data-card": cardId(card),
      title: card ? cardName(card) : undefined,
      "aria-label": card ? cardName(card) : undefined,
      onclick: options.onclick,
      disabled: options.disabled,
      "data-testid": options.onclick ? "play" : undefined,
    },
    cardSvg(card),
    pieza ? h("span", { class: "badge pieza" }, UI.pieza) : mata ? h("span", { class: "badge mata" }, UI.mata) : undefined,
  );
  return element;
}

export function renderTable(table: Table, app: HTMLElement, link: string): void {
  const pub = table.pub;
  const view = table.view;
  const me = table.me;
  const players = table.players();
  const target = pub?.rules?.target ?? 30;
  const legal = view?.legalActions ?? [];
  const away = me !== undefined && table.takenOver(me) && !table.over();

  const top = h(
    "section",
    { class: "topbar" },
    h("span", { class: "table-line" }, tableLine(players, target)),
    h("span", { class: "mini-score", "data-testid": "mini-score" }, miniScore(table, [...(pub?.scores ?? [])].sort((a, b) => a.team - b.team))),
    me === undefined
      ? h("span", { class: "watching" }, UI.watching)
      : h("span", { class: "invite" }, UI.invite, " ", h("a", { href: link, "data-testid": "game-link" }, link)),
    me !== undefined && !table.over() && !away && !table.confirmingLeave
      ? h("button", { class: "quiet", "data-testid": "leave", onclick: () => table.askLeave(true), disabled: table.sending }, UI.leave)
      : undefined,
  );

  const felt = renderFelt(table);
  const summary = table.summaryShown();
  if (summary) felt.append(renderSummary(table, summary));

  const error = table.error ? h("p", { class: "error", role: "alert", "data-testid": "error" }, table.error) : undefined;
  const banner = away ? renderAwayBanner(table, me, link) : table.confirmingLeave && !table.over() ? renderLeaveQuestion(table) : undefined;

  const open = table.over() ? [] : table.openSeats();
  const waiting = open.length
    ? h(
        "div",
        { class: "banner waiting", "data-testid": "waiting" },
        h("span", { class: "missing" }, missingLine(open.length)),
        h("span", {}, UI.startsWhenFull, " ", h("a", { href: link, "data-testid": "invite-link" }, link)),
        table.isHost()
          ? h(
              "span",
              { class: "start-now" },
              UI.startWithBotsHint,
              " ",
              h("button", { "data-testid": "start-with-bots", onclick: () => void table.startWithBots(), disabled: table.sending }, UI.startWithBots),
            )
          : undefined,
      )
    : undefined;
  const main = h("div", { class: "main" }, felt, waiting, banner, error, renderActions(table, legal), me === undefined ? undefined : renderHand(table, legal));
  const side = h("aside", { class: "side" }, renderScore(table, target), renderCalls(table), renderSenas(table), renderLog(table));
  app.replaceChildren(top, h("div", { class: "board" }, main, side));
  app.dataset.phase = table.over() ? "over" : "playing";
  app.dataset.version = String(table.version);
  app.dataset.summary = summary ? String(summary.number) : "";
  tickClocks(table);
}

/** The viewer is away: who plays (a bot), how long it keeps a person's pace (counted down by tickClocks), the way
 * back, and a link that takes the seat back from another device (its token rides in the fragment, which no
 * request carries). */
function renderAwayBanner(table: Table, me: number, link: string): HTMLElement {
  const held = table.client.token ? `${link}#asiento=${me}.${encodeURIComponent(table.client.token)}` : undefined;
  return h(
    "div",
    { class: "banner", "data-testid": "away" },
    h("span", {}, awayBanner(table.away.get(me))),
    h("span", { class: "grace", "data-testid": "grace", "data-grace-seat": String(me), "data-viewer": "1" }, graceLine(graceLeft(table, me), true)),
    h("button", { "data-testid": "resume", onclick: () => void table.resume(), disabled: table.sending }, UI.backToTable),
    held ? h("a", { class: "other-device", href: held, "data-testid": "other-device" }, UI.otherDevice) : undefined,
  );
}

function renderLeaveQuestion(table: Table): HTMLElement {
  return h(
    "div",
    { class: "banner question", role: "alertdialog", "data-testid": "leave-question" },
    h("span", {}, UI.leaveQuestion),
    h("button", { class: "no", "data-testid": "leave-confirm", onclick: () => void table.leave(), disabled: table.sending }, UI.leaveYes),
    h("button", { "data-testid": "leave-cancel", onclick: () => table.askLeave(false) }, UI.leaveNo),
  );
}

/** What is left of an away seat's grace now (undefined: no grace known). */
function graceLeft(table: Table, seat: number): number | undefined {
  const until = table.graceUntil(seat);
  return until === undefined ? undefined : until - Date.now();
}

function renderFelt(table: Table): HTMLElement {
  const pub = table.pub;
  const hand = pub?.hand;
  const muestra = hand?.muestra;
  const players = table.players();
  const viewer = table.me ?? 0;
  const felt = h("section", { class: `felt players-${players}`, "data-testid": "felt" });
  // The middle: the muestra face up on the deck, and which cards are piezas under it.
  felt.append(
    h(
      "div",
      { class: "center", "data-testid": "muestra" },
      h("div", { class: "deck" }, cardView(undefined, { small: true }), muestra ? cardView(muestra, { muestra }) : undefined),
      h("div", { class: "center-label" }, UI.muestra),
      h("div", { class: "piezas", "data-testid": "piezas" }, piezasLine(piezas(muestra))),
    ),
  );
  const plays = new Map<number, Card[]>();
  for (const round of hand?.rounds ?? []) {
    for (const play of round.plays) if (play.card) plays.set(play.seat, [...(plays.get(play.seat) ?? []), play.card]);
  }
  const left = new Map((hand?.cardsLeft ?? []).map((c) => [c.seat, c.count]));
  const turn = new Set(pub?.toAct ?? []);
  for (let seat = 0; seat < players; seat++) {
    const [x, y] = place(players, seat, viewer);
    felt.append(renderSeat(table, seat, x, y, turn.has(seat), seat === table.me ? 0 : (left.get(seat) ?? 0)));
    const played = plays.get(seat) ?? [];
    if (played.length) {
      // Beside the seat, not between it and the middle: the muestra, its label and the piezas line stay clear, and
      // so do the seat's own name and clock (measured by the browser test at desktop and phone sizes).
      const [px, py] = x !== 50 ? [x + (50 - x) * 0.42, y] : players === 6 ? [50, y + (50 - y) * 0.38] : [32, y + (50 - y) * 0.25];
      felt.append(
        h(
          "div",
          { class: "played", style: `left:${px}%;top:${py}%`, "data-seat": String(seat), "data-testid": "played" },
          ...played.map((card) => cardView(card, { muestra, small: true })),
        ),
      );
    }
  }
  return felt;
}

function renderSeat(table: Table, seat: number, x: number, y: number, turn: boolean, facedown: number): HTMLElement {
  const pub = table.pub;
  const hand = pub?.hand;
  const mine = table.me !== undefined && seat % 2 === table.me % 2;
  const tags: Child[] = [];
  if (hand?.mano === seat && pub?.phase === Phase.PLAYING) tags.push(h("span", { class: "tag" }, UI.mano));
  if (hand?.dealer === seat) tags.push(h("span", { class: "tag" }, UI.dealer));
  if (table.isBot(seat)) tags.push(h("span", { class: "tag bot" }, UI.bot));
  const takenOver = table.takenOver(seat);
  const name = seat === table.me ? UI.you : table.name(seat);
  return h(
    "div",
    {
      class: `seat team-${seat % 2}${mine ? " ours" : " theirs"}${turn ? " turn" : ""}${seat === table.me ? " me" : ""}${takenOver ? " away" : ""}${table.openSeats().includes(seat) ? " open" : ""}`,
      style: `left:${x}%;top:${y}%`,
      "data-seat": String(seat),
      "data-testid": "seat",
    },
    h("div", { class: "avatar", "data-clock-seat": String(seat) }, h("span", {}, name.charAt(0).toUpperCase())),
    h(
      "div",
      { class: "plate" },
      h("div", { class: "name" }, name),
      h("div", { class: "tags" }, ...tags),
      takenOver && seat !== table.me
        ? h(
            "div",
            { class: "away-note" },
            `${awayLabel(table.away.get(seat))}. `,
            h("span", { class: "grace", "data-grace-seat": String(seat) }, graceLine(graceLeft(table, seat), false)),
          )
        : undefined,
      h("div", { class: "clock", "data-clock": String(seat), "data-testid": `clock-${seat}` }),
    ),
    facedown ? h("div", { class: "facedown" }, ...Array.from({ length: facedown }, () => cardView(undefined, { small: true }))) : undefined,
  );
}

/** Updates every clock on the page to now: the seat whose decision runs counts down, then its reserve; an away
 * seat's grace counts down too. */
export function tickClocks(table: Table): void {
  const now = Date.now();
  for (const element of document.querySelectorAll<HTMLElement>("[data-grace-seat]")) {
    element.textContent = graceLine(graceLeft(table, Number(element.dataset.graceSeat)), element.dataset.viewer === "1");
  }
  for (const element of document.querySelectorAll<HTMLElement>("[data-clock]")) {
    const seat = Number(element.dataset.clock);
    const running = seatClock(table.pub, table.game?.clock, seat, now);
    const avatar = document.querySelector<HTMLElement>(`[data-clock-seat="${seat}"]`);
    if (running) {
      element.textContent = clockLabel(running.kind, running.left);
      element.dataset.kind = running.kind;
      element.dataset.left = String(Math.round(running.left));
      avatar?.style.setProperty("--left", String(running.fraction));
      avatar?.classList.add("timed");
      avatar?.classList.toggle("reserve", running.kind === "reserve");
    } else {
      const reserve = !table.isBot(seat) && !table.over() ? reserveLeft(table.pub, seat) : undefined;
      element.textContent = reserve === undefined ? "" : clockLabel("reserve", reserve);
      element.dataset.kind = reserve === undefined ? "" : "idle";
      delete element.dataset.left;
      avatar?.classList.remove("timed", "reserve");
    }
  }
}

function renderActions(table: Table, all: readonly Command[]): HTMLElement {
  const pub = table.pub;
  const away = table.me !== undefined && table.takenOver(table.me) && !table.over();
  const legal = away ? [] : all; // the bot acts for an away seat: nothing to press but "Volver a la mesa"
  const myTurn = legal.some((command) => command.kind.case !== "sendSena"); // señas may be sent at any time
  const answering = legal.some((command) => command.kind.case === "answer");
  const status = statusLine(table, {
    over: table.over(),
    winnerTeam: pub?.winnerTeam,
    myTurn,
    answering,
    waitingFor: (pub?.toAct ?? []).filter((seat) => seat !== table.me),
    away,
    standIn: table.standIns(),
  });
  const buttons = legal.filter((c) => c.kind.case !== "playCard" && c.kind.case !== "sendSena");
  const section = h(
    "section",
    { class: `actions${myTurn ? " my-turn" : ""}`, "data-testid": "actions" },
    h("div", { class: "status", "data-testid": "status" }, status),
    h(
      "div",
      { class: "buttons" },
      ...buttons.map((command) =>
        h(
          "button",
          {
            class: command.kind.case === "goToMazo" ? "quiet" : command.kind.case === "answer" && !command.kind.value.accept ? "no" : "",
            "data-testid": "action",
            "data-kind": command.kind.case ?? "",
            "data-accept": command.kind.case === "answer" ? String(command.kind.value.accept) : undefined,
            onclick: () => void table.act(command),
            disabled: table.sending,
          },
          actionLabel(command),
        ),
      ),
    ),
  );
  if (table.over() && table.me !== undefined) {
    section.append(
      h(
        "div",
        { class: "buttons" },
        h("button", { "data-testid": "rematch", onclick: () => void table.rematch(), disabled: table.sending }, UI.rematch),
        h("a", { class: "button quiet", href: "./", "data-testid": "new-table" }, UI.newTable),
      ),
    );
    if (table.game?.nextGame) section.append(h("div", { class: "note", "data-testid": "rematch-offered" }, UI.rematchOffered));
  }
  return section;
}

function renderHand(table: Table, all: readonly Command[]): HTMLElement {
  const view = table.view;
  const legal = table.me !== undefined && table.takenOver(table.me) ? [] : all;
  const hand = table.pub?.hand;
  const muestra = hand?.muestra;
  const playable = new Map(legal.flatMap((c) => (c.kind.case === "playCard" ? [[cardId(c.kind.value.card), c] as const] : [])));
  const cards = view?.cards ?? [];
  const tantos = tantosLine({
    envido: view?.envido,
    flor: view?.flor,
    florSung: table.me !== undefined && (hand?.florSung ?? []).includes(table.me),
    envidoClosed: hand?.envidoClosed ?? true,
  });
  return h(
    "section",
    { class: "hand", "data-testid": "hand" },
    h(
      "div",
      { class: "cards" },
      ...cards.map((card) => {
        const command = playable.get(cardId(card));
        return cardView(card, command ? { muestra, onclick: () => void table.act(command), disabled: table.sending } : { muestra });
      }),
      !cards.length && hand && !hand.ended && table.pub?.phase === Phase.PLAYING ? h("span", { class: "note" }, UI.sitOut) : undefined,
    ),
    tantos ? h("div", { class: "tantos", "data-testid": "tantos" }, tantos) : undefined,
  );
}

function renderSummary(table: Table, summary: HandSummary): HTMLElement {
  const plays = table.records.plays(summary.number);
  const muestra = table.records.muestra(summary.number);
  const count = Math.max(summary.rounds.length, plays.length);
  const rounds = Array.from({ length: count }, (_, index) =>
    h(
      "div",
      { class: "summary-round" },
      h("span", { class: "label" }, index < summary.rounds.length ? summaryRound(table, index, summary.rounds[index].winnerTeam) : summaryUnfinished(index)),
      h("span", { class: "round-cards" }, ...(plays[index] ?? []).map((play) => h("span", { class: "round-play" }, cardView(play.card, { small: true, muestra }), h("small", {}, play.seat === table.me ? UI.you : table.name(play.seat))))),
    ),
  );
  const scored = summary.scored.map((s) => h("div", {}, summaryScore(table, s.team, s.points, s.reason)));
  const tantos: Child[] = [];
  if (summary.envidoWinnerSeat !== undefined && summary.envidoWinnerPoints !== undefined) tantos.push(h("div", {}, summaryEnvido(table, summary.envidoWinnerSeat, summary.envidoWinnerPoints)));
  if (summary.florWinnerSeat !== undefined && summary.florWinnerPoints !== undefined) tantos.push(h("div", {}, summaryFlor(table, summary.florWinnerSeat, summary.florWinnerPoints)));
  const shown = summary.shown.map((s) => h("div", { class: "shown" }, h("span", {}, shownLine(table, s.seat, s.cards)), h("span", { class: "shown-cards" }, ...s.cards.map((card) => cardView(card, { small: true })))));
  return h(
    "div",
    { class: "summary", role: "dialog", "aria-label": summaryTitle(table, summary), "data-testid": "summary" },
    h("h3", {}, summaryTitle(table, summary)),
    h("div", { class: "note" }, summaryEnd(summary)),
    ...rounds,
    ...scored,
    ...tantos,
    ...shown,
    table.over() ? undefined : h("button", { "data-testid": "continue", onclick: () => { table.dismissSummary(); renderAgain(); } }, UI.continue),
  );
}

let renderAgain: () => void = () => undefined;

/** The page's re-render, called by the summary's button. */
export function onRenderAgain(render: () => void): void {
  renderAgain = render;
}

function renderScore(table: Table, target: number): HTMLElement {
  const scores = [...(table.pub?.scores ?? [])].sort((a, b) => a.team - b.team);
  return h(
    "section",
    { class: "score", "data-testid": "score" },
    ...scores.map((s) =>
      h(
        "div",
        { class: `team team-${s.team}${table.me !== undefined && s.team === table.me % 2 ? " mine" : ""}`, "data-team": String(s.team) },
        h("span", { class: "who" }, capital(teamName(table, s.team))),
        h("span", { class: "points", "data-testid": `points-${s.team}` }, String(s.points)),
        h("span", { class: "standing" }, STANDING_NAMES[s.standing] ?? ""),
        h("span", { class: "bar", style: `--p:${Math.min(1, s.points / target)}` }),
      ),
    ),
    h("div", { class: "target" }, `${UI.target} ${target}`),
  );
}

function renderCalls(table: Table): HTMLElement {
  const hand = table.pub?.hand;
  const lines = hand
    ? callLines(table, {
        pending: hand.pending ? { call: hand.pending.call, seat: hand.pending.seat, team: hand.pending.team } : undefined,
        trucoValue: hand.trucoValue,
        trucoOwner: hand.trucoOwner,
        envidoChain: hand.envidoChain,
        envidoClosed: hand.envidoClosed,
        envidoWinner: hand.envidoWinnerSeat === undefined ? undefined : { seat: hand.envidoWinnerSeat, points: hand.envidoWinnerPoints ?? 0 },
        florSung: hand.florSung,
        perrosPending: hand.perrosPending,
      })
    : [];
  return h("section", { class: "calls", "data-testid": "calls" }, h("h3", {}, UI.calls), ...lines.map((line) => h("div", {}, line)));
}

/** Whether the player opened the señas: a re-render (a move, a clock's tick) must not close them under the finger. */
let senasOpen = false;

function renderSenas(table: Table): HTMLElement | undefined {
  const legal = (table.view?.legalActions ?? []).filter((c) => c.kind.case === "sendSena");
  const received = table.view?.senas ?? [];
  if (!legal.length && !received.length) return undefined;
  return h(
    "section",
    { class: "senas" },
    ...received.map((s) => h("div", { class: "sena-received", "data-testid": "sena-received" }, senaReceived(table, s.seat, s.sena))),
    legal.length
      ? h(
          "details",
          {
            open: senasOpen,
            ontoggle: (event: Event) => {
              senasOpen = (event.currentTarget as HTMLDetailsElement).open;
            },
          },
          h("summary", {}, UI.senasToPartner),
          ...legal.map((command) =>
            h("button", { class: "quiet", "data-testid": "sena", title: command.kind.case === "sendSena" ? SENA_NAMES[command.kind.value.sena] : undefined, onclick: () => void table.act(command) }, actionLabel(command)),
          ),
        )
      : undefined,
  );
}

function renderLog(table: Table): HTMLElement {
  const log = h("div", { class: "lines" });
  let hand = -1;
  for (const line of table.log) {
    if (line.hand !== hand && line.kind === "handDealt") log.append(h("div", { class: "hand-break" }));
    hand = line.hand;
    log.append(h("div", { class: `line ${line.kind}` }, line.text));
  }
  const section = h("section", { class: "log", "data-testid": "log" }, h("h3", {}, UI.log), log);
  requestAnimationFrame(() => {
    log.scrollTop = log.scrollHeight;
  });
  return section;
}
