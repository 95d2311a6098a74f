/**
 * A client of the Truco service over any Connect transport: gRPC over HTTP/2 in Node
 * (`createNodeTransport` from "truco-client/node"), or a browser transport (Connect-Web) for a gateway that
 * speaks gRPC-Web. This module imports nothing of Node's.
 *
 * One client plays one seat: {@link TrucoClient.joinGame} keeps the seat token and sends it, as
 * `authorization: Bearer <token>`, on every later call. Every call has a deadline; UNAVAILABLE (and
 * DEADLINE_EXCEEDED, every call here being idempotent) is retried with backoff and jitter, and a retried write
 * sends the same request id, which the server applies once (so is a CANCELLED the client did not ask for, which
 * a stopping server sends). A call a quota refused (RESOURCE_EXHAUSTED with a google.rpc.RetryInfo) is sent again,
 * the same request, after the delay the server asked for when it is at most `maxQuotaWaitMs`. Failures reject with
 * the typed errors of ./errors.ts. {@link TrucoClient.playTurn} re-reads the view on ABORTED;
 * {@link TrucoClient.watch} reopens a broken stream after the last version it delivered, and so does a PlayGame
 * session ({@link TrucoClient.play}, ./session.ts: a seat's whole match on one bidirectional stream, over HTTP/2).
 *
 * Every RPC of the service has one method here ({@link WRAPPERS}), with the helpers every SDK has: the turn helper
 * (playTurn, isMyTurn), resuming watches and sessions, legal-action pickers (./commands.ts), proof checks
 * (./proofs.ts) and the versions seen.
 *
 * A player: a client made with `playerToken` (the short-lived JWT an app's backend signs for one of its players)
 * sends it as `x-player-token` ({@link PLAYER_HEADER}) on every call, so the seats it takes are that player's and
 * its calls count against the player's quota; PlayerService's calls (quick match, ratings, rankings, history)
 * are wrapped here too, and {@link TrucoClient.quickMatch} follows a ticket to its match.
 *
 * Every call about one game (all but CreateGame, ListGames and the rules calculator) names it in the header
 * `x-truco-game: games/{id}` ({@link GAME_HEADER}): a load balancer that hashes it keeps a game's calls on one
 * replica, which then answers from memory.
 *
 * Reads (views, legal actions) send the newest version of the game the client has seen (in any reply, VERSION_CONFLICT
 * or watched event; of at most 1,024 games, the least recently seen forgotten first) as `minVersion`: the answer is
 * never older than that, even from another replica than the one that took the client's move, and a replica that
 * already holds it answers from memory.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type CallOptions, Code, type Client, createClient, type Transport } from "@connectrpc/connect";
import { type CardLike, card, parseCards } from "./cards.js";
import { plainBot } from "./commands.js";
import { commitEvents, perEvent } from "./commits.js";
import { fullDuplexOf } from "./duplex.js";
import { isRetried, NoMatch, ResourceExhausted, SessionUnsupported, type TrucoError, toTrucoError, VersionConflict } from "./errors.js";
import type { Command } from "./gen/truco/v1/commands_pb.js";
import {
  BotKind,
  BotLevel,
  type ClockSettingsSchema,
  type FixedDeal,
  type Game,
  GameService,
  type GetGameViewResponse,
  type ListLegalActionsResponse,
  type RematchResponse,
  type StartWithBotsResponse,
  type SubmitCommandResponse,
  type WatchGameResponse,
} from "./gen/truco/v1/game_service_pb.js";
import {
  type FindMatchResponse,
  type ListLeaderboardResponse,
  type ListPlayerMatchesResponse,
  type MatchTicket,
  type Player,
  PlayerService,
  TicketState,
} from "./gen/truco/v1/players_pb.js";
import type { RuleSetSchema } from "./gen/truco/v1/rules_pb.js";
import {
  type CompareCardsResponse,
  type EvaluateHandResponse,
  RulesService,
} from "./gen/truco/v1/rules_service_pb.js";
import { Phase, type SeatView } from "./gen/truco/v1/views_pb.js";
import { GameSession, type PlayOptions, type SessionHost } from "./session.js";
import { parseVersion, VersionsSeen } from "./versions.js";

export { commitEvents, perEvent } from "./commits.js";
export { GameSession, type PlayOptions, type SessionSubmitOptions } from "./session.js";

/** The server's bots by name, for `createGame({ bots: { 1: "heuristic" } })`. */
export const BOT_KINDS: Readonly<Record<string, BotKind>> = { random: BotKind.RANDOM, heuristic: BotKind.HEURISTIC };

