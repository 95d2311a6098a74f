/**
 * Unit tests of the client's PlayerService wrappers and its quick-match helper, against an in-memory
 * PlayerService (Connect's router transport) that records what it is sent: the player token, the tickets'
 * request ids, the cancellations.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type HandlerContext } from "@connectrpc/connect";
import { PLAYER_HEADER, TrucoClient } from "../src/client.js";
import { NoMatch } from "../src/errors.js";
import { GameService } from "../src/gen/truco/v1/game_service_pb.js";
import {
  type FindMatchRequest,
  type FindMatchResponseSchema,
  MatchTicketSchema,
  PlayerSchema,
  PlayerService,
  TicketState,
} from "../src/gen/truco/v1/players_pb.js";
import { MatchViewSchema, SeatViewSchema } from "../src/gen/truco/v1/views_pb.js";

/**
 * A PlayerService whose FindMatch sends a ticket through `states` (one message each; MATCHED carries a game, seat 1
 * and the seat token "seat-token"), then holds the stream open until the client closes it. With `breakAfterFirst`
 * the first stream breaks (UNAVAILABLE) after its first message. Its GameService answers GetGameView only.
 */
class FakePlayers {
  states: TicketState[] = [TicketState.WAITING, TicketState.MATCHED];
  breakAfterFirst = false;
  /** Each FindMatch request and the player token its headers carried. */
  finds: { request: FindMatchRequest; playerToken: string | null }[] = [];
  /** Each CancelMatch's ticket name. */
  cancels: string[] = [];
  /** Each unary call's RPC, request and player token. */
  calls: { rpc: string; request: unknown; playerToken: string | null }[] = [];
  /** The seat token each GetGameView carried. */
  viewTokens: (string | null)[] = [];
  /** Whether a FindMatch stream saw its client close it. */
  closed = false;

  private async *find(
    request: FindMatchRequest,
    context: HandlerContext,
  ): AsyncGenerator<MessageInitShape<typeof FindMatchResponseSchema>> {
    this.finds.push({ request, playerToken: context.requestHeader.get(PLAYER_HEADER) });
    const breaking = this.breakAfterFirst;
    this.breakAfterFirst = false;
    for (const state of this.states) {
      const ticket = create(MatchTicketSchema, { name: "tickets/t1", state, rules: request.rules });
      yield state === TicketState.MATCHED ? { ticket, game: "games/g9", seat: 1, seatToken: "seat-token" } : { ticket };
      if (breaking) {
        throw new ConnectError("going away", Code.Unavailable);
      }
    }
    await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
    this.closed = true;
  }

  private heard(rpc: string, request: unknown, context: HandlerContext): void {
    this.calls.push({ rpc, request, playerToken: context.requestHeader.get(PLAYER_HEADER) });
  }

  transport() {
    return createRouterTransport((router) => {
      router.service(PlayerService, {
        findMatch: (request, context) => this.find(request, context),
        cancelMatch: (request, context) => {
          this.heard("CancelMatch", request, context);
          this.cancels.push(request.name);
          return { ticket: create(MatchTicketSchema, { name: request.name, state: TicketState.CANCELLED }) };
        },
        getPlayer: (request, context) => {
          this.heard("GetPlayer", request, context);
          return { player: create(PlayerSchema, { name: "players/ana", displayName: "Ana" }) };
        },
        listLeaderboard: (request, context) => {
          this.heard("ListLeaderboard", request, context);
          return { total: 1 };
        },
        listPlayerMatches: (request, context) => {
          this.heard("ListPlayerMatches", request, context);
          return {};
        },
      });
      router.service(GameService, {
        getGameView: (_, context) => {
          this.viewTokens.push(context.requestHeader.get("authorization"));
          const view = create(MatchViewSchema, { version: 1n });
          return { seat: create(SeatViewSchema, { public: view }), public: view };
        },
      });
    });
  }
}

