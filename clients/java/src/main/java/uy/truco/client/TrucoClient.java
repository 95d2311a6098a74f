package uy.truco.client;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import uy.truco.v1.BotKind;
import uy.truco.v1.BotSeat;
import uy.truco.v1.Command;
import uy.truco.v1.CompareCardsRequest;
import uy.truco.v1.CompareCardsResponse;
import uy.truco.v1.Card;
import uy.truco.v1.CreateGameRequest;
import uy.truco.v1.EvaluateHandRequest;
import uy.truco.v1.EvaluateHandResponse;
import uy.truco.v1.Game;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.GetGameViewRequest;
import uy.truco.v1.GetGameViewResponse;
import uy.truco.v1.JoinGameRequest;
import uy.truco.v1.JoinGameResponse;
import uy.truco.v1.ListLegalActionsRequest;
import uy.truco.v1.ListLegalActionsResponse;
import uy.truco.v1.Phase;
import uy.truco.v1.RuleSet;
import uy.truco.v1.RulesServiceGrpc;
import uy.truco.v1.SeatView;
import uy.truco.v1.SubmitCommandRequest;
import uy.truco.v1.SubmitCommandResponse;
import uy.truco.v1.WatchGameRequest;
import uy.truco.v1.WatchGameResponse;

/**
 * A client of the Truco service over one gRPC channel (blocking calls; use one client per thread of play).
 *
 * <p>One client plays one seat: {@link #joinGame} keeps the seat token and sends it, as {@code authorization:
 * Bearer <token>}, on every later call. Every call has a deadline; UNAVAILABLE, DEADLINE_EXCEEDED and a CANCELLED
 * the caller did not ask for are retried with backoff and jitter, and a retried write sends the same request id,
 * which the server applies once. Failures throw {@link TrucoException} subclasses carrying the ErrorInfo reason.
 * {@link #playTurn} re-reads the view on ABORTED; {@link #watch} reopens a broken stream after the last version.
 *
 * <p>Reads ({@link #getView}, {@link #seatView}, {@link #legalActions}) send the newest version of the game the
 * client has seen (in any reply, VERSION_CONFLICT or watched event; of at most 1,024 games, the least recently seen
 * forgotten first) as {@code min_version}: the answer is never older than that, even from another replica than the
 * one that took the client's move, and a replica that already holds it answers from memory.
 */
public final class TrucoClient implements AutoCloseable {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final boolean ownsChannel;
  private volatile String token;
  private volatile String apiKey;
  private final Duration timeout;
  private final int retries;
  private final Duration backoff;
  private final Duration maxBackoff;
  /** The newest version of each game seen, shared with the clients {@link #withToken} makes. */
  private final VersionsSeen seen;

  /** A client on {@code channel} (which the caller closes). */
  public TrucoClient(ManagedChannel channel, String token, Duration timeout, int retries, Duration backoff, Duration maxBackoff) {
    this(channel, false, token, timeout, retries, backoff, maxBackoff, new VersionsSeen(VersionsSeen.MAX_GAMES));
  }

  private TrucoClient(
      ManagedChannel channel, boolean owns, String token, Duration timeout, int retries, Duration backoff, Duration maxBackoff,
      VersionsSeen seen) {
    if (timeout.isNegative() || timeout.isZero() || retries < 0) {
      throw new IllegalArgumentException("timeout must be positive and retries 0 or more");
    }
    this.channel = channel;
    this.ownsChannel = owns;
    this.token = token;
    this.timeout = timeout;
    this.retries = retries;
    this.backoff = backoff;
    this.maxBackoff = maxBackoff;
    this.seen = seen;
  }

  /** A plaintext client to {@code address} ("host:port") with the defaults: 10 s deadline, 4 retries. */
  public static TrucoClient connect(String address) {
    return connect(address, 4, Duration.ofSeconds(3));
  }

