package uy.truco.client;

import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;
import uy.truco.v1.FindMatchRequest;
import uy.truco.v1.FindMatchResponse;
import uy.truco.v1.MatchTicket;
import uy.truco.v1.TicketState;

/**
 * A quick-match ticket followed on its FindMatch stream ({@link TrucoClient#findMatch}): each message the server
 * sends (the ticket WAITING, its window widening, ... then MATCHED, EXPIRED or CANCELLED, after which it ends). A
 * stream broken by a lost connection is reopened with the same request id, which follows the same ticket (a matched
 * one answers MATCHED again), as a watch resumes; a stream a quota refused is opened again after its RetryInfo
 * delay. {@link #close} (from any thread) or interrupting the thread that waits on it closes the stream, which
 * cancels a ticket not yet matched; {@link #awaitMatch} does all of it and hands back the seat.
 */
@JvmOnly
public final class TicketStream implements Iterator<FindMatchResponse>, AutoCloseable {
  private final TrucoClient client;
  private final FindMatchRequest request;
  private final Consumer<TrucoException> onResume;
  private int failures;
  private Context.CancellableContext context;
  private Iterator<FindMatchResponse> stream;
  private FindMatchResponse next;
  private MatchTicket last;
  private volatile boolean done;
  private volatile boolean closed;

  TicketStream(TrucoClient client, FindMatchRequest request, Consumer<TrucoException> onResume) {
    this.client = client;
    this.request = request;
    this.onResume = onResume;
  }

  /** Whether a ticket in this state is over: its stream sends nothing after it. */
  public static boolean isFinal(TicketState state) {
    return state == TicketState.TICKET_STATE_MATCHED || state == TicketState.TICKET_STATE_EXPIRED
        || state == TicketState.TICKET_STATE_CANCELLED;
  }

  /** Opens the stream, unless {@link #close} came first: false then. */
  private synchronized boolean open() {
    if (closed) {
      return false;
    }
    context = Context.current().withCancellation();
    Context previous = context.attach();
    try {
      stream = client.playerStreamStub().findMatch(request);
    } finally {
      context.detach(previous);
    }
    return true;
  }

  @Override
  public boolean hasNext() {
    while (next == null && !done) {
      try {
        if (stream == null && !open()) {
          done = true;
          break;
        }
        if (stream.hasNext()) {
          next = stream.next();
          failures = 0;
          last = next.hasTicket() ? next.getTicket() : last;
          done = next.hasTicket() && isFinal(next.getTicket().getState());
        } else {
          done = true;
        }
      } catch (StatusRuntimeException error) {
        TrucoException failure = TrucoException.from(error);
        stream = null;
        context.cancel(null);
        boolean abandoned = closed || Thread.currentThread().isInterrupted();
        long wait = abandoned ? -1 : client.resumeWaitMillis(failure, failures);
        if (wait < 0) {
          done = true;
          if (abandoned) {
            return false;
          }
          throw failure;
        }
        if (onResume != null) {
          onResume.accept(failure);
        }
        TrucoClient.pause(wait);
        failures++;
      }
    }
    return next != null;
  }

  @Override
  public FindMatchResponse next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    FindMatchResponse item = next;
    next = null;
    return item;
  }

  /** The ticket as last heard of (null before the first message). */
  public MatchTicket ticket() { return last; }

  /** The request sent (its request id too, sent again on every reopening). */
  public FindMatchRequest request() { return request; }

  /**
   * Follows the ticket until it is MATCHED: {@code onTicket} (may be null) hears each state it passes through, and
   * the result is the game, the seat and a client acting as the seat (its seat token, the player token and API key
   * of the client that opened the ticket).
   *
   * @throws NoMatchException when the ticket EXPIRES or is CANCELLED
   * @throws CancellationException when the stream was closed (or the thread interrupted) first: the ticket is
   *     cancelled (CancelMatch, in case the server has not yet seen the stream go)
   */
  public TrucoClient.QuickMatch awaitMatch(Consumer<MatchTicket> onTicket) {
    while (hasNext()) {
      FindMatchResponse item = next();
      if (!item.hasTicket()) {
        continue;
      }
      MatchTicket ticket = item.getTicket();
      if (onTicket != null) {
        onTicket.accept(ticket);
      }
      switch (ticket.getState()) {
        case TICKET_STATE_MATCHED -> {
          String game = TrucoClient.gameName(item.getGame());
          return new TrucoClient.QuickMatch(game, item.getSeat(), client.withToken(item.getSeatToken()), ticket);
        }
        case TICKET_STATE_EXPIRED, TICKET_STATE_CANCELLED -> throw new NoMatchException(ticket);
        default -> { }
      }
    }
    if (closed || Thread.currentThread().isInterrupted()) {
      if (last != null) {
        try {
          // The closed stream cancels the ticket; this says so at once, and a ticket matched meanwhile stays so.
          client.cancelMatch(last.getName());
        } catch (TrucoException ignored) {
          // Best effort: the server cancels it anyway when it sees the stream gone.
        }
      }
      throw new CancellationException("quick match abandoned");
    }
    throw new NoMatchException(last);
  }

  /** Closes the stream (from any thread): a ticket not yet matched is cancelled. */
  @Override
  public synchronized void close() {
    closed = true;
    if (context != null) {
      context.cancel(null);
    }
  }
}
