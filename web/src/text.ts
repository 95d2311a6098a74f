// Every word the page shows, in rioplatense Spanish with voseo (jugás, cantás, te toca), each sentence starting
// with a capital: the page's other modules hold no prose of their own. e2e/messages.test.mjs goes over every
// message this module can make and checks the voseo, the capitals and the punctuation.
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

/** "Jugás" for the viewer, "Tito juega" for anyone else; while a bot plays a player's seat, the bot does it:
 * "Tu bot juega", "El bot de Tito juega". */
export function does(seating: Seating, seat: number, third: string, vos: string): string {
  if (seating.isAway?.(seat)) return `${seat === seating.me ? "Tu bot" : `El bot de ${seating.name(seat)}`} ${third}`;
  return seat === seating.me ? capital(vos) : `${seating.name(seat)} ${third}`;
}

/** A team as the subject of a sentence: the viewer's ("tu equipo"), the rivals ("los rivales"), or for a spectator
 * "el equipo A" / "el equipo B"; with a verb in the right number ("tu equipo suma", "los rivales suman"). */
export function teamDoes(seating: Seating, team: number, singular = "", plural = ""): string {
  const name = teamName(seating, team);
  const verb = seating.me !== undefined && team !== seating.me % 2 ? plural : singular;
  return verb ? `${name} ${verb}` : name;
}

export function teamName(seating: Seating, team: number): string {
  if (seating.me === undefined) return `el equipo ${team === 0 ? "A" : "B"}`;
  return team === seating.me % 2 ? "tu equipo" : "los rivales";
}

/** "Tito", "Tito y Marta", "Tito, Marta y Beto"; the viewer as "vos". */
export function names(seating: Seating, seats: readonly number[]): string {
  const words = seats.map((seat) => (seat === seating.me ? "vos" : seating.name(seat)));
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} y ${words[words.length - 1]}`;
}

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The names the server's bots go by at the table, by seat. */
const BOT_NAMES = ["Pocha", "Tito", "Marta", "Beto", "Nené", "Cacho"];

export function botName(seat: number): string {
  return BOT_NAMES[seat % BOT_NAMES.length];
}

/** A seat nobody has taken yet. */
export function emptySeatName(): string {
  return UI.emptySeat;
}

/** A player who joined without a name. */
export function playerName(seat: number): string {
  return `Jugador ${seat + 1}`;
}

// --- Cards -----------------------------------------------------------------------------------------------------

export const SUIT_NAMES: Readonly<Record<number, string>> = {
  [Suit.ESPADA]: "espada",
  [Suit.BASTO]: "basto",
  [Suit.ORO]: "oro",
  [Suit.COPA]: "copa",
};

/** "1 de espada", the way a card is said at the table. */
export function cardName(card: Card | undefined): string {
  return card ? `${card.rank} de ${SUIT_NAMES[card.suit] ?? "?"}` : "?";
}

/** "7 de oro, 6 de oro y 5 de copa". */
export function cardList(cards: readonly Card[]): string {
  const words = cards.map(cardName);
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} y ${words[words.length - 1]}`;
}

/** The card's notation ("1e"), used as its stable id in the page. */
export function cardId(card: Card | undefined): string {
  return card ? cardText(card) : "";
}

/** "Piezas: 2, 4, 5, 11 y 10 de oro". */
export function piezasLine(piezas: readonly Card[]): string {
  if (!piezas.length) return "";
  const ranks = piezas.map((card) => String(card.rank));
  return `Piezas: ${ranks.slice(0, -1).join(", ")} y ${ranks[ranks.length - 1]} de ${SUIT_NAMES[piezas[0].suit]}`;
}

// --- Calls, answers, señas --------------------------------------------------------------------------------------

