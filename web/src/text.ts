// Words for the table: cards, calls, señas, events and the reasons of refused moves, in rioplatense Spanish
// with the English name of each reason code beside it where a developer may need it.
import {
  CallKind,
  type Card,
  type Command,
  type Event,
  HandEnd,
  ScoreReason,
  Sena,
  Standing,
  Suit,
  cardText,
} from "truco-client";

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

/** The card's notation ("1e"), used as its stable id in the page. */
export function cardId(card: Card | undefined): string {
  return card ? cardText(card) : "";
}

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
};

export const SENA_NAMES: Readonly<Record<number, string>> = {
  [Sena.PIEZA_2]: "levantar las cejas (el 2 de la muestra)",
  [Sena.PIEZA_4]: "beso (el 4 de la muestra)",
  [Sena.PIEZA_5]: "arrugar la nariz (el 5 de la muestra)",
  [Sena.PIEZA_11]: "guiñada del ojo derecho (el 11 de la muestra)",
  [Sena.PIEZA_10]: "guiñada del ojo izquierdo (el 10 de la muestra)",
  [Sena.MATA_1]: "mueca a la derecha (1 de espada o basto)",
  [Sena.MATA_7]: "mueca a la izquierda (7 de espada u oro)",
  [Sena.CHICA_3]: "morder el labio (un 3)",
  [Sena.CHICA_2]: "boca abierta (un 2)",
  [Sena.CHICA_1]: "punta de la lengua (1 de copa u oro)",
  [Sena.NEGRAS]: "ojos cerrados (nada: negras y comunes)",
  [Sena.ENVIDO]: "lamer el labio (mucho envido)",
};

export const STANDING_NAMES: Readonly<Record<number, string>> = {
  [Standing.MALAS]: "malas",
  [Standing.BUENAS]: "buenas",
};

/** The label of a button for a legal action (cards are played from the hand, not from these buttons). */
export function actionLabel(command: Command): string {
  const kind = command.kind;
  switch (kind.case) {
    case "playCard":
      return `Jugar ${cardName(kind.value.card)}`;
    case "call":
      return CALL_NAMES[kind.value.call] ?? `Cantar ${CallKind[kind.value.call]}`;
    case "answer":
      return kind.value.accept ? "Quiero" : "No quiero";
    case "goToMazo":
      return "Me voy al mazo";
    case "sendSena":
      return `Seña: ${SENA_NAMES[kind.value.sena] ?? Sena[kind.value.sena]}`;
    case "callPerros":
      return "Echar los perros";
    case "skipPerros":
      return "Repartir sin perros";
    case "answerPerros":
      return `Perros: envido ${kind.value.acceptEnvido ? "quiero" : "no quiero"}, truco ${
        kind.value.acceptTruco ? "quiero" : "no quiero"
      }`;
    default:
      return "?";
  }
}

const SCORE_REASONS: Readonly<Record<number, string>> = {
  [ScoreReason.ENVIDO]: "el envido",
  [ScoreReason.ENVIDO_DECLINED]: "el envido no querido",
  [ScoreReason.FLOR]: "la flor",
  [ScoreReason.FLOR_DECLINED]: "la flor no querida",
  [ScoreReason.HAND]: "la mano",
  [ScoreReason.TRUCO_DECLINED]: "el truco no querido",
  [ScoreReason.MAZO]: "el mazo",
};

/** One line of the table's log for an event, or undefined for events not worth a line. `team` names a team as
 * the subject of a sentence with its verb ("tu equipo suma", "los rivales suman"). */
