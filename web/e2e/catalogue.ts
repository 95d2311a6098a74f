// Every message the page can show, made by src/text.ts for every case: each kind of event (enumerated from the
// protocol's Event message, so a new kind cannot be forgotten) with every value of its seats, teams, calls, señas
// and reasons, as the viewer, a rival and a partner see it and as a spectator does; every button, refusal,
// status, panel line, summary, clock, banner and label. e2e/messages.test.mjs bundles this file with Vite and
// checks each message's voseo, capitals and punctuation.
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import {
  BotLevel,
  CallKind,
  CardSchema,
  type Command,
  CommandSchema,
  type Event,
  EventSchema,
  HandEnd,
  HandSummarySchema,
  ScoreReason,
  Sena,
  Suit,
} from "truco-client";
import * as text from "../src/text";

export interface Message {
  /** Where it comes from, for the test's report. */
  source: string;
  text: string;
  /** The seat the sentence is about, when it is the viewer's own (its verbs must be in the vos form). */
  aboutViewer: boolean;
}

const NAMES = ["Ana", "Tito", "Marta", "Beto", "Nené", "Cacho"];
const PLAYER: text.Seating = { me: 0, name: (seat) => NAMES[seat] };
const PARTNER_VIEW: text.Seating = { me: 2, name: (seat) => NAMES[seat] };
const SPECTATOR: text.Seating = { me: undefined, name: (seat) => NAMES[seat] };
const AWAY: text.Seating = { me: 0, name: (seat) => NAMES[seat], isAway: (seat) => seat === 0 || seat === 1 };
const SEATINGS: [string, text.Seating][] = [
  ["seat 0", PLAYER],
  ["seat 2", PARTNER_VIEW],
  ["spectator", SPECTATOR],
  ["seat 0, bots playing seats 0 and 1", AWAY],
];
const CARD = create(CardSchema, { rank: 7, suit: Suit.ORO });
const CARDS = [CARD, create(CardSchema, { rank: 1, suit: Suit.ESPADA }), create(CardSchema, { rank: 12, suit: Suit.COPA })];

function values(enumObject: object): number[] {
  return Object.values(enumObject).filter((v): v is number => typeof v === "number" && v !== 0);
}

/** The values worth trying for a field of an event's message (every seat viewpoint, every enum value...). */
function fieldValues(field: DescField): unknown[] {
  if (field.fieldKind === "enum") return field.enum.values.map((v) => v.number).filter((n) => n !== 0);
  if (field.fieldKind === "scalar") {
    if (field.scalar === ScalarType.BOOL) return [true, false];
    const name = field.localName;
    if (/seat|dealer/i.test(name)) return field.proto.proto3Optional ? [0, 1, 2, undefined] : [0, 1, 2];
    if (/team/i.test(name)) return field.proto.proto3Optional ? [0, 1, undefined] : [0, 1];
    if (name === "round") return [0, 1, 2];
    if (name === "points") return field.proto.proto3Optional ? [1, 33, undefined] : [1, 33];
    if (name === "number") return [3];
    if (name === "deadlineUs") return [1n];
    return [undefined];
  }
  if (field.fieldKind === "message") {
    if (field.message.typeName === "truco.v1.Card") return [CARD];
    if (field.message.typeName === "truco.v1.RuleSet") return [{ players: 4, target: 30 }];
    if (field.message.typeName === "truco.v1.CardProof") return [{ card: CARD }];
    return [undefined];
  }
  return [undefined];
}

/** Every combination of the fields' values for one message. */
function combinations(message: DescMessage): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const field of message.fields) {
    const options = fieldValues(field);
    out = out.flatMap((partial) => options.map((value) => (value === undefined ? partial : { ...partial, [field.localName]: value })));
  }
  return out;
}

function events(): Event[] {
  const kind = EventSchema.oneofs.find((oneof) => oneof.name === "kind");
  if (!kind) throw new Error("Event has no kind oneof");
  return kind.fields.flatMap((field) => {
    if (field.fieldKind !== "message") return [];
    return combinations(field.message).map((value) =>
      create(EventSchema, { version: 5n, kind: { case: field.localName, value: create(field.message, value) } } as never),
    );
  });
}