/** What a call is called when sung (a button's label, what a seat says). */
export const CALL_NAMES: Readonly<Record<number, string>> = {
  [CallKind.TRUCO]: "Truco",
  [CallKind.RETRUCO]: "Quiero retruco",
  [CallKind.VALE_CUATRO]: "Quiero vale cuatro",
  [CallKind.ENVIDO]: "Envido",
  [CallKind.REAL_ENVIDO]: "Real envido",
  [CallKind.FALTA_ENVIDO]: "Falta envido",
  [CallKind.CON_FLOR_ENVIDO]: "Con flor envido",
  [CallKind.CONTRA_FLOR]: "Contra flor",
  [CallKind.CONTRA_FLOR_AL_RESTO]: "Contra flor al resto",
  [CallKind.FLOR]: "Flor",
};

/** A call as the object of a sentence: "quiere el truco", "no quiere la falta envido". */
export const CALL_OBJECTS: Readonly<Record<number, string>> = {
  [CallKind.TRUCO]: "el truco",
  [CallKind.RETRUCO]: "el retruco",
  [CallKind.VALE_CUATRO]: "el vale cuatro",
  [CallKind.ENVIDO]: "el envido",
  [CallKind.REAL_ENVIDO]: "el real envido",
  [CallKind.FALTA_ENVIDO]: "la falta envido",
  [CallKind.CON_FLOR_ENVIDO]: "el con flor envido",
  [CallKind.CONTRA_FLOR]: "la contra flor",
  [CallKind.CONTRA_FLOR_AL_RESTO]: "la contra flor al resto",
  [CallKind.FLOR]: "la flor",
};

export const SENA_NAMES: Readonly<Record<number, string>> = {
  [Sena.PIEZA_2]: "levantar las cejas (el 2 de la muestra)",
  [Sena.PIEZA_4]: "beso (el 4 de la muestra)",
  [Sena.PIEZA_5]: "arrugar la nariz (el 5 de la muestra)",
  [Sena.PIEZA_11]: "guiñada del ojo derecho (el 11 de la muestra)",
  [Sena.PIEZA_10]: "guiñada del ojo izquierdo (el 10 de la muestra)",
  [Sena.MATA_1]: "mueca a la derecha (1 de espada o de basto)",
  [Sena.MATA_7]: "mueca a la izquierda (7 de espada o de oro)",
  [Sena.CHICA_3]: "morder el labio (un 3)",
  [Sena.CHICA_2]: "boca abierta (un 2)",
  [Sena.CHICA_1]: "punta de la lengua (1 de copa o de oro)",
  [Sena.NEGRAS]: "ojos cerrados (nada: negras y comunes)",
  [Sena.ENVIDO]: "lamer el labio (mucho envido)",
};

export const STANDING_NAMES: Readonly<Record<number, string>> = {
  [Standing.MALAS]: "Malas",
  [Standing.BUENAS]: "Buenas",
};

/** The label of a button for a legal action (cards are played from the hand, not from these buttons). */
export function actionLabel(command: Command): string {
  const kind = command.kind;
  switch (kind.case) {
    case "playCard":
      return `Jugar el ${cardName(kind.value.card)}`;
    case "call":
      return CALL_NAMES[kind.value.call] ?? "Cantar";
    case "answer":
      return kind.value.accept ? "Quiero" : "No quiero";
    case "goToMazo":
      return "Me voy al mazo";
    case "sendSena":
      return capital(SENA_NAMES[kind.value.sena] ?? "Seña");
    case "callPerros":
      return "Echar los perros";
    case "skipPerros":
      return "Repartir sin perros";
    case "answerPerros":
      return `Perros: ${kind.value.acceptEnvido ? "quiero" : "no quiero"} el envido, ${kind.value.acceptTruco ? "quiero" : "no quiero"} el truco`;
    default:
      return "Jugar";
  }
}

// --- The log: one sentence per event ---------------------------------------------------------------------------

