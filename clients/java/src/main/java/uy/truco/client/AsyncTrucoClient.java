package uy.truco.client;

import io.grpc.stub.StreamObserver;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import uy.truco.v1.BotKind;
import uy.truco.v1.BotLevel;
import uy.truco.v1.Card;
import uy.truco.v1.Command;
import uy.truco.v1.CompareCardsResponse;
import uy.truco.v1.CreateGameRequest;
import uy.truco.v1.EvaluateHandResponse;
import uy.truco.v1.Game;
import uy.truco.v1.GetGameViewResponse;
import uy.truco.v1.ListLegalActionsResponse;
import uy.truco.v1.RematchResponse;
import uy.truco.v1.StartWithBotsResponse;
import uy.truco.v1.RuleSet;
import uy.truco.v1.SeatView;
import uy.truco.v1.SubmitCommandResponse;
import uy.truco.v1.WatchGameResponse;
import uy.truco.v1.FindMatchRequest;
import uy.truco.v1.FindMatchResponse;
import uy.truco.v1.ListLeaderboardResponse;
import uy.truco.v1.ListPlayerMatchesResponse;
import uy.truco.v1.MatchTicket;
import uy.truco.v1.Player;

/**
 * The calls of a {@link TrucoClient} as {@link CompletableFuture}s, and its resuming watch pushed to a
 * {@link StreamObserver}: for UI threads (Swing, JavaFX, Android's main thread) that must not block. Each call runs
 * the client's blocking call, retries and deadlines included, on the client's executor; a failure completes the
 * future exceptionally with the same {@link TrucoException}. Get one with {@link TrucoClient#async()}.
 */
@JvmOnly
public final class AsyncTrucoClient {
  private final TrucoClient client;
  private final ExecutorService executor;

  AsyncTrucoClient(TrucoClient client, ExecutorService executor) {
    this.client = client;
    this.executor = executor;
  }

  /** The blocking client these futures call. */
  public TrucoClient blocking() { return client; }