/** The event kinds of the protocol, by their oneof case: a test checks each has a line (or is silent on purpose). */
export function eventKinds(): string[] {
  return EventSchema.oneofs.find((oneof) => oneof.name === "kind")?.fields.map((field) => field.localName) ?? [];
}

function commands(): Command[] {
  const make = (kind: Command["kind"]) => create(CommandSchema, { kind } as never);
  return [
    make({ case: "playCard", value: { card: CARD } } as never),
    ...values(CallKind).map((call) => make({ case: "call", value: { call } } as never)),
    make({ case: "answer", value: { accept: true } } as never),
    make({ case: "answer", value: { accept: false } } as never),
    make({ case: "goToMazo", value: {} } as never),
    ...values(Sena).map((sena) => make({ case: "sendSena", value: { sena } } as never)),
    make({ case: "callPerros", value: {} } as never),
    make({ case: "skipPerros", value: {} } as never),
    ...[true, false].flatMap((acceptEnvido) => [true, false].map((acceptTruco) => make({ case: "answerPerros", value: { acceptEnvido, acceptTruco } } as never))),
  ];
}

function eventSeat(event: Event): number | undefined {
  const value = event.kind.value as Record<string, unknown> | undefined;
  const seat = value?.seat ?? value?.winnerSeat ?? value?.dealer;
  return typeof seat === "number" ? seat : undefined;
}