const SCORE_REASONS: Readonly<Record<number, string>> = {
  [ScoreReason.ENVIDO]: "el envido",
  [ScoreReason.ENVIDO_DECLINED]: "el envido no querido",
  [ScoreReason.FLOR]: "la flor",
  [ScoreReason.FLOR_DECLINED]: "la flor no querida",
  [ScoreReason.HAND]: "la mano",
  [ScoreReason.TRUCO_DECLINED]: "el truco no querido",
  [ScoreReason.MAZO]: "el mazo",
};

/** "Los rivales suman 3 por la flor no querida." A score that reaches the target is capped there by the rules:
 * the line says so, or "1 por la flor no querida" would read as a miscount. */
export function pointsLine(seating: Seating, team: number, points: number, reason: ScoreReason): string {
  const line = `${capital(teamDoes(seating, team, "suma", "suman"))} ${points} ${points === 1 ? "punto" : "puntos"} por ${SCORE_REASONS[reason] ?? "la mano"}`;
  const before = seating.scoreBefore?.(team);
  if (before === undefined || seating.target === undefined || before + points < seating.target) return `${line}.`;
  const reaches = seating.me !== undefined && team !== seating.me % 2 ? "llegan" : "llega";
  return `${line}: ${reaches} a ${seating.target}, lo que ${reaches === "llegan" ? "les" : "le"} faltaba (no se pasa de ${seating.target}).`;
}

const ROUNDS = ["Primera", "Segunda", "Tercera"];

/** "Primera", "Segunda", "Tercera": a round of a hand (0-based). */
export function roundName(round: number): string {
  return ROUNDS[round] ?? "Tercera";
}

/** The compact score over the felt on a phone: "Tu equipo 12 · Los rivales 17". */
export function miniScore(seating: Seating, scores: readonly { team: number; points: number }[]): string {
  return scores.map((s) => `${capital(teamName(seating, s.team))} ${s.points}`).join(" · ");
}

/** The events that get no line of their own (the match's start is the log's first line; a hand's end is told by
 * the round, the points and the summary). */
export const SILENT_EVENTS: ReadonlySet<string> = new Set(["handEnded"]);

