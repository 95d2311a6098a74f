/**
 * A seat's whole match on one PlayGame call (a bidirectional stream): its commands in, the game's commits out.
 *
 * {@link TrucoClient.play} opens a {@link GameSession}: it sends `start` (the game, and the version to stream after),
 * then one `command` per {@link GameSession.submit}, each answered by one `outcome` (its version, or the error
 * SubmitCommand would have failed with). The game's commits arrive beside them, exactly as a per-commit watch sends
 * them, and the session hands them on in order ({@link GameSession.commits}, or one event at a time with
 * {@link GameSession.events}). A stream broken as a watch's breaks is reopened after the last version received, and
 * every command still waiting for its outcome is sent again with its request id (the server applies a request id
 * once). It needs HTTP/2 end to end: browsers (Connect and gRPC-Web over HTTP/1.1) use submit + watch.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { commitEvents, perEvent } from "./commits.js";
import { commandError, IllegalMove, toTrucoError, TrucoError, VersionConflict } from "./errors.js";
import type { Command } from "./gen/truco/v1/commands_pb.js";
import type {
  PlayGameOutcome,
  PlayGameRequestSchema,
  PlayGameResponse,
  WatchGameResponse,
} from "./gen/truco/v1/game_service_pb.js";
import { parseVersion } from "./versions.js";

/** A message a session sends: its `start`, then commands. */
export type PlayGameRequestInit = MessageInitShape<typeof PlayGameRequestSchema>;

/** Options of {@link TrucoClient.play}. */
export interface PlayOptions {
  /** Hand on the commits after this version (0, the default: from the start), as a watch's `afterVersion`. */
  afterVersion?: bigint | number;
  /** Called each time a broken stream is reopened, with the version it resumes after (as a watch's). */
  onResume?: (afterVersion: bigint, error: TrucoError) => void;
  /** Closes the session when it aborts (as {@link GameSession.close}). */
  signal?: AbortSignal;
}

/** Options of {@link GameSession.submit}. */
export interface SessionSubmitOptions {
  /** The version the command was chosen at; if the game moved on, it fails with VersionConflict. 0 skips the check. */
  expectedVersion?: bigint | number;
  /** The command's request id (a fresh UUID by default), sent unchanged every time the command is sent again. */
  requestId?: string;
}

/** What a session needs of the client that opens it ({@link TrucoClient.play} makes it). */
export interface SessionHost {
  /** Opens a PlayGame stream sending `requests`, with the client's headers and no deadline. */
  open(requests: AsyncIterable<PlayGameRequestInit>, signal: AbortSignal): AsyncIterable<PlayGameResponse>;
  /** Records a version of the game as seen (the client's versions seen, for its reads' `minVersion`). */
  saw(version: bigint | undefined): void;
  /** How many times a command a quota refused is sent again. */
  retries: number;
  /**
   * How long to wait before reopening a stream that broke with `failure` after `failures` failures in a row, as a
   * watch would (its quota's delay, or the backoff); undefined: it is not reopened.
   */
  resumeWait(failure: TrucoError, failures: number): number | undefined;
  /** How long to wait before sending again what a quota refused; undefined: do not (no RetryInfo, or too long). */
  quotaWait(failure: TrucoError): number | undefined;
}

/** A command sent and waiting for its outcome. */
interface PendingCommand {
  message: PlayGameRequestInit;
  /** How many times a quota refused it (and it was sent again). */
  refusals: number;
  /** Set while it waits out a quota's delay before it is sent again. */
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve: (version: bigint) => void;
  reject: (error: TrucoError) => void;
}

