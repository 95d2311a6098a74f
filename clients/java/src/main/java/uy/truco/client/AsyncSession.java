package uy.truco.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import uy.truco.v1.Command;

/**
 * A {@link Session} whose commands complete as futures, from {@link AsyncTrucoClient#play}: its commits go to the
 * observer given there, on the client's executor. Each future completes on that executor with the command's version,
 * or exceptionally with the {@link TrucoException} SubmitCommand would have failed with (MATCH_OVER once the match
 * ended, CANCELLED once the session was closed). Close it when done.
 */
@JvmOnly
public final class AsyncSession implements AutoCloseable {
  private final Session session;
  /** Closes the session and stops pushing commits. */
  private final Runnable stop;
  private final Executor executor;

  AsyncSession(Session session, Runnable stop, Executor executor) {
    this.session = session;
    this.stop = stop;
    this.executor = executor;
  }

  /** The blocking session underneath. */
  public Session blocking() { return session; }

  /** The last version received. */
  public long lastVersion() { return session.lastVersion(); }

  /** {@link Session#submit(Command)}: no version check, a fresh request id. */
  public CompletableFuture<Long> submit(Command command) {
    return submit(command, 0, TrucoClient.newRequestId());
  }

  /** {@link Session#submit(Command, long)}: chosen at {@code expectedVersion}, a fresh request id. */
  public CompletableFuture<Long> submit(Command command, long expectedVersion) {
    return submit(command, expectedVersion, TrucoClient.newRequestId());
  }

  /** {@link Session#submit(Command, long, String)} as a future completed on the client's executor. */
  public CompletableFuture<Long> submit(Command command, long expectedVersion, String requestId) {
    CompletableFuture<Long> done = new CompletableFuture<>();
    session.submitAsync(command, expectedVersion, requestId).whenCompleteAsync((version, failure) -> {
      if (failure != null) {
        done.completeExceptionally(failure);
      } else {
        done.complete(version);
      }
    }, executor);
    return done;
  }

  /** Half-closes and cancels the stream, and stops pushing commits. */
  @Override
  public void close() {
    stop.run();
  }
}
