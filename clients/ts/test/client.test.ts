/**
 * Unit tests of the client (its `minVersion` bookkeeping, retries, watches and PlayGame sessions), against an
 * in-memory GameService (Connect's router transport) that records every call it is sent. Run with `npm test` (a
 * build, then node --test dist/test/).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type HandlerContext } from "@connectrpc/connect";
import { GAME_HEADER, TrucoClient, WRAPPERS, commitEvents } from "../src/client.js";
import { card } from "../src/cards.js";
import { play } from "../src/commands.js";
import {
  IllegalMove,
  ResourceExhausted,
  SessionUnsupported,
  TrucoError,
  Unavailable,
  VersionConflict,
} from "../src/errors.js";
import { ErrorInfoSchema, RetryInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { CardProofSchema, EventSchema } from "../src/gen/truco/v1/events_pb.js";
import {
  type CommandErrorSchema,
  GameService,
  GameSchema,
  type PlayGameRequest,
  type PlayGameResponseSchema,
  type WatchGameRequest,
  type WatchGameResponseSchema,
} from "../src/gen/truco/v1/game_service_pb.js";
import { createNodeTransport } from "../src/node.js";
import { PlayerService } from "../src/gen/truco/v1/players_pb.js";
import { RulesService } from "../src/gen/truco/v1/rules_service_pb.js";
import { commitmentOf, verifyProof } from "../src/proofs.js";
import { MatchViewSchema, SeatViewSchema } from "../src/gen/truco/v1/views_pb.js";
import { MAX_GAMES_SEEN, VersionsSeen } from "../src/versions.js";

/** What the fake server answers a command on a PlayGame stream with. */
type PlayReply =
  /** The command applied: a commit of one event (the next version), then its outcome. */
  | "accept"
  /** The stream breaks (UNAVAILABLE) before the command's outcome. */
  | "break"
  /** The stream ends OK (the match is over) without the command's outcome. */
  | "end"
  /** No outcome: the command waits. */
  | "hold"
  /** The command refused with this CommandError. */
  | MessageInitShape<typeof CommandErrorSchema>;

/** A PlayGame stream the fake server was opened: its first message, its `start`, headers and commands' request ids. */
interface PlayStream {
  first: string | undefined;
  start: { name: string; afterVersion: bigint } | undefined;
  headers: { authorization: string | null; game: string | null; apiKey: string | null };
  commands: string[];
  /** When each command arrived (ms since the epoch). */
  times: number[];
  /** Whether the client half-closed it. */
  halfClosed: boolean;
}

/** A read the fake server was sent: which RPC, for which game, with which `minVersion`. */
interface Read {
  rpc: "GetGameView" | "ListLegalActions";
  name: string;
  minVersion: bigint;
}

/**
 * A GameService whose replies carry the versions the test sets: `version` for views, legal actions and submits,
 * `conflictAt` (when set) makes the next submit fail with ABORTED VERSION_CONFLICT at that version, and WatchGame
 * streams `events`: with `perCommit` (unless the fake plays a `released` server) in commits of up to two events,
 * each with the seat's view after its last one, else one event per message. A watch with `breakAfter` set ends
 * with UNAVAILABLE after its events up to that version (once). A PlayGame stream sends the same commits after its
 * `start`, and answers each command as the next of `replies` says. It records the `x-truco-game` header of every call.
 */
class FakeGames {
  readonly reads: Read[] = [];
  version = 0n;
  conflictAt: bigint | undefined;
  events: bigint[] = [];
  released = false;
  breakAfter: bigint | undefined;
  /** Each watch's `afterVersion` and `perCommit`. */
  watches: { afterVersion: bigint; perCommit: boolean }[] = [];
  /** Each call's RPC and the game its `x-truco-game` header named (null: none). */
  games: { rpc: string; game: string | null }[] = [];
  /** Quota refusals the next submits get, each with this RetryInfo delay (ms); the request ids submits were sent. */
  quotaDelaysMs: number[] = [];
  submitIds: string[] = [];
  /** Each PlayGame stream opened, and how the next commands sent on any of them are answered ("accept" after). */
  plays: PlayStream[] = [];
  replies: PlayReply[] = [];

