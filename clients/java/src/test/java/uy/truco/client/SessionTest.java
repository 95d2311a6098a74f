package uy.truco.client;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import uy.truco.v1.CommandError;
import uy.truco.v1.Event;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.MatchView;
import uy.truco.v1.PlayGameCommand;
import uy.truco.v1.PlayGameOutcome;
import uy.truco.v1.PlayGameRequest;
import uy.truco.v1.PlayGameResponse;
import uy.truco.v1.SeatView;
import uy.truco.v1.WatchGameResponse;

/**
 * The PlayGame session ({@link TrucoClient#play}) against a fake GameService on a local port whose PlayGame calls each
 * test scripts: what a call does when its {@code start} arrives ({@link FakePlay#onStart}) and when a command arrives
 * ({@link FakePlay#onCommand}), both given the call (its index, what it was sent, its metadata, and how to answer). A
 * plain (POJO) Surefire test, as {@link TrucoClientTest}.
 */
public class SessionTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> GAME = Metadata.Key.of(TrucoClient.GAME_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  /** One PlayGame call the fake served. */
  static final class Call {
    final int index;
    final Metadata headers;
    final List<PlayGameRequest> received = Collections.synchronizedList(new ArrayList<>());
    private final StreamObserver<PlayGameResponse> reply;
    /** The client half-closed or cancelled the call. */
    volatile boolean ended;
    private boolean over;

    Call(int index, Metadata headers, StreamObserver<PlayGameResponse> reply) {
      this.index = index;
      this.headers = headers;
      this.reply = reply;
    }

    /** Sends one commit of these event versions, with the seat's view after the last. */
    synchronized void commit(long... versions) {
      WatchGameResponse.Builder commit = WatchGameResponse.newBuilder()
          .setSeat(SeatView.newBuilder().setPublic(MatchView.newBuilder().setVersion(versions[versions.length - 1])));
      for (long version : versions) {
        commit.addEvents(Event.newBuilder().setVersion(version));
      }
      send(PlayGameResponse.newBuilder().setCommit(commit).build());
    }

    synchronized void accept(PlayGameCommand command, long version) {
      send(PlayGameResponse.newBuilder().setOutcome(
          PlayGameOutcome.newBuilder().setRequestId(command.getRequestId()).setVersion(version)).build());
    }

    synchronized void refuse(PlayGameCommand command, CommandError error) {
      send(PlayGameResponse.newBuilder().setOutcome(
          PlayGameOutcome.newBuilder().setRequestId(command.getRequestId()).setError(error)).build());
    }

    synchronized void fail(Status status) {
      fail(status.asRuntimeException());
    }

    synchronized void fail(Throwable error) {
      if (!over) {
        over = true;
        reply.onError(error);
      }
    }

    /** Ends the call OK, as the server does after the commit that ends the match. */
    synchronized void end() {
      if (!over) {
        over = true;
        reply.onCompleted();
      }
    }

    private void send(PlayGameResponse response) {
      if (!over) {
        reply.onNext(response);
      }
    }

    List<PlayGameCommand> commands() {
      synchronized (received) {
        return received.stream().filter(PlayGameRequest::hasCommand).map(PlayGameRequest::getCommand).toList();
      }
    }
  }

  /** A GameService whose PlayGame calls do what the test sets; the metadata comes from {@link Headers}. */
  static final class FakePlay extends GameServiceGrpc.GameServiceImplBase {
    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    final List<Metadata> headers = Collections.synchronizedList(new ArrayList<>());
    volatile Consumer<Call> onStart = call -> {};
    volatile BiConsumer<Call, PlayGameCommand> onCommand = (call, command) -> call.accept(command, 1);

    @Override
    public StreamObserver<PlayGameRequest> playGame(StreamObserver<PlayGameResponse> reply) {
      Call call;
      synchronized (calls) {
        call = new Call(calls.size(), headers.get(calls.size()), reply);
        calls.add(call);
      }
      return new StreamObserver<>() {
        @Override
        public void onNext(PlayGameRequest request) {
          call.received.add(request);
          if (request.hasStart()) {
            onStart.accept(call);
          } else {
            onCommand.accept(call, request.getCommand());
          }
        }

        @Override
        public void onError(Throwable error) {
          call.ended = true;
        }

        @Override
        public void onCompleted() {
          call.ended = true;
        }
      };
    }

    Call call(int index) {
      await(() -> calls.size() > index, "PlayGame call " + index);
      return calls.get(index);
    }
  }

  /** Keeps each call's metadata, in order. */
  static final class Headers implements ServerInterceptor {
    final FakePlay fake;

    Headers(FakePlay fake) {
      this.fake = fake;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      fake.headers.add(headers);
      return next.startCall(call, headers);
    }
  }

  private FakePlay fake;
  private Server server;
  private ManagedChannel channel;
  private TrucoClient client;

  public void setUp() throws Exception {
    fake = new FakePlay();
    server = ServerBuilder.forPort(0).addService(ServerInterceptors.intercept(fake, new Headers(fake))).build().start();
    channel = ManagedChannelBuilder.forTarget("localhost:" + server.getPort()).usePlaintext().build();
    client = TrucoClient.builder(null).channel(channel).token("tok").apiKey("key").retries(2)
        .backoff(Duration.ofMillis(1)).maxQuotaWait(Duration.ofSeconds(1)).build();
  }

  public void tearDown() throws Exception {
    client.close();
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      assert System.nanoTime() < deadline : "waited 5 s for " + what;
      try {
        Thread.sleep(5);
      } catch (InterruptedException interrupted) {
        throw new AssertionError(interrupted);
      }
    }
  }

  /** {@link Session#submit} that fails the test rather than wait more than 5 s. */
  private static long submit(Session session, uy.truco.v1.Command command, long expectedVersion, String requestId) {
    try {
      return session.submitAsync(command, expectedVersion, requestId).get(5, TimeUnit.SECONDS);
    } catch (ExecutionException failure) {
      throw TrucoException.from(failure.getCause());
    } catch (Exception timeout) {
      throw new AssertionError("no outcome in 5 s", timeout);
    }
  }

  private static List<List<Long>> versionsOf(Iterator<WatchGameResponse> commits) {
    List<List<Long>> out = new ArrayList<>();
    commits.forEachRemaining(commit -> out.add(Commits.events(commit).stream().map(Event::getVersion).toList()));
    return out;
  }

  private static CommandError error(io.grpc.Status.Code code, String reason, Map<String, String> metadata) {
    return CommandError.newBuilder().setCode(code.value()).setReason(reason).setMessage("refused " + reason)
        .putAllMetadata(metadata).build();
  }

  public void testStartIsSentFirstWithTheNameTheVersionAndTheWatchsMetadata() {
    try (Session session = client.play("g1", 7)) {
      Call call = fake.call(0);
      await(() -> !call.received.isEmpty(), "the start");
      PlayGameRequest start = call.received.get(0);
      assert start.hasStart() && start.getStart().getName().equals("games/g1") && start.getStart().getAfterVersion() == 7
          : start;
      assert "Bearer tok".equals(call.headers.get(AUTHORIZATION)) : call.headers;
      assert "key".equals(call.headers.get(API_KEY)) : call.headers;
      assert "games/g1".equals(call.headers.get(GAME)) : call.headers;
      assert session.name().equals("games/g1") && session.lastVersion() == 7;
    }
  }

  public void testACommandsOutcomeResolvesItsSubmitAndCountsAsSeen() {
    fake.onCommand = (call, command) -> call.accept(command, command.getExpectedVersion() + 2);
    try (Session session = client.play("games/g1", 0)) {
      assert session.submit(Commands.play("1e"), 7, "id-1") == 9;
      List<PlayGameCommand> sent = fake.call(0).commands();
      assert sent.size() == 1 && sent.get(0).getRequestId().equals("id-1") && sent.get(0).getExpectedVersion() == 7
          && sent.get(0).getCommand().equals(Commands.play("1e")) : sent;
      assert client.seen().of("games/g1") == 9 : client.seen().of("games/g1");
      String fresh = fake.call(0).commands().get(0).getRequestId();
      assert session.submit(Commands.mazo()) == 2;
      String second = fake.call(0).commands().get(1).getRequestId();
      assert !second.isEmpty() && !second.equals(fresh) : "request id " + second;
    }
  }

  public void testARefusedOutcomeIsTheTypedErrorWithItsReasonAndMetadataAndTheStreamGoesOn() {
    fake.onCommand = (call, command) -> {
      switch (command.getRequestId()) {
        case "illegal" -> call.refuse(command,
            error(io.grpc.Status.Code.FAILED_PRECONDITION, "CARD_NOT_IN_HAND", Map.of("card", "1e")));
        case "stale" -> call.refuse(command,
            error(io.grpc.Status.Code.ABORTED, "VERSION_CONFLICT", Map.of("version", "12")));
        default -> call.accept(command, 13);
      }
    };
    try (Session session = client.play("g1", 0)) {
      try {
        session.submit(Commands.play("1e"), 0, "illegal");
        assert false : "accepted";
      } catch (TrucoException.IllegalMove refused) {
        assert refused.code() == io.grpc.Status.Code.FAILED_PRECONDITION && refused.reason().equals("CARD_NOT_IN_HAND")
            && refused.metadata().equals(Map.of("card", "1e")) && refused.statusMessage().equals("refused CARD_NOT_IN_HAND")
            && refused.domain().equals(TrucoException.DOMAIN) && !refused.connectionLost() : refused;
      }
      try {
        session.submit(Commands.mazo(), 3, "stale");
        assert false : "accepted";
      } catch (TrucoException.VersionConflict conflict) {
        assert conflict.reason().equals("VERSION_CONFLICT") : conflict;
      }
      assert client.seen().of("games/g1") == 12 : "the version a VERSION_CONFLICT tells of counts as seen";
      assert session.submit(Commands.mazo(), 12, "fine") == 13;
      assert fake.calls.size() == 1 : "a refused command ended the stream";
    }
  }

  public void testAQuotaOutcomeIsSentAgainAfterItsDelayWithTheSameRequestId() {
    CommandError quota = error(io.grpc.Status.Code.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED", Map.of("quota", "player"))
        .toBuilder().setRetryDelay(com.google.protobuf.Duration.newBuilder().setNanos(300_000_000)).build();
    fake.onCommand = (call, command) -> {
      if (call.commands().size() == 1) {
        call.refuse(command, quota);
      } else {
        call.accept(command, 5);
      }
    };
    try (Session session = client.play("g1", 0)) {
      long started = System.nanoTime();
      assert submit(session, Commands.mazo(), 4, "id") == 5;
      long waited = (System.nanoTime() - started) / 1_000_000;
      assert waited >= 300 : "sent again after " + waited + " ms, before the 300 ms the server asked for";
      List<PlayGameCommand> sent = fake.call(0).commands();
      assert sent.size() == 2 && sent.get(0).equals(sent.get(1)) : sent;
      assert fake.calls.size() == 1;
    }
  }

  public void testAQuotaOutcomeLongerThanMaxQuotaWaitIsThrownAtOnce() {
    CommandError quota = error(io.grpc.Status.Code.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED", Map.of())
        .toBuilder().setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(30)).build();
    fake.onCommand = (call, command) -> call.refuse(command, quota);
    try (Session session = client.play("g1", 0)) {
      try {
        session.submit(Commands.mazo());
        assert false : "accepted";
      } catch (TrucoException.ResourceExhausted refused) {
        assert refused.reason().equals("QUOTA_EXCEEDED") && refused.retryDelay().equals(Duration.ofSeconds(30)) : refused;
      }
      assert fake.call(0).commands().size() == 1;
    }
  }

  public void testABrokenStreamIsReopenedAfterTheLastVersionAndThePendingCommandSentAgain() throws Exception {
    fake.onStart = call -> {
      if (call.index == 0) {
        call.commit(1, 2);
      } else {
        call.commit(3);
      }
    };
    fake.onCommand = (call, command) -> {
      if (call.index == 0) {
        call.fail(Status.UNAVAILABLE.withDescription("going away")); // the outcome never came
      } else {
        call.accept(command, 4);
        call.commit(4);
        call.end();
      }
    };
    List<String> resumed = Collections.synchronizedList(new ArrayList<>());
    try (Session session = client.play("g1", 0, (after, error) -> resumed.add(after + " " + error.code()))) {
      await(() -> session.lastVersion() == 2, "the first commit");
      assert submit(session, Commands.mazo(), 2, "the-id") == 4;
      assert versionsOf(session.commits()).equals(List.of(List.of(1L, 2L), List.of(3L), List.of(4L)));
      assert session.lastVersion() == 4;
    }
    assert resumed.equals(List.of("2 UNAVAILABLE")) : resumed;
    assert fake.calls.size() == 2 : fake.calls.size();
    PlayGameRequest start = fake.call(1).received.get(0);
    assert start.hasStart() && start.getStart().getAfterVersion() == 2 && start.getStart().getName().equals("games/g1")
        : start;
    assert "Bearer tok".equals(fake.call(1).headers.get(AUTHORIZATION));
    List<PlayGameCommand> again = fake.call(1).commands();
    assert again.size() == 1 && again.get(0).getRequestId().equals("the-id") && again.get(0).getExpectedVersion() == 2
        : again;
  }

  public void testAStreamAQuotaRefusedIsOpenedAgainAfterItsDelay() {
    com.google.rpc.Status quota = com.google.rpc.Status.newBuilder()
        .setCode(com.google.rpc.Code.RESOURCE_EXHAUSTED_VALUE).setMessage("too many watches")
        .addDetails(com.google.protobuf.Any.pack(com.google.rpc.ErrorInfo.newBuilder()
            .setReason("QUOTA_EXCEEDED").setDomain(TrucoException.DOMAIN).build()))
        .addDetails(com.google.protobuf.Any.pack(com.google.rpc.RetryInfo.newBuilder()
            .setRetryDelay(com.google.protobuf.Duration.newBuilder().setNanos(200_000_000)).build()))
        .build();
    List<Long> opened = Collections.synchronizedList(new ArrayList<>());
    fake.onStart = call -> {
      opened.add(System.nanoTime());
      if (call.index == 0) {
        call.fail(io.grpc.protobuf.StatusProto.toStatusRuntimeException(quota)); // the RetryInfo in its trailers
      } else {
        call.commit(1);
        call.end();
      }
    };
    try (Session session = client.play("g1", 0)) {
      assert versionsOf(session.commits()).equals(List.of(List.of(1L)));
    }
    assert opened.size() == 2;
    long waited = (opened.get(1) - opened.get(0)) / 1_000_000;
    assert waited >= 200 : "opened again after " + waited + " ms";
  }

  public void testTheEventsHelperHandsEachEventWithTheViewOnTheLast() {
    fake.onStart = call -> {
      call.commit(8, 9);
      call.commit(10);
      call.end();
    };
    try (Session session = client.play("g1", 7)) {
      List<List<Long>> got = new ArrayList<>();
      session.events().forEachRemaining(item -> got.add(List.of(
          item.getEvent().getVersion(), item.getSeat().getPublic().getVersion(), item.getPublic().getVersion())));
      assert got.equals(List.of(List.of(8L, 0L, 0L), List.of(9L, 9L, 9L), List.of(10L, 10L, 10L))) : got;
    }
    assert client.seen().of("games/g1") == 10;
  }

  public void testTheEndOfTheMatchEndsTheCommitsAndFailsTheCommandsStillWaiting() {
    fake.onStart = call -> call.commit(5);
    fake.onCommand = (call, command) -> call.end(); // the match ended before this command was applied
    try (Session session = client.play("g1", 0)) {
      try {
        session.submit(Commands.mazo());
        assert false : "accepted";
      } catch (TrucoException.IllegalMove over) {
        assert over.reason().equals("MATCH_OVER") : over;
      }
      assert versionsOf(session.commits()).equals(List.of(List.of(5L)));
      try {
        session.submit(Commands.mazo());
        assert false : "accepted after the end";
      } catch (TrucoException.IllegalMove over) {
        assert over.reason().equals("MATCH_OVER") : over;
      }
    }
    assert fake.calls.size() == 1 : "an ended match was reopened";
  }

  public void testCloseEndsTheCallTheIteratorsAndTheCommandsWaiting() {
    fake.onCommand = (call, command) -> {}; // never answered
    Session session = client.play("g1", 0);
    CompletableFuture<Long> waiting = session.submitAsync(Commands.mazo(), 0, "id");
    Call call = fake.call(0);
    await(() -> call.commands().size() == 1, "the command");
    session.close();
    await(() -> call.ended, "the call's end (its half-close, or the cancel that may overtake it)");
    try {
      waiting.get(5, TimeUnit.SECONDS);
      assert false : "answered";
    } catch (ExecutionException closed) {
      assert closed.getCause() instanceof TrucoException failure && failure.code() == io.grpc.Status.Code.CANCELLED
          : closed.getCause();
    } catch (Exception other) {
      throw new AssertionError(other);
    }
    assert !session.commits().hasNext();
  }

  public void testTheAsyncSessionPushesCommitsAndCompletesSubmits() throws Exception {
    fake.onStart = call -> call.commit(1, 2);
    fake.onCommand = (call, command) -> {
      call.accept(command, 3);
      call.commit(3);
      call.end();
    };
    List<List<Long>> commits = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Void> completed = new CompletableFuture<>();
    try (AsyncSession session = client.async().play("g1", 0, new StreamObserver<>() {
      public void onNext(WatchGameResponse commit) {
        commits.add(Commits.events(commit).stream().map(Event::getVersion).toList());
      }

      public void onError(Throwable error) {
        completed.completeExceptionally(error);
      }

      public void onCompleted() {
        completed.complete(null);
      }
    })) {
      assert session.submit(Commands.mazo(), 2).get(5, TimeUnit.SECONDS) == 3;
      completed.get(5, TimeUnit.SECONDS);
    }
    assert commits.equals(List.of(List.of(1L, 2L), List.of(3L))) : commits;
  }
}
