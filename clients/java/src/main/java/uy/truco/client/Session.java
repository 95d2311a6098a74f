package uy.truco.client;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import uy.truco.v1.Command;
import uy.truco.v1.Event;
import uy.truco.v1.PlayGameCommand;
import uy.truco.v1.PlayGameOutcome;
import uy.truco.v1.PlayGameRequest;
import uy.truco.v1.PlayGameResponse;
import uy.truco.v1.PlayGameStart;
import uy.truco.v1.WatchGameResponse;

/**
 * A seat's whole match on one PlayGame call (a bidirectional stream): its commands go out with {@link #submit}, the
 * game's commits come in through {@link #commits()} (one message per commit, exactly as {@link TrucoClient#watchCommits}
 * hands them) or {@link #events()} (one event at a time, as {@link TrucoClient#watch}). It replaces the pair of
 * {@link TrucoClient#submit} and a watch, with the same semantics and quotas, and costs the server no new call per
 * command. Open one with {@link TrucoClient#play}; close it (it is {@link AutoCloseable}) when done.
 *
 * <p>It needs HTTP/2 end to end (native gRPC, as this SDK's channels are): browser transports (gRPC-Web, Connect
 * over HTTP/1.1) have no full-duplex streams and use the pair.
 *
 * <p>The stream carries the client's metadata as the watch does: the seat token ({@code authorization: Bearer}; a
 * session without one is a spectator's, whose commands are refused with TOKEN_MISSING), the API key and
 * {@code x-truco-game}. Each command is answered by its outcome: {@link #submit} returns the version the command
 * reached, or throws the same {@link TrucoException} SubmitCommand would have (a refused command ends nothing). A
 * command a quota refused (RESOURCE_EXHAUSTED, QUOTA_EXCEEDED) is sent again by the session, with the same request id,
 * after the server's retry delay when that is at most the client's {@code maxQuotaWait}, up to the client's retries.
 *
 * <p>A stream broken as a watch's breaks (UNAVAILABLE, the server's SERVER_SHUTTING_DOWN included; a connection closed
 * under it) is reopened after the last version received, and every command still waiting for its outcome is sent
 * again with its request id (the server applies a request id once and answers the same outcome), up to the client's
 * retries in a row with backoff; {@code onResume} hears of each. A stream a quota refused is opened again after its
 * RetryInfo delay. When the match ends the server ends the stream: the iterators end after its last commit, and a
 * command still waiting (or submitted later) fails with {@link TrucoException.IllegalMove} MATCH_OVER.
 *
 * <p>Thread-safe: {@link #submit} may be called from any thread, also from the one iterating the commits (the
 * outcomes arrive on gRPC's threads, the commits are queued for the iterator). One thread iterates.
 */
@JvmOnly
public final class Session implements AutoCloseable {
  /** Queued after the last commit when the stream ended OK or the session was closed. */
  private static final Object END = new Object();

  private final TrucoClient client;
  private final String name;
  private final BiConsumer<Long, TrucoException> onResume;
  /** The calls' context: the opener's values, not its cancellation (a resume may open a call long after). */
  private final Context context = Context.current().fork();
  private final Object lock = new Object();
  /** The commands sent and still waiting for their outcome, by request id, in the order they were submitted. */
  private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
  /** The commits received, then END or the failure that ended the session. */
  private final BlockingQueue<Object> arrivals = new LinkedBlockingQueue<>();
  private final Iterator<WatchGameResponse> commits = new CommitIterator();
  private volatile long last;
  // Guarded by lock:
  private ClientCallStreamObserver<PlayGameRequest> requests;
  private int generation;
  private int failures;
  private TrucoException ended;

  /** A command sent, until its outcome. */
  @JvmOnly
  private static final class Pending {
    final PlayGameRequest request;
    final CompletableFuture<Long> result = new CompletableFuture<>();
    int attempts;
    /** Waiting out a quota's delay: its timer sends it again, not a reopened stream. */
    boolean held;

    Pending(PlayGameRequest request) {
      this.request = request;
    }
  }

  Session(TrucoClient client, String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
    this.client = client;
    this.name = name;
    this.last = afterVersion;
    this.onResume = onResume;
    open();
  }

  /** The game's name ({@code games/{id}}). */
  public String name() { return name; }

  /** The last version received (of the last event of the last commit); a resumed stream starts after it. */
  public long lastVersion() { return last; }

  /** Sends {@code command} without a version check and a fresh request id; see {@link #submit(Command, long, String)}. */
  public long submit(Command command) {
    return submit(command, 0, TrucoClient.newRequestId());
  }

  /** Sends {@code command}, chosen at {@code expectedVersion} (0 skips the check), with a fresh request id. */
  public long submit(Command command, long expectedVersion) {
    return submit(command, expectedVersion, TrucoClient.newRequestId());
  }