  private heard(rpc: string, context: HandlerContext): void {
    this.games.push({ rpc, game: context.requestHeader.get(GAME_HEADER) });
  }

  /**
   * A PlayGame stream: after its `start`, the commits of `events` after `afterVersion` (as a per-commit watch), then
   * each command answered as `replies` says.
   */
  private async *play(
    requests: AsyncIterable<PlayGameRequest>,
    context: HandlerContext,
  ): AsyncGenerator<MessageInitShape<typeof PlayGameResponseSchema>> {
    this.heard("PlayGame", context);
    const header = context.requestHeader;
    const stream: PlayStream = {
      first: undefined,
      start: undefined,
      headers: { authorization: header.get("authorization"), game: header.get(GAME_HEADER), apiKey: header.get("x-api-key") },
      commands: [],
      times: [],
      halfClosed: false,
    };
    this.plays.push(stream);
    for await (const request of requests) {
      stream.first ??= request.kind.case;
      if (request.kind.case === "start") {
        const { name, afterVersion } = request.kind.value;
        stream.start = { name, afterVersion };
        for await (const commit of this.commitsAfter(afterVersion, true)) {
          yield { kind: { case: "commit", value: commit } };
        }
        continue;
      }
      if (request.kind.case !== "command") {
        continue;
      }
      const { requestId } = request.kind.value;
      stream.commands.push(requestId);
      stream.times.push(Date.now());
      const reply = this.replies.shift() ?? "accept";
      if (reply === "break") {
        throw new ConnectError("going away", Code.Unavailable);
      }
      if (reply === "end") {
        return;
      }
      if (reply === "hold") {
        continue;
      }
      if (reply === "accept") {
        const version = ++this.version;
        this.events.push(version);
        const commit = { events: [create(EventSchema, { version })], seat: create(SeatViewSchema, { public: { version } }) };
        yield { kind: { case: "commit", value: commit } };
        yield { kind: { case: "outcome", value: { requestId, version } } };
      } else {
        yield { kind: { case: "outcome", value: { requestId, error: reply } } };
      }
    }
    stream.halfClosed = true;
  }

  private async *watch(request: WatchGameRequest): AsyncGenerator<MessageInitShape<typeof WatchGameResponseSchema>> {
    this.watches.push({ afterVersion: request.afterVersion, perCommit: request.perCommit });
    yield* this.commitsAfter(request.afterVersion, request.perCommit);
  }

  /** What a watch (or a PlayGame stream, per commit) sends after `afterVersion`: see the class' comment. */
  private async *commitsAfter(
    afterVersion: bigint,
    perCommit: boolean,
  ): AsyncGenerator<MessageInitShape<typeof WatchGameResponseSchema>> {
    const breakAfter = this.breakAfter;
    this.breakAfter = undefined;
    const versions = this.events.filter((v) => v > afterVersion && (breakAfter === undefined || v <= breakAfter));
    if (perCommit && !this.released) {
      for (let start = 0; start < versions.length; start += 2) {
        const commit = versions.slice(start, start + 2);
        const after = create(MatchViewSchema, { version: commit.at(-1) });
        yield { events: commit.map((version) => create(EventSchema, { version })), seat: create(SeatViewSchema, { public: after }) };
      }
    } else {
      for (const version of versions) {
        yield { event: create(EventSchema, { version }), public: create(MatchViewSchema, { version }) };
      }
    }
    if (breakAfter !== undefined) {
      throw new ConnectError("going away", Code.Unavailable);
    }
  }

