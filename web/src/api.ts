// The page's way to the service: one Connect transport to the web port that served the page, the SDK's client,
// the seats this browser holds (kept per game in localStorage, so a reload or the same link resumes a seat), and
// the seat's calls the SDK's client leaves to its generated stubs (GetGame, LeaveGame, ResumeSeat, Rematch).
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  type BotKind,
  type BotLevel,
  ClockPolicy,
  type ClockSettingsSchema,
  GAME_HEADER,
  type Game,
  type SeatView,
  TrucoClient,
  gameName,
  newRequestId,
  toTrucoError,
} from "truco-client";

const API_KEY = "truco:api-key";
const PLAYER_NAME = "truco:player-name";

export const transport = createConnectTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
  interceptors: [
    (next) => async (request) => {
      const key = apiKey();
      if (key) request.header.set("x-api-key", key);
      // Every call about one game names it, so that a balancer keeps the game's calls on one replica: the SDK's
      // client does so itself (its watch included); this covers the calls made on its stubs here.
      const game = request.stream ? undefined : gameOf(request.message);
      if (game) request.header.set(GAME_HEADER, game);
      return next(request);
    },
  ],
});

/** The game a request is about: its `name`, when that is a game's (`games/{id}`). */
function gameOf(message: unknown): string | undefined {
  const name = (message as { name?: unknown }).name;
  return typeof name === "string" && name.startsWith("games/") ? name : undefined;
}

/** A server started with --require-api-key wants a key (`truco keys create`) to create or join games. */
export function apiKey(): string {
  return window.localStorage.getItem(API_KEY) ?? "";
}

export function setApiKey(key: string): void {
  if (key) window.localStorage.setItem(API_KEY, key);
  else window.localStorage.removeItem(API_KEY);
}

/** The name this browser's player goes by at the table. */
export function playerNameKept(): string {
  return window.localStorage.getItem(PLAYER_NAME) ?? "";
}

export function keepPlayerName(name: string): void {
  if (name) window.localStorage.setItem(PLAYER_NAME, name);
}

/** A seat this browser holds. */
export interface Held {
  seat: number;
  token: string;
}

export function heldSeat(game: string): Held | undefined {
  const text = window.localStorage.getItem(`truco:${game}`);
  return text ? (JSON.parse(text) as Held) : undefined;
}

export function holdSeat(game: string, held: Held): void {
  window.localStorage.setItem(`truco:${game}`, JSON.stringify(held));
}

/** The bare id of a game from its name (`games/abc` → `abc`). */
export function gameId(name: string): string {
  return name.replace(/^games\//, "");
}

/** A client acting as `token`'s seat (a spectator without one). */
export function clientFor(token?: string): TrucoClient {
  return new TrucoClient(transport, { token });
}

/** The clock choices of the lobby, as the server's ClockSettings. */
export const CLOCKS = {
  normal: { decision: 30, reserve: 120 },
  fast: { decision: 15, reserve: 60 },
  slow: { decision: 60, reserve: 240 },
  none: { decision: 0, reserve: 0 },
} as const;

export type ClockChoice = keyof typeof CLOCKS;

function clockSettings(choice: ClockChoice): MessageInitShape<typeof ClockSettingsSchema> {
  const { decision, reserve } = CLOCKS[choice];
  if (!decision) return {}; // a zero decision: no clocks
  return { decision: { seconds: BigInt(decision) }, reserve: { seconds: BigInt(reserve) }, onExpiry: ClockPolicy.TAKEOVER };
}

/** CreateGame with what the lobby offers (public listing, clock, bot seats). */
export async function createGame(options: {
  players: number;
  target: number;
  bots: readonly { seat: number; kind: BotKind; level?: BotLevel }[];
  clock: ClockChoice;
  public: boolean;
}): Promise<Game> {
  const client = clientFor();
  const response = await client.games.createGame(
    {
      requestId: newRequestId(),
      rules: { players: options.players, target: options.target },
      bots: [...options.bots],
      public: options.public,
      clock: clockSettings(options.clock),
    },
    { timeoutMs: client.timeoutMs },
  );
  if (!response.game) throw new Error("CreateGame answered without a game");
  return response.game;
}

/** The calls a seat makes with its token that the SDK's client does not wrap. */
export class SeatCalls {
  constructor(
    readonly client: TrucoClient,
    readonly name: string,
  ) {}

  private options(): { headers: Record<string, string>; timeoutMs: number } {
    const headers: Record<string, string> = {};
    if (this.client.token) headers.authorization = `Bearer ${this.client.token}`;
    return { headers, timeoutMs: this.client.timeoutMs };
  }

  async game(): Promise<Game | undefined> {
    return (await this.client.games.getGame({ name: gameName(this.name) }, this.options())).game;
  }

  async leave(): Promise<SeatView | undefined> {
    return (await this.client.games.leaveGame({ name: gameName(this.name) }, this.options())).view;
  }

  async resume(): Promise<SeatView | undefined> {
    return (await this.client.games.resumeSeat({ name: gameName(this.name) }, this.options())).view;
  }

  async rematch(): Promise<{ game: Game | undefined; seat: number }> {
    const response = await this.client.games.rematch({ name: gameName(this.name) }, this.options());
    return { game: response.game, seat: response.seat };
  }
}

export { toTrucoError };