/** The server bots' playing strengths by name, for `createGame({ botLevel: "expert" })`. */
export const BOT_LEVELS: Readonly<Record<string, BotLevel>> = {
  beginner: BotLevel.BEGINNER,
  intermediate: BotLevel.INTERMEDIATE,
  expert: BotLevel.EXPERT,
};

/** The header naming the game a call is about (`games/{id}`), for load balancers' game affinity. */
export const GAME_HEADER = "x-truco-game";

/** The header carrying a player token (a JWT an app's backend signed for one of its players). */
export const PLAYER_HEADER = "x-player-token";

/** The {@link TrucoClient} method that wraps each RPC of the service (a test checks none is missing). */
export const WRAPPERS: Readonly<Record<string, keyof TrucoClient>> = {
  "truco.v1.GameService/CreateGame": "createGame",
  "truco.v1.GameService/JoinGame": "joinGame",
  "truco.v1.GameService/GetGameView": "getView",
  "truco.v1.GameService/ListLegalActions": "legalActions",
  "truco.v1.GameService/SubmitCommand": "submit",
  "truco.v1.GameService/WatchGame": "watch",
  "truco.v1.GameService/ListGames": "listGames",
  "truco.v1.GameService/GetGame": "getGame",
  "truco.v1.GameService/LeaveGame": "leaveGame",
  "truco.v1.GameService/ResumeSeat": "resumeSeat",
  "truco.v1.GameService/Rematch": "rematch",
  "truco.v1.GameService/PlayGame": "play",
  "truco.v1.GameService/StartWithBots": "startWithBots",
  "truco.v1.RulesService/EvaluateHand": "evaluateHand",
  "truco.v1.RulesService/CompareCards": "compareCards",
  "truco.v1.PlayerService/FindMatch": "findMatch",
  "truco.v1.PlayerService/CancelMatch": "cancelMatch",
  "truco.v1.PlayerService/GetPlayer": "getPlayer",
  "truco.v1.PlayerService/ListLeaderboard": "listLeaderboard",
  "truco.v1.PlayerService/ListPlayerMatches": "listPlayerMatches",
};

/** How a {@link TrucoClient} calls. */
export interface ClientOptions {
  /** A seat token to act as that seat (unset: a spectator until joinGame). */
  token?: string;
  /** The app's API key (`truco keys create`), sent as `x-api-key` on every call; servers may require one. */
  apiKey?: string;
  /**
   * A player token: the JWT the app's backend signed for this player, sent as `x-player-token` on every call
   * (the seats this client takes are the player's; PlayerService's FindMatch and CancelMatch need one).
   */
  playerToken?: string;
  /** The deadline of each attempt of a call, in milliseconds (default 10000). */
  timeoutMs?: number;
  /** How many times a retryable failure is retried (default 4, so at most 5 attempts). */
  retries?: number;
  /** The first retry's delay in milliseconds (default 100); each later one doubles, up to maxBackoffMs. */
  backoffMs?: number;
  /** The longest delay between two attempts (default 3000). Each delay is jittered between half and all of it. */
  maxBackoffMs?: number;
  /**
   * A call a quota refused is sent again after the server's RetryInfo delay when that delay is at most this long
   * (default 10000 ms); a longer one rejects with ResourceExhausted at once.
   */
  maxQuotaWaitMs?: number;
  /**
   * Whether the transport streams both ways at once (HTTP/2), which {@link TrucoClient.play} needs. Default: what
   * `createNodeTransport` made the transport for (gRPC, or HTTP/2: yes; Connect or gRPC-Web over HTTP/1.1: no); for
   * another transport, yes in Node (and runtimes like it), no in a browser, whose fetch has no full-duplex streams.
   */
  fullDuplex?: boolean;
}

/** A seat taken with {@link TrucoClient.joinGame}. */
export interface JoinResult {
  /** The seat (0 .. players-1). */
  seat: number;
  /** The seat token; the server cannot show it again. */
  token: string;
  /** The seat's view right after joining. */
  view: SeatView;
}

/** What {@link TrucoClient.playTurn} did. */
export interface Turn {
  /** The command sent. */
  command: Command;
  /** The server's reply: the version after it (and any bot moves) and the seat's view. */
  response: SubmitCommandResponse;
  /** How many times the game had moved on (ABORTED) and the view was read again first. */
  conflicts: number;
}

/** Options of {@link TrucoClient.watch}. */
export interface WatchOptions {
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Called each time a broken stream is reopened, with the version it resumes after. */
  onResume?: (afterVersion: bigint, error: TrucoError) => void;
  /** {@link TrucoClient.watchCommits} only: also yield a message with no events, holding the view at the same
   * version, when the table changes without a move (a seat taken while it fills: read GetGame for the names). */
  tableChanges?: boolean;
}