  /**
   * Sends {@code command} on the stream and waits for its outcome: the game's version after it (which counts as
   * seen; its events arrive, or arrived, as a commit). {@code requestId} is sent unchanged on every resend (after a
   * quota's delay, on a reopened stream); the server applies it once.
   *
   * @throws TrucoException.IllegalMove when the rules refuse it ({@code reason()} says why), or MATCH_OVER when the
   *     stream ended (the match is over) before its outcome
   * @throws TrucoException.VersionConflict when the game moved past {@code expectedVersion}
   * @throws TrucoException the error SubmitCommand would have thrown, or the one that ended the session
   */
  public long submit(Command command, long expectedVersion, String requestId) {
    CompletableFuture<Long> outcome = submitAsync(command, expectedVersion, requestId);
    try {
      return outcome.get();
    } catch (ExecutionException failure) {
      throw TrucoException.from(failure.getCause());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new TrucoException(Status.Code.CANCELLED, "", "interrupted", Map.of(), "", interrupted);
    }
  }

  /**
   * {@link #submit(Command, long, String)} without waiting: the future completes (on one of gRPC's threads) with the
   * version, or exceptionally with the {@link TrucoException}. {@link AsyncSession#submit} completes on the client's
   * executor instead.
   */
  public CompletableFuture<Long> submitAsync(Command command, long expectedVersion, String requestId) {
    PlayGameRequest request = PlayGameRequest.newBuilder().setCommand(PlayGameCommand.newBuilder()
        .setRequestId(requestId).setExpectedVersion(expectedVersion).setCommand(command)).build();
    Pending sent = new Pending(request);
    synchronized (lock) {
      if (ended != null) {
        sent.result.completeExceptionally(endedError());
        return sent.result;
      }
      Pending already = pending.putIfAbsent(requestId, sent);
      if (already != null) {
        return already.result; // the same request id: the same outcome
      }
      if (requests != null) {
        requests.onNext(request);
      }
    }
    return sent.result;
  }

  /**
   * The game's commits in order, one message each (WatchGame's {@code per_commit} message: {@link Commits#events} in
   * order, the caller's view after the last one, {@code getSeat()} for a seat, {@code getPublic()} for a spectator),
   * from the session's {@code afterVersion} on. {@code hasNext} waits for the next one; it returns false after the
   * commit that ends the match (or once the session is closed), and throws the {@link TrucoException} that ended the
   * session when it could not be resumed. Each commit's version counts as seen. The same iterator every call; use
   * either it or {@link #events()}.
   */
  public Iterator<WatchGameResponse> commits() {
    return commits;
  }

  /**
   * The game's events one at a time, as {@link TrucoClient#watch} hands them: each event of a commit in order, the
   * caller's views after the commit with its last one ({@code getSeat()} for a seat, {@code getPublic()} for anyone).
   * It reads {@link #commits()}.
   */
  public Iterator<WatchGameResponse> events() {
    return Commits.perEvent(commits);
  }

  /**
   * Half-closes the stream and cancels it: the iterators end, and a command still waiting fails with CANCELLED. A
   * session the match ended is closed already.
   */
  @Override
  public void close() {
    ClientCallStreamObserver<PlayGameRequest> current;
    List<Pending> waiting;
    synchronized (lock) {
      current = requests;
      requests = null;
      generation++; // what the cancelled call reports is not heard
      if (ended != null) {
        return;
      }
      ended = new TrucoException(Status.Code.CANCELLED, "", "the PlayGame session was closed", Map.of(), "", null);
      waiting = takePending();
    }
    arrivals.add(END);
    if (current != null) {
      try {
        current.onCompleted();
      } finally {
        current.cancel("the PlayGame session was closed", null);
      }
    }
    waiting.forEach(p -> p.result.completeExceptionally(ended));
  }

  // --- the stream ------------------------------------------------------------------------------------------------

  /** Opens a call: its {@code start} after the last version received, then every command waiting (not held). */
  private void open() {
    synchronized (lock) {
      if (ended != null) {
        return;
      }
      int call = ++generation;
      Context previous = context.attach();
      try {
        requests = (ClientCallStreamObserver<PlayGameRequest>) client.sessionStub(name).playGame(new Responses(call));
      } finally {
        context.detach(previous);
      }
      requests.onNext(PlayGameRequest.newBuilder()
          .setStart(PlayGameStart.newBuilder().setName(name).setAfterVersion(last)).build());
      for (Pending command : pending.values()) {
        if (!command.held) {
          requests.onNext(command.request);
        }
      }
    }
  }

  /** What one call of the session hears; a call that is no longer the current one ({@code call}) is not heard. */
  @JvmOnly
  private final class Responses implements StreamObserver<PlayGameResponse> {
    private final int call;