  transport() {
    const view = (version: bigint) => create(MatchViewSchema, { version });
    return createRouterTransport((router) => {
      router.service(GameService, {
        createGame: (_, context) => {
          this.heard("CreateGame", context);
          return { game: create(GameSchema, { name: "games/created", version: this.version }) };
        },
        joinGame: (_, context) => {
          this.heard("JoinGame", context);
          return { seat: 0, seatToken: "token", view: create(SeatViewSchema, { public: view(this.version) }) };
        },
        getGameView: (request, context) => {
          this.heard("GetGameView", context);
          this.reads.push({ rpc: "GetGameView", name: request.name, minVersion: request.minVersion });
          return { seat: create(SeatViewSchema, { public: view(this.version) }), public: view(this.version) };
        },
        listLegalActions: (request, context) => {
          this.heard("ListLegalActions", context);
          this.reads.push({ rpc: "ListLegalActions", name: request.name, minVersion: request.minVersion });
          return { version: this.version };
        },
        listGames: (_, context) => {
          this.heard("ListGames", context);
          return {};
        },
        getGame: (request, context) => {
          this.heard("GetGame", context);
          return { game: create(GameSchema, { name: request.name, version: this.version }) };
        },
        leaveGame: (_, context) => {
          this.heard("LeaveGame", context);
          return { view: create(SeatViewSchema, { public: view(this.version) }) };
        },
        resumeSeat: (_, context) => {
          this.heard("ResumeSeat", context);
          return { view: create(SeatViewSchema, { public: view(this.version) }) };
        },
        rematch: (_, context) => {
          this.heard("Rematch", context);
          return {};
        },
        startWithBots: (_, context) => {
          this.heard("StartWithBots", context);
          return { view: create(SeatViewSchema, { public: view(this.version) }) };
        },
        submitCommand: (request, context) => {
          this.heard("SubmitCommand", context);
          this.submitIds.push(request.requestId);
          const delay = this.quotaDelaysMs.shift();
          if (delay !== undefined) {
            const info = create(ErrorInfoSchema, { reason: "QUOTA_EXCEEDED", domain: "truco.v1", metadata: { quota: "q" } });
            const retryDelay = { seconds: BigInt(Math.floor(delay / 1000)), nanos: (delay % 1000) * 1e6 };
            const retry = create(RetryInfoSchema, { retryDelay });
            throw new ConnectError("slow down", Code.ResourceExhausted, undefined, [
              { desc: ErrorInfoSchema, value: info },
              { desc: RetryInfoSchema, value: retry },
            ]);
          }
          if (this.conflictAt !== undefined) {
            const info = create(ErrorInfoSchema, {
              reason: "VERSION_CONFLICT",
              domain: "truco.v1",
              metadata: { version: String(this.conflictAt) },
            });
            throw new ConnectError("the game moved on", Code.Aborted, undefined, [{ desc: ErrorInfoSchema, value: info }]);
          }
          return { version: this.version };
        },
        watchGame: (request, context) => {
          this.heard("WatchGame", context);
          return this.watch(request);
        },
        playGame: (requests, context) => this.play(requests, context),
      });
      router.service(RulesService, {
        evaluateHand: (_, context) => {
          this.heard("EvaluateHand", context);
          return {};
        },
        compareCards: (_, context) => {
          this.heard("CompareCards", context);
          return {};
        },
      });
    });
  }

  /** The `minVersion` of the last read sent. */
  lastMinVersion(): bigint {
    const last = this.reads.at(-1);
    assert.ok(last, "no read was sent");
    return last.minVersion;
  }
}