describe("TrucoClient quick match", () => {
  it("follows the ticket to its match and hands back a client acting as the seat", async () => {
    const fake = new FakePlayers();
    const client = new TrucoClient(fake.transport(), { retries: 0, playerToken: "jwt", apiKey: "key" });
    const seen: TicketState[] = [];
    const match = await client.quickMatch({
      rules: { players: 4 },
      party: ["bea"],
      maxWaitMs: 30_500,
      botsAfterMs: 10_000,
      botLevel: "expert",
      onTicket: (ticket) => seen.push(ticket.state),
    });
    assert.deepEqual(seen, [TicketState.WAITING, TicketState.MATCHED]);
    assert.equal(match.game, "games/g9");
    assert.equal(match.seat, 1);
    assert.equal(match.client.token, "seat-token");
    assert.equal(match.client.playerToken, "jwt");
    const { request, playerToken } = fake.finds[0];
    assert.equal(playerToken, "jwt");
    assert.equal(request.rules?.players, 4);
    assert.deepEqual(request.party, ["bea"]);
    assert.equal(request.maxWait?.seconds, 30n);
    assert.equal(request.maxWait?.nanos, 500_000_000);
    assert.equal(request.botsAfter?.seconds, 10n);
    assert.ok(request.requestId.length > 0, "a request id is sent");
    await match.client.getView(match.game);
    assert.deepEqual(fake.viewTokens, ["Bearer seat-token"]);
  });

  it("reopens a broken ticket stream with the same request id", async () => {
    const fake = new FakePlayers();
    fake.breakAfterFirst = true;
    const client = new TrucoClient(fake.transport(), { retries: 2, backoffMs: 1, playerToken: "jwt" });
    const resumed: Code[] = [];
    const match = await client.quickMatch({ requestId: "r-1", onResume: (error) => resumed.push(error.code) });
    assert.equal(match.game, "games/g9");
    assert.deepEqual(resumed, [Code.Unavailable]);
    assert.deepEqual(
      fake.finds.map((find) => find.request.requestId),
      ["r-1", "r-1"],
    );
  });

  it("rejects with NoMatch when the ticket expires", async () => {
    const fake = new FakePlayers();
    fake.states = [TicketState.WAITING, TicketState.EXPIRED];
    const client = new TrucoClient(fake.transport(), { retries: 0, playerToken: "jwt" });
    const failure = await client.quickMatch().catch((error: unknown) => error);
    assert.ok(failure instanceof NoMatch);
    assert.equal(failure.state, TicketState.EXPIRED);
  });

  it("cancels the ticket when the caller abandons it", async () => {
    const fake = new FakePlayers();
    fake.states = [TicketState.WAITING];
    const client = new TrucoClient(fake.transport(), { retries: 0, playerToken: "jwt" });
    const controller = new AbortController();
    const abandoned = client.quickMatch({
      signal: controller.signal,
      onTicket: () => controller.abort(new Error("player left")),
    });
    await assert.rejects(abandoned, /player left/);
    assert.deepEqual(fake.cancels, ["tickets/t1"]);
  });
});

describe("TrucoClient players", () => {
  it("names players and sends the player token with every PlayerService call", async () => {
    const fake = new FakePlayers();
    const client = new TrucoClient(fake.transport(), { retries: 0, playerToken: "jwt" });
    assert.equal((await client.getPlayer()).displayName, "Ana");
    assert.equal((await client.listLeaderboard(4, { aroundPlayer: "me", pageSize: 5 })).total, 1);
    await client.listPlayerMatches("ana", { pageToken: "p2" });
    await client.cancelMatch();
    assert.deepEqual(
      fake.calls.map(({ rpc, playerToken }) => [rpc, playerToken]),
      [
        ["GetPlayer", "jwt"],
        ["ListLeaderboard", "jwt"],
        ["ListPlayerMatches", "jwt"],
        ["CancelMatch", "jwt"],
      ],
    );
    const [player, board, matches] = fake.calls.map((call) => call.request as Record<string, unknown>);
    assert.equal(player.name, "players/me");
    assert.equal(board.aroundPlayer, "players/me");
    assert.equal(board.players, 4);
    assert.equal(board.pageSize, 5);
    assert.equal(matches.name, "players/ana");
    assert.equal(matches.pageToken, "p2");
  });

  it("sends no player token without one, and keeps it in the clients withToken makes", async () => {
    const fake = new FakePlayers();
    const anonymous = new TrucoClient(fake.transport(), { retries: 0 });
    await anonymous.listLeaderboard(2);
    const seat = new TrucoClient(fake.transport(), { retries: 0, playerToken: "jwt" }).withToken("seat");
    await seat.listLeaderboard(2);
    assert.deepEqual(
      fake.calls.map((call) => call.playerToken),
      [null, "jwt"],
    );
  });
});