    Responses(int call) {
      this.call = call;
    }

    @Override
    public void onNext(PlayGameResponse response) {
      synchronized (lock) {
        if (call != generation || ended != null) {
          return;
        }
        failures = 0;
      }
      if (response.hasCommit()) {
        WatchGameResponse commit = response.getCommit();
        List<Event> events = Commits.events(commit);
        if (!events.isEmpty()) {
          last = Math.max(last, events.get(events.size() - 1).getVersion());
        }
        client.seen().saw(name, Commits.version(commit));
        arrivals.add(commit);
      } else if (response.hasOutcome()) {
        outcome(response.getOutcome());
      }
    }

    @Override
    public void onError(Throwable error) {
      TrucoException failure = TrucoException.from(error);
      long wait;
      synchronized (lock) {
        if (call != generation || ended != null) {
          return;
        }
        requests = null;
        wait = client.resumeWaitMillis(failure, failures);
        if (wait >= 0) {
          failures++;
        }
      }
      if (wait < 0) {
        finish(failure);
        return;
      }
      if (onResume != null) {
        try {
          onResume.accept(last, failure);
        } catch (RuntimeException stop) {
          finish(TrucoException.from(stop));
          return;
        }
      }
      later(wait, Session.this::open);
    }

    @Override
    public void onCompleted() {
      synchronized (lock) {
        if (call != generation || ended != null) {
          return;
        }
        requests = null;
      }
      finish(null); // the match is over
    }
  }

  /** A command's outcome: its submit's result, or (a quota's refusal within the budget) the same command later. */
  private void outcome(PlayGameOutcome outcome) {
    Pending command;
    TrucoException refused = null;
    synchronized (lock) {
      command = pending.get(outcome.getRequestId());
      if (command == null) {
        return; // answered already (a command sent twice around a resume)
      }
      if (outcome.hasError()) {
        refused = TrucoException.from(outcome.getError());
        long quotaWait = client.quotaWaitMillis(refused);
        if (quotaWait >= 0 && command.attempts < client.retries()) {
          command.attempts++;
          command.held = true;
          later(quotaWait, () -> resend(command));
          return;
        }
      }
      pending.remove(outcome.getRequestId());
    }
    if (refused == null) {
      client.seen().saw(name, outcome.getVersion());
      command.result.complete(outcome.getVersion());
      return;
    }
    if (refused instanceof TrucoException.VersionConflict conflict) {
      client.seen().saw(name, VersionsSeen.conflictVersion(conflict));
    }
    command.result.completeExceptionally(refused);
  }

  /** Sends a command again after a quota's delay (when the stream is down, its reopening will). */
  private void resend(Pending command) {
    synchronized (lock) {
      if (pending.get(command.request.getCommand().getRequestId()) != command) {
        return;
      }
      command.held = false;
      if (requests != null) {
        requests.onNext(command.request);
      }
    }
  }

  /** Ends the session: OK (null: the match is over) or with {@code failure}. */
  private void finish(TrucoException failure) {
    List<Pending> waiting;
    synchronized (lock) {
      if (ended != null) {
        return;
      }
      ended = failure != null ? failure : matchOver();
      requests = null;
      waiting = takePending();
    }
    arrivals.add(failure != null ? failure : END);
    waiting.forEach(p -> p.result.completeExceptionally(endedError()));
  }

  private List<Pending> takePending() {
    List<Pending> waiting = new ArrayList<>(pending.values());
    pending.clear();
    return waiting;
  }

  /** Why a command fails now that the session ended (a fresh error for each once the match is over). */
  private TrucoException endedError() {
    return ended.reason().equals("MATCH_OVER") ? matchOver() : ended;
  }

  private static TrucoException matchOver() {
    return TrucoException.of(Status.Code.FAILED_PRECONDITION, "MATCH_OVER",
        "the match is over: the PlayGame stream ended before this command's outcome", Map.of(),
        TrucoException.DOMAIN, -1, null);
  }

  private static void later(long millis, Runnable task) {
    CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(task);
  }

  /** Hands the queued commits to one consumer. */
  @JvmOnly
  private final class CommitIterator implements Iterator<WatchGameResponse> {
    private WatchGameResponse next;
    private boolean done;

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (done) {
        return false;
      }
      Object item;
      try {
        item = arrivals.take();
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        throw new TrucoException(Status.Code.CANCELLED, "", "interrupted", Map.of(), "", interrupted);
      }
      if (item == END) {
        done = true;
        return false;
      }
      if (item instanceof TrucoException failure) {
        done = true;
        throw failure;
      }
      next = (WatchGameResponse) item;
      return true;
    }

    @Override
    public WatchGameResponse next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      WatchGameResponse item = next;
      next = null;
      return item;
    }
  }
}