describe("TrucoClient minVersion", () => {
  it("sends 0 for a game it has seen nothing of", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { retries: 0 });
    fake.version = 4n;
    await client.getView("g1");
    await client.legalActions("games/g2");
    assert.deepEqual(fake.reads, [
      { rpc: "GetGameView", name: "games/g1", minVersion: 0n },
      { rpc: "ListLegalActions", name: "games/g2", minVersion: 0n },
    ]);
  });

  it("sends the highest version seen in any reply or watched event, per game", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { retries: 0 });

    fake.version = 3n;
    await client.joinGame("g1", { seat: 0 });
    await client.legalActions("g1");
    assert.equal(fake.lastMinVersion(), 3n, "the joined view's version");

    fake.version = 7n;
    await client.submit("g1", play("1e"));
    fake.version = 5n; // an older reply does not lower what was seen
    await client.getView("games/g1");
    assert.equal(fake.lastMinVersion(), 7n, "the submit's version");
    await client.legalActions("g1");
    assert.equal(fake.lastMinVersion(), 7n, "still the highest seen");

    fake.events = [8n, 9n];
    for await (const item of client.watch("g1", 7n)) {
      assert.ok(item.event);
    }
    await client.getView("g1");
    assert.equal(fake.lastMinVersion(), 9n, "the last watched event's version");

    fake.conflictAt = 12n;
    await assert.rejects(client.submit("g1", play("1e"), { expectedVersion: 9n }), VersionConflict);
    await client.getView("g1");
    assert.equal(fake.lastMinVersion(), 12n, "the version a VERSION_CONFLICT tells of");

    fake.version = 15n;
    await client.getView("g1");
    await client.legalActions("g1");
    assert.equal(fake.lastMinVersion(), 15n, "the last view's version");

    await client.getView("g2");
    assert.equal(fake.lastMinVersion(), 0n, "another game has its own version");

    fake.version = 2n;
    const game = await client.createGame();
    await client.getView(game.name);
    assert.equal(fake.lastMinVersion(), 2n, "the created game's version");
  });

  it("shares what it saw with the clients withToken makes", async () => {
    const fake = new FakeGames();
    const creator = new TrucoClient(fake.transport(), { retries: 0 });
    const seat = creator.withToken("other");
    fake.version = 6n;
    await seat.submit("g1", play("1e"));
    await creator.legalActions("g1");
    assert.equal(fake.lastMinVersion(), 6n);
  });
});

describe("TrucoClient", () => {
  it("wraps every RPC of the service", () => {
    const methods = [GameService, RulesService, PlayerService].flatMap((service) =>
      service.methods.map((method) => `${service.typeName}/${method.name}`),
    );
    assert.deepEqual(Object.keys(WRAPPERS).sort(), methods.sort());
    for (const wrapper of Object.values(WRAPPERS)) {
      assert.equal(typeof TrucoClient.prototype[wrapper], "function", wrapper);
    }
  });

  it("sends a call a quota refused again after its RetryInfo delay, with the same request id", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { retries: 2 });
    fake.quotaDelaysMs = [300];
    const started = Date.now();
    await client.submit("g1", play("1e"));
    assert.ok(Date.now() - started >= 290, "it waited the delay the server asked for");
    assert.equal(fake.submitIds.length, 2);
    assert.equal(new Set(fake.submitIds).size, 1);
  });

  it("rejects at once a quota refusal longer than maxQuotaWaitMs", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { retries: 2, maxQuotaWaitMs: 1000 });
    fake.quotaDelaysMs = [30_000];
    const refused = await client.submit("g1", play("1e")).catch((error: unknown) => error);
    assert.ok(refused instanceof ResourceExhausted);
    assert.equal(refused.reason, "QUOTA_EXCEEDED");
    assert.equal(refused.retryDelayMs, 30_000);
    assert.equal(fake.submitIds.length, 1);
  });
});