/** One line of the table's log for an event; undefined for the events of {@link SILENT_EVENTS}. */
export function describeEvent(event: Event, seating: Seating): string | undefined {
  const kind = event.kind;
  switch (kind.case) {
    case "matchStarted":
      return `Empieza el partido a ${kind.value.rules?.target ?? 30} puntos.`;
    case "handDealt":
      return `Mano ${kind.value.number}: ${kind.value.dealer === seating.me ? "repartís vos" : `reparte ${seating.name(kind.value.dealer)}`}${kind.value.pico ? " (pico a pico)" : ""}.`;
    case "cardPlayed":
      return `${does(seating, kind.value.seat, "juega", "jugás")} el ${cardName(kind.value.card)}.`;
    case "roundEnded": {
      const round = `La ${roundName(kind.value.round).toLowerCase()}`;
      if (kind.value.winnerTeam === undefined) return `${round} es parda.`;
      const winner = kind.value.winnerTeam;
      return `${round} ${seating.me !== undefined && winner !== seating.me % 2 ? "la ganan" : "la gana"} ${teamName(seating, winner)}.`;
    }
    case "callMade":
      return `${does(seating, kind.value.seat, "canta", "cantás")} «${CALL_NAMES[kind.value.call] ?? ""}».`;
    case "callAccepted":
      return `${does(seating, kind.value.seat, "quiere", "querés")} ${CALL_OBJECTS[kind.value.call] ?? ""}.`;
    case "callDeclined":
      return `${does(seating, kind.value.seat, "no quiere", "no querés")} ${CALL_OBJECTS[kind.value.call] ?? ""}.`;
    case "florSung":
      return `${does(seating, kind.value.seat, "canta", "cantás")} flor.`;
    case "envidoSettled":
      return `${does(seating, kind.value.winnerSeat, "gana", "ganás")} el envido con ${kind.value.points}.`;
    case "florSettled":
      return kind.value.winnerSeat === undefined
        ? "La flor se cobra sin disputa."
        : `${does(seating, kind.value.winnerSeat, "gana", "ganás")} la flor${kind.value.points === undefined ? "" : ` con ${kind.value.points}`}.`;
    case "envidoVoided":
      return "El envido no se juega: hay flor.";
    case "wentToMazo":
      return `${does(seating, kind.value.seat, "se va", "te vas")} al mazo.`;
    case "senaSent":
      return kind.value.seat === seating.me
        ? `Le hacés una seña a tu compañero: ${SENA_NAMES[kind.value.sena] ?? ""}.`
        : `${seating.name(kind.value.seat)} te hace una seña: ${SENA_NAMES[kind.value.sena] ?? ""}.`;
    case "pointsScored":
      return pointsLine(seating, kind.value.team, kind.value.points, kind.value.reason);
    case "handEnded":
      return undefined;
    case "matchEnded":
      return `¡Partido terminado! ${capital(teamDoes(seating, kind.value.winnerTeam, "ganó", "ganaron"))}.`;
    case "perrosCalled":
      return `${does(seating, kind.value.seat, "echa", "echás")} los perros.`;
    case "perrosSkipped":
      return `${does(seating, kind.value.seat, "reparte", "repartís")} sin perros.`;
    case "perrosAnswered": {
      const me = kind.value.seat === seating.me;
      const wants = (yes: boolean) => (yes ? (me ? "querés" : "quiere") : me ? "no querés" : "no quiere");
      return `${does(seating, kind.value.seat, "contesta", "contestás")} los perros: ${wants(kind.value.acceptEnvido)} el envido y ${wants(kind.value.acceptTruco)} el truco.`;
    }
    case "clockExpired":
      if (kind.value.seat === seating.me) {
        return kind.value.forfeit ? "Se te acabó el tiempo: tu equipo pierde el partido." : "Se te acabó el tiempo: un bot juega por vos.";
      }
      return kind.value.forfeit
        ? `A ${seating.name(kind.value.seat)} se le acabó el tiempo: su equipo pierde el partido.`
        : `A ${seating.name(kind.value.seat)} se le acabó el tiempo: un bot juega en su lugar.`;
    case "seatLeft":
      return kind.value.seat === seating.me ? "Dejaste la mesa: un bot juega por vos." : `${seating.name(kind.value.seat)} dejó la mesa: un bot juega en su lugar.`;
    case "seatResumed":
      return kind.value.seat === seating.me ? "Volviste a la mesa." : `${seating.name(kind.value.seat)} volvió a la mesa.`;
    default:
      return undefined;
  }
}

