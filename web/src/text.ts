// Every word the page shows, in rioplatense Spanish with voseo (jugás, cantás, te toca), each sentence starting
// with a capital. The words themselves are in the Spanish catalogue, the one `truco play` speaks from too
// (clients/terminal/src/truco/terminal/catalogue/es.json, its `web` section, read here through the build's
// "table-words" alias); this module puts them together: who is who, which variant of a sentence (the viewer's own
// act or another's, a team's as the viewer sees it), the fields. The page's other modules hold no prose of their
// own. e2e/messages.test.mjs goes over every message this module can make and checks the voseo, the capitals and
// the punctuation.
import {
  BotLevel,
  CallKind,
  type Card,
  type Command,
  type Event,
  HandEnd,
  type HandSummary,
  ScoreReason,
  Sena,
  Standing,
  Suit,
  cardText,
} from "truco-client";
import { web as W } from "table-words/es.json";


/** A template of the catalogue with its `{fields}` filled; `{Field}` is a field's text with a capital first. */
export function say(template: string, fields: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = fields[name] ?? fields[name.charAt(0).toLowerCase() + name.slice(1)];
    if (value === undefined) return whole;
    return name.charAt(0) === name.charAt(0).toUpperCase() ? capital(String(value)) : String(value);
  });
}

/** A table of the catalogue keyed by an enum's names, keyed by its values. */
function byEnum<E extends Record<string, string | number>>(names: Readonly<Record<string, string>>, values: E): Readonly<Record<number, string>> {
  return Object.fromEntries(Object.entries(names).map(([name, text]) => [values[name as keyof E] as number, text]));
}

// --- How the page names seats and teams ------------------------------------------------------------------------

/** Who is who at the table, as seen by the viewer: `me` is undefined for a spectator. */
export interface Seating {
  readonly me: number | undefined;
  /** A seat's name ("Tito", "Ana"); never "Vos": sentences about the viewer use the verb's vos form instead. */
  name(seat: number): string;
  /** Whether a bot plays the seat for its player now (its clock ran out, or it left). */
  isAway?(seat: number): boolean;
  /** A team's points before the event being told (the log's sentences about points). */
  scoreBefore?(team: number): number;
  /** The points the match is played to. */
  readonly target?: number;
}

type Person = { readonly me: string; readonly other: string };
type Side = { readonly ours: string; readonly theirs: string; readonly spectator: string };

/** A sentence about what `seat` does: its vos form for the viewer ("Jugás"), else the third person with the seat's
 * name ("Tito juega"); while a bot plays a player's seat, the bot does it ("Tu bot juega", "El bot de Tito juega"). */
function said(seating: Seating, seat: number, template: Person, fields: Readonly<Record<string, string | number>> = {}): string {
  if (seating.isAway?.(seat)) {
    const who = seat === seating.me ? W.words.yourBot : say(W.words.botOf, { name: seating.name(seat) });
    return say(template.other, { ...fields, who });
  }
  return seat === seating.me ? say(template.me, fields) : say(template.other, { ...fields, who: seating.name(seat) });
}

/** The side a team is on for the viewer: its own, the rivals', or (a spectator) neither. */
function side(seating: Seating, team: number): keyof Side {
  if (seating.me === undefined) return "spectator";
  return team === seating.me % 2 ? "ours" : "theirs";
}

/** A sentence about a team, in the variant of its side, with `team` its name. */
function teamSaid(seating: Seating, team: number, template: Side, fields: Readonly<Record<string, string | number>> = {}): string {
  return say(template[side(seating, team)], { ...fields, team: teamName(seating, team) });
}

export function teamName(seating: Seating, team: number): string {
  return say(W.words.teams[side(seating, team)], { letter: team === 0 ? "A" : "B" });
}