describe("TrucoClient watches", () => {
  it("asks for one message per commit and hands each event in order, the view with a commit's last", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 0 });
    fake.events = [8n, 9n, 10n];
    const items = [];
    for await (const item of client.watch("g1", 7n)) {
      items.push(item);
    }
    assert.deepEqual(fake.watches, [{ afterVersion: 7n, perCommit: true }]);
    assert.deepEqual(
      items.map((item) => [item.event?.version, item.seat?.public?.version, item.public?.version]),
      [
        [8n, undefined, undefined],
        [9n, 9n, 9n],
        [10n, 10n, 10n],
      ],
    );
    await client.getView("g1");
    assert.equal(fake.lastMinVersion(), 10n, "the watched commits' versions count as seen");
  });

  it("hands commits whole with watchCommits, and resumes after the last version received", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2, backoffMs: 1 });
    fake.events = [1n, 2n, 3n, 4n, 5n];
    fake.breakAfter = 2n;
    const resumed: bigint[] = [];
    const commits = [];
    for await (const commit of client.watchCommits("g1", 0, { onResume: (after) => resumed.push(after) })) {
      commits.push(commitEvents(commit).map((event) => event.version));
    }
    assert.deepEqual(commits, [[1n, 2n], [3n, 4n], [5n]]);
    assert.deepEqual(fake.watches, [
      { afterVersion: 0n, perCommit: true },
      { afterVersion: 2n, perCommit: true },
    ]);
    assert.deepEqual(resumed, [2n]);
  });

  it("reads a server older than perCommit, which sends one event per message", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { retries: 0 });
    fake.released = true;
    fake.events = [1n, 2n, 3n];
    const versions = [];
    for await (const item of client.watch("g1")) {
      versions.push([item.event?.version, item.public?.version]);
    }
    assert.deepEqual(versions, [
      [1n, 1n],
      [2n, 2n],
      [3n, 3n],
    ]);
  });

  it("names the game in x-truco-game on every call about one game, and on no other", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 0 });
    fake.events = [1n];
    await client.createGame();
    await client.joinGame("g1");
    await client.getView("g1");
    await client.legalActions("games/g1");
    await client.submit("g1", play("1e"));
    for await (const _ of client.watch("g1")) {
      // one event
    }
    for await (const _ of client.listGames()) {
      // none
    }
    await client.getGame("g1");
    await client.leaveGame("g1");
    await client.resumeSeat("g1");
    await client.rematch("g1");
    await client.startWithBots("g1");
    await client.evaluateHand("1o", "2o 7e 3c");
    await client.compareCards("1o", "2o", "1e");
    assert.deepEqual(fake.games, [
      { rpc: "CreateGame", game: null },
      { rpc: "JoinGame", game: "games/g1" },
      { rpc: "GetGameView", game: "games/g1" },
      { rpc: "ListLegalActions", game: "games/g1" },
      { rpc: "SubmitCommand", game: "games/g1" },
      { rpc: "WatchGame", game: "games/g1" },
      { rpc: "ListGames", game: null },
      { rpc: "GetGame", game: "games/g1" },
      { rpc: "LeaveGame", game: "games/g1" },
      { rpc: "ResumeSeat", game: "games/g1" },
      { rpc: "Rematch", game: "games/g1" },
      { rpc: "StartWithBots", game: "games/g1" },
      { rpc: "EvaluateHand", game: null },
      { rpc: "CompareCards", game: null },
    ]);
  });
});

/** Resolves once `condition` holds (checked every few milliseconds), or fails after a second. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    assert.ok(waited < 1000, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A CommandError's init for a refusal with `code`, `reason` and `metadata`. */
function refusal(code: Code, reason: string, metadata: Record<string, string> = {}, retryDelayMs?: number): PlayReply {
  const retryDelay =
    retryDelayMs === undefined
      ? undefined
      : { seconds: BigInt(Math.floor(retryDelayMs / 1000)), nanos: (retryDelayMs % 1000) * 1e6 };
  return { code, reason, message: `refused: ${reason}`, metadata, retryDelay };
}