export function describeEvent(
  event: Event,
  who: (seat: number) => string,
  team: (team: number, singular: string, plural: string) => string,
): string | undefined {
  const kind = event.kind;
  switch (kind.case) {
    case "matchStarted":
      return `Empieza el partido a ${kind.value.rules?.target ?? "?"} puntos.`;
    case "handDealt":
      return `Mano ${kind.value.number}: reparte ${who(kind.value.dealer)}${kind.value.pico ? " (pico a pico)" : ""}.`;
    case "cardPlayed":
      return `${who(kind.value.seat)} juega el ${cardName(kind.value.card)}.`;
    case "roundEnded":
      return kind.value.winnerTeam === undefined
        ? `Ronda ${kind.value.round + 1}: parda.`
        : `Ronda ${kind.value.round + 1}: ${team(kind.value.winnerTeam, "la gana", "la ganan")}.`;
    case "callMade":
      return `${who(kind.value.seat)}: «${CALL_NAMES[kind.value.call] ?? CallKind[kind.value.call]}».`;
    case "callAccepted":
      return `${who(kind.value.seat)}: «Quiero» (${CALL_NAMES[kind.value.call] ?? ""}).`;
    case "callDeclined":
      return `${who(kind.value.seat)}: «No quiero» (${CALL_NAMES[kind.value.call] ?? ""}).`;
    case "florSung":
      return `${who(kind.value.seat)} canta flor.`;
    case "envidoSettled":
      return `Envido: gana ${who(kind.value.winnerSeat)} con ${kind.value.points}.`;
    case "florSettled":
      return kind.value.winnerSeat === undefined ? "Flor: se cobra sin disputa." : `Flor: gana ${who(kind.value.winnerSeat)}.`;
    case "envidoVoided":
      return "El envido no cuenta (hubo flor).";
    case "wentToMazo":
      return `${who(kind.value.seat)} se va al mazo.`;
    case "senaSent":
      return `${who(kind.value.seat)} te hace una seña: ${SENA_NAMES[kind.value.sena] ?? ""}.`;
    case "pointsScored":
      return `${team(kind.value.team, "suma", "suman")} ${kind.value.points} por ${SCORE_REASONS[kind.value.reason] ?? "?"}.`;
    case "handEnded":
      return kind.value.end === HandEnd.MATCH_ENDED ? undefined : "Termina la mano.";
    case "matchEnded":
      return `¡Partido terminado! ${capital(team(kind.value.winnerTeam, "ganó", "ganaron"))}.`;
    case "perrosCalled":
      return `${who(kind.value.seat)} echa los perros.`;
    case "perrosSkipped":
      return `${who(kind.value.seat)} reparte sin perros.`;
    case "perrosAnswered":
      return `${who(kind.value.seat)} contesta los perros.`;
    case "clockExpired":
      return kind.value.forfeit
        ? `A ${who(kind.value.seat).toLowerCase()} se le acabó el tiempo: pierde el partido.`
        : `A ${who(kind.value.seat).toLowerCase()} se le acabó el tiempo: juega un bot por ese asiento.`;
    case "seatLeft":
      return `${who(kind.value.seat)} dejó la mesa.`;
    case "seatResumed":
      return `${who(kind.value.seat)} volvió a la mesa.`;
    default:
      return undefined;
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

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
  API_KEY_REQUIRED: "Este servidor pide una clave de API para crear o unirse a partidos: ponela en la mesa nueva.",
  API_KEY_INVALID: "La clave de API no es válida.",
  API_KEY_REVOKED: "La clave de API fue revocada.",
  SERVER_SHUTTING_DOWN: "El servidor se está reiniciando: la mesa se reconecta sola.",
  STORE_UNAVAILABLE: "El servidor no llega a su base de datos: probá de nuevo en un momento.",
  TOKEN_NOT_FOR_GAME: "Tu asiento no es de este partido.",
  TOKEN_MALFORMED: "El pase de tu asiento no es válido.",
};

/** A clear sentence for a refused call: the reason in words, then the server's own message and the code. */
export function refusal(reason: string, message: string): string {
  const words = REASONS[reason] ?? "El servidor rechazó la jugada.";
  return reason ? `${words} (${reason}: ${message})` : `${words} (${message})`;
}
