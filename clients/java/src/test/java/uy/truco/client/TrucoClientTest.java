package uy.truco.client;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import uy.truco.v1.CreateGameRequest;
import uy.truco.v1.CreateGameResponse;
import uy.truco.v1.Event;
import uy.truco.v1.Game;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.GetGameViewRequest;
import uy.truco.v1.GetGameViewResponse;
import uy.truco.v1.JoinGameRequest;
import uy.truco.v1.JoinGameResponse;
import uy.truco.v1.ListLegalActionsRequest;
import uy.truco.v1.ListLegalActionsResponse;
import uy.truco.v1.MatchView;
import uy.truco.v1.RulesServiceGrpc;
import uy.truco.v1.SeatView;
import uy.truco.v1.SubmitCommandRequest;
import uy.truco.v1.SubmitCommandResponse;
import uy.truco.v1.WatchGameRequest;
import uy.truco.v1.WatchGameResponse;

/**
 * The client's {@code min_version} bookkeeping, against a fake GameService on a local port that records every read
 * it is sent. A plain (POJO) Surefire test: each public {@code test*} method runs between {@link #setUp} and
 * {@link #tearDown}, checking with {@code assert} (Surefire enables assertions).
 */
public class TrucoClientTest {
  /** One read the fake server was sent. */
  record Read(String rpc, String name, long minVersion) {}

  /**
   * A GameService whose replies carry the versions the test sets: {@code version} for views, legal actions and
   * submits; {@code conflictAt} (when above 0) makes submits fail with ABORTED VERSION_CONFLICT at that version;
   * WatchGame streams the {@code events} after the request's version: with {@code per_commit} (unless the fake plays
   * a {@code released} server) in commits of up to two events, each with the seat's view after its last one, else one
   * event per message; a watch with {@code breakAfter} set ends with {@code breakWith} (UNAVAILABLE unless set) after
   * its events up to that version (once). It records every read and every watch request.
   */
  static final class FakeGames extends GameServiceGrpc.GameServiceImplBase {
    final List<Read> reads = new ArrayList<>();
    final List<String> joinIds = Collections.synchronizedList(new ArrayList<>());
    final List<WatchGameRequest> watches = Collections.synchronizedList(new ArrayList<>());
    volatile long version;
    volatile long conflictAt;
    volatile List<Long> events = List.of();
    volatile boolean released;
    volatile long breakAfter;
    volatile io.grpc.Status breakWith = io.grpc.Status.UNAVAILABLE.withDescription("going away");

    private static MatchView view(long version) {
      return MatchView.newBuilder().setVersion(version).build();
    }

    synchronized Read lastRead() {
      assert !reads.isEmpty() : "no read was sent";
      return reads.get(reads.size() - 1);
    }

    private synchronized void record(String rpc, String name, long minVersion) {
      reads.add(new Read(rpc, name, minVersion));
    }

    @Override
    public void createGame(CreateGameRequest request, StreamObserver<CreateGameResponse> reply) {
      reply.onNext(CreateGameResponse.newBuilder()
          .setGame(Game.newBuilder().setName("games/created").setVersion(version)).build());
      reply.onCompleted();
    }

    @Override
    public void joinGame(JoinGameRequest request, StreamObserver<JoinGameResponse> reply) {
      joinIds.add(request.getRequestId());
      reply.onNext(JoinGameResponse.newBuilder()
          .setSeatToken("token").setView(SeatView.newBuilder().setPublic(view(version))).build());
      reply.onCompleted();
    }

    @Override
    public void getGameView(GetGameViewRequest request, StreamObserver<GetGameViewResponse> reply) {
      record("GetGameView", request.getName(), request.getMinVersion());
      reply.onNext(GetGameViewResponse.newBuilder()
          .setSeat(SeatView.newBuilder().setPublic(view(version))).setPublic(view(version)).build());
      reply.onCompleted();
    }

    @Override
    public void listLegalActions(ListLegalActionsRequest request, StreamObserver<ListLegalActionsResponse> reply) {
      record("ListLegalActions", request.getName(), request.getMinVersion());
      reply.onNext(ListLegalActionsResponse.newBuilder().setVersion(version).build());
      reply.onCompleted();
    }