/** Options of {@link TrucoClient.findMatch} and {@link TrucoClient.quickMatch}: the ticket asked for. */
export interface FindMatchOptions {
  /** The rules wanted; `players` is the table size (2, 4 or 6). */
  rules?: MessageInitShape<typeof RuleSetSchema>;
  /** The `sub`s of the party's other players, who sit on this player's team (each opens its own ticket). */
  party?: string[];
  /** How long to wait for a match (5 s to 10 min; the server's default, 2 min, when unset). */
  maxWaitMs?: number;
  /** After waiting this long the server's bots may fill the free seats (the match is then unrated). */
  botsAfterMs?: number;
  /** The strength of the bots that fill seats ("beginner", "intermediate", "expert", or a BotLevel). */
  botLevel?: string | BotLevel;
  /** The ticket's idempotency key (a fresh UUID by default), sent again when a broken stream is reopened. */
  requestId?: string;
  /** Abandons the ticket: the stream closes (which cancels it on the server). */
  signal?: AbortSignal;
  /** Called each time a broken stream is reopened (it follows the same ticket). */
  onResume?: (error: TrucoError) => void;
}

/** What {@link TrucoClient.quickMatch} found. */
export interface QuickMatch {
  /** The game (`games/{id}`), created with every seat taken. */
  game: string;
  /** This player's seat in it. */
  seat: number;
  /** A client acting as that seat (its seat token, and this client's player token and API key). */
  client: TrucoClient;
  /** The ticket, MATCHED. */
  ticket: MatchTicket;
}

/** The resource name `players/{sub}`, from it or from the bare `sub` ("me": the caller's own player). */
export function playerName(name: string): string {
  return name.startsWith("players/") ? name : `players/${name}`;
}

/** A Duration message of `ms` milliseconds. */
function duration(ms: number): { seconds: bigint; nanos: number } {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: Math.round(ms % 1000) * 1_000_000 };
}

/** The states a ticket ends in: its stream sends nothing after one. */
const FINAL_TICKET_STATES: readonly TicketState[] = [TicketState.MATCHED, TicketState.EXPIRED, TicketState.CANCELLED];

/** The resource name `games/{game}`, from it or from the bare id. */
export function gameName(name: string): string {
  return name.startsWith("games/") ? name : `games/${name}`;
}

/** A fresh request id (a UUID4). */
export function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}

/** Whether a view's match is over. */
export function isOver(view: SeatView | undefined): boolean {
  return view?.public?.phase === Phase.MATCH_OVER;
}

/** A client of GameService, RulesService and PlayerService over one Connect transport. */
export class TrucoClient {
  readonly games: Client<typeof GameService>;
  readonly rules: Client<typeof RulesService>;
  readonly players: Client<typeof PlayerService>;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxQuotaWaitMs: number;
  readonly apiKey: string | undefined;
  /** The player token sent as `x-player-token` on every call, if any. */
  readonly playerToken: string | undefined;
  /** Whether the transport streams both ways at once (HTTP/2): {@link TrucoClient.play} needs it. */
  readonly fullDuplex: boolean;
  private currentToken: string | undefined;
  /** The newest version of each game seen, shared with the clients {@link TrucoClient.withToken} makes. */
  private seen = new VersionsSeen();

  constructor(
    readonly transport: Transport,
    options: ClientOptions = {},
  ) {
    this.games = createClient(GameService, transport);
    this.rules = createClient(RulesService, transport);
    this.players = createClient(PlayerService, transport);
    this.currentToken = options.token;
    this.apiKey = options.apiKey;
    this.playerToken = options.playerToken;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 3_000;
    this.maxQuotaWaitMs = options.maxQuotaWaitMs ?? 10_000;
    this.fullDuplex = options.fullDuplex ?? fullDuplexOf(transport) ?? isNodeLike();
    if (this.timeoutMs <= 0 || this.retries < 0) {
      throw new RangeError("timeoutMs must be positive and retries 0 or more");
    }
  }

  /** The seat token sent with every call, if any. */
  get token(): string | undefined {
    return this.currentToken;
  }

  /**
   * Another client on the same transport acting as the seat of `token` (a spectator for undefined). Both share the
   * versions seen: neither reads older than what either saw.
   */
  withToken(token: string | undefined): TrucoClient {
    const other = new TrucoClient(this.transport, {
      token,
      apiKey: this.apiKey,
      playerToken: this.playerToken,
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      backoffMs: this.backoffMs,
      maxBackoffMs: this.maxBackoffMs,
      maxQuotaWaitMs: this.maxQuotaWaitMs,
      fullDuplex: this.fullDuplex,
    });
    other.seen = this.seen;
    return other;
  }