  /** A plaintext client to {@code address} with {@code retries} retries, each delay at most {@code maxBackoff}. */
  public static TrucoClient connect(String address, int retries, Duration maxBackoff) {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    return new TrucoClient(
        channel, true, null, Duration.ofSeconds(10), retries, Duration.ofMillis(100), maxBackoff,
        new VersionsSeen(VersionsSeen.MAX_GAMES));
  }

  /**
   * Another client on the same channel acting as the seat of {@code token} (null: a spectator). Both share the
   * versions seen: neither reads older than what either saw.
   */
  public TrucoClient withToken(String token) {
    TrucoClient other = new TrucoClient(channel, false, token, timeout, retries, backoff, maxBackoff, seen);
    other.apiKey = apiKey;
    return other;
  }

  /**
   * Sends {@code apiKey} (the app's API key, from {@code truco keys create}) as {@code x-api-key} on every call of
   * this client and of the clients {@link #withToken} makes from it later; servers may require one. Returns this.
   */
  public TrucoClient withApiKey(String apiKey) {
    this.apiKey = apiKey;
    return this;
  }

  /** The seat token sent with every call, if any. */
  public String token() { return token; }

  /** Closes the channel {@link #connect} opened (not one passed in, nor a {@link #withToken} client's). */
  @Override
  public void close() throws InterruptedException {
    if (ownsChannel) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** The resource name games/{game}, from it or from the bare id. */
  public static String gameName(String name) {
    return name.startsWith("games/") ? name : "games/" + name;
  }

  /** A fresh request id (a UUID4). */
  public static String newRequestId() {
    return UUID.randomUUID().toString();
  }

  /** Whether the view's match is over. */
  public static boolean isOver(SeatView view) {
    return view.getPublic().getPhase() == Phase.PHASE_MATCH_OVER;
  }

  private Metadata headers() {
    Metadata headers = new Metadata();
    if (token != null && !token.isEmpty()) {
      headers.put(AUTHORIZATION, "Bearer " + token);
    }
    if (apiKey != null && !apiKey.isEmpty()) {
      headers.put(API_KEY, apiKey);
    }
    return headers;
  }

  private GameServiceGrpc.GameServiceBlockingStub games() {
    return GameServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private RulesServiceGrpc.RulesServiceBlockingStub rules() {
    return RulesServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private long delayMillis(int attempt) {
    long ceiling = Math.min(maxBackoff.toMillis(), backoff.toMillis() << Math.min(attempt, 20));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }

  private static boolean retryable(Status.Code code) {
    return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED;
  }

  /** Runs {@code call} (a fresh stub with the deadline each attempt; the request built once, so its id too). */
  private <T> T unary(Supplier<T> call) {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.get();
      } catch (StatusRuntimeException error) {
        TrucoException failure = TrucoException.from(error);
        if (!retryable(failure.code()) || attempt >= retries || Context.current().isCancelled()) {
          throw failure;
        }
      }
      // Reconnect at once on the next attempt rather than after gRPC's own backoff (up to two minutes).
      channel.resetConnectBackoff();
      sleep(delayMillis(attempt));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new TrucoException(Status.Code.CANCELLED, "", "interrupted", Map.of(), "", interrupted);
    }
  }

  // --- GameService ---------------------------------------------------------------------------------------------

  /** Creates a match; {@code bots} maps seats to the server bots that play them. The request id is fresh. */
  public Game createGame(RuleSet rules, Map<Integer, BotKind> bots) {
    CreateGameRequest.Builder request = CreateGameRequest.newBuilder().setRequestId(newRequestId()).setRules(rules);
    bots.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> request.addBots(BotSeat.newBuilder().setSeat(e.getKey()).setKind(e.getValue())));
    CreateGameRequest built = request.build();
    Game game = unary(() -> games().createGame(built)).getGame();
    seen.saw(gameName(game.getName()), game.getVersion());
    return game;
  }