/**
 * One seat's match on one PlayGame stream ({@link TrucoClient.play} opens it).
 *
 * - {@link GameSession.submit} sends a command and resolves with the game's version after it, or rejects with the
 *   typed error SubmitCommand would have (IllegalMove with its `reason`, VersionConflict...). A quota's refusal is
 *   sent again after its RetryInfo delay, with the same request id, as the client's calls are.
 * - {@link GameSession.commits} (or `for await` on the session) hands on every commit in order, as
 *   {@link TrucoClient.watchCommits} does; {@link GameSession.events} hands on each event, as
 *   {@link TrucoClient.watch} does.
 *   The session reads the stream whether or not they are iterated: a `submit` awaited inside the loop resolves.
 * - A stream broken by UNAVAILABLE (a server stopping or restarting, a dropped connection) or a server-side
 *   CANCELLED (a proxy's RST_STREAM) is reopened after the last version received, up to the client's `retries` times
 *   in a row with backoff, and the commands still waiting for their outcome are sent again with their request ids;
 *   `onResume` is told. A stream a quota refused is opened again after its RetryInfo delay.
 * - When the match ends (the server ends the stream after the commit that ends it) the commits end, and a `submit`
 *   still waiting rejects with IllegalMove MATCH_OVER. Any other failure ends the commits with it and rejects them.
 * - {@link GameSession.close} half-closes and cancels the stream (breaking out of a commits loop does too).
 */
export class GameSession implements AsyncIterable<WatchGameResponse> {
  private last: bigint;
  /** Commands sent and waiting for their outcome, by request id, in the order sent. */
  private readonly pending = new Map<string, PendingCommand>();
  /** Commits received and not yet handed on. */
  private readonly received: WatchGameResponse[] = [];
  /** Wakes the commits iterator (a commit arrived, or the session ended). */
  private wakeReader: (() => void) | undefined;
  /** The open stream's requests (undefined while the session reopens one). */
  private requests: RequestQueue | undefined;
  private stream: AbortController | undefined;
  /** Wakes the backoff before a reopening (close() does). */
  private wakeBackoff: (() => void) | undefined;
  /** How the session ended: null while it runs, "over" (the match ended), "closed", or the failure. */
  private ending: "over" | "closed" | TrucoError | null = null;
  private halfClosed = false;
  private iterated = false;
  private readonly stop = () => this.close();

  /** Made by {@link TrucoClient.play}: opens the stream at once. */
  constructor(
    /** The game, `games/{id}`. */
    readonly name: string,
    private readonly host: SessionHost,
    private readonly options: PlayOptions = {},
  ) {
    this.last = BigInt(options.afterVersion ?? 0);
    if (options.signal?.aborted) {
      this.ending = "closed";
      return;
    }
    options.signal?.addEventListener("abort", this.stop);
    void this.run().catch((error: unknown) => this.finish(toTrucoError(error))); // an onResume that threw
  }

  /** The version of the last event received (each is handed on, in order): a reopened stream starts after it. */
  get lastVersion(): bigint {
    return this.last;
  }

  /** Whether the session has ended (the match is over, it was closed, or it failed). */
  get ended(): boolean {
    return this.ending !== null;
  }

  /**
   * Sends `command` for the seat and resolves with the game's version after it (and the bot moves and deal it
   * triggered; that version counts as seen) once it is durably stored. Rejects with the typed error SubmitCommand
   * would have: IllegalMove (see `reason`), VersionConflict (the current version, in its metadata, counts as seen),
   * Unauthenticated for a spectator's session... A quota's refusal is sent again after its RetryInfo delay (when at
   * most the client's `maxQuotaWaitMs`, up to `retries` times), with the same request id. Rejects with IllegalMove
   * MATCH_OVER when the match ended before its outcome came.
   */
  submit(command: Command, options: SessionSubmitOptions = {}): Promise<bigint> {
    const refused = this.refusal();
    if (refused) {
      return Promise.reject(refused);
    }
    if (this.halfClosed) {
      const ended = "the session was ended: it sends no more commands";
      return Promise.reject(new TrucoError(Code.FailedPrecondition, "", ended, {}, ""));
    }
    const requestId = options.requestId ?? globalThis.crypto.randomUUID();
    const expectedVersion = BigInt(options.expectedVersion ?? 0);
    const message: PlayGameRequestInit = { kind: { case: "command", value: { requestId, expectedVersion, command } } };
    return new Promise<bigint>((resolve, reject) => {
      const waiting: PendingCommand = { message, refusals: 0, timer: undefined, resolve, reject };
      this.pending.set(requestId, waiting);
      this.requests?.push(message);
    });
  }