  /**
   * The call's headers: the API key, the player token, the seat token, and the game the call is about (a resource
   * name), if any.
   */
  private headers(game?: string): Record<string, string> {
    const headers: Record<string, string> = this.apiKey ? { "x-api-key": this.apiKey } : {};
    if (this.playerToken) {
      headers[PLAYER_HEADER] = this.playerToken;
    }
    if (this.currentToken) {
      headers.authorization = `Bearer ${this.currentToken}`;
    }
    if (game) {
      headers[GAME_HEADER] = game;
    }
    return headers;
  }

  private delay(attempt: number): number {
    const ceiling = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /** How long to wait before sending again a call a quota refused; undefined: do not (no RetryInfo, or too long). */
  private quotaWait(failure: TrucoError): number | undefined {
    const delay = failure instanceof ResourceExhausted ? failure.retryDelayMs : undefined;
    return delay !== undefined && delay <= this.maxQuotaWaitMs ? delay : undefined;
  }

  /**
   * How long to wait before opening again a stream (a watch, a session) that broke with `failure` after `failures`
   * failures in a row: its quota's RetryInfo delay, or the backoff; undefined: do not (neither broken, UNAVAILABLE
   * or a CANCELLED the client did not ask for, nor refused by a quota; or its retries spent).
   */
  private resumeWait(failure: TrucoError, failures: number): number | undefined {
    const quotaWait = this.quotaWait(failure);
    const broken = failure.code === Code.Unavailable || failure.code === Code.Canceled;
    if ((!broken && quotaWait === undefined) || failures >= this.retries) {
      return undefined;
    }
    return quotaWait ?? this.delay(failures);
  }

  /**
   * Calls `method` with the deadline, the token and the game's name (`game`), retrying UNAVAILABLE and DEADLINE_EXCEEDED with backoff, and a
   * quota's refusal after its RetryInfo delay.
   */
  private async unary<T>(method: (options: CallOptions) => Promise<T>, game?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let wait: number;
      try {
        return await method({ timeoutMs: this.timeoutMs, headers: this.headers(game) });
      } catch (error) {
        const failure = toTrucoError(error);
        const quotaWait = this.quotaWait(failure);
        // CANCELLED here came from the other side (these calls take no signal): a server stopping mid-call.
        const retryable = quotaWait !== undefined || isRetried(failure);
        if (!retryable || attempt >= this.retries) {
          throw failure;
        }
        wait = quotaWait ?? this.delay(attempt);
      }
      await sleep(wait);
    }
  }

  // --- GameService ---------------------------------------------------------------------------------------------

  /**
   * Create a match; the seats in `bots` (seat -> "random", "heuristic" or a BotKind) are the server's.
   * `requestId` is the idempotency key (a fresh UUID by default): the same id returns the same game.
   */
  async createGame(
    options: {
      rules?: MessageInitShape<typeof RuleSetSchema>;
      bots?: Readonly<Record<number, string | BotKind>>;
      /** The playing strength of every bot seat; when set it chooses the bot (the kinds in `bots` are ignored). */
      botLevel?: string | BotLevel;
      fixedDeals?: FixedDeal[];
      requestId?: string;
      /** List the game to every caller in ListGames, not only to this client's API key. */
      public?: boolean;
      /** Turn clocks; unset takes the server's default, `{ decision: { seconds: 0n } }` asks for none. */
      clock?: MessageInitShape<typeof ClockSettingsSchema>;
    } = {},
  ): Promise<Game> {
    const level = botLevel(options.botLevel);
    const bots = Object.entries(options.bots ?? {}).map(([seat, kind]) => ({
      seat: Number(seat),
      kind: botKind(kind),
      level,
    }));
    const requestId = options.requestId ?? newRequestId();
    const request = {
      requestId,
      rules: options.rules ?? {},
      bots,
      fixedDeals: options.fixedDeals ?? [],
      public: options.public ?? false,
      clock: options.clock,
    };
    const response = await this.unary((call) => this.games.createGame(request, call));
    if (!response.game) {
      throw new Error("CreateGame answered without a game");
    }
    this.seen.saw(gameName(response.game.name), response.game.version);
    return response.game;
  }

  /** Take a seat (the first open one when `seat` is unset); this client then acts as that seat. */
  async joinGame(name: string, options: { seat?: number; playerName?: string; requestId?: string } = {}): Promise<JoinResult> {
    const requestId = options.requestId ?? newRequestId();
    const game = gameName(name);
    const request = { name: game, requestId, seat: options.seat, playerName: options.playerName ?? "" };
    const response = await this.unary((call) => this.games.joinGame(request, call), game);
    if (!response.view) {
      throw new Error("JoinGame answered without a view");
    }
    this.currentToken = response.seatToken;
    this.seen.saw(game, response.view.public?.version);
    return { seat: response.seat, token: response.seatToken, view: response.view };
  }