    @Override
    public void submitCommand(SubmitCommandRequest request, StreamObserver<SubmitCommandResponse> reply) {
      if (conflictAt > 0) {
        ErrorInfo info = ErrorInfo.newBuilder().setReason("VERSION_CONFLICT").setDomain("truco.v1")
            .putMetadata("version", Long.toString(conflictAt)).build();
        reply.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
            .setCode(Code.ABORTED_VALUE).setMessage("the game moved on").addDetails(Any.pack(info)).build()));
        return;
      }
      reply.onNext(SubmitCommandResponse.newBuilder().setVersion(version).build());
      reply.onCompleted();
    }

    @Override
    public void watchGame(WatchGameRequest request, StreamObserver<WatchGameResponse> reply) {
      watches.add(request);
      long cut = breakAfter;
      breakAfter = 0;
      List<Long> versions = events.stream()
          .filter(v -> v > request.getAfterVersion() && (cut == 0 || v <= cut)).toList();
      if (request.getPerCommit() && !released) {
        for (int start = 0; start < versions.size(); start += 2) {
          List<Long> commit = versions.subList(start, Math.min(start + 2, versions.size()));
          WatchGameResponse.Builder message = WatchGameResponse.newBuilder()
              .setSeat(SeatView.newBuilder().setPublic(view(commit.get(commit.size() - 1))));
          commit.forEach(v -> message.addEvents(Event.newBuilder().setVersion(v)));
          reply.onNext(message.build());
        }
      } else {
        for (long event : versions) {
          reply.onNext(WatchGameResponse.newBuilder()
              .setEvent(Event.newBuilder().setVersion(event)).setPublic(view(event)).build());
        }
      }
      if (cut != 0) {
        reply.onError(breakWith.asRuntimeException());
      } else {
        reply.onCompleted();
      }
    }
  }

  /** Records each call's method name and the game its {@code x-truco-game} metadata names ("-": none). */
  static final class Recorder implements ServerInterceptor {
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, io.grpc.Metadata headers, ServerCallHandler<Q, R> next) {
      String game = headers.get(io.grpc.Metadata.Key.of(TrucoClient.GAME_HEADER, io.grpc.Metadata.ASCII_STRING_MARSHALLER));
      calls.add(call.getMethodDescriptor().getBareMethodName() + " " + (game == null ? "-" : game));
      return next.startCall(call, headers);
    }
  }

  private FakeGames fake;
  private Recorder recorder;
  private Server server;
  private ManagedChannel channel;
  private TrucoClient client;

  public void setUp() throws Exception {
    fake = new FakeGames();
    recorder = new Recorder();
    server = ServerBuilder.forPort(0).addService(ServerInterceptors.intercept(fake, recorder))
        .addService(ServerInterceptors.intercept(new RulesServiceGrpc.RulesServiceImplBase() {}, recorder))
        .build().start();
    channel = ManagedChannelBuilder.forTarget("localhost:" + server.getPort()).usePlaintext().build();
    client = new TrucoClient(channel, null, Duration.ofSeconds(5), 0, Duration.ofMillis(10), Duration.ofMillis(10));
  }

  public void tearDown() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private void expectMinVersion(long want, String why) {
    long got = fake.lastRead().minVersion();
    assert got == want : "min_version " + got + ", want " + want + " (" + why + ")";
  }

  public void testReadsSendZeroForAnUnseenGame() {
    fake.version = 4;
    client.getView("g1");
    client.legalActions("games/g2");
    List<Read> want = List.of(new Read("GetGameView", "games/g1", 0), new Read("ListLegalActions", "games/g2", 0));
    assert fake.reads.equals(want) : "reads " + fake.reads + ", want " + want;
  }

  public void testJoinGameSendsTheCallersRequestIdOrANewOne() {
    String chosen = TrucoClient.newRequestId();
    client.joinGame("g1", 0, "ana", chosen);
    client.joinGame("g1", null, "ana");
    assert fake.joinIds.size() == 2 && fake.joinIds.get(0).equals(chosen) : "join ids " + fake.joinIds;
    assert fake.joinIds.get(1).length() >= 32 && !fake.joinIds.get(1).equals(chosen) : "join ids " + fake.joinIds;
  }

  public void testReadsSendTheNewestVersionSeen() {
    fake.version = 3;
    client.joinGame("g1", 0, "ana");
    client.legalActions("g1");
    expectMinVersion(3, "the joined view's version");

    fake.version = 7;
    client.submit("g1", Commands.play("1e"), 0);
    fake.version = 5; // an older reply does not lower what was seen
    client.getView("games/g1");
    expectMinVersion(7, "the submit's version");
    client.legalActions("g1");
    expectMinVersion(7, "still the highest seen");

    fake.events = List.of(8L, 9L);
    try (TrucoClient.Watch watch = client.watch("g1", 7, null)) {
      while (watch.hasNext()) {
        assert watch.next().hasEvent();
      }
    }
    client.seatView("g1");
    expectMinVersion(9, "the last watched event's version");

    fake.conflictAt = 12;
    try {
      client.submit("g1", Commands.play("1e"), 9);
      assert false : "the submit was accepted";
    } catch (TrucoException.VersionConflict expected) {
      assert expected.reason().equals("VERSION_CONFLICT") : expected;
    }
    client.getView("g1");
    expectMinVersion(12, "the version a VERSION_CONFLICT tells of");

    fake.version = 15;
    client.getView("g1");
    client.legalActions("g1");
    expectMinVersion(15, "the last view's version");

    client.getView("g2");
    expectMinVersion(0, "another game has its own version");

    fake.version = 2;
    Game game = client.createGame(uy.truco.v1.RuleSet.getDefaultInstance(), Map.of());
    client.getView(game.getName());
    expectMinVersion(2, "the created game's version");
  }

  private static List<List<Long>> versionsOf(Iterator<WatchGameResponse> items) {
    List<List<Long>> out = new ArrayList<>();
    items.forEachRemaining(item -> out.add(List.of(
        item.getEvent().getVersion(), item.getSeat().getPublic().getVersion(), item.getPublic().getVersion())));
    return out;
  }

  public void testTheWatchAsksForCommitsAndHandsEachEventInOrderWithTheViewOnTheLast() {
    fake.events = List.of(8L, 9L, 10L);
    List<List<Long>> got;
    try (TrucoClient.Watch watch = client.watch("g1", 7, null)) {
      got = versionsOf(watch);
      assert watch.lastVersion() == 10 : watch.lastVersion();
    }
    // Each event's version, then its seat and public views' (0: none): the view after a commit on its last event.
    List<List<Long>> want = List.of(List.of(8L, 0L, 0L), List.of(9L, 9L, 9L), List.of(10L, 10L, 10L));
    assert got.equals(want) : got;
    assert fake.watches.size() == 1 && fake.watches.get(0).getPerCommit() && fake.watches.get(0).getAfterVersion() == 7
        : fake.watches;
    client.getView("g1");
    expectMinVersion(10, "the last watched commit's version");
  }

  public void testWatchCommitsHandsCommitsWholeAndResumesAfterTheLastVersion() throws Exception {
    fake.events = List.of(1L, 2L, 3L, 4L, 5L);
    fake.breakAfter = 2;
    List<Long> resumed = new ArrayList<>();
    List<List<Long>> commits = new ArrayList<>();
    try (TrucoClient resuming = TrucoClient.builder(null).channel(channel).retries(2).backoff(Duration.ofMillis(1)).build();
        TrucoClient.CommitWatch watch = resuming.watchCommits("g1", 0, (after, error) -> resumed.add(after))) {
      watch.forEachRemaining(m -> commits.add(Commits.events(m).stream().map(Event::getVersion).toList()));
    }
    assert commits.equals(List.of(List.of(1L, 2L), List.of(3L, 4L), List.of(5L))) : commits;
    assert resumed.equals(List.of(2L)) : resumed;
    assert fake.watches.size() == 2 && fake.watches.get(1).getAfterVersion() == 2 && fake.watches.get(1).getPerCommit()
        : fake.watches;
  }

  public void testAWatchCutByAClosedChannelIsReopened() throws Exception {
    fake.events = List.of(1L, 2L, 3L);
    fake.breakAfter = 2;
    // What grpc-java reports when the connection closes under a stream, as on a server restart.
    fake.breakWith = io.grpc.Status.UNKNOWN.withDescription("channel closed");
    List<Long> resumed = new ArrayList<>();
    List<Long> versions = new ArrayList<>();
    try (TrucoClient resuming = TrucoClient.builder(null).channel(channel).retries(2).backoff(Duration.ofMillis(1)).build();
        TrucoClient.Watch watch = resuming.watch("g1", 0, (after, error) -> resumed.add(after))) {
      watch.forEachRemaining(m -> versions.add(m.getEvent().getVersion()));
    }
    assert versions.equals(List.of(1L, 2L, 3L)) : versions;
    assert resumed.equals(List.of(2L)) : resumed;
  }

  public void testOnlyAnUnknownWithoutTheServicesReasonIsAConnectionLost() {
    assert TrucoException.from(io.grpc.Status.UNKNOWN.withDescription("channel closed").asRuntimeException())
        .connectionLost();
    com.google.rpc.Status internal = com.google.rpc.Status.newBuilder().setCode(Code.UNKNOWN_VALUE).setMessage("boom")
        .addDetails(Any.pack(ErrorInfo.newBuilder().setDomain(TrucoException.DOMAIN).setReason("INTERNAL").build()))
        .build();
    assert !TrucoException.from(StatusProto.toStatusRuntimeException(internal)).connectionLost();
    assert !TrucoException.from(io.grpc.Status.INVALID_ARGUMENT.asRuntimeException()).connectionLost();
  }

  public void testTheWatchReadsAServerOlderThanPerCommit() {
    fake.events = List.of(1L, 2L);
    fake.released = true;
    try (TrucoClient.Watch watch = client.watch("g1", 0, null)) {
      List<List<Long>> got = versionsOf(watch);
      assert got.equals(List.of(List.of(1L, 0L, 1L), List.of(2L, 0L, 2L))) : got;
    }
  }

  public void testEveryCallAboutOneGameNamesItForTheBalancer() {
    fake.events = List.of(1L);
    List<Runnable> calls = List.of(
        () -> client.createGame(uy.truco.v1.RuleSet.getDefaultInstance(), Map.of()),
        () -> client.joinGame("g1", 0, "ana"),
        () -> client.getView("g1"),
        () -> client.legalActions("games/g1"),
        () -> client.submit("g1", Commands.mazo(), 0),
        () -> {
          try (TrucoClient.Watch watch = client.watch("g1", 0, null)) {
            watch.forEachRemaining(item -> {});
          }
        },
        () -> client.listGames(10).forEach(game -> {}),
        () -> client.getGame("g1"),
        () -> client.leaveGame("g1"),
        () -> client.resumeSeat("g1"),
        () -> client.rematch("g1"),
        () -> client.startWithBots("g1"),
        () -> client.evaluateHand(Cards.card("1o"), List.of(), false),
        () -> client.compareCards(Cards.card("1o"), Cards.card("2o"), Cards.card("1e")));
    for (Runnable call : calls) {
      try {
        call.run();
      } catch (TrucoException unimplemented) {
        // the fake answers some of them UNIMPLEMENTED: what matters is what they were sent with
      }
    }
    List<String> want = List.of("CreateGame -", "JoinGame games/g1", "GetGameView games/g1",
        "ListLegalActions games/g1", "SubmitCommand games/g1", "WatchGame games/g1", "ListGames -", "GetGame games/g1",
        "LeaveGame games/g1", "ResumeSeat games/g1", "Rematch games/g1", "StartWithBots games/g1",
        "EvaluateHand -", "CompareCards -");
    assert recorder.calls.equals(want) : recorder.calls;
  }

  public void testWithTokenSharesTheVersionsSeen() {
    fake.version = 6;
    client.withToken("other").submit("g1", Commands.play("1e"), 0);
    client.legalActions("g1");
    expectMinVersion(6, "the other seat's submit");
  }

  public void testVersionsSeenKeepsTheHighestNeverZero() {
    VersionsSeen seen = new VersionsSeen(VersionsSeen.MAX_GAMES);
    seen.saw("games/a", 0);
    assert seen.size() == 0 : "a zero version was remembered";
    seen.saw("games/a", 5);
    seen.saw("games/a", 3);
    seen.saw("games/a", 0);
    assert seen.of("games/a") == 5 : seen.of("games/a");
    assert seen.of("games/b") == 0 : seen.of("games/b");
  }

  public void testVersionsSeenForgetsTheLeastRecentlySeen() {
    VersionsSeen seen = new VersionsSeen(3);
    seen.saw("games/a", 1);
    seen.saw("games/b", 2);
    seen.saw("games/c", 3);
    seen.saw("games/a", 1); // seen again: now the most recent
    seen.saw("games/d", 4);
    List<Long> got = List.of(seen.of("games/a"), seen.of("games/b"), seen.of("games/c"), seen.of("games/d"));
    assert got.equals(List.of(1L, 0L, 3L, 4L)) && seen.size() == 3 : got + " (" + seen.size() + " games)";

    seen = new VersionsSeen(VersionsSeen.MAX_GAMES);
    for (int game = 0; game <= VersionsSeen.MAX_GAMES; game++) {
      seen.saw("games/" + game, game + 1);
    }
    assert seen.size() == VersionsSeen.MAX_GAMES : seen.size();
    assert seen.of("games/0") == 0 : seen.of("games/0");
    assert seen.of("games/" + VersionsSeen.MAX_GAMES) == VersionsSeen.MAX_GAMES + 1;
  }

  public void testVersionsSeenIsSafeForConcurrentUse() throws InterruptedException {
    VersionsSeen seen = new VersionsSeen(8);
    List<Thread> workers = new ArrayList<>();
    for (int worker = 0; worker < 8; worker++) {
      int offset = worker;
      workers.add(new Thread(() -> {
        for (int version = 0; version < 1000; version++) {
          seen.saw("games/" + (version + offset) % 10, version + 1);
          seen.of("games/0");
        }
      }));
    }
    workers.forEach(Thread::start);
    for (Thread worker : workers) {
      worker.join();
    }
    assert seen.size() == 8 : seen.size();
  }
}