  private <T> CompletableFuture<T> run(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, executor);
  }

  public CompletableFuture<Game> createGame(RuleSet rules, java.util.Map<Integer, BotKind> bots, BotLevel level) {
    return run(() -> client.createGame(rules, bots, level));
  }

  public CompletableFuture<Game> createGame(CreateGameRequest.Builder request) {
    return run(() -> client.createGame(request));
  }

  public CompletableFuture<TrucoClient.JoinResult> joinGame(String name, Integer seat, String playerName) {
    return run(() -> client.joinGame(name, seat, playerName));
  }

  /** {@link TrucoClient#joinGame(String, Integer, String, String)}: a seat taken with the caller's request id. */
  public CompletableFuture<TrucoClient.JoinResult> joinGame(String name, Integer seat, String playerName, String requestId) {
    return run(() -> client.joinGame(name, seat, playerName, requestId));
  }

  public CompletableFuture<GetGameViewResponse> getView(String name) {
    return run(() -> client.getView(name));
  }

  public CompletableFuture<SeatView> seatView(String name) {
    return run(() -> client.seatView(name));
  }

  public CompletableFuture<ListLegalActionsResponse> legalActions(String name) {
    return run(() -> client.legalActions(name));
  }

  public CompletableFuture<SubmitCommandResponse> submit(String name, Command command, long expectedVersion) {
    return run(() -> client.submit(name, command, expectedVersion));
  }

  /** {@link TrucoClient#playTurn}: completes with null when {@code choose} chose nothing. */
  public CompletableFuture<TrucoClient.Turn> playTurn(String name, SeatView view, Function<SeatView, Command> choose) {
    return run(() -> client.playTurn(name, view, choose));
  }

  /** Every open game, all pages read. */
  public CompletableFuture<List<Game>> listGames(int pageSize) {
    return run(() -> {
      List<Game> games = new java.util.ArrayList<>();
      client.listGames(pageSize).forEach(games::add);
      return games;
    });
  }

  public CompletableFuture<Game> getGame(String name) {
    return run(() -> client.getGame(name));
  }

  public CompletableFuture<SeatView> leaveGame(String name) {
    return run(() -> client.leaveGame(name));
  }

  public CompletableFuture<SeatView> resumeSeat(String name) {
    return run(() -> client.resumeSeat(name));
  }

  public CompletableFuture<RematchResponse> rematch(String name) {
    return run(() -> client.rematch(name));
  }

  public CompletableFuture<StartWithBotsResponse> startWithBots(String name) {
    return run(() -> client.startWithBots(name));
  }

  public CompletableFuture<EvaluateHandResponse> evaluateHand(Card muestra, Iterable<Card> cards, boolean withoutFlor) {
    return run(() -> client.evaluateHand(muestra, cards, withoutFlor));
  }

  public CompletableFuture<CompareCardsResponse> compareCards(Card muestra, Card first, Card second) {
    return run(() -> client.compareCards(muestra, first, second));
  }

  /**
   * {@link TrucoClient#findMatch} on the executor: {@code observer} gets each message of the ticket, then
   * {@code onCompleted} after its last (MATCHED, EXPIRED or CANCELLED), or {@code onError} once reopening failed.
   * Closing the returned handle closes the stream, which cancels a ticket not yet matched.
   */
  public AutoCloseable findMatch(FindMatchRequest.Builder request, StreamObserver<FindMatchResponse> observer) {
    TicketStream tickets = client.findMatch(request, null);
    return pump(tickets, tickets::close, observer);
  }

  /**
   * {@link TrucoClient#quickMatch} on the executor: completes with the match, or exceptionally with a
   * {@link NoMatchException} or a {@link TrucoException}. {@code cancel} on the future abandons the ticket (its
   * stream closes and it is cancelled).
   */
  public CompletableFuture<TrucoClient.QuickMatch> quickMatch(
      FindMatchRequest.Builder request, java.util.function.Consumer<MatchTicket> onTicket) {
    TicketStream tickets = client.findMatch(request, null);
    CompletableFuture<TrucoClient.QuickMatch> match = run(() -> {
      try (tickets) {
        return tickets.awaitMatch(onTicket);
      }
    });
    match.whenComplete((found, failure) -> {
      if (match.isCancelled()) {
        // The task waiting on the stream sees it closed, sends CancelMatch and ends.
        tickets.close();
      }
    });
    return match;
  }

  public CompletableFuture<MatchTicket> cancelMatch(String name) {
    return run(() -> client.cancelMatch(name));
  }

  public CompletableFuture<Player> getPlayer(String name) {
    return run(() -> client.getPlayer(name));
  }

  public CompletableFuture<ListLeaderboardResponse> listLeaderboard(int players, int pageSize, String pageToken, String aroundPlayer) {
    return run(() -> client.listLeaderboard(players, pageSize, pageToken, aroundPlayer));
  }

  public CompletableFuture<ListPlayerMatchesResponse> listPlayerMatches(String name, int pageSize, String pageToken) {
    return run(() -> client.listPlayerMatches(name, pageSize, pageToken));
  }

  /**
   * {@link TrucoClient#watch} on the executor: {@code observer} gets each event in order (the caller's view after a
   * commit with its last event), then {@code onCompleted} when the match is over, or {@code onError} (a
   * {@link TrucoException}) once resuming failed. A broken stream is reopened after the last version delivered, as
   * the blocking watch does. Closing the returned handle stops the watch (the observer then hears nothing more).
   */
  public AutoCloseable watch(String name, long afterVersion, StreamObserver<WatchGameResponse> observer) {
    TrucoClient.Watch watch = client.watch(name, afterVersion, null);
    return pump(watch, watch::close, observer);
  }

  /**
   * {@link TrucoClient#watchCommits} on the executor: {@code observer} gets each commit as one message (its events in
   * order, the caller's view after the last), then completes or fails as {@link #watch} does.
   */
  public AutoCloseable watchCommits(String name, long afterVersion, StreamObserver<WatchGameResponse> observer) {
    TrucoClient.CommitWatch watch = client.watchCommits(name, afterVersion, null);
    return pump(watch, watch::close, observer);
  }

  /**
   * {@link TrucoClient#play} with the commits pushed to {@code observer} on the executor: each commit as one message
   * (its events in order, the caller's view after the last; {@link Commits#perEvent} splits one), then
   * {@code onCompleted} after the commit that ends the match, or {@code onError} (a {@link TrucoException}) once
   * resuming failed. The session's {@link AsyncSession#submit} returns futures. {@code onResume} (may be null) hears
   * of each resume. Closing it half-closes and cancels the stream (the observer then hears nothing more).
   */
  public AsyncSession play(String name, long afterVersion, java.util.function.BiConsumer<Long, TrucoException> onResume,
      StreamObserver<WatchGameResponse> observer) {
    Session session = client.play(name, afterVersion, onResume);
    AutoCloseable pumping = pump(session.commits(), session::close, observer);
    return new AsyncSession(session, () -> {
      try {
        pumping.close();
      } catch (Exception cannot) {
        throw new IllegalStateException(cannot); // the pump's handle throws nothing
      }
    }, executor);
  }

  /** {@link #play(String, long, java.util.function.BiConsumer, StreamObserver)} with no resume callback. */
  public AsyncSession play(String name, long afterVersion, StreamObserver<WatchGameResponse> observer) {
    return play(name, afterVersion, null, observer);
  }

  /** Pushes {@code items} to {@code observer} on the executor; the handle returned runs {@code close} and stops. */
  private <T> AutoCloseable pump(Iterator<T> items, Runnable close, StreamObserver<T> observer) {
    Future<?> pump = executor.submit(() -> {
      try {
        while (items.hasNext()) {
          observer.onNext(items.next());
        }
        if (!Thread.currentThread().isInterrupted()) {
          observer.onCompleted();
        }
      } catch (RuntimeException failure) {
        if (!Thread.currentThread().isInterrupted()) {
          observer.onError(failure);
        }
      }
    });
    return () -> {
      close.run();
      pump.cancel(true);
    };
  }
}