  /**
   * The caller's view: `.seat` (its seat view, unset for a spectator) and `.public`. Never older than the newest
   * version of the game this client has seen (sent as `minVersion`).
   */
  async getView(name: string): Promise<GetGameViewResponse> {
    const game = gameName(name);
    const minVersion = this.seen.of(game);
    const response = await this.unary((call) => this.games.getGameView({ name: game, minVersion }, call), game);
    this.seen.saw(game, response.public?.version);
    this.seen.saw(game, response.seat?.public?.version);
    return response;
  }

  /** This seat's view (throws when the client has no seat). */
  async seatView(name: string): Promise<SeatView> {
    const response = await this.getView(name);
    if (!response.seat) {
      throw new Error("no seat view: this client has no seat token");
    }
    return response.seat;
  }

  /**
   * Exactly the commands the server would accept from this seat now (`.actions`, `.version`). Never older than the
   * newest version of the game this client has seen (sent as `minVersion`).
   */
  async legalActions(name: string): Promise<ListLegalActionsResponse> {
    const game = gameName(name);
    const minVersion = this.seen.of(game);
    const response = await this.unary((call) => this.games.listLegalActions({ name: game, minVersion }, call), game);
    this.seen.saw(game, response.version);
    return response;
  }

  /**
   * Submit a command for this seat; the reply comes once the move is stored. `expectedVersion` is the version the
   * command was chosen at (0 skips the check); `requestId` (a fresh UUID by default) is sent unchanged on every
   * retry. Rejects with IllegalMove (see `reason`), VersionConflict, Unauthenticated... The version after it, or
   * the current one a VersionConflict tells of, counts as seen.
   */
  async submit(
    name: string,
    command: Command,
    options: { expectedVersion?: bigint | number; requestId?: string } = {},
  ): Promise<SubmitCommandResponse> {
    const game = gameName(name);
    const requestId = options.requestId ?? newRequestId();
    const expectedVersion = BigInt(options.expectedVersion ?? 0);
    try {
      const request = { name: game, requestId, expectedVersion, command };
      const response = await this.unary((call) => this.games.submitCommand(request, call), game);
      this.seen.saw(game, response.version);
      return response;
    } catch (error) {
      if (error instanceof VersionConflict) {
        this.seen.saw(game, parseVersion(error.metadata.version));
      }
      throw error;
    }
  }

  /**
   * Choose and submit one command for this seat, at the version it was chosen at. When the game moved on first
   * (ABORTED) the view is read again and `choose` asked again, up to `attempts` times. Resolves to undefined
   * when `choose` returns nothing (not this seat's turn, match over).
   */
  async playTurn(
    name: string,
    choose: (view: SeatView) => Command | undefined = plainBot,
    options: { view?: SeatView; attempts?: number } = {},
  ): Promise<Turn | undefined> {
    let view = options.view ?? (await this.seatView(name));
    const attempts = options.attempts ?? 10;
    for (let conflicts = 0; ; conflicts++) {
      const command = choose(view);
      if (command === undefined) {
        return undefined;
      }
      try {
        const response = await this.submit(name, command, { expectedVersion: view.public?.version ?? 0n });
        return { command, response, conflicts };
      } catch (error) {
        if (!(error instanceof VersionConflict) || conflicts + 1 >= attempts) {
          throw error;
        }
      }
      view = await this.seatView(name);
    }
  }

  /**
   * Each new event of the game, in order, from `afterVersion` on: one WatchGameResponse per event. The stream
   * underneath is {@link TrucoClient.watchCommits} (one message per commit): the caller's views after a commit go
   * with its last event (`seat` for a seat, `public` for anyone); its earlier events carry no view. Act on the items
   * that carry one.
   *
   * A stream broken by UNAVAILABLE or a server-side CANCELLED (a restart, a dropped connection) is reopened after
   * the last version delivered, up to `retries` times in a row with backoff (the count restarts at each message).
   * Ends when the server ends the stream (the match is over: right after the event that ends it) or `signal`
   * aborts. A stream a quota refused (too many watches) is opened again after its RetryInfo delay. A watch has no
   * deadline. Each event's version counts as seen.
   */
  async *watch(name: string, afterVersion: bigint | number = 0, options: WatchOptions = {}): AsyncGenerator<WatchGameResponse> {
    for await (const commit of this.watchCommits(name, afterVersion, options)) {
      yield* perEvent(commit);
    }
  }