  /**
   * Every commit of the game after `afterVersion`, in order, one message each: its events (`commitEvents`) and the
   * caller's view after the last one (`seat` for a seat, `public` for a spectator), as
   * {@link TrucoClient.watchCommits} hands them. Ends when the match is over or the session is closed; throws the
   * failure that ended the session otherwise. A session's commits are handed on once: iterate them (or
   * {@link GameSession.events}) in one loop. Leaving the loop early closes the session.
   */
  async *commits(): AsyncGenerator<WatchGameResponse> {
    if (this.iterated) {
      throw new Error("a session hands its commits on once: iterate commits() or events() in one loop");
    }
    this.iterated = true;
    try {
      for (;;) {
        const commit = this.received.shift();
        if (commit !== undefined) {
          yield commit;
          continue;
        }
        if (this.ending instanceof TrucoError) {
          throw this.ending;
        }
        if (this.ending !== null) {
          return;
        }
        await new Promise<void>((resolve) => {
          this.wakeReader = resolve;
        });
      }
    } finally {
      this.close();
    }
  }

  /**
   * Each event of the game after `afterVersion`, in order, as {@link TrucoClient.watch} hands them: the caller's views
   * after a commit go with its last event (`seat` for a seat, `public` for anyone), its earlier events carry none.
   */
  async *events(): AsyncGenerator<WatchGameResponse> {
    for await (const commit of this.commits()) {
      yield* perEvent(commit);
    }
  }

  /** The session's commits: `for await (const commit of session)` is {@link GameSession.commits}. */
  [Symbol.asyncIterator](): AsyncGenerator<WatchGameResponse> {
    return this.commits();
  }

  /**
   * Sends no more commands: the stream is half-closed once every command sent has its outcome, and the commits go on
   * until the match is over (a later `submit` rejects).
   */
  end(): void {
    this.halfClosed = true;
    this.halfCloseWhenAnswered();
  }

  /**
   * Half-closes and cancels the stream: the commits end, and a `submit` still waiting rejects (CANCELLED). Safe to
   * call more than once, and after the session ended.
   */
  close(): void {
    this.finish("closed");
  }

  /** Why a command cannot be sent now; undefined while the session runs. */
  private refusal(): TrucoError | undefined {
    if (this.ending === null) {
      return undefined;
    }
    if (this.ending === "over") {
      const over = "the match is over: the session ended before this command's outcome";
      return new IllegalMove(Code.FailedPrecondition, "MATCH_OVER", over);
    }
    if (this.ending === "closed") {
      return new TrucoError(Code.Canceled, "", "the session was closed", {}, "");
    }
    return this.ending;
  }