  /** A seat taken with {@link #joinGame}. */
  public record JoinResult(int seat, String token, SeatView view) {}

  /** Takes a seat (null: the first open one); this client then acts as that seat. */
  public JoinResult joinGame(String name, Integer seat, String playerName) {
    JoinGameRequest.Builder request =
        JoinGameRequest.newBuilder().setName(gameName(name)).setRequestId(newRequestId()).setPlayerName(playerName);
    if (seat != null) {
      request.setSeat(seat);
    }
    JoinGameRequest built = request.build();
    JoinGameResponse response = unary(() -> games().joinGame(built));
    token = response.getSeatToken();
    seen.saw(built.getName(), response.getView().getPublic().getVersion());
    return new JoinResult(response.getSeat(), response.getSeatToken(), response.getView());
  }

  /**
   * The caller's view: its seat view (unset for a spectator) and the public view. Never older than the newest
   * version of the game this client has seen (sent as {@code min_version}).
   */
  public GetGameViewResponse getView(String name) {
    String game = gameName(name);
    GetGameViewRequest request = GetGameViewRequest.newBuilder().setName(game).setMinVersion(seen.of(game)).build();
    GetGameViewResponse response = unary(() -> games().getGameView(request));
    seen.saw(game, Math.max(response.getPublic().getVersion(), response.getSeat().getPublic().getVersion()));
    return response;
  }

  /** This seat's view. @throws IllegalStateException for a client without a seat token */
  public SeatView seatView(String name) {
    GetGameViewResponse response = getView(name);
    if (!response.hasSeat()) {
      throw new IllegalStateException("no seat view: this client has no seat token");
    }
    return response.getSeat();
  }

  /**
   * Exactly the commands the server would accept from this seat now. Never older than the newest version of the game
   * this client has seen (sent as {@code min_version}).
   */
  public ListLegalActionsResponse legalActions(String name) {
    String game = gameName(name);
    ListLegalActionsRequest request =
        ListLegalActionsRequest.newBuilder().setName(game).setMinVersion(seen.of(game)).build();
    ListLegalActionsResponse response = unary(() -> games().listLegalActions(request));
    seen.saw(game, response.getVersion());
    return response;
  }

  /** Submits a command chosen at {@code expectedVersion} (0 skips the check) with a fresh request id. */
  public SubmitCommandResponse submit(String name, Command command, long expectedVersion) {
    return submit(name, command, expectedVersion, newRequestId());
  }

  /**
   * Submits a command with the caller's request id (sent unchanged on every retry; the server applies it once).
   * The version after it, or the current one a VersionConflict tells of, counts as seen.
   *
   * @throws TrucoException.IllegalMove when the rules refuse it ({@code reason()} says why)
   * @throws TrucoException.VersionConflict when the game moved past {@code expectedVersion}
   */
  public SubmitCommandResponse submit(String name, Command command, long expectedVersion, String requestId) {
    SubmitCommandRequest request = SubmitCommandRequest.newBuilder()
        .setName(gameName(name)).setRequestId(requestId).setExpectedVersion(expectedVersion).setCommand(command).build();
    try {
      SubmitCommandResponse response = unary(() -> games().submitCommand(request));
      seen.saw(request.getName(), response.getVersion());
      return response;
    } catch (TrucoException.VersionConflict conflict) {
      seen.saw(request.getName(), VersionsSeen.conflictVersion(conflict));
      throw conflict;
    }
  }

  /** What {@link #playTurn} did; {@code conflicts} counts the ABORTED answers that made it read the view again. */
  public record Turn(Command command, SubmitCommandResponse response, int conflicts) {}