describe("TrucoClient sessions (PlayGame)", () => {
  it("sends start first, with the game's name, afterVersion and the seat's metadata", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", apiKey: "k", retries: 0 });
    const session = client.play("g1", { afterVersion: 7 });
    assert.equal(session.name, "games/g1");
    assert.equal(await session.submit(play("1e")), 1n);
    session.close();
    assert.equal(fake.plays.length, 1);
    const [stream] = fake.plays;
    assert.equal(stream.first, "start");
    assert.deepEqual(stream.start, { name: "games/g1", afterVersion: 7n });
    assert.deepEqual(stream.headers, { authorization: "Bearer t", game: "games/g1", apiKey: "k" });
  });

  it("resolves a submit with its outcome's version (seen), and hands on every commit in order", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 0 });
    fake.events = [1n, 2n, 3n];
    fake.version = 3n;
    const session = client.play("g1");
    const commits: bigint[][] = [];
    const reading = (async () => {
      for await (const commit of session.commits()) {
        commits.push(commitEvents(commit).map((event) => event.version));
      }
    })();
    const requestId = "0f0e0d0c-0b0a-4908-8706-050403020100";
    assert.equal(await session.submit(play("1e"), { expectedVersion: 3n, requestId }), 4n);
    assert.deepEqual(fake.plays[0].commands, [requestId]);
    await until(() => commits.length === 3, "the command's commit");
    session.close();
    await reading;
    assert.deepEqual(commits, [[1n, 2n], [3n], [4n]]);
    assert.equal(session.lastVersion, 4n);
    await client.getView("g1");
    assert.equal(fake.lastMinVersion(), 4n, "the outcome's and commits' versions count as seen");
  });

  it("hands on one event at a time with events(), the view with a commit's last", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 0 });
    fake.events = [1n, 2n, 3n];
    fake.replies = ["end"];
    const session = client.play("g1");
    const ended = session.submit(play("1e")).catch((error: unknown) => error);
    const items = [];
    for await (const item of session.events()) {
      items.push([item.event?.version, item.seat?.public?.version]);
    }
    assert.deepEqual(items, [
      [1n, undefined],
      [2n, 2n],
      [3n, 3n],
    ]);
    await ended;
  });

  it("rejects a refused command with the typed error, its reason and metadata, and goes on", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2 });
    fake.replies = [
      refusal(Code.FailedPrecondition, "CARD_NOT_IN_HAND", { card: "1e" }),
      refusal(Code.Aborted, "VERSION_CONFLICT", { version: "12" }),
    ];
    const session = client.play("g1");
    const refused = await session.submit(play("1e")).catch((error: unknown) => error);
    assert.ok(refused instanceof IllegalMove);
    assert.equal(refused.code, Code.FailedPrecondition);
    assert.equal(refused.reason, "CARD_NOT_IN_HAND");
    assert.equal(refused.rawMessage, "refused: CARD_NOT_IN_HAND");
    assert.deepEqual(refused.metadata, { card: "1e" });
    assert.equal(refused.domain, "truco.v1");
    await assert.rejects(session.submit(play("2e"), { expectedVersion: 9n }), VersionConflict);
    await client.getView("g1");
    assert.equal(fake.lastMinVersion(), 12n, "the version a VERSION_CONFLICT tells of counts as seen");
    assert.equal(await session.submit(play("3e")), 1n, "the stream goes on after a refusal");
    assert.equal(fake.plays.length, 1);
    session.close();
  });

  it("sends a command a quota refused again after its delay, with the same request id", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2 });
    fake.replies = [refusal(Code.ResourceExhausted, "QUOTA_EXCEEDED", { quota: "q" }, 200)];
    const session = client.play("g1");
    assert.equal(await session.submit(play("1e")), 1n);
    const [stream] = fake.plays;
    assert.equal(stream.commands.length, 2);
    assert.equal(new Set(stream.commands).size, 1);
    assert.ok(stream.times[1] - stream.times[0] >= 190, "it waited the delay the server asked for");
    session.close();
  });

  it("rejects a quota refusal longer than maxQuotaWaitMs, or past the retries, as ResourceExhausted", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 1, maxQuotaWaitMs: 1000 });
    fake.replies = [
      refusal(Code.ResourceExhausted, "QUOTA_EXCEEDED", { quota: "q" }, 30_000),
      refusal(Code.ResourceExhausted, "QUOTA_EXCEEDED", { quota: "q" }, 10),
      refusal(Code.ResourceExhausted, "QUOTA_EXCEEDED", { quota: "q" }, 10),
    ];
    const session = client.play("g1");
    const long = await session.submit(play("1e")).catch((error: unknown) => error);
    assert.ok(long instanceof ResourceExhausted);
    assert.equal(long.reason, "QUOTA_EXCEEDED");
    assert.equal(long.retryDelayMs, 30_000);
    await assert.rejects(session.submit(play("2e")), ResourceExhausted);
    assert.equal(fake.plays[0].commands.length, 3, "one refusal, then one retry of the other");
    session.close();
  });

  it("reopens a broken stream after the last version, sending the waiting command again (same id)", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2, backoffMs: 1 });
    fake.events = [1n, 2n, 3n];
    fake.version = 3n;
    fake.replies = ["break"];
    const resumed: [bigint, TrucoError][] = [];
    const session = client.play("g1", { onResume: (after, error) => resumed.push([after, error]) });
    const commits: bigint[][] = [];
    const reading = (async () => {
      for await (const commit of session) {
        commits.push(commitEvents(commit).map((event) => event.version));
      }
    })();
    await until(() => commits.length === 2, "the first stream's commits");
    assert.equal(await session.submit(play("1e")), 4n);
    assert.equal(fake.plays.length, 2);
    assert.deepEqual(fake.plays[1].start, { name: "games/g1", afterVersion: 3n });
    assert.equal(fake.plays[1].first, "start");
    assert.equal(fake.plays[0].commands.length, 1);
    assert.deepEqual(fake.plays[1].commands, fake.plays[0].commands);
    assert.equal(resumed.length, 1);
    assert.equal(resumed[0][0], 3n);
    assert.ok(resumed[0][1] instanceof Unavailable);
    await until(() => commits.length === 3, "the command's commit");
    session.close();
    await reading;
    assert.deepEqual(commits, [[1n, 2n], [3n], [4n]], "each commit once, in order");
  });

  it("ends the commits when the match is over, and rejects a command still waiting with MATCH_OVER", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2 });
    fake.events = [1n];
    fake.replies = ["end"];
    const session = client.play("g1");
    const waiting = session.submit(play("1e")).catch((error: unknown) => error);
    const versions = [];
    for await (const commit of session.commits()) {
      versions.push(...commitEvents(commit).map((event) => event.version));
    }
    assert.deepEqual(versions, [1n]);
    const refused = await waiting;
    assert.ok(refused instanceof IllegalMove);
    assert.equal(refused.reason, "MATCH_OVER");
    assert.ok(session.ended);
    await assert.rejects(session.submit(play("2e")), IllegalMove);
  });

  it("ends: half-closes once every command sent has its outcome, and sends no more", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2 });
    fake.replies = [refusal(Code.ResourceExhausted, "QUOTA_EXCEEDED", { quota: "q" }, 50)];
    const session = client.play("g1");
    const first = session.submit(play("1e"));
    session.end();
    await assert.rejects(session.submit(play("2e")), (error: TrucoError) => error.code === Code.FailedPrecondition);
    assert.equal(await first, 1n, "sent again on the same stream after the quota's delay");
    await until(() => fake.plays[0].halfClosed, "the half-close");
    assert.equal(fake.plays[0].commands.length, 2);
    session.close();
  });

  it("closes: the commits end and a command still waiting rejects", async () => {
    const fake = new FakeGames();
    const client = new TrucoClient(fake.transport(), { token: "t", retries: 2 });
    const stop = new AbortController();
    const session = client.play("g1", { signal: stop.signal });
    const reading = (async () => {
      for await (const _ of session.commits()) {
        // none
      }
    })();
    await session.submit(play("1e"));
    fake.replies = ["hold"];
    const waiting = session.submit(play("2e")).catch((error: unknown) => error);
    await until(() => fake.plays[0].commands.length === 2, "the second command");
    stop.abort();
    await reading;
    assert.ok(session.ended);
    const cancelled = await waiting;
    assert.ok(cancelled instanceof TrucoError && cancelled.code === Code.Canceled);
    await assert.rejects(session.submit(play("3e")), (error: TrucoError) => error.code === Code.Canceled);
  });

  it("fails at once over a transport without full-duplex streams (HTTP/1.1), with SessionUnsupported", () => {
    const fake = new FakeGames();
    assert.throws(() => new TrucoClient(fake.transport(), { fullDuplex: false }).play("g1"), SessionUnsupported);
    const halfDuplex = new TrucoClient(fake.transport(), { fullDuplex: false }).withToken("t");
    assert.throws(() => halfDuplex.play("g1"), SessionUnsupported, "withToken keeps it");
    assert.equal(fake.plays.length, 0);
    const over = (protocol: "grpc" | "connect" | "grpc-web", httpVersion?: "1.1" | "2") =>
      new TrucoClient(createNodeTransport("127.0.0.1:1", { protocol, httpVersion })).fullDuplex;
    assert.equal(over("grpc"), true);
    assert.equal(over("connect"), false);
    assert.equal(over("grpc-web"), false);
    assert.equal(over("connect", "2"), true);
    assert.equal(over("grpc-web", "2"), true);
    const browserLike = new TrucoClient(createNodeTransport("127.0.0.1:1", { protocol: "connect" }));
    assert.throws(() => browserLike.play("g1"), SessionUnsupported);
    assert.equal(new TrucoClient(fake.transport()).fullDuplex, true, "another transport, in Node");
  });
});