/** "Tito", "Tito y Marta", "Tito, Marta y Beto". */
function listed(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(W.words.comma)}${W.words.and}${words[words.length - 1]}`;
}

/** "Tito", "Tito y Marta", "Tito, Marta y Beto"; the viewer as "vos". */
export function names(seating: Seating, seats: readonly number[]): string {
  return listed(seats.map((seat) => (seat === seating.me ? W.words.vos : seating.name(seat))));
}

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function botName(seat: number): string {
  return W.names.bots[seat % W.names.bots.length];
}

/** A seat nobody has taken yet. */
export function emptySeatName(): string {
  return UI.emptySeat;
}

/** A player who joined without a name. */
export function playerName(seat: number): string {
  return say(W.words.player, { n: seat + 1 });
}

// --- Cards -----------------------------------------------------------------------------------------------------

export const SUIT_NAMES = byEnum(W.names.suits, Suit);

/** "1 de espada", the way a card is said at the table. */
export function cardName(card: Card | undefined): string {
  return card ? say(W.words.card, { rank: card.rank, suit: SUIT_NAMES[card.suit] ?? "?" }) : "?";
}

/** "7 de oro, 6 de oro y 5 de copa". */
export function cardList(cards: readonly Card[]): string {
  return listed(cards.map(cardName));
}

/** The card's notation ("1e"), used as its stable id in the page. */
export function cardId(card: Card | undefined): string {
  return card ? cardText(card) : "";
}

/** "Piezas: 2, 4, 5, 11 y 10 de oro". */
export function piezasLine(piezas: readonly Card[]): string {
  if (!piezas.length) return "";
  return say(W.words.piezas, { ranks: listed(piezas.map((card) => String(card.rank))), suit: SUIT_NAMES[piezas[0].suit] ?? "?" });
}

// --- Calls, answers, señas --------------------------------------------------------------------------------------

/** What a call is called when sung (a button's label, what a seat says). */
export const CALL_NAMES = byEnum(W.names.calls, CallKind);

/** A call as the object of a sentence: "quiere el truco", "no quiere la falta envido". */
export const CALL_OBJECTS = byEnum(W.names.callObjects, CallKind);

export const SENA_NAMES = byEnum(W.names.senas, Sena);

export const STANDING_NAMES = byEnum(W.names.standings, Standing);

/** The label of a button for a legal action (cards are played from the hand, not from these buttons). */
export function actionLabel(command: Command): string {
  const kind = command.kind;
  const A = W.actions;
  switch (kind.case) {
    case "playCard":
      return say(A.playCard, { card: cardName(kind.value.card) });
    case "call":
      return CALL_NAMES[kind.value.call] ?? A.call;
    case "answer":
      return kind.value.accept ? A.accept : A.decline;
    case "goToMazo":
      return A.goToMazo;
    case "sendSena":
      return capital(SENA_NAMES[kind.value.sena] ?? A.sena);
    case "callPerros":
      return A.callPerros;
    case "skipPerros":
      return A.skipPerros;
    case "answerPerros": {
      const answer = (yes: boolean) => (yes ? W.words.accept : W.words.decline);
      return say(A.answerPerros, { envido: answer(kind.value.acceptEnvido), truco: answer(kind.value.acceptTruco) });
    }
    default:
      return A.other;
  }
}

// --- The log: one sentence per event ---------------------------------------------------------------------------

const SCORE_REASONS = byEnum(W.names.scoreReasons, ScoreReason);

function unit(points: number): string {
  return points === 1 ? W.words.point : W.words.points;
}

/** "Los rivales suman 3 por la flor no querida." A score that reaches the target is capped there by the rules:
 * the line says so, or "1 por la flor no querida" would read as a miscount. */
export function pointsLine(seating: Seating, team: number, points: number, reason: ScoreReason): string {
  const line = teamSaid(seating, team, W.log.points, { points, unit: unit(points), reason: SCORE_REASONS[reason] ?? SCORE_REASONS[ScoreReason.HAND] });
  const before = seating.scoreBefore?.(team);
  if (before === undefined || seating.target === undefined || before + points < seating.target) return say(W.log.pointsEnd, { line });
  return say(W.log.pointsCapped[side(seating, team)], { line, target: seating.target });
}

/** "Primera", "Segunda", "Tercera": a round of a hand (0-based). */
export function roundName(round: number): string {
  return W.names.rounds[round] ?? W.names.rounds[W.names.rounds.length - 1];
}

/** The compact score over the felt on a phone: "Tu equipo 12 · Los rivales 17". */
export function miniScore(seating: Seating, scores: readonly { team: number; points: number }[]): string {
  return scores.map((s) => say(W.panels.miniScore, { team: teamName(seating, s.team), points: s.points })).join(" · ");
}

/** The events that get no line of their own (the match's start is the log's first line; a hand's end is told by
 * the round, the points and the summary). */
export const SILENT_EVENTS: ReadonlySet<string> = new Set(["handEnded"]);

type Line = (value: never, seating: Seating) => string | undefined;

/** One sentence for each kind of event but the silent ones, from the event's own message. */
const LINES: Readonly<Record<string, Line>> = {
  matchStarted: (e: { rules?: { target: number } }) => say(W.log.matchStarted, { target: e.rules?.target ?? 30 }),
  handDealt: (e: { number: number; dealer: number; pico: boolean }, s) =>
    say(e.dealer === s.me ? W.log.handDealt.me : W.log.handDealt.other, { number: e.number, name: s.name(e.dealer), pico: e.pico ? W.log.pico : "" }),
  cardPlayed: (e: { seat: number; card?: Card }, s) => said(s, e.seat, W.log.cardPlayed, { card: cardName(e.card) }),
  roundEnded: (e: { round: number; winnerTeam?: number }, s) => {
    const round = roundName(e.round).toLowerCase();
    return e.winnerTeam === undefined ? say(W.log.roundTied, { round }) : teamSaid(s, e.winnerTeam, W.log.roundWon, { round });
  },
  callMade: (e: { seat: number; call: CallKind }, s) => said(s, e.seat, W.log.callMade, { call: CALL_NAMES[e.call] ?? "" }),
  callAccepted: (e: { seat: number; call: CallKind }, s) => said(s, e.seat, W.log.callAccepted, { object: CALL_OBJECTS[e.call] ?? "" }),
  callDeclined: (e: { seat: number; call: CallKind }, s) => said(s, e.seat, W.log.callDeclined, { object: CALL_OBJECTS[e.call] ?? "" }),
  florSung: (e: { seat: number }, s) => said(s, e.seat, W.log.florSung),
  envidoSettled: (e: { winnerSeat: number; points: number }, s) => said(s, e.winnerSeat, W.log.envidoSettled, { points: e.points }),
  florSettled: (e: { winnerSeat?: number; points?: number }, s) =>
    e.winnerSeat === undefined
      ? W.log.florUncontested
      : said(s, e.winnerSeat, W.log.florSettled, { with: e.points === undefined ? "" : say(W.log.florPoints, { points: e.points }) }),
  envidoVoided: () => W.log.envidoVoided,
  wentToMazo: (e: { seat: number }, s) => said(s, e.seat, W.log.wentToMazo),
  senaSent: (e: { seat: number; sena: Sena }, s) =>
    say(e.seat === s.me ? W.log.senaSent.me : W.log.senaSent.other, { name: s.name(e.seat), sena: SENA_NAMES[e.sena] ?? "" }),
  pointsScored: (e: { team: number; points: number; reason: ScoreReason }, s) => pointsLine(s, e.team, e.points, e.reason),
  handEnded: () => undefined,
  matchEnded: (e: { winnerTeam: number }, s) => teamSaid(s, e.winnerTeam, W.log.matchEnded),
  perrosCalled: (e: { seat: number }, s) => said(s, e.seat, W.log.perrosCalled),
  perrosSkipped: (e: { seat: number }, s) => said(s, e.seat, W.log.perrosSkipped),
  perrosAnswered: (e: { seat: number; acceptEnvido: boolean; acceptTruco: boolean }, s) => {
    const person = e.seat === s.me ? "me" : "other";
    const wants = (yes: boolean) => (yes ? W.log.wants : W.log.doesNotWant)[person];
    return said(s, e.seat, W.log.perrosAnswered, { envido: wants(e.acceptEnvido), truco: wants(e.acceptTruco) });
  },
  clockExpired: (e: { seat: number; forfeit: boolean }, s) => {
    const template = e.forfeit ? W.log.forfeit : W.log.clockExpired;
    return say(e.seat === s.me ? template.me : template.other, { name: s.name(e.seat) });
  },
  seatLeft: (e: { seat: number }, s) => say(e.seat === s.me ? W.log.seatLeft.me : W.log.seatLeft.other, { name: s.name(e.seat) }),
  seatResumed: (e: { seat: number }, s) => say(e.seat === s.me ? W.log.seatResumed.me : W.log.seatResumed.other, { name: s.name(e.seat) }),
};

/** One line of the table's log for an event; undefined for the events of {@link SILENT_EVENTS}. */
export function describeEvent(event: Event, seating: Seating): string | undefined {
  const kind = event.kind;
  const line = kind.case === undefined ? undefined : LINES[kind.case];
  return line ? line(kind.value as never, seating) : undefined;
}

/** The hands the rules showed at a hand's end: "Tito mostró 7 de oro, 6 de oro y 5 de copa." */
export function shownLine(seating: Seating, seat: number, cards: readonly Card[]): string {
  return said(seating, seat, W.log.shown, { cards: cardList(cards) });
}

// --- The table's panels ----------------------------------------------------------------------------------------

/** The status line over the buttons. */
export function statusLine(
  seating: Seating,
  state: {
    over: boolean;
    winnerTeam?: number;
    myTurn: boolean;
    answering: boolean;
    waitingFor: readonly number[];
    /** The viewer's seat is played by a bot now: it acts, not the viewer. */
    away?: boolean;
    /** The seats of `waitingFor` a bot plays for their absent player. */
    standIn?: readonly number[];
  },
): string | undefined {
  const P = W.panels;
  if (state.over) {
    if (state.winnerTeam === undefined) return P.over;
    if (seating.me === undefined) return say(P.overSpectator, { team: teamName(seating, state.winnerTeam) });
    return state.winnerTeam === seating.me % 2 ? P.won : P.lost;
  }
  if (state.away) return P.away;
  if (state.myTurn) return state.answering ? P.answer : P.turn;
  const standIn = state.waitingFor.filter((seat) => state.standIn?.includes(seat));
  if (standIn.length) return say(standIn.length > 1 ? P.standIn.many : P.standIn.one, { names: names(seating, standIn) });
  if (state.waitingFor.length) return say(P.waitingFor, { names: names(seating, state.waitingFor) });
  return undefined;
}

/** The lines of the "En juego" panel: what was sung and what it is worth. */
export function callLines(
  seating: Seating,
  hand: {
    pending?: { call: CallKind; seat: number; team: number };
    trucoValue: number;
    trucoOwner?: number;
    envidoChain: readonly CallKind[];
    envidoClosed: boolean;
    envidoWinner?: { seat: number; points: number };
    florSung: readonly number[];
    perrosPending: boolean;
  },
): string[] {
  const P = W.panels;
  const lines: string[] = [];
  const pending = hand.pending;
  if (pending) {
    const answers = teamSaid(seating, 1 - pending.team, P.answers);
    lines.push(said(seating, pending.seat, P.pending, { call: CALL_NAMES[pending.call] ?? "", answers }));
  }
  if (hand.trucoValue > 1) {
    const word = hand.trucoOwner === undefined ? "" : teamSaid(seating, hand.trucoOwner, P.word);
    lines.push(say(P.worth, { value: hand.trucoValue, word }));
  }
  const chain = hand.envidoChain.map((call) => (CALL_NAMES[call] ?? "").toLowerCase()).join(", ");
  if (hand.envidoWinner) lines.push(summaryEnvido(seating, hand.envidoWinner.seat, hand.envidoWinner.points));
  else if (hand.envidoChain.length && !hand.envidoClosed) lines.push(say(P.envidoInPlay, { chain }));
  else if (hand.envidoChain.length) lines.push(say(P.envidoSung, { chain }));
  else if (hand.envidoClosed) lines.push(P.envidoClosed);
  if (hand.florSung.length === 1) lines.push(said(seating, hand.florSung[0], P.florSung));
  else if (hand.florSung.length) lines.push(say(P.floresSung, { names: names(seating, hand.florSung) }));
  if (hand.perrosPending) lines.push(P.perros);
  if (!lines.length) lines.push(P.nothing);
  return lines;
}

/** What the viewer holds for the envido or the flor, under its cards. */
export function tantosLine(tantos: { envido?: number; flor?: number; florSung: boolean; envidoClosed: boolean }): string | undefined {
  if (tantos.flor !== undefined) return say(tantos.florSung ? W.panels.florSungOwn : W.panels.flor, { flor: tantos.flor });
  if (tantos.envido !== undefined && !tantos.envidoClosed) return say(W.panels.envido, { envido: tantos.envido });
  return undefined;
}

/** "0:23". */
export function clockText(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** What a seat's clock says: the decision's time, or, once that ran out, the reserve being spent. */
export function clockLabel(kind: "decision" | "reserve", milliseconds: number): string {
  return kind === "reserve" ? say(W.panels.reserve, { time: clockText(milliseconds) }) : clockText(milliseconds);
}

/** A seat whose player is away, and why. */
export function awayLabel(reason: "clock" | "left" | undefined): string {
  return reason === "left" ? W.panels.awayLeft : reason === "clock" ? W.panels.awayClock : W.panels.awayOther;
}

/** The banner over the viewer's hand while a bot plays its seat. */
export function awayBanner(reason: "clock" | "left" | undefined): string {
  return reason === "left" ? W.panels.bannerLeft : W.panels.bannerClock;
}

/** How long the bot keeps a person's pace for an away player (`milliseconds` left of the grace; undefined or
 * past: it plays at its own speed now). `viewer`: the banner of the player who is away. */
export function graceLine(milliseconds: number | undefined, viewer: boolean): string {
  if (milliseconds === undefined || milliseconds <= 0) return viewer ? W.panels.gracePastViewer : W.panels.gracePast;
  return say(viewer ? W.panels.graceViewer : W.panels.grace, { left: clockText(milliseconds) });
}

/** Who the table still waits for before the first deal: "Falta 1 jugador." / "Faltan 2 jugadores." */
export function missingLine(open: number): string {
  return say(open === 1 ? W.panels.missing.one : W.panels.missing.many, { open });
}

/** "Mesa de 4 · a 30 puntos". */
export function tableLine(players: number, target: number): string {
  return say(W.panels.table, { players, target });
}

// --- The end of a hand ------------------------------------------------------------------------------------------

/** The summary's title: "Mano 3: la ganó tu equipo." */
export function summaryTitle(seating: Seating, summary: HandSummary): string {
  const S = W.summary;
  if (summary.end === HandEnd.MATCH_ENDED && summary.winnerTeam === undefined) return say(S.matchEnded, { number: summary.number });
  if (summary.winnerTeam === undefined) return say(S.untaken, { number: summary.number });
  return teamSaid(seating, summary.winnerTeam, S.title, { number: summary.number });
}

const ENDS = byEnum(W.names.handEnds, HandEnd);

/** How the hand ended, when the title does not say it already. */
export function summaryEnd(summary: HandSummary): string {
  return summary.end === HandEnd.MATCH_ENDED ? "" : (ENDS[summary.end] ?? "");
}

/** A round the hand ended in the middle of: "Tercera: sin terminar". */
export function summaryUnfinished(round: number): string {
  return say(W.summary.unfinished, { round: roundName(round) });
}

/** A round of the summary: "Primera: tu equipo", "Segunda: parda". */
export function summaryRound(seating: Seating, round: number, winnerTeam: number | undefined): string {
  return say(W.summary.round, { round: roundName(round), result: winnerTeam === undefined ? W.summary.parda : teamName(seating, winnerTeam) });
}

/** A credit of the summary: "Tu equipo: 2 por el truco no querido." */
export function summaryScore(seating: Seating, team: number, points: number, reason: ScoreReason): string {
  const why = SCORE_REASONS[reason] ?? SCORE_REASONS[ScoreReason.HAND];
  return say(W.summary.score, { team: teamName(seating, team), points, unit: unit(points), reason: why });
}

export function summaryEnvido(seating: Seating, seat: number, points: number): string {
  return said(seating, seat, W.summary.envido, { points });
}

export function summaryFlor(seating: Seating, seat: number, points: number): string {
  return said(seating, seat, W.summary.flor, { points });
}

// --- Refused calls ------------------------------------------------------------------------------------------------

const REASONS: Readonly<Record<string, string>> = W.reasons;

/** The reason codes with a sentence of their own (for the messages test). */
export const REASON_CODES: readonly string[] = Object.keys(REASONS);

/** A clear sentence for a refused call: the reason in words, then the server's own message and the code. */
export function refusal(reason: string, message: string): string {
  const words = REASONS[reason] ?? PLAYER_REASONS[reason] ?? W.words.unknownRefusal;
  return say(W.words.refusal, { words, reason: reason || W.words.noCode, message });
}

/** A call that never reached the server (the connection is down). */
export const UNREACHABLE = W.words.unreachable;

// --- Words of the page ------------------------------------------------------------------------------------------

/** Every fixed word and label of the page. */
export const UI = W.ui;

/** "2 jugadores". */
export function playersOption(players: number): string {
  return say(W.lobby.players, { players });
}

/** "30 puntos". */
export function targetOption(target: number): string {
  return say(W.lobby.target, { target });
}

/** A line of the lobby's list: "Mesa de 4 · a 30 puntos · 1 asiento libre". */
export function openTableLine(players: number, target: number, open: number): string {
  return say(open === 1 ? W.lobby.openTable.one : W.lobby.openTable.many, { table: tableLine(players, target), open });
}

/** Who sits at a listed table: "Con Ana, Tito (bot) y Marta (bot)." */
export function openTableSeats(taken: readonly string[]): string {
  return taken.length ? say(W.lobby.seated, { list: listed(taken) }) : W.lobby.nobody;
}

const LEVEL_NAMES = byEnum(W.names.levels, BotLevel);

/** A bot's name with what it is: "Tito (bot)", "Tito (bot experto)". */
export function botLabel(seat: number, level: BotLevel = BotLevel.UNSPECIFIED): string {
  const named = LEVEL_NAMES[level];
  return named ? say(W.lobby.botLevel, { name: botName(seat), level: named }) : say(W.lobby.bot, { name: botName(seat) });
}

/** The join page's title. */
export function joinTitle(id: string): string {
  return say(W.lobby.joinTitle, { id: id.slice(0, 8) });
}

/** The seña a partner sent: "Tito te hace: beso (el 4 de la muestra)." */
export function senaReceived(seating: Seating, seat: number, sena: Sena): string {
  return say(W.lobby.senaReceived, { name: seating.name(seat), sena: SENA_NAMES[sena] ?? "" });
}

// --- Jugar ya and the ranking (PlayerService) -------------------------------------------------------------------
// Kept together so that they move as one block into the per-language catalogue.

/** The fixed words of "Jugar ya" (quick match) and the ranking page. */
export const QUICK = {
  title: "Jugar ya",
  intro: "Te buscamos rivales de tu nivel. Si nadie aparece, podés dejar que completen los bots.",
  players: "Jugadores en la mesa",
  botsFill: "Si en 30 s no aparece nadie, completar con bots (el partido no suma al ranking)",
  play: "Jugar ya",
  searching: "Buscando rivales…",
  waitingForParty: "Esperando a tu grupo…",
  matched: "¡Mesa encontrada! Entrando…",
  cancel: "Cancelar",
  cancelled: "Cancelaste la búsqueda.",
  expired: "No apareció nadie a tiempo: probá de nuevo, o dejá que completen los bots.",
  noToken: "Para Jugar ya y el ranking necesitás un pase de jugador, y este servidor no da uno: pegalo en «Pase de jugador».",
  tokenField: "Pase de jugador",
  tokenPlaceholder: "El que te da la app (un JWT)",
  ranking: "Ranking",
  rankingTop: "Los mejores",
  loadingRanking: "Cargando el ranking…",
  rankingAroundMe: "Cerca tuyo",
  rankingEmpty: "Todavía nadie jugó partidos que sumen en esta mesa.",
  notRankedYet: "Todavía no tenés puesto en esta mesa: jugá un partido que sume.",
  history: "Tus partidos",
  historyEmpty: "Todavía no terminaste ningún partido con tu pase de jugador.",
  replay: "Ver de nuevo",
  won: "Ganaste",
  lost: "Perdiste",
  unrated: "No suma",
  back: "Volver al inicio",
  rank: "Puesto",
  player: "Jugador",
  rating: "Puntaje",
  played: "Partidos",
  wins: "Ganados",
} as const;

/** "Esperando hace 12 s". */
export function waitedLine(seconds: number): string {
  return `Esperando hace ${Math.floor(seconds)} s.`;
}

/** The ticket's rating window: "Rivales con puntaje entre 3,2 y 9,8.". */
export function windowLine(low: number, high: number): string {
  return `Rivales con puntaje entre ${ratingText(low)} y ${ratingText(high)}.`;
}

/** A rating as the page shows it: one decimal, with a comma. */
export function ratingText(value: number): string {
  return value.toFixed(1).replace(".", ",");
}

/** A tab of the ranking: "Mesas de 4". */
export function rankingTab(players: number): string {
  return `Mesas de ${players}`;
}

/** How many are ranked: "12 jugadores en el ranking.". */
export function rankedLine(total: number): string {
  return total === 1 ? "1 jugador en el ranking." : `${total} jugadores en el ranking.`;
}

/** Your own place: "Estás en el puesto 7 con 12,4 puntos.". */
export function myPlaceLine(rank: number, ordinal: number): string {
  return `Estás en el puesto ${rank} con ${ratingText(ordinal)} puntos.`;
}

/** A finished match of the history: "Mesa de 2 · 30 a 21 · terminó el 6/12 a las 14:05". */
export function matchLine(players: number, scores: readonly number[], ended: Date | undefined): string {
  const score = scores.length >= 2 ? ` · ${scores[0]} a ${scores[1]}` : "";
  const when = ended
    ? ` · terminó el ${ended.getDate()}/${ended.getMonth() + 1} a las ${String(ended.getHours()).padStart(2, "0")}:${String(ended.getMinutes()).padStart(2, "0")}`
    : "";
  return `Mesa de ${players}${score}${when}`;
}

/** The refusals of PlayerService's calls (quick match, ranking), in words. */
export const PLAYER_REASONS: Readonly<Record<string, string>> = {
  PLAYER_TOKEN_MISSING: "Esto necesita tu pase de jugador.",
  PLAYER_TOKEN_MALFORMED: "Tu pase de jugador no es válido.",
  PLAYER_TOKEN_EXPIRED: "Tu pase de jugador venció: pedí uno nuevo.",
  PLAYER_TOKEN_NOT_YET_VALID: "Tu pase de jugador todavía no vale: revisá la hora del equipo.",
  PLAYER_TOKEN_WRONG_AUDIENCE: "Tu pase de jugador es para otro servidor.",
  PLAYER_TOKEN_UNKNOWN_KEY: "Tu pase de jugador está firmado con una clave que el servidor no conoce.",
  PLAYER_TOKEN_KEY_REVOKED: "La clave que firmó tu pase de jugador fue dada de baja: pedí uno nuevo.",
  PLAYER_TOKEN_BAD_SIGNATURE: "La firma de tu pase de jugador no es válida.",
  PLAYER_TOKEN_WRONG_APP: "Tu pase de jugador es de otra app.",
  PLAYER_TOKEN_TOO_LONG_LIVED: "Tu pase de jugador dura demasiado: como mucho 24 horas.",
  TICKET_ALREADY_OPEN: "Ya estás buscando partido en otra pestaña o dispositivo.",
  TICKET_NOT_FOUND: "Esa búsqueda ya no existe.",
  TICKET_ALREADY_MATCHED: "Ya te encontramos mesa: no se puede cancelar.",
  INVALID_PARTY: "Ese grupo no vale para esta mesa.",
  INVALID_MATCH_WAIT: "La espera tiene que ir de 5 s a 10 minutos.",
  INVALID_TABLE_SIZE: "Las mesas son de 2, 4 o 6 jugadores.",
  PLAYER_NOT_FOUND: "Ese jugador todavía no tiene ranking.",
  TABLE_CREDENTIAL_INVALID: "Este navegador guardaba un jugador que el servidor no reconoce.",
};