  /**
   * Each new commit of the game as one message (WatchGame with `perCommit`), from `afterVersion` on: a move with the
   * bot moves and the deal it triggered arrives as one WatchGameResponse whose `events` are all of them, in order,
   * each with its version, with the caller's view after the last one (`seat` for a seat, `public` for a
   * spectator). The first message holds every event after `afterVersion`, which may be in the middle of a commit.
   * {@link commitEvents} reads a message's events (also from a server older than `perCommit`, which sends one
   * event per message). It resumes and ends as {@link TrucoClient.watch} does (which is this stream, one event at a
   * time).
   */
  async *watchCommits(
    name: string,
    afterVersion: bigint | number = 0,
    options: WatchOptions = {},
  ): AsyncGenerator<WatchGameResponse> {
    const game = gameName(name);
    let last = BigInt(afterVersion);
    let failures = 0;
    while (!options.signal?.aborted) {
      let wait: number;
      const controller = new AbortController();
      const stop = () => controller.abort();
      options.signal?.addEventListener("abort", stop);
      try {
        const stream = this.games.watchGame(
          { name: game, afterVersion: last, perCommit: true, tableChanges: options.tableChanges ?? false },
          { headers: this.headers(game), signal: controller.signal, timeoutMs: 0 },
        );
        for await (const item of stream) {
          failures = 0;
          const events = commitEvents(item);
          const newest = events.at(-1)?.version;
          if (newest !== undefined && newest > last) {
            last = newest;
          }
          this.seen.saw(game, newest);
          this.seen.saw(game, item.seat?.public?.version);
          this.seen.saw(game, item.public?.version);
          yield item;
        }
        return;
      } catch (error) {
        if (options.signal?.aborted) {
          return;
        }
        const failure = toTrucoError(error);
        const resumeWait = this.resumeWait(failure, failures);
        if (resumeWait === undefined) {
          throw failure;
        }
        options.onResume?.(last, failure);
        wait = resumeWait;
      } finally {
        options.signal?.removeEventListener("abort", stop);
        controller.abort();
      }
      await sleep(wait);
      failures++;
    }
  }

  /**
   * Plays this seat's match on one PlayGame stream: a {@link GameSession} that sends `start` at once (the game, and
   * `afterVersion` as a watch's), then each {@link GameSession.submit}'s command, and hands on the game's commits
   * ({@link GameSession.commits}, or {@link GameSession.events} one event at a time, as watchCommits and watch do).
   * It replaces the pair of {@link TrucoClient.submit} and {@link TrucoClient.watchCommits} (same errors, same
   * quotas, the same versions seen) at a lower cost to the server, and resumes as a watch does (`onResume`), sending
   * again the commands whose outcome had not come, with their request ids. Close it with {@link GameSession.close}.
   *
   * It needs a transport that streams both ways at once (HTTP/2: `createNodeTransport`'s gRPC, or Connect and
   * gRPC-Web over HTTP/2): with one over HTTP/1.1, as browsers have (see `fullDuplex`), it throws
   * SessionUnsupported at once; play with submit + watch there.
   */
  play(name: string, options: PlayOptions = {}): GameSession {
    if (!this.fullDuplex) {
      throw new SessionUnsupported(
        Code.Unimplemented,
        "",
        "PlayGame needs a transport that streams both ways at once (HTTP/2: gRPC, or Connect/gRPC-Web over HTTP/2), " +
          "and this client's speaks HTTP/1.1 (as browsers do): play with submit() and watch() instead",
        {},
        "",
      );
    }
    const game = gameName(name);
    const host: SessionHost = {
      open: (requests, signal) => this.games.playGame(requests, { headers: this.headers(game), signal, timeoutMs: 0 }),
      saw: (version) => this.seen.saw(game, version),
      retries: this.retries,
      resumeWait: (failure, failures) => this.resumeWait(failure, failures),
      quotaWait: (failure) => this.quotaWait(failure),
    };
    return new GameSession(game, host, options);
  }

  /** Every open game (a seat free, not over), newest first, page after page. */
  async *listGames(pageSize = 20): AsyncGenerator<Game> {
    let pageToken = "";
    do {
      const token = pageToken;
      const response = await this.unary((call) => this.games.listGames({ pageSize, pageToken: token }, call));
      yield* response.games;
      pageToken = response.nextPageToken;
    } while (pageToken);
  }

  /** The game: seats (with presence and takeover), clock settings, phase, scores, rematch links. */
  async getGame(name: string): Promise<Game> {
    const game = gameName(name);
    const response = await this.unary((call) => this.games.getGame({ name: game }, call), game);
    if (!response.game) {
      throw new Error("GetGame answered without a game");
    }
    this.seen.saw(game, response.game.version);
    return response.game;
  }

