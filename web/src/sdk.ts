// The part of a TypeScript client the web table needs, over the Connect-ES stubs generated into ./gen by
// web/gen.sh (protoc-gen-es). A seat client sends its token as `authorization: Bearer <token>`; failures become
// typed errors carrying the ErrorInfo reason; watch() reopens a broken stream after the last version delivered.
import { create } from "@bufbuild/protobuf";
import { Code, type CallOptions, type Client, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { type Card, Suit } from "./gen/truco/v1/cards_pb.js";
import type { Command } from "./gen/truco/v1/commands_pb.js";
import { BotKind, type Game, GameService, type GetGameViewResponse, type SubmitCommandResponse, type WatchGameResponse } from "./gen/truco/v1/game_service_pb.js";
import { RuleSetSchema } from "./gen/truco/v1/rules_pb.js";
import type { SeatView } from "./gen/truco/v1/views_pb.js";

export * from "./gen/truco/v1/cards_pb.js";
export * from "./gen/truco/v1/commands_pb.js";
export * from "./gen/truco/v1/events_pb.js";
export * from "./gen/truco/v1/game_service_pb.js";
export * from "./gen/truco/v1/rules_pb.js";
export * from "./gen/truco/v1/views_pb.js";

const LETTERS: Partial<Record<Suit, string>> = { [Suit.ESPADA]: "e", [Suit.BASTO]: "b", [Suit.ORO]: "o", [Suit.COPA]: "c" };

/** A card in the project's notation: "1e", "12c". */
export function cardText(card: Card): string {
  return `${card.rank}${LETTERS[card.suit] ?? "?"}`;
}

/** A refused call: the status code, the ErrorInfo reason (a stable code such as NOT_YOUR_TURN) and message. */
export class TrucoError extends Error {
  constructor(
    readonly code: Code,
    readonly reason: string,
    readonly rawMessage: string,
  ) {
    super(`${Code[code]}${reason ? ` ${reason}` : ""}: ${rawMessage}`);
    this.name = new.target.name;
  }
}
export class NotFound extends TrucoError {}
export class PermissionDenied extends TrucoError {}
export class Unauthenticated extends TrucoError {}

const CLASSES: Partial<Record<Code, typeof TrucoError>> = {
  [Code.NotFound]: NotFound,
  [Code.PermissionDenied]: PermissionDenied,
  [Code.Unauthenticated]: Unauthenticated,
};

export function toTrucoError(error: unknown): TrucoError {
  if (error instanceof TrucoError) return error;
  const connect = ConnectError.from(error);
  const info = connect.findDetails(ErrorInfoSchema)[0];
  const cls = CLASSES[connect.code] ?? TrucoError;
  return new cls(connect.code, info?.reason ?? "", connect.rawMessage);
}

const BOTS: Record<string, BotKind> = { random: BotKind.RANDOM, heuristic: BotKind.HEURISTIC };

export class TrucoClient {
  private readonly games: Client<typeof GameService>;
  private token: string | undefined;

  constructor(transport: Transport, options: { token?: string } = {}) {
    this.games = createClient(GameService, transport);
    this.token = options.token;
  }

  private call(): CallOptions {
    return { timeoutMs: 10_000, headers: this.token ? { authorization: `Bearer ${this.token}` } : {} };
  }

  private async unary<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toTrucoError(error);
    }
  }

  async createGame(options: { rules: { players: number; target: number }; bots: Record<number, string> }): Promise<Game> {
    const bots = Object.entries(options.bots).map(([seat, kind]) => ({ seat: Number(seat), kind: BOTS[kind] }));
    const requestId = crypto.randomUUID();
    const response = await this.unary(() => this.games.createGame({ requestId, rules: create(RuleSetSchema, options.rules), bots }, this.call()));
    if (!response.game) throw new Error("CreateGame answered without a game");
    return response.game;
  }

  async joinGame(name: string, options: { seat?: number; playerName?: string } = {}): Promise<{ seat: number; token: string; view: SeatView | undefined }> {
    const requestId = crypto.randomUUID();
    const response = await this.unary(() => this.games.joinGame({ name, requestId, seat: options.seat, playerName: options.playerName ?? "" }, this.call()));
    this.token = response.seatToken;
    return { seat: response.seat, token: response.seatToken, view: response.view };
  }

  getView(name: string): Promise<GetGameViewResponse> {
    return this.unary(() => this.games.getGameView({ name }, this.call()));
  }

  submit(name: string, command: Command, options: { expectedVersion?: bigint } = {}): Promise<SubmitCommandResponse> {
    const requestId = crypto.randomUUID();
    return this.unary(() => this.games.submitCommand({ name, requestId, expectedVersion: options.expectedVersion ?? 0n, command }, this.call()));
  }

  /** Every event after `afterVersion`; a stream broken by UNAVAILABLE is reopened (up to 4 times in a row). */
  async *watch(name: string, afterVersion: bigint, options: { signal?: AbortSignal; onResume?: () => void } = {}): AsyncGenerator<WatchGameResponse> {
    let last = afterVersion;
    for (let failures = 0; !options.signal?.aborted; ) {
      try {
        const headers: Record<string, string> = this.token ? { authorization: `Bearer ${this.token}` } : {};
        for await (const item of this.games.watchGame({ name, afterVersion: last }, { headers, signal: options.signal, timeoutMs: 0 })) {
          failures = 0;
          if (item.event && item.event.version > last) last = item.event.version;
          yield item;
        }
        return;
      } catch (error) {
        if (options.signal?.aborted) return;
        const failure = toTrucoError(error);
        if (failure.code !== Code.Unavailable || failures >= 4) throw failure;
        options.onResume?.();
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** failures++));
    }
  }
}