/** The hands the rules showed at a hand's end: "Tito mostró 7 de oro, 6 de oro y 5 de copa." */
export function shownLine(seating: Seating, seat: number, cards: readonly Card[]): string {
  return `${does(seating, seat, "mostró", "mostraste")} ${cardList(cards)}.`;
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
  if (state.over) {
    if (state.winnerTeam === undefined) return "Partido terminado.";
    if (seating.me === undefined) return `Partido terminado: ${teamDoes(seating, state.winnerTeam, "ganó", "ganaron")}.`;
    return state.winnerTeam === seating.me % 2 ? "¡Ganaste el partido!" : "Perdiste: ganaron los rivales.";
  }
  if (state.away) return "Un bot juega por vos hasta que vuelvas a la mesa.";
  if (state.myTurn) return state.answering ? "Te toca contestar." : "Te toca.";
  const standIn = state.waitingFor.filter((seat) => state.standIn?.includes(seat));
  if (standIn.length) return `Juega un bot por ${names(seating, standIn)}, que ${standIn.length > 1 ? "no están" : "no está"} en la mesa.`;
  if (state.waitingFor.length) return `Esperando a ${names(seating, state.waitingFor)}.`;
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
  const lines: string[] = [];
  const pending = hand.pending;
  if (pending) {
    const answers = teamDoes(seating, 1 - pending.team, "contesta", "contestan");
    lines.push(`${does(seating, pending.seat, "cantó", "cantaste")} «${CALL_NAMES[pending.call] ?? ""}»: ${answers}.`);
  }
  if (hand.trucoValue > 1) {
    const word = hand.trucoOwner === undefined ? "" : `; ${teamDoes(seating, hand.trucoOwner, "tiene la palabra", "tienen la palabra")}`;
    lines.push(`La mano vale ${hand.trucoValue}${word}.`);
  }
  const chain = hand.envidoChain.map((call) => (CALL_NAMES[call] ?? "").toLowerCase()).join(", ");
  if (hand.envidoWinner) lines.push(summaryEnvido(seating, hand.envidoWinner.seat, hand.envidoWinner.points));
  else if (hand.envidoChain.length && !hand.envidoClosed) lines.push(`Envido en juego: ${chain}.`);
  else if (hand.envidoChain.length) lines.push(`Se cantó ${chain}.`);
  else if (hand.envidoClosed) lines.push("El envido ya no se canta.");
  if (hand.florSung.length === 1) lines.push(`${does(seating, hand.florSung[0], "cantó", "cantaste")} flor.`);
  else if (hand.florSung.length) lines.push(`${capital(names(seating, hand.florSung))} cantaron flor.`);
  if (hand.perrosPending) lines.push("Los perros están echados: falta la respuesta.");
  if (!lines.length) lines.push("Nada cantado todavía.");
  return lines;
}

/** What the viewer holds for the envido or the flor, under its cards. */
export function tantosLine(tantos: { envido?: number; flor?: number; florSung: boolean; envidoClosed: boolean }): string | undefined {
  if (tantos.flor !== undefined) {
    return tantos.florSung ? `Tu flor: ${tantos.flor}.` : `Tenés flor de ${tantos.flor}: se canta sola la primera vez que jugás.`;
  }
  if (tantos.envido !== undefined && !tantos.envidoClosed) return `Tenés ${tantos.envido} de envido.`;
  return undefined;
}

