package uy.truco.client;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import uy.truco.v1.BotLevel;
import uy.truco.v1.CancelMatchRequest;
import uy.truco.v1.CancelMatchResponse;
import uy.truco.v1.FindMatchRequest;
import uy.truco.v1.FindMatchResponse;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.GetGameViewRequest;
import uy.truco.v1.GetGameViewResponse;
import uy.truco.v1.GetPlayerRequest;
import uy.truco.v1.GetPlayerResponse;
import uy.truco.v1.ListLeaderboardRequest;
import uy.truco.v1.ListLeaderboardResponse;
import uy.truco.v1.ListPlayerMatchesRequest;
import uy.truco.v1.ListPlayerMatchesResponse;
import uy.truco.v1.MatchTicket;
import uy.truco.v1.Player;
import uy.truco.v1.PlayerServiceGrpc;
import uy.truco.v1.RuleSet;
import uy.truco.v1.SeatView;
import uy.truco.v1.TicketState;

/**
 * The PlayerService wrappers and the quick-match helper against an in-process PlayerService that records what it is
 * sent: the player token, the tickets' request ids, the cancellations. A plain (POJO) Surefire test.
 */
public class PlayersTest {
  private static final Metadata.Key<String> PLAYER = Metadata.Key.of("x-player-token", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * FindMatch sends the ticket through {@code states} (MATCHED with games/g9, seat 1, "seat-token"), then holds the
   * stream until the client closes it; with {@code breakFirst} the first stream breaks (UNAVAILABLE) after its first
   * message. GetGameView answers a seat view. Every call's headers are kept.
   */
  static final class FakePlayers extends PlayerServiceGrpc.PlayerServiceImplBase {
    volatile List<TicketState> states = List.of(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_MATCHED);
    volatile boolean breakFirst;
    final List<FindMatchRequest> finds = Collections.synchronizedList(new ArrayList<>());
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final List<String> cancels = Collections.synchronizedList(new ArrayList<>());
    final List<Metadata> headers = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void findMatch(FindMatchRequest request, StreamObserver<FindMatchResponse> reply) {
      finds.add(request);
      boolean breaking = breakFirst;
      breakFirst = false;
      for (TicketState state : states) {
        MatchTicket ticket = MatchTicket.newBuilder().setName("tickets/t1").setState(state).build();
        FindMatchResponse.Builder response = FindMatchResponse.newBuilder().setTicket(ticket);
        if (state == TicketState.TICKET_STATE_MATCHED) {
          response.setGame("games/g9").setSeat(1).setSeatToken("seat-token");
        }
        reply.onNext(response.build());
        if (breaking) {
          reply.onError(Status.UNAVAILABLE.withDescription("going away").asRuntimeException());
          return;
        }
      }
      // Held open: the client's cancel ends it.
      ((ServerCallStreamObserver<FindMatchResponse>) reply).setOnCancelHandler(() -> { });
    }

    @Override
    public void cancelMatch(CancelMatchRequest request, StreamObserver<CancelMatchResponse> reply) {
      cancels.add(request.getName());
      MatchTicket ticket = MatchTicket.newBuilder().setName(request.getName()).setState(TicketState.TICKET_STATE_CANCELLED).build();
      reply.onNext(CancelMatchResponse.newBuilder().setTicket(ticket).build());
      reply.onCompleted();
    }

    @Override
    public void getPlayer(GetPlayerRequest request, StreamObserver<GetPlayerResponse> reply) {
      calls.add("GetPlayer " + request.getName());
      reply.onNext(GetPlayerResponse.newBuilder().setPlayer(Player.newBuilder().setName(request.getName()).setDisplayName("Ana")).build());
      reply.onCompleted();
    }

    @Override
    public void listLeaderboard(ListLeaderboardRequest request, StreamObserver<ListLeaderboardResponse> reply) {
      calls.add("ListLeaderboard " + request.getPlayers() + " " + request.getAroundPlayer());
      reply.onNext(ListLeaderboardResponse.newBuilder().setTotal(request.getPlayers()).build());
      reply.onCompleted();
    }

    @Override
    public void listPlayerMatches(ListPlayerMatchesRequest request, StreamObserver<ListPlayerMatchesResponse> reply) {
      calls.add("ListPlayerMatches " + request.getName() + " " + request.getPageToken());
      reply.onNext(ListPlayerMatchesResponse.getDefaultInstance());
      reply.onCompleted();
    }
  }

  static final class SeatGames extends GameServiceGrpc.GameServiceImplBase {
    @Override
    public void getGameView(GetGameViewRequest request, StreamObserver<GetGameViewResponse> reply) {
      reply.onNext(GetGameViewResponse.newBuilder().setSeat(SeatView.newBuilder().setSeat(1)).build());
      reply.onCompleted();
    }
  }

  private FakePlayers fake;
  private Server server;
  private TrucoClient client;

  public void setUp() throws Exception {
    fake = new FakePlayers();
    ServerInterceptor keep = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        fake.headers.add(headers);
        return next.startCall(call, headers);
      }
    };
    server = ServerBuilder.forPort(0)
        .addService(ServerInterceptors.intercept(fake, keep))
        .addService(ServerInterceptors.intercept(new SeatGames(), keep))
        .build().start();
    client = TrucoClient.builder("localhost:" + server.getPort()).playerToken("jwt").backoff(Duration.ofMillis(1)).build();
  }

  public void tearDown() throws Exception {
    client.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  public void testQuickMatchFollowsTheTicketAndActsAsTheSeat() {
    List<TicketState> seen = new ArrayList<>();
    FindMatchRequest.Builder request = FindMatchRequest.newBuilder().setRules(RuleSet.newBuilder().setPlayers(4))
        .addParty("bea").setBotLevel(BotLevel.BOT_LEVEL_EXPERT)
        .setBotsAfter(com.google.protobuf.Duration.newBuilder().setSeconds(10));
    TrucoClient.QuickMatch match = client.quickMatch(request, ticket -> seen.add(ticket.getState()));
    assert seen.equals(List.of(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_MATCHED)) : seen;
    assert match.game().equals("games/g9") && match.seat() == 1 : match;
    FindMatchRequest sent = fake.finds.get(0);
    assert sent.getRules().getPlayers() == 4 && sent.getPartyList().equals(List.of("bea")) : sent;
    assert sent.getRequestId().length() >= 32 : "a request id is set";
    assert "jwt".equals(fake.headers.get(0).get(PLAYER)) : "the player token is sent";
    assert match.client().seatView(match.game()).getSeat() == 1;
    Metadata view = fake.headers.get(fake.headers.size() - 1);
    assert "Bearer seat-token".equals(view.get(AUTHORIZATION)) && "jwt".equals(view.get(PLAYER)) : view;
  }

  public void testABrokenTicketStreamIsReopenedWithTheSameRequestId() {
    fake.breakFirst = true;
    List<TrucoException> resumes = new ArrayList<>();
    try (TicketStream tickets = client.findMatch(FindMatchRequest.newBuilder().setRequestId("r-1"), resumes::add)) {
      TrucoClient.QuickMatch match = tickets.awaitMatch(null);
      assert match.game().equals("games/g9");
    }
    assert resumes.size() == 1 && resumes.get(0).code() == Status.Code.UNAVAILABLE : resumes;
    assert fake.finds.size() == 2 && fake.finds.stream().allMatch(f -> f.getRequestId().equals("r-1")) : fake.finds;
  }

  public void testAnExpiredTicketThrowsNoMatch() {
    fake.states = List.of(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_EXPIRED);
    try {
      client.quickMatch(FindMatchRequest.newBuilder(), null);
      assert false : "no NoMatchException";
    } catch (NoMatchException expected) {
      assert expected.state() == TicketState.TICKET_STATE_EXPIRED;
    }
  }

  public void testCancellingTheFutureAbandonsTheTicket() throws Exception {
    fake.states = List.of(TicketState.TICKET_STATE_WAITING);
    // Cancelled once the client has heard of its ticket (a ticket it never heard of, it cannot name).
    CountDownLatch heard = new CountDownLatch(1);
    CompletableFuture<TrucoClient.QuickMatch> match =
        client.async().quickMatch(FindMatchRequest.newBuilder(), ticket -> heard.countDown());
    assert heard.await(5, TimeUnit.SECONDS) : "the ticket never waited";
    match.cancel(true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (fake.cancels.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assert fake.cancels.equals(List.of("tickets/t1")) : fake.cancels;
    try {
      match.join();
      assert false : "the future completed";
    } catch (CancellationException expected) {
      // cancelled, as asked
    }
  }

  public void testPlayerCallsNamePlayersAndSendThePlayerToken() {
    assert client.getPlayer("me").getDisplayName().equals("Ana");
    assert client.listLeaderboard(4, 0, "", "me").getTotal() == 4;
    client.listPlayerMatches("ana", 10, "p2");
    assert fake.calls.equals(List.of("GetPlayer players/me", "ListLeaderboard 4 players/me", "ListPlayerMatches players/ana p2"))
        : fake.calls;
    assert fake.headers.stream().allMatch(h -> "jwt".equals(h.get(PLAYER)));
    try (TrucoClient anonymous = TrucoClient.builder("localhost:" + server.getPort()).build()) {
      anonymous.listLeaderboard(2, 0, "", null);
    } catch (InterruptedException interrupted) {
      throw new AssertionError(interrupted);
    }
    assert fake.headers.get(fake.headers.size() - 1).get(PLAYER) == null : "no token, no header";
  }
}
