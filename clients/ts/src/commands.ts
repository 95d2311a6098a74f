/**
 * Commands for `TrucoClient.submit`, and helpers to pick one of a view's legal actions.
 *
 * A seat view's `legalActions` are exactly the commands the server accepts from that seat at that version, so
 * the safest bot picks among them; {@link pickAction} does that with a preference order.
 */
import { create } from "@bufbuild/protobuf";
import { type CardLike, card, cardText, sameCard } from "./cards.js";
import { CallKind, type Command, CommandSchema, Sena } from "./gen/truco/v1/commands_pb.js";
import type { SeatView } from "./gen/truco/v1/views_pb.js";

/**
 * Whether the match waits for this seat: it is in `public.toAct` (its card, its team's answer, its perros decision).
 * Legal actions alone are not a turn: a seña is legal out of turn.
 */
export function isMyTurn(view: SeatView | undefined): boolean {
  return view !== undefined && (view.public?.toAct ?? []).includes(view.seat);
}

/** The name of a command's kind: "playCard", "call", "answer", "goToMazo", "sendSena", "callPerros", ... */
export type CommandKind = NonNullable<Command["kind"]["case"]>;

/** Play a card from the hand. */
export function play(value: CardLike): Command {
  return create(CommandSchema, { kind: { case: "playCard", value: { card: card(value) } } });
}

/** Call truco, retruco, vale cuatro, an envido or a flor raise. */
export function call(kind: CallKind): Command {
  return create(CommandSchema, { kind: { case: "call", value: { call: kind } } });
}

/** Quiero (true) or no quiero (false) to the call pending against the seat's team. */
export function answer(accept: boolean): Command {
  return create(CommandSchema, { kind: { case: "answer", value: { accept } } });
}

/** Me voy al mazo. */
export function mazo(): Command {
  return create(CommandSchema, { kind: { case: "goToMazo", value: {} } });
}

/** A seña to the seat's teammates. */
export function sena(kind: Sena): Command {
  return create(CommandSchema, { kind: { case: "sendSena", value: { sena: kind } } });
}

/** Echar los perros. */
export function perros(): Command {
  return create(CommandSchema, { kind: { case: "callPerros", value: {} } });
}

/** Deal without perros. */
export function skipPerros(): Command {
  return create(CommandSchema, { kind: { case: "skipPerros", value: {} } });
}

/** The rivals' answer to the perros. */
export function answerPerros(acceptEnvido: boolean, acceptTruco: boolean): Command {
  return create(CommandSchema, { kind: { case: "answerPerros", value: { acceptEnvido, acceptTruco } } });
}

/** A short English description of a command ("play 1e", "call TRUCO", "quiero"). */
export function describe(command: Command): string {
  const kind = command.kind;
  switch (kind.case) {
    case "playCard":
      return kind.value.card ? `play ${cardText(kind.value.card)}` : "play (no card)";
    case "call":
      return `call ${CallKind[kind.value.call]}`;
    case "answer":
      return kind.value.accept ? "quiero" : "no quiero";
    case "goToMazo":
      return "me voy al mazo";
    case "sendSena":
      return `seña ${Sena[kind.value.sena]}`;
    case "callPerros":
      return "echar los perros";
    case "skipPerros":
      return "deal without perros";
    case "answerPerros":
      return `answer perros: envido ${kind.value.acceptEnvido ? "quiero" : "no quiero"}, truco ${
        kind.value.acceptTruco ? "quiero" : "no quiero"
      }`;
    default:
      return "empty command";
  }
}

/** The legal actions of a view of the given kinds ("playCard", "answer"...), in the server's order. */
export function legalOf(view: SeatView | undefined, ...kinds: CommandKind[]): Command[] {
  return (view?.legalActions ?? []).filter((action) => kinds.includes(action.kind.case as CommandKind));
}

/** Whether `command` is among the view's legal actions (same kind and content). */
export function isLegal(view: SeatView | undefined, command: Command): boolean {
  return (view?.legalActions ?? []).some((action) => sameCommand(action, command));
}

/** Whether two commands are the same command. */
export function sameCommand(a: Command, b: Command): boolean {
  if (a.kind.case !== b.kind.case) {
    return false;
  }
  if (a.kind.case === "playCard" && b.kind.case === "playCard") {
    return a.kind.value.card !== undefined && b.kind.value.card !== undefined && sameCard(a.kind.value.card, b.kind.value.card);
  }
  return JSON.stringify(a.kind.value, jsonSafe) === JSON.stringify(b.kind.value, jsonSafe);
}

function jsonSafe(key: string, value: unknown): unknown {
  return key === "$typeName" ? undefined : typeof value === "bigint" ? value.toString() : value;
}

/** What {@link pickAction} prefers, first to last; a preference names a command kind or an exact answer. */
export type Preference = CommandKind | "quiero" | "noQuiero";

/**
 * A plain bot's preferences: play a card, accept what is called, deal without perros, never go to the mazo unless
 * nothing else is legal.
 */
export const PLAIN_BOT: readonly Preference[] = ["playCard", "quiero", "skipPerros", "answerPerros", "answer", "call"];

/**
 * One of the view's legal actions: the first that matches the earliest preference, else the first legal action
 * that is not the mazo, else the mazo. `undefined` when the seat has nothing to do (not its turn, match over).
 * `random` (0 <= x < 1) picks among the matches of a preference instead of taking the first.
 */
export function pickAction(
  view: SeatView | undefined,
  preferences: readonly Preference[] = PLAIN_BOT,
  random?: () => number,
): Command | undefined {
  const actions = view?.legalActions ?? [];
  if (actions.length === 0) {
    return undefined;
  }
  const choose = (found: Command[]): Command =>
    random === undefined ? found[0] : found[Math.floor(random() * found.length) % found.length];
  for (const preference of preferences) {
    const found = actions.filter((action) => matches(action, preference));
    if (found.length > 0) {
      return choose(found);
    }
  }
  const notMazo = actions.filter((action) => action.kind.case !== "goToMazo");
  return choose(notMazo.length > 0 ? notMazo : actions);
}

/**
 * The example bots' policy, the same in every SDK: decline a falta envido or a contra flor al resto (they can end
 * the match at once), otherwise {@link pickAction} with {@link PLAIN_BOT} on the seat's turn (never a seña).
 */
export function plainBot(view: SeatView | undefined): Command | undefined {
  const pending = view?.public?.hand?.pending?.call;
  if (pending === CallKind.FALTA_ENVIDO || pending === CallKind.CONTRA_FLOR_AL_RESTO) {
    const declined = pickAction(view, ["noQuiero"]);
    if (declined?.kind.case === "answer" && !declined.kind.value.accept) {
      return declined;
    }
  }
  return isMyTurn(view) ? pickAction(view, PLAIN_BOT) : undefined;
}

function matches(action: Command, preference: Preference): boolean {
  if (preference === "quiero" || preference === "noQuiero") {
    return action.kind.case === "answer" && action.kind.value.accept === (preference === "quiero");
  }
  return action.kind.case === preference;
}