  /**
   * Chooses and submits one command at the version it was chosen at; when the game moved on first (ABORTED) reads
   * the view again and asks {@code choose} again (up to 10 times). {@code view} may be null (read first). Returns
   * null when {@code choose} returns null (not this seat's turn, match over).
   */
  public Turn playTurn(String name, SeatView view, Function<SeatView, Command> choose) {
    SeatView current = view == null ? seatView(name) : view;
    for (int conflicts = 0; ; conflicts++) {
      Command command = choose.apply(current);
      if (command == null) {
        return null;
      }
      try {
        return new Turn(command, submit(name, command, current.getPublic().getVersion()), conflicts);
      } catch (TrucoException.VersionConflict conflict) {
        if (conflicts >= 9) {
          throw conflict;
        }
      }
      current = seatView(name);
    }
  }

  /**
   * Each new event of the game with the caller's view after it, from {@code afterVersion} on. A stream broken by
   * UNAVAILABLE (or a server-side CANCELLED: a restart, a dropped connection) is reopened after the last version
   * delivered, up to the client's retries in a row with backoff; {@code onResume} (may be null) hears of each.
   * The iterator ends when the server ends the stream (the match is over); close it to stop early. Each event's
   * version counts as seen.
   */
  public Watch watch(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
    return new Watch(gameName(name), afterVersion, onResume);
  }

  /** A resuming WatchGame stream: an iterator to close when done. */
  public final class Watch implements Iterator<WatchGameResponse>, AutoCloseable {
    private final String name;
    private final BiConsumer<Long, TrucoException> onResume;
    private long last;
    private int failures;
    private Context.CancellableContext context;
    private Iterator<WatchGameResponse> stream;
    private WatchGameResponse next;
    private boolean done;

    private Watch(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
      this.name = name;
      this.last = afterVersion;
      this.onResume = onResume;
    }

    private void open() {
      context = Context.current().withCancellation();
      WatchGameRequest request = WatchGameRequest.newBuilder().setName(name).setAfterVersion(last).build();
      Context previous = context.attach();
      try {
        stream = GameServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
            .watchGame(request);
      } finally {
        context.detach(previous);
      }
    }

    @Override
    public boolean hasNext() {
      while (next == null && !done) {
        try {
          if (stream == null) {
            open();
          }
          if (stream.hasNext()) {
            next = stream.next();
            failures = 0;
            last = Math.max(last, next.getEvent().getVersion());
            seen.saw(name, Math.max(next.getEvent().getVersion(), next.getPublic().getVersion()));
          } else {
            close();
          }
        } catch (StatusRuntimeException error) {
          TrucoException failure = TrucoException.from(error);
          context.cancel(null);
          stream = null;
          if (done || !(failure.code() == Status.Code.UNAVAILABLE || failure.code() == Status.Code.CANCELLED)
              || failures >= retries) {
            done = true;
            throw failure;
          }
          if (onResume != null) {
            onResume.accept(last, failure);
          }
          channel.resetConnectBackoff();
          sleep(delayMillis(failures));
          failures++;
        }
      }
      return next != null;
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

    /** The last version delivered. */
    public long lastVersion() { return last; }

    @Override
    public void close() {
      done = true;
      if (context != null) {
        context.cancel(null);
      }
    }
  }

  // --- RulesService --------------------------------------------------------------------------------------------

  /** Envido, flor and card strengths of three cards under a muestra. */
  public EvaluateHandResponse evaluateHand(Card muestra, Iterable<Card> cards, boolean withoutFlor) {
    EvaluateHandRequest request =
        EvaluateHandRequest.newBuilder().setMuestra(muestra).addAllCards(cards).setWithoutFlor(withoutFlor).build();
    return unary(() -> rules().evaluateHand(request));
  }

  /** Which card wins a round under a muestra: result 1 (first), -1 (second) or 0 (parda). */
  public CompareCardsResponse compareCards(Card muestra, Card first, Card second) {
    CompareCardsRequest request =
        CompareCardsRequest.newBuilder().setMuestra(muestra).setFirst(first).setSecond(second).build();
    return unary(() -> rules().compareCards(request));
  }
}