export function everyMessage(): Message[] {
  const out: Message[] = [];
  const add = (source: string, value: string | undefined, aboutViewer = false) => {
    if (value !== undefined) out.push({ source, text: value, aboutViewer });
  };
  for (const [key, value] of Object.entries(text.UI)) add(`UI.${key}`, value);
  add("UNREACHABLE", text.UNREACHABLE);
  for (const code of [...text.REASON_CODES, "SOMETHING_NEW", ""]) add(`refusal ${code}`, text.refusal(code, "the server's own message"));
  for (const command of commands()) add(`action ${command.kind.case}`, text.actionLabel(command));
  for (const standing of Object.values(text.STANDING_NAMES)) add("standing", standing);
  for (const n of [2, 4, 6]) add("players option", text.playersOption(n));
  for (const n of [15, 30]) add("target option", text.targetOption(n));
  add("table line", text.tableLine(4, 30));
  for (const open of [1, 2]) add("open table", text.openTableLine(4, 30, open));
  for (const taken of [[], ["Ana"], ["Ana", text.botLabel(1), text.botLabel(3, BotLevel.EXPERT)]]) add("open table seats", text.openTableSeats(taken));
  for (let seat = 0; seat < 6; seat++) add("bot label", text.botLabel(seat));
  add("join title", text.joinTitle("0123456789abcdef"));
  // Jugar ya and the ranking.
  for (const [key, value] of Object.entries(text.QUICK)) add(`QUICK.${key}`, value);
  for (const code of Object.keys(text.PLAYER_REASONS)) add(`refusal ${code}`, text.refusal(code, "the server's own message"));
  for (const seconds of [0, 12.7]) add("waited", text.waitedLine(seconds));
  add("window", text.windowLine(-3.25, 9.8));
  for (const n of [2, 4, 6]) add("ranking tab", text.rankingTab(n));
  for (const total of [0, 1, 12]) add("ranked", text.rankedLine(total));
  add("my place", text.myPlaceLine(7, 12.44));
  add("match line", text.matchLine(4, [30, 21], new Date(2026, 11, 6, 14, 5)));
  add("match line without scores", text.matchLine(2, [], undefined));
  add("piezas", text.piezasLine([2, 4, 5, 11, 10].map((rank) => ({ ...CARD, rank }))));
  for (const ms of [0, 1500, 23_000, 125_000]) {
    add("clock", text.clockLabel("decision", ms));
    add("reserve", text.clockLabel("reserve", ms));
  }
  for (const reason of ["clock", "left", undefined] as const) {
    add("away label", text.awayLabel(reason));
    add("away banner", text.awayBanner(reason), true);
  }
  for (const open of [1, 2, 5]) add("missing players", text.missingLine(open));
  for (const [viewpoint, seating] of SEATINGS) {
    for (const team of [0, 1]) {
      for (const before of [0, 27, 29]) {
        const counted: text.Seating = { ...seating, name: seating.name, scoreBefore: () => before, target: 30 };
        for (const reason of [ScoreReason.FLOR_DECLINED, ScoreReason.ENVIDO, ScoreReason.HAND]) {
          for (const points of [1, 3]) add(`points (${viewpoint})`, text.pointsLine(counted, team, points, reason));
        }
      }
    }
  }
  for (const ms of [undefined, 0, 4_000, 290_000]) {
    add("grace (viewer)", text.graceLine(ms, true), true);
    add("grace (others)", text.graceLine(ms, false));
  }
  for (const tantos of [
    { envido: 27, florSung: false, envidoClosed: false },
    { envido: 27, florSung: false, envidoClosed: true },
    { flor: 33, florSung: false, envidoClosed: true },
    { flor: 33, florSung: true, envidoClosed: true },
  ]) add("tantos", text.tantosLine(tantos), true);
  for (const [viewpoint, seating] of SEATINGS) {
    for (const event of events()) {
      const seat = eventSeat(event);
      add(`event ${event.kind.case} (${viewpoint})`, text.describeEvent(event, seating), seat !== undefined && seat === seating.me);
    }
    add(`mini score (${viewpoint})`, text.miniScore(seating, [{ team: 0, points: 12 }, { team: 1, points: 17 }]));
    for (const seat of [0, 1, 2]) {
      const mine = seat === seating.me;
      add(`shown (${viewpoint})`, text.shownLine(seating, seat, CARDS), mine);
      add(`summary envido (${viewpoint})`, text.summaryEnvido(seating, seat, 31), mine);
      add(`summary flor (${viewpoint})`, text.summaryFlor(seating, seat, 35), mine);
      add(`seña received (${viewpoint})`, text.senaReceived(seating, seat, Sena.PIEZA_4));
    }
    for (const over of [true, false]) {
      for (const winnerTeam of [0, 1, undefined]) {
        for (const [myTurn, answering] of [[true, true], [true, false], [false, false]]) {
          for (const waitingFor of [[], [1], [1, 3], [0, 1]]) {
            add(`status (${viewpoint})`, text.statusLine(seating, { over, winnerTeam, myTurn, answering, waitingFor }));
            for (const standIn of [[1], [1, 3]]) {
              add(`status, stand-in (${viewpoint})`, text.statusLine(seating, { over, winnerTeam, myTurn, answering, waitingFor, standIn }));
            }
            if (!over) add(`status, away (${viewpoint})`, text.statusLine(seating, { over, winnerTeam, myTurn, answering, waitingFor, away: true }), true);
          }
        }
      }
    }
    for (const pendingSeat of [undefined, 0, 1]) {
      for (const trucoValue of [1, 2, 4]) {
        for (const envido of [[], [CallKind.ENVIDO, CallKind.REAL_ENVIDO]]) {
          for (const florSung of [[], [0], [1], [1, 3]]) {
            for (const envidoWinner of [undefined, { seat: 0, points: 31 }, { seat: 1, points: 28 }]) {
              const lines = text.callLines(seating, {
                pending: pendingSeat === undefined ? undefined : { call: CallKind.TRUCO, seat: pendingSeat, team: pendingSeat % 2 },
                trucoValue,
                trucoOwner: trucoValue > 1 ? 1 : undefined,
                envidoChain: envido,
                envidoClosed: envidoWinner !== undefined || florSung.length > 0,
                envidoWinner,
                florSung,
                perrosPending: trucoValue === 4,
              });
              for (const line of lines) add(`calls (${viewpoint})`, line);
            }
          }
        }
      }
    }
    for (const end of values(HandEnd)) {
      for (const winnerTeam of [0, 1, undefined]) {
        const summary = create(HandSummarySchema, { number: 4, end, winnerTeam });
        add(`summary title (${viewpoint})`, text.summaryTitle(seating, summary));
        const ended = text.summaryEnd(summary);
        if (ended) add("summary end", ended);
      }
    }
    for (let round = 0; round < 3; round++) {
      for (const winner of [0, 1, undefined]) add(`summary round (${viewpoint})`, text.summaryRound(seating, round, winner));
      add("summary unfinished", text.summaryUnfinished(round));
    }
    for (const reason of values(ScoreReason)) {
      for (const points of [1, 3]) add(`summary score (${viewpoint})`, text.summaryScore(seating, 1, points, reason));
    }
  }
  return out;
}