describe("verifyProof", () => {
  it("opens a commitment only with its position, card and salt", async () => {
    const salt = "00".repeat(16);
    const commitments = Array.from({ length: 40 }, () => "");
    commitments[7] = await commitmentOf(7, card("1e"), salt);
    // The same vector as every SDK's test: SHA-256 of "7|1e|" and 32 zeros.
    assert.equal(commitments[7], "667917eafbe4a15b4dd9c22e7016d4dba4b21054245a372c24f3223554060995");
    const proof = create(CardProofSchema, { position: 7, card: card("1e"), salt });
    assert.equal(await verifyProof(commitments, proof), true);
    assert.equal(await verifyProof(commitments, create(CardProofSchema, { position: 7, card: card("2e"), salt })), false);
    assert.equal(await verifyProof(commitments, create(CardProofSchema, { position: 8, card: card("1e"), salt })), false);
    assert.equal(await verifyProof(commitments, create(CardProofSchema, { position: 40, card: card("1e"), salt })), false);
  });
});

describe("VersionsSeen", () => {
  it("keeps the highest version of each game, never a zero", () => {
    const seen = new VersionsSeen();
    seen.saw("games/a", 0n);
    seen.saw("games/b", undefined);
    assert.equal(seen.size, 0);
    seen.saw("games/a", 5n);
    seen.saw("games/a", 3n);
    seen.saw("games/a", undefined);
    assert.equal(seen.of("games/a"), 5n);
    assert.equal(seen.of("games/b"), 0n);
  });

  it("forgets the least recently seen game beyond its bound", () => {
    const seen = new VersionsSeen(3);
    seen.saw("games/a", 1n);
    seen.saw("games/b", 2n);
    seen.saw("games/c", 3n);
    seen.saw("games/a", 1n); // seen again: now the most recent
    seen.saw("games/d", 4n);
    assert.equal(seen.size, 3);
    assert.equal(seen.of("games/b"), 0n);
    assert.deepEqual(
      ["games/a", "games/c", "games/d"].map((name) => seen.of(name)),
      [1n, 3n, 4n],
    );
  });

  it(`remembers ${MAX_GAMES_SEEN} games by default`, () => {
    const seen = new VersionsSeen();
    for (let game = 0; game <= MAX_GAMES_SEEN; game++) {
      seen.saw(`games/${game}`, BigInt(game + 1));
    }
    assert.equal(seen.size, MAX_GAMES_SEEN);
    assert.equal(seen.of("games/0"), 0n);
    assert.equal(seen.of(`games/${MAX_GAMES_SEEN}`), BigInt(MAX_GAMES_SEEN + 1));
  });
});