  /** Opens the stream, and again each time it breaks, until the match is over or the session ends. */
  private async run(): Promise<void> {
    let failures = 0;
    while (this.ending === null) {
      const requests = new RequestQueue();
      const stream = new AbortController();
      this.requests = requests;
      this.stream = stream;
      requests.push({ kind: { case: "start", value: { name: this.name, afterVersion: this.last } } });
      for (const waiting of this.pending.values()) {
        if (waiting.timer === undefined) {
          requests.push(waiting.message);
        }
      }
      this.halfCloseWhenAnswered();
      let failure: TrucoError | undefined;
      try {
        for await (const response of this.host.open(requests, stream.signal)) {
          failures = 0;
          this.receive(response);
        }
      } catch (error) {
        failure = toTrucoError(error);
      } finally {
        // The server has ended the stream: cancel it, without half-closing it now (Hypercorn, the web port's HTTP/2
        // server, takes the end of a request on a stream it has ended for a protocol error and drops the connection).
        requests.abandon();
        stream.abort();
        this.requests = undefined;
        this.stream = undefined;
      }
      if (this.ending !== null) {
        return;
      }
      if (failure === undefined) {
        this.finish("over");
        return;
      }
      // As a watch: UNAVAILABLE (a server stopping, a dropped connection) and a CANCELLED the session did not ask for
      // (a proxy's RST_STREAM) break a stream; a quota's refusal of the stream itself is waited out.
      const wait = this.host.resumeWait(failure, failures);
      if (wait === undefined) {
        this.finish(failure);
        return;
      }
      this.options.onResume?.(this.last, failure);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wakeBackoff = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeBackoff = undefined;
      failures++;
    }
  }

  private receive(response: PlayGameResponse): void {
    if (response.kind.case === "commit") {
      const commit = response.kind.value;
      const newest = commitEvents(commit).at(-1)?.version;
      if (newest !== undefined && newest > this.last) {
        this.last = newest;
      }
      this.host.saw(newest);
      this.host.saw(commit.seat?.public?.version);
      this.host.saw(commit.public?.version);
      this.received.push(commit);
      this.wakeReader?.();
    } else if (response.kind.case === "outcome") {
      this.settle(response.kind.value);
    }
  }

  /** A command's outcome: resolves or rejects its submit, or sends it again after a quota's delay. */
  private settle(outcome: PlayGameOutcome): void {
    const waiting = this.pending.get(outcome.requestId);
    if (waiting === undefined) {
      return; // an outcome answered again (a command sent again on a reopened stream), already settled
    }
    if (outcome.error === undefined) {
      this.pending.delete(outcome.requestId);
      this.host.saw(outcome.version);
      waiting.resolve(outcome.version);
    } else {
      const failure = commandError(outcome.error);
      const quotaWait = this.host.quotaWait(failure);
      if (quotaWait !== undefined && waiting.refusals < this.host.retries) {
        waiting.refusals++;
        waiting.timer = setTimeout(() => {
          waiting.timer = undefined;
          this.requests?.push(waiting.message); // between streams: the next one sends it
        }, quotaWait);
        return;
      }
      this.pending.delete(outcome.requestId);
      if (failure instanceof VersionConflict) {
        this.host.saw(parseVersion(failure.metadata.version));
      }
      waiting.reject(failure);
    }
    this.halfCloseWhenAnswered();
  }

  private halfCloseWhenAnswered(): void {
    if (this.halfClosed && this.pending.size === 0) {
      this.requests?.close();
    }
  }

  /** Ends the session: the stream is cancelled, the commits end (or throw `how`), waiting commands reject. */
  private finish(how: "over" | "closed" | TrucoError): void {
    if (this.ending !== null) {
      return;
    }
    this.ending = how;
    this.options.signal?.removeEventListener("abort", this.stop);
    this.requests?.close();
    this.stream?.abort();
    this.wakeBackoff?.();
    const refused = this.refusal();
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      if (refused) {
        waiting.reject(refused);
      }
    }
    this.pending.clear();
    this.wakeReader?.();
  }
}

/**
 * The requests of one stream: pushed in order, read by the transport; close() half-closes once they are sent,
 * abandon() sends nothing more (the stream is over).
 */
class RequestQueue implements AsyncIterable<PlayGameRequestInit> {
  private readonly items: PlayGameRequestInit[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(item: PlayGameRequestInit): void {
    if (!this.closed) {
      this.items.push(item);
      this.wake?.();
    }
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  abandon(): void {
    this.closed = true;
    this.items.length = 0;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<PlayGameRequestInit> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
      } else if (this.closed) {
        return;
      } else {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    }
  }
}
