/**
 * Unit tests of the client's `minVersion` bookkeeping, against an in-memory GameService (Connect's router
 * transport) that records every read it is sent. Run with `npm test` (a build, then node --test dist/test/).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type HandlerContext } from "@connectrpc/connect";
import { GAME_HEADER, TrucoClient, WRAPPERS, commitEvents } from "../src/client.js";
import { card } from "../src/cards.js";
import { play } from "../src/commands.js";
import { ResourceExhausted, VersionConflict } from "../src/errors.js";
import { ErrorInfoSchema, RetryInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { CardProofSchema, EventSchema } from "../src/gen/truco/v1/events_pb.js";
import {
  GameService,
  GameSchema,
  type WatchGameRequest,
  type WatchGameResponseSchema,
} from "../src/gen/truco/v1/game_service_pb.js";
import { RulesService } from "../src/gen/truco/v1/rules_service_pb.js";
import { commitmentOf, verifyProof } from "../src/proofs.js";
import { MatchViewSchema, SeatViewSchema } from "../src/gen/truco/v1/views_pb.js";
import { MAX_GAMES_SEEN, VersionsSeen } from "../src/versions.js";

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
 * with UNAVAILABLE after its events up to that version (once). It records the `x-truco-game` header of every call.
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

  private heard(rpc: string, context: HandlerContext): void {
    this.games.push({ rpc, game: context.requestHeader.get(GAME_HEADER) });
  }

  private async *watch(request: WatchGameRequest): AsyncGenerator<MessageInitShape<typeof WatchGameResponseSchema>> {
    this.watches.push({ afterVersion: request.afterVersion, perCommit: request.perCommit });
    const breakAfter = this.breakAfter;
    this.breakAfter = undefined;
    const versions = this.events.filter((v) => v > request.afterVersion && (breakAfter === undefined || v <= breakAfter));
    if (request.perCommit && !this.released) {
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
    const methods = [GameService, RulesService].flatMap((service) =>
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
      { rpc: "EvaluateHand", game: null },
      { rpc: "CompareCards", game: null },
    ]);
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