  /** Leave this client's seat: a bot plays it until {@link TrucoClient.resumeSeat}. Resolves to the seat's view. */
  async leaveGame(name: string): Promise<SeatView> {
    const game = gameName(name);
    const response = await this.unary((call) => this.games.leaveGame({ name: game }, call), game);
    return this.seatViewOf(game, response.view);
  }

  /** Take this client's seat back from the bot that played it (after its clock ran out, or a leave). */
  async resumeSeat(name: string): Promise<SeatView> {
    const game = gameName(name);
    const response = await this.unary((call) => this.games.resumeSeat({ name: game }, call), game);
    return this.seatViewOf(game, response.view);
  }

  /**
   * The next game of a finished one (`.game`, `.seat`): same seats, and this client's token holds its seat there
   * too. Every seat asking gets the same game. Rejects with IllegalMove GAME_NOT_FINISHED for a game in play.
   */
  async rematch(name: string): Promise<RematchResponse> {
    const game = gameName(name);
    return this.unary((call) => this.games.rematch({ name: game }, call), game);
  }

  /**
   * Deal a game waiting for friends now, the server's bots in its open seats at the game's level (`.game`: the
   * seats after; `.view`: this seat's view after the deal). Only the table's host may: the player who sat down
   * first (PermissionDenied NOT_TABLE_HOST otherwise). Rejects with IllegalMove GAME_ALREADY_STARTED once dealt.
   */
  async startWithBots(name: string): Promise<StartWithBotsResponse> {
    const game = gameName(name);
    const response = await this.unary((call) => this.games.startWithBots({ name: game }, call), game);
    this.seatViewOf(game, response.view);
    return response;
  }

  private seatViewOf(game: string, view: SeatView | undefined): SeatView {
    if (!view) {
      throw new Error("the server answered without a seat view");
    }
    this.seen.saw(game, view.public?.version);
    return view;
  }

  // --- PlayerService -------------------------------------------------------------------------------------------

  /**
   * Open a quick-match ticket and follow it: each FindMatchResponse the server sends (the ticket WAITING, its
   * window widening, ... then MATCHED with the game, the seat and the seat token, or EXPIRED or CANCELLED, after
   * which it ends). Needs a player token. A stream broken by UNAVAILABLE or a server-side CANCELLED is reopened
   * with the same request id, which follows the same ticket (a matched one answers MATCHED again), as a watch
   * resumes; a stream a quota refused is opened again after its RetryInfo delay. Aborting `signal` (or leaving
   * the loop) closes the stream, which cancels a ticket not yet matched. {@link TrucoClient.quickMatch} does all
   * of it and hands back the seat.
   */
  async *findMatch(options: FindMatchOptions = {}): AsyncGenerator<FindMatchResponse> {
    const request = {
      requestId: options.requestId ?? newRequestId(),
      rules: options.rules ?? {},
      party: options.party ?? [],
      maxWait: options.maxWaitMs === undefined ? undefined : duration(options.maxWaitMs),
      botsAfter: options.botsAfterMs === undefined ? undefined : duration(options.botsAfterMs),
      botLevel: botLevel(options.botLevel),
    };
    let failures = 0;
    while (!options.signal?.aborted) {
      let wait: number;
      const controller = new AbortController();
      const stop = () => controller.abort();
      options.signal?.addEventListener("abort", stop);
      try {
        const stream = this.players.findMatch(request, { headers: this.headers(), signal: controller.signal, timeoutMs: 0 });
        for await (const item of stream) {
          failures = 0;
          yield item;
          if (item.ticket && FINAL_TICKET_STATES.includes(item.ticket.state)) {
            return;
          }
        }
        return;
      } catch (error) {
        if (options.signal?.aborted) {
          return;
        }
        const failure = toTrucoError(error);
        const resumeWait = this.resumeWait(failure, failures);
        if (resumeWait === undefined) {
          throw failure;
        }
        options.onResume?.(failure);
        wait = resumeWait;
      } finally {
        options.signal?.removeEventListener("abort", stop);
        controller.abort();
      }
      await sleep(wait);
      failures++;
    }
  }