/** "0:23". */
export function clockText(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** What a seat's clock says: the decision's time, or, once that ran out, the reserve being spent. */
export function clockLabel(kind: "decision" | "reserve", milliseconds: number): string {
  return kind === "reserve" ? `Reserva ${clockText(milliseconds)}` : clockText(milliseconds);
}

/** A seat whose player is away, and why. */
export function awayLabel(reason: "clock" | "left" | undefined): string {
  return reason === "left" ? "Dejó la mesa: juega un bot" : reason === "clock" ? "Se le acabó el tiempo: juega un bot" : "Juega un bot";
}

/** The banner over the viewer's hand while a bot plays its seat. */
export function awayBanner(reason: "clock" | "left" | undefined): string {
  return reason === "left" ? "Dejaste la mesa: un bot juega por vos." : "Se te acabó el tiempo: un bot juega por vos.";
}

/** How long the bot keeps a person's pace for an away player (`milliseconds` left of the grace; undefined or
 * past: it plays at its own speed now). `viewer`: the banner of the player who is away. */
export function graceLine(milliseconds: number | undefined, viewer: boolean): string {
  if (milliseconds === undefined || milliseconds <= 0) {
    return viewer ? "Ya juega a su ritmo: si volvés antes de que termine, seguís en el partido." : "Ya juega a su ritmo.";
  }
  const left = clockText(milliseconds);
  return viewer
    ? `Juega a ritmo de persona: si volvés en ${left}, seguís el mismo partido.`
    : `Le guarda el lugar ${left} más.`;
}

/** Who the table still waits for before the first deal: "Falta 1 jugador." / "Faltan 2 jugadores." */
export function missingLine(open: number): string {
  return open === 1 ? "Falta 1 jugador para empezar." : `Faltan ${open} jugadores para empezar.`;
}

/** "Mesa de 4 · a 30 puntos". */
export function tableLine(players: number, target: number): string {
  return `Mesa de ${players} · a ${target} puntos`;
}

// --- The end of a hand ------------------------------------------------------------------------------------------

/** The summary's title: "Mano 3: la ganó tu equipo." */
export function summaryTitle(seating: Seating, summary: HandSummary): string {
  if (summary.end === HandEnd.MATCH_ENDED && summary.winnerTeam === undefined) return `Mano ${summary.number}: terminó el partido.`;
  if (summary.winnerTeam === undefined) return `Mano ${summary.number}.`;
  return `Mano ${summary.number}: ${teamDoes(seating, summary.winnerTeam, "la ganó", "la ganaron")}.`;
}

const ENDS: Readonly<Record<number, string>> = {
  [HandEnd.ROUNDS]: "Se definió jugando las cartas.",
  [HandEnd.TRUCO_DECLINED]: "Terminó con un truco no querido.",
  [HandEnd.MAZO]: "Terminó con una ida al mazo.",
  [HandEnd.MATCH_ENDED]: "Terminó con el partido.",
  [HandEnd.FORFEIT]: "Terminó porque un equipo perdió el partido.",
};

/** How the hand ended, when the title does not say it already. */
export function summaryEnd(summary: HandSummary): string {
  return summary.end === HandEnd.MATCH_ENDED ? "" : (ENDS[summary.end] ?? "");
}

/** A round the hand ended in the middle of: "Tercera: sin terminar". */
export function summaryUnfinished(round: number): string {
  return `${roundName(round)}: sin terminar`;
}

/** A round of the summary: "Primera: tu equipo", "Segunda: parda". */
export function summaryRound(seating: Seating, round: number, winnerTeam: number | undefined): string {
  return `${roundName(round)}: ${winnerTeam === undefined ? "parda" : teamName(seating, winnerTeam)}`;
}

/** A credit of the summary: "Tu equipo: 2 por el truco no querido." */
export function summaryScore(seating: Seating, team: number, points: number, reason: ScoreReason): string {
  return `${capital(teamName(seating, team))}: ${points} ${points === 1 ? "punto" : "puntos"} por ${SCORE_REASONS[reason] ?? "la mano"}.`;
}

export function summaryEnvido(seating: Seating, seat: number, points: number): string {
  return `${does(seating, seat, "ganó", "ganaste")} el envido con ${points}.`;
}

export function summaryFlor(seating: Seating, seat: number, points: number): string {
  return `${does(seating, seat, "ganó", "ganaste")} la flor con ${points}.`;
}

// --- Refused calls ------------------------------------------------------------------------------------------------

const REASONS: Readonly<Record<string, string>> = {
  NOT_YOUR_TURN: "No es tu turno.",
  CARD_NOT_IN_HAND: "Esa carta no está en tu mano.",
  CALL_PENDING: "Primero hay que contestar el canto pendiente.",
  NO_CALL_PENDING: "No hay ningún canto para contestar.",
  ANSWER_NOT_YOURS: "Ese canto lo contesta el otro equipo.",
  RAISE_NOT_YOURS: "Esa subida no le toca a tu equipo.",
  TRUCO_AT_MAXIMUM: "El truco ya está en vale cuatro.",
  TRUCO_OUT_OF_ORDER: "Ese canto de truco no va ahora.",
  ENVIDO_CLOSED: "El envido ya no se puede cantar.",
  ENVIDO_RAISE_INVALID: "Esa subida de envido no vale.",
  FLOR_DISABLED: "Este partido se juega sin flor.",
  NO_FLOR_CONTEST: "No hay flor en juego.",
  FLOR_RAISE_INVALID: "Esa subida de flor no vale.",
  SENAS_DISABLED: "Este partido se juega sin señas.",
  SENA_NOT_ALLOWED: "Esa seña no corresponde a tus cartas (o ya hiciste una).",
  PERROS_DISABLED: "Este partido se juega sin perros.",
  PERROS_NOT_NOW: "Ahora no se pueden echar los perros.",
  PERROS_NOT_YOUR_TEAM: "Los perros los echa el equipo que reparte.",
  PERROS_ANSWER_PENDING: "Falta contestar los perros.",
  MATCH_OVER: "El partido ya terminó.",
  HAND_NOT_IN_PLAY: "No hay una mano en juego.",
  NOT_IN_THIS_HAND: "No jugás esta mano (pico a pico).",
  VERSION_CONFLICT: "La mesa cambió antes de que llegara tu jugada: ya la actualizamos, elegí de nuevo.",
  GAME_NOT_FOUND: "No existe ese partido.",
  SEAT_UNAVAILABLE: "No quedan asientos libres en ese partido: podés mirarlo.",
  TOKEN_MISSING: "Necesitás un asiento para jugar.",
  QUOTA_EXCEEDED: "Demasiadas jugadas o partidos seguidos: esperá un momento y probá de nuevo.",
  TOO_MANY_CALLS: "El servidor está muy ocupado: probá de nuevo en un momento.",
  API_KEY_REQUIRED: "Este servidor pide una clave de API para crear partidos o sentarse: ponela en «Nueva mesa».",
  API_KEY_INVALID: "La clave de API no es válida.",
  API_KEY_REVOKED: "La clave de API fue revocada.",
  SERVER_SHUTTING_DOWN: "El servidor se está reiniciando: la mesa se reconecta sola.",
  STORE_UNAVAILABLE: "El servidor no llega a su base de datos: probá de nuevo en un momento.",
  TOKEN_NOT_FOR_GAME: "Tu asiento no es de este partido.",
  TOKEN_MALFORMED: "El pase de tu asiento no es válido.",
  GAME_NOT_FINISHED: "La revancha se pide cuando termina el partido.",
  CALL_MISMATCH: "Ese canto ya no es el que está pendiente.",
  INVALID_PLAYER_NAME: "Ese nombre no vale: hasta 64 letras, sin caracteres raros.",
  PLAYER_NAME_TOO_LONG: "Ese nombre es muy largo: hasta 64 letras.",
  JOIN_NOT_REPEATABLE: "Ese asiento ya se tomó con otra clave: usá el pase que tenías.",
};

/** The reason codes with a sentence of their own (for the messages test). */
export const REASON_CODES: readonly string[] = Object.keys(REASONS);

/** A clear sentence for a refused call: the reason in words, then the server's own message and the code. */
export function refusal(reason: string, message: string): string {
  const words = REASONS[reason] ?? PLAYER_REASONS[reason] ?? "El servidor no aceptó el pedido.";
  return `${words} (${reason || "sin código"}: ${message})`;
}

/** A call that never reached the server (the connection is down). */
export const UNREACHABLE = "No hay conexión con el servidor: probá de nuevo en un momento.";

// --- Words of the page ------------------------------------------------------------------------------------------

/** Every fixed word and label of the page. */
export const UI = {
  title: "Truco Uruguayo",
  rules: "Reglas",
  live: "En vivo",
  reconnecting: "Reconectando…",
  over: "Partido terminado",
  newTable: "Nueva mesa",
  players: "Jugadores",
  target: "Partido a",
  yourName: "Tu nombre",
  yourNamePlaceholder: "Como te van a ver en la mesa",
  company: "Compañeros y rivales",
  allBots: "Todos bots",
  oneFriend: "Un amigo por link",
  oneFriendHint: "En mesas de 4 o 6, tu amigo es tu compañero.",
  level: "Nivel de los bots",
  levelBeginner: "Principiante: juega lo justo, fácil de ganarle",
  levelIntermediate: "Intermedio: juega como en el club",
  levelExpert: "Experto: piensa cada jugada",
  randomBots: "Al azar: cualquier jugada que valga",
  clock: "Reloj",
  clockNormal: "Normal: 30 s por jugada, 2 min de reserva",
  clockFast: "Rápido: 15 s por jugada, 1 min de reserva",
  clockSlow: "Tranquilo: 1 min por jugada, 4 min de reserva",
  clockNone: "Sin reloj",
  publicTable: "Mesa pública: aparece en el lobby de todos",
  apiKey: "Clave de API",
  apiKeyPlaceholder: "Solo si el servidor la pide",
  create: "Crear partido",
  openTables: "Mesas abiertas",
  noOpenTables: "No hay mesas abiertas: creá una o pedí un link.",
  sit: "Sentarme",
  joinByLink: "Unirse por link",
  joinPlaceholder: "Pegá el link o el código de la mesa",
  goToTable: "Ir a la mesa",
  takeSeat: "Sentarme a jugar",
  justWatch: "Solo mirar",
  watching: "Estás mirando el partido: no ves cartas ocultas.",
  invite: "Invitá con este link:",
  leave: "Dejar la mesa",
  leaveQuestion: "¿Dejás la mesa? Un bot juega por vos, a ritmo de persona, y podés volver al mismo partido desde cualquier dispositivo.",
  leaveYes: "Sí, dejar la mesa",
  leaveNo: "Seguir jugando",
  otherDevice: "Link para volver desde otro dispositivo",
  backToTable: "Volver a la mesa",
  rematch: "Revancha",
  rematchOffered: "Te esperan para la revancha.",
  lobby: "Ir al inicio",
  muestra: "Muestra",
  yourCards: "Tus cartas",
  sitOut: "Esta mano no jugás (pico a pico).",
  pieza: "Pieza",
  mata: "Mata",
  mano: "Mano",
  dealer: "Reparte",
  bot: "Bot",
  you: "Vos",
  emptySeat: "Lugar libre",
  startsWhenFull: "El partido empieza cuando se sienten todos. Pasales el link:",
  calls: "En juego",
  log: "Lo que pasó",
  senasToPartner: "Señas a tu compañero",
  senaReceived: "Seña de tu compañero",
  continue: "Seguir",
  summaryShown: "Cartas mostradas",
  score: "Tanteador",
  loading: "Cargando la mesa…",
} as const;

/** "2 jugadores". */
export function playersOption(players: number): string {
  return `${players} jugadores`;
}

/** "30 puntos". */
export function targetOption(target: number): string {
  return `${target} puntos`;
}

/** A line of the lobby's list: "Mesa de 4 · a 30 puntos · 1 asiento libre". */
export function openTableLine(players: number, target: number, open: number): string {
  return `${tableLine(players, target)} · ${open} ${open === 1 ? "asiento libre" : "asientos libres"}`;
}

/** Who sits at a listed table: "Con Ana, Tito (bot) y Marta (bot)." */
export function openTableSeats(taken: readonly string[]): string {
  if (!taken.length) return "Nadie sentado todavía.";
  const list = taken.length === 1 ? taken[0] : `${taken.slice(0, -1).join(", ")} y ${taken[taken.length - 1]}`;
  return `Con ${list}.`;
}

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  [BotLevel.BEGINNER]: "principiante",
  [BotLevel.INTERMEDIATE]: "intermedio",
  [BotLevel.EXPERT]: "experto",
};

/** A bot's name with what it is: "Tito (bot)", "Tito (bot experto)". */
export function botLabel(seat: number, level: BotLevel = BotLevel.UNSPECIFIED): string {
  const named = LEVEL_NAMES[level];
  return named ? `${botName(seat)} (bot ${named})` : `${botName(seat)} (bot)`;
}

/** The join page's title. */
export function joinTitle(id: string): string {
  return `Mesa ${id.slice(0, 8)}`;
}

/** The seña a partner sent: "Tito te hace: beso (el 4 de la muestra)." */
export function senaReceived(seating: Seating, seat: number, sena: Sena): string {
  return `${seating.name(seat)} te hace: ${SENA_NAMES[sena] ?? ""}.`;
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
};