  /**
   * Find a match and sit in it: opens a ticket ({@link TrucoClient.findMatch}), calls `onTicket` with each state
   * it passes through, and resolves when it is MATCHED to the game, the seat and a client acting as the seat (its
   * seat token, this client's player token). Rejects with {@link NoMatch} when the ticket EXPIRES or is CANCELLED
   * (by CancelMatch from elsewhere). Aborting `signal` abandons it: the stream closes, the ticket is cancelled
   * (CancelMatch, in case the server has not yet seen the stream go) and the promise rejects with the signal's
   * reason.
   */
  async quickMatch(options: FindMatchOptions & { onTicket?: (ticket: MatchTicket) => void } = {}): Promise<QuickMatch> {
    let ticket: MatchTicket | undefined;
    for await (const item of this.findMatch(options)) {
      if (!item.ticket) {
        continue;
      }
      ticket = item.ticket;
      options.onTicket?.(ticket);
      if (ticket.state === TicketState.MATCHED) {
        const game = gameName(item.game);
        return { game, seat: item.seat, client: this.withToken(item.seatToken), ticket };
      }
      if (ticket.state === TicketState.EXPIRED || ticket.state === TicketState.CANCELLED) {
        throw new NoMatch(ticket);
      }
    }
    if (options.signal?.aborted) {
      if (ticket) {
        // The closed stream cancels the ticket; this says so at once, and a ticket matched meanwhile stays matched.
        await this.cancelMatch(ticket.name).catch(() => undefined);
      }
      throw options.signal.reason ?? new Error("quick match abandoned");
    }
    throw new NoMatch(ticket);
  }

  /** Cancel this player's open ticket (`name`, or its only one): the ticket as it ends (CANCELLED, or as it was). */
  async cancelMatch(name = ""): Promise<MatchTicket | undefined> {
    const response = await this.unary((call) => this.players.cancelMatch({ name }, call));
    return response.ticket;
  }

  /** A player of this app (`players/{sub}`, or "me": the player of this client's token) with its ratings. */
  async getPlayer(name = "me"): Promise<Player> {
    const response = await this.unary((call) => this.players.getPlayer({ name: playerName(name) }, call));
    if (!response.player) {
      throw new Error("GetPlayer answered without a player");
    }
    return response.player;
  }

  /**
   * One page of the app's ranking at a table size (2, 4 or 6), best first: the top (then `pageToken` for the next
   * page) or, with `aroundPlayer` (`players/{sub}` or "me"), the page with that player in its middle.
   */
  listLeaderboard(
    players: number,
    options: { pageSize?: number; pageToken?: string; aroundPlayer?: string } = {},
  ): Promise<ListLeaderboardResponse> {
    const request = {
      players,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? "",
      aroundPlayer: options.aroundPlayer ? playerName(options.aroundPlayer) : "",
    };
    return this.unary((call) => this.players.listLeaderboard(request, call));
  }

  /** One page of a player's finished games, newest first (each replayable with {@link TrucoClient.watch} from 0). */
  listPlayerMatches(
    name = "me",
    options: { pageSize?: number; pageToken?: string } = {},
  ): Promise<ListPlayerMatchesResponse> {
    const request = { name: playerName(name), pageSize: options.pageSize ?? 0, pageToken: options.pageToken ?? "" };
    return this.unary((call) => this.players.listPlayerMatches(request, call));
  }

  // --- RulesService --------------------------------------------------------------------------------------------

  /** Envido, flor and card strengths of three cards under a muestra: `evaluateHand("1o", "2o 7e 3c")`. */
  evaluateHand(muestra: CardLike, hand: string | CardLike[], withoutFlor = false): Promise<EvaluateHandResponse> {
    const request = { muestra: card(muestra), cards: parseCards(hand), withoutFlor };
    return this.unary((call) => this.rules.evaluateHand(request, call));
  }

  /** Which card wins a round under `muestra`: `.result` is 1 (first), -1 (second) or 0 (parda). */
  compareCards(muestra: CardLike, first: CardLike, second: CardLike): Promise<CompareCardsResponse> {
    const request = { muestra: card(muestra), first: card(first), second: card(second) };
    return this.unary((call) => this.rules.compareCards(request, call));
  }
}

function botLevel(level: string | BotLevel | undefined): BotLevel {
  if (level === undefined || typeof level !== "string") {
    return level ?? BotLevel.UNSPECIFIED;
  }
  const found = BOT_LEVELS[level.trim().toLowerCase()];
  if (found === undefined) {
    throw new RangeError(`unknown bot level ${JSON.stringify(level)}: one of ${Object.keys(BOT_LEVELS).join(", ")}`);
  }
  return found;
}

function botKind(kind: string | BotKind): BotKind {
  if (typeof kind !== "string") {
    return kind;
  }
  const found = BOT_KINDS[kind.trim().toLowerCase()];
  if (found === undefined) {
    throw new RangeError(`unknown bot ${JSON.stringify(kind)}: one of ${Object.keys(BOT_KINDS).join(", ")}`);
  }
  return found;
}

/** Whether this runs in Node or a runtime like it (Deno, Bun), whose transports can stream both ways at once. */
function isNodeLike(): boolean {
  const runtime = globalThis as { process?: { versions?: { node?: string } } };
  return typeof runtime.process?.versions?.node === "string";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

