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
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import uy.truco.v1.BotKind;
import uy.truco.v1.CancelMatchRequest;
import uy.truco.v1.FindMatchRequest;
import uy.truco.v1.GetPlayerRequest;
import uy.truco.v1.ListLeaderboardRequest;
import uy.truco.v1.ListLeaderboardResponse;
import uy.truco.v1.ListPlayerMatchesRequest;
import uy.truco.v1.ListPlayerMatchesResponse;
import uy.truco.v1.MatchTicket;
import uy.truco.v1.Player;
import uy.truco.v1.PlayerServiceGrpc;
import uy.truco.v1.BotLevel;
import uy.truco.v1.BotSeat;
import uy.truco.v1.Command;
import uy.truco.v1.CompareCardsRequest;
import uy.truco.v1.CompareCardsResponse;
import uy.truco.v1.Card;
import uy.truco.v1.CreateGameRequest;
import uy.truco.v1.EvaluateHandRequest;
import uy.truco.v1.EvaluateHandResponse;
import uy.truco.v1.Event;
import uy.truco.v1.Game;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.GetGameRequest;
import uy.truco.v1.GetGameViewRequest;
import uy.truco.v1.GetGameViewResponse;
import uy.truco.v1.JoinGameRequest;
import uy.truco.v1.JoinGameResponse;
import uy.truco.v1.LeaveGameRequest;
import uy.truco.v1.ListGamesRequest;
import uy.truco.v1.ListGamesResponse;
import uy.truco.v1.ListLegalActionsRequest;
import uy.truco.v1.ListLegalActionsResponse;
import uy.truco.v1.Phase;
import uy.truco.v1.RematchRequest;
import uy.truco.v1.RematchResponse;
import uy.truco.v1.StartWithBotsRequest;
import uy.truco.v1.StartWithBotsResponse;
import uy.truco.v1.ResumeSeatRequest;
import uy.truco.v1.RuleSet;
import uy.truco.v1.RulesServiceGrpc;
import uy.truco.v1.SeatView;
import uy.truco.v1.SubmitCommandRequest;
import uy.truco.v1.SubmitCommandResponse;
import uy.truco.v1.WatchGameRequest;
import uy.truco.v1.WatchGameResponse;

/**
 * A client of the Truco service over one gRPC channel: blocking calls here, the same calls as futures and a
 * {@code StreamObserver} watch from {@link #async()}. Build one with {@link #builder(String)}.
 *
 * <p>One client plays one seat: {@link #joinGame} keeps the seat token and sends it, as {@code authorization:
 * Bearer <token>}, on every later call. Every call has a deadline; UNAVAILABLE, DEADLINE_EXCEEDED, a CANCELLED
 * the caller did not ask for and a connection closed under the call ({@link TrucoException#connectionLost}) are retried with backoff and jitter, and a retried write sends the same request id,
 * which the server applies once. A call a quota refused (RESOURCE_EXHAUSTED with a {@code google.rpc.RetryInfo}) is
 * sent again, the same request, after the delay the server asked for when it is at most the builder's
 * {@code maxQuotaWait}. Failures throw {@link TrucoException} subclasses carrying the ErrorInfo reason.
 * {@link #playTurn} re-reads the view on ABORTED; {@link #watch} reopens a broken stream after the last version.
 * {@link #play} plays a seat's whole match from one PlayGame call (a {@link Session}: commands out, commits in).
 *
 * <p>Every RPC of the service has one method here ({@link #WRAPPERS}), with the helpers every SDK has: the turn
 * helper ({@link #playTurn}, {@link Commands#isMyTurn}), resuming watches, legal-action pickers ({@link Commands}),
 * proof checks ({@link Proofs}) and the versions seen.
 *
 * <p>A player: a client built with {@link Builder#playerToken} (the short-lived JWT an app's backend signed for one
 * of its players) sends it as {@code x-player-token} ({@link #PLAYER_HEADER}) on every call, so the seats it takes
 * are that player's and its calls count against the player's quota. PlayerService's calls (quick match, ratings,
 * rankings, history) are wrapped here too, and {@link #quickMatch} follows a ticket to its match.
 *
 * <p>Every call about one game (all but CreateGame, ListGames and the rules calculator) names it in the metadata
 * {@code x-truco-game: games/{id}} ({@link #GAME_HEADER}): a load balancer that hashes it keeps a game's calls on one
 * replica, which then answers from memory.
 *
 * <p>Reads ({@link #getView}, {@link #seatView}, {@link #legalActions}) send the newest version of the game the
 * client has seen (in any reply, VERSION_CONFLICT or watched event; of at most 1,024 games, the least recently seen
 * forgotten first) as {@code min_version}: the answer is never older than that, even from another replica than the
 * one that took the client's move, and a replica that already holds it answers from memory.
 */
@JvmOnly
public final class TrucoClient implements AutoCloseable {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);
  /** The metadata key naming the game a call is about ({@code games/{id}}), for load balancers' game affinity. */
  public static final String GAME_HEADER = "x-truco-game";
  private static final Metadata.Key<String> GAME = Metadata.Key.of(GAME_HEADER, Metadata.ASCII_STRING_MARSHALLER);
  /** The metadata key carrying a player token (a JWT an app's backend signed for one of its players). */
  public static final String PLAYER_HEADER = "x-player-token";
  private static final Metadata.Key<String> PLAYER_TOKEN =
      Metadata.Key.of(PLAYER_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final boolean ownsChannel;
  private volatile String token;
  private volatile String apiKey;
  private final String playerToken;
  private final Duration timeout;
  private final int retries;
  private final Duration backoff;
  private final Duration maxBackoff;
  private final Duration maxQuotaWait;
  /** The newest version of each game seen, shared with the clients {@link #withToken} makes. */
  private final VersionsSeen seen;
  /** Runs the calls of {@link #async()}: the builder's, or daemon threads of this client's own. */
  private final ExecutorService executor;
  private final boolean ownsExecutor;

  /** The RPC of the service each method wraps, by full method name (a test checks none is missing). */
  public static final Map<String, String> WRAPPERS = Map.ofEntries(
      Map.entry("truco.v1.GameService/CreateGame", "createGame"),
      Map.entry("truco.v1.GameService/JoinGame", "joinGame"),
      Map.entry("truco.v1.GameService/GetGameView", "getView"),
      Map.entry("truco.v1.GameService/ListLegalActions", "legalActions"),
      Map.entry("truco.v1.GameService/SubmitCommand", "submit"),
      Map.entry("truco.v1.GameService/WatchGame", "watch"),
      Map.entry("truco.v1.GameService/ListGames", "listGames"),
      Map.entry("truco.v1.GameService/GetGame", "getGame"),
      Map.entry("truco.v1.GameService/LeaveGame", "leaveGame"),
      Map.entry("truco.v1.GameService/ResumeSeat", "resumeSeat"),
      Map.entry("truco.v1.GameService/Rematch", "rematch"),
      Map.entry("truco.v1.GameService/StartWithBots", "startWithBots"),
      Map.entry("truco.v1.GameService/PlayGame", "play"),
      Map.entry("truco.v1.RulesService/EvaluateHand", "evaluateHand"),
      Map.entry("truco.v1.RulesService/CompareCards", "compareCards"),
      Map.entry("truco.v1.PlayerService/FindMatch", "findMatch"),
      Map.entry("truco.v1.PlayerService/CancelMatch", "cancelMatch"),
      Map.entry("truco.v1.PlayerService/GetPlayer", "getPlayer"),
      Map.entry("truco.v1.PlayerService/ListLeaderboard", "listLeaderboard"),
      Map.entry("truco.v1.PlayerService/ListPlayerMatches", "listPlayerMatches"));

  /** A client on {@code channel} (which the caller closes). Prefer {@link #builder(String)}. */
  public TrucoClient(ManagedChannel channel, String token, Duration timeout, int retries, Duration backoff, Duration maxBackoff) {
    this(new Builder(null).channel(channel).token(token).timeout(timeout).retries(retries).backoff(backoff)
        .maxBackoff(maxBackoff), channel, false, new VersionsSeen(VersionsSeen.MAX_GAMES));
  }

  private TrucoClient(Builder options, ManagedChannel channel, boolean owns, VersionsSeen seen) {
    if (options.timeout.isNegative() || options.timeout.isZero() || options.retries < 0) {
      throw new IllegalArgumentException("timeout must be positive and retries 0 or more");
    }
    this.channel = channel;
    this.ownsChannel = owns;
    this.token = options.token;
    this.apiKey = options.apiKey;
    this.playerToken = options.playerToken;
    this.timeout = options.timeout;
    this.retries = options.retries;
    this.backoff = options.backoff;
    this.maxBackoff = options.maxBackoff;
    this.maxQuotaWait = options.maxQuotaWait;
    this.seen = seen;
    this.ownsExecutor = options.executor == null;
    this.executor = options.executor != null ? options.executor : Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "truco-client");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** A builder of a client to {@code address} ("host:port"; plaintext unless {@link Builder#channel} is given). */
  public static Builder builder(String address) {
    return new Builder(address);
  }

  /** How a {@link TrucoClient} calls; every setting has a default. */
  @JvmOnly
  public static final class Builder {
    private final String address;
    private ManagedChannel channel;
    private String token;
    private String apiKey;
    private String playerToken;
    private Duration timeout = Duration.ofSeconds(10);
    private int retries = 4;
    private Duration backoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(3);
    private Duration maxQuotaWait = Duration.ofSeconds(10);
    private ExecutorService executor;

    private Builder(String address) {
      this.address = address;
    }

    /** Use this channel (TLS, a custom transport: okhttp on Android...) instead of a plaintext one; the caller closes it. */
    public Builder channel(ManagedChannel channel) { this.channel = channel; return this; }
    /** Act as the seat of this token from the start (null: a spectator until {@link #joinGame}). */
    public Builder token(String token) { this.token = token; return this; }
    /** The app's API key ({@code truco keys create}), sent as {@code x-api-key} on every call. */
    public Builder apiKey(String apiKey) { this.apiKey = apiKey; return this; }
    /**
     * A player token (the JWT the app's backend signed for this player), sent as {@code x-player-token} on every
     * call: the seats this client takes are the player's; {@link #findMatch} and {@link #cancelMatch} need one.
     */
    public Builder playerToken(String playerToken) { this.playerToken = playerToken; return this; }
    /** The deadline of each attempt of a call (default 10 s). */
    public Builder timeout(Duration timeout) { this.timeout = timeout; return this; }
    /** How many times a retryable failure is retried (default 4, so at most 5 attempts). */
    public Builder retries(int retries) { this.retries = retries; return this; }
    /** The first retry's delay (default 100 ms); each later one doubles up to {@link #maxBackoff}, jittered. */
    public Builder backoff(Duration backoff) { this.backoff = backoff; return this; }
    /** The longest delay between two attempts (default 3 s). */
    public Builder maxBackoff(Duration maxBackoff) { this.maxBackoff = maxBackoff; return this; }
    /**
     * A call a quota refused is sent again after the server's RetryInfo delay when that delay is at most this long
     * (default 10 s); a longer one throws {@link TrucoException.ResourceExhausted} at once.
     */
    public Builder maxQuotaWait(Duration maxQuotaWait) { this.maxQuotaWait = maxQuotaWait; return this; }
    /** Where {@link #async()} runs its calls (default: daemon threads of the client's own, shut down by close). */
    public Builder executor(ExecutorService executor) { this.executor = executor; return this; }

    public TrucoClient build() {
      boolean owns = channel == null;
      ManagedChannel built = owns ? ManagedChannelBuilder.forTarget(address).usePlaintext().build() : channel;
      return new TrucoClient(this, built, owns, new VersionsSeen(VersionsSeen.MAX_GAMES));
    }
  }

  /** A plaintext client to {@code address} ("host:port") with the defaults: 10 s deadline, 4 retries. */
  public static TrucoClient connect(String address) {
    return builder(address).build();
  }

  /** A plaintext client to {@code address} with {@code retries} retries, each delay at most {@code maxBackoff}. */
  public static TrucoClient connect(String address, int retries, Duration maxBackoff) {
    return builder(address).retries(retries).maxBackoff(maxBackoff).build();
  }

  /**
   * Another client on the same channel (and executor) acting as the seat of {@code token} (null: a spectator). Both
   * share the versions seen: neither reads older than what either saw.
   */
  public TrucoClient withToken(String token) {
    Builder options = new Builder(null).token(token).apiKey(apiKey).playerToken(playerToken).timeout(timeout).retries(retries).backoff(backoff)
        .maxBackoff(maxBackoff).maxQuotaWait(maxQuotaWait).executor(executor);
    return new TrucoClient(options, channel, false, seen);
  }

  /** The same calls as futures (run on the client's executor), and a watch that pushes to a StreamObserver. */
  public AsyncTrucoClient async() {
    return new AsyncTrucoClient(this, executor);
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

  /** The player token sent with every call, if any. */
  public String playerToken() { return playerToken; }

  /** Closes the channel {@link #connect} opened (not one passed in, nor a {@link #withToken} client's). */
  @Override
  public void close() throws InterruptedException {
    if (ownsExecutor) {
      executor.shutdownNow();
    }
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

  /** The call's metadata: the seat token, the API key, the player token, and the game it is about ({@code game}, a name; null: none). */
  private Metadata headers(String game) {
    Metadata headers = new Metadata();
    if (token != null && !token.isEmpty()) {
      headers.put(AUTHORIZATION, "Bearer " + token);
    }
    if (apiKey != null && !apiKey.isEmpty()) {
      headers.put(API_KEY, apiKey);
    }
    if (playerToken != null && !playerToken.isEmpty()) {
      headers.put(PLAYER_TOKEN, playerToken);
    }
    if (game != null) {
      headers.put(GAME, game);
    }
    return headers;
  }

  /** A stub for a {@link Session}'s calls: the metadata of a call about {@code game}, and no deadline (as a watch). */
  GameServiceGrpc.GameServiceStub sessionStub(String game) {
    return GameServiceGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(game)));
  }

  VersionsSeen seen() { return seen; }

  int retries() { return retries; }

  /** A stub with the deadline and the metadata of a call about {@code game} (null: about no one game). */
  private GameServiceGrpc.GameServiceBlockingStub games(String game) {
    return GameServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(game)))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private PlayerServiceGrpc.PlayerServiceBlockingStub players() {
    return PlayerServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(null)))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A stub for a {@link TicketStream}: the call's metadata and no deadline (the ticket's wait bounds it). */
  PlayerServiceGrpc.PlayerServiceBlockingStub playerStreamStub() {
    return PlayerServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(null)));
  }

  private RulesServiceGrpc.RulesServiceBlockingStub rules() {
    return RulesServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(null)))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  long delayMillis(int attempt) {
    long ceiling = Math.min(maxBackoff.toMillis(), backoff.toMillis() << Math.min(attempt, 20));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }

  private static boolean retryable(TrucoException failure) {
    return failure.retried();
  }

  /**
   * How long to wait before opening again a stream (a watch, a session) that broke with {@code failure} after
   * {@code failures} failures in a row: its quota's RetryInfo delay, or the backoff (the channel then reconnects at
   * once); -1: do not (neither a lost connection nor a quota's refusal, or its retries spent).
   */
  long resumeWaitMillis(TrucoException failure, int failures) {
    long quotaWait = quotaWaitMillis(failure);
    if (!(failure.connectionLost() || quotaWait >= 0) || failures >= retries) {
      return -1;
    }
    if (quotaWait >= 0) {
      return quotaWait;
    }
    channel.resetConnectBackoff();
    return delayMillis(failures);
  }

  /** How long to wait before sending again a call a quota refused; -1: do not (no RetryInfo, or too long). */
  long quotaWaitMillis(TrucoException failure) {
    Duration delay = failure.retryDelay();
    boolean waitable = failure.code() == Status.Code.RESOURCE_EXHAUSTED && delay != null
        && delay.compareTo(maxQuotaWait) <= 0;
    return waitable ? delay.toMillis() : -1;
  }

  /**
   * Runs {@code call} (a fresh stub with the deadline each attempt; the request built once, so its id too), retrying
   * what {@link #retryable} allows with backoff and a quota's refusal after its RetryInfo delay.
   */
  private <T> T unary(Supplier<T> call) {
    for (int attempt = 0; ; attempt++) {
      long wait;
      try {
        return call.get();
      } catch (StatusRuntimeException error) {
        TrucoException failure = TrucoException.from(error);
        long quotaWait = quotaWaitMillis(failure);
        boolean again = quotaWait >= 0 || retryable(failure);
        if (!again || attempt >= retries || Context.current().isCancelled()) {
          throw failure;
        }
        wait = quotaWait;
      }
      if (wait < 0) {
        // Reconnect at once on the next attempt rather than after gRPC's own backoff (up to two minutes).
        channel.resetConnectBackoff();
        wait = delayMillis(attempt);
      }
      sleep(wait);
    }
  }

  static void pause(long millis) {
    sleep(millis);
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
    return createGame(rules, bots, BotLevel.BOT_LEVEL_UNSPECIFIED);
  }

  /**
   * Creates a match whose bot seats all play at {@code level} (when set it chooses the bot; the kinds are then
   * ignored).
   */
  public Game createGame(RuleSet rules, Map<Integer, BotKind> bots, BotLevel level) {
    CreateGameRequest.Builder request = CreateGameRequest.newBuilder().setRules(rules);
    bots.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(
        e -> request.addBots(BotSeat.newBuilder().setSeat(e.getKey()).setKind(e.getValue()).setLevel(level)));
    return createGame(request);
  }

  /**
   * Creates the match {@code request} describes: every field of CreateGameRequest (public, clock, fixed deals...).
   * A fresh request id is set when it has none.
   */
  public Game createGame(CreateGameRequest.Builder request) {
    if (request.getRequestId().isEmpty()) {
      request.setRequestId(newRequestId());
    }
    CreateGameRequest built = request.build();
    Game game = unary(() -> games(null).createGame(built)).getGame();
    seen.saw(gameName(game.getName()), game.getVersion());
    return game;
  }

  /** A seat taken with {@link #joinGame}. */
  @JvmOnly
  public record JoinResult(int seat, String token, SeatView view) {}

  /** Takes a seat (null: the first open one); this client then acts as that seat. */
  public JoinResult joinGame(String name, Integer seat, String playerName) {
    return joinGame(name, seat, playerName, newRequestId());
  }

  /**
   * Takes a seat with the caller's request id ({@link #newRequestId()}): the same id sent again, by this process
   * or by one restarted after it died, returns the same seat and token, so keep it as secret as the token.
   */
  public JoinResult joinGame(String name, Integer seat, String playerName, String requestId) {
    JoinGameRequest.Builder request =
        JoinGameRequest.newBuilder().setName(gameName(name)).setRequestId(requestId).setPlayerName(playerName);
    if (seat != null) {
      request.setSeat(seat);
    }
    JoinGameRequest built = request.build();
    JoinGameResponse response = unary(() -> games(built.getName()).joinGame(built));
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
    GetGameViewResponse response = unary(() -> games(game).getGameView(request));
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
    ListLegalActionsResponse response = unary(() -> games(game).listLegalActions(request));
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
      SubmitCommandResponse response = unary(() -> games(request.getName()).submitCommand(request));
      seen.saw(request.getName(), response.getVersion());
      return response;
    } catch (TrucoException.VersionConflict conflict) {
      seen.saw(request.getName(), VersionsSeen.conflictVersion(conflict));
      throw conflict;
    }
  }

  /** What {@link #playTurn} did; {@code conflicts} counts the ABORTED answers that made it read the view again. */
  @JvmOnly
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
   * Each new event of the game, in order, from {@code afterVersion} on: one WatchGameResponse per event. The stream
   * underneath is {@link #watchCommits} (one message per commit): the caller's views after a commit go with its last
   * event ({@code seat} for a seat, {@code public} for anyone); its earlier events carry no view. Act on the items
   * that carry one.
   *
   * <p>A stream broken by UNAVAILABLE (or a server-side CANCELLED: a restart, a dropped connection) is reopened after
   * the last version delivered, up to the client's retries in a row with backoff; {@code onResume} (may be null)
   * hears of each. A stream a quota refused (too many watches) is opened again after its RetryInfo delay. The
   * iterator ends when the server ends the stream (right after the event that ends the match); close it to stop
   * early. Each event's version counts as seen.
   */
  public Watch watch(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
    return new Watch(new CommitWatch(gameName(name), afterVersion, onResume), afterVersion);
  }

  /**
   * Each new commit of the game as one message (WatchGame with {@code per_commit}), from {@code afterVersion} on: a
   * move with the bot moves and the deal it triggered arrives as one WatchGameResponse whose {@code events} are all
   * of them, in order, each with its version, with the caller's view after the last one ({@code seat} for a seat,
   * {@code public} for a spectator). The first message holds every event after {@code afterVersion}, which may be in
   * the middle of a commit. {@link Commits#events} reads a message's events (also from a server older than
   * {@code per_commit}, which sends one event per message). It resumes and ends as {@link #watch} does (which is
   * this stream, one event at a time).
   */
  public CommitWatch watchCommits(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
    return new CommitWatch(gameName(name), afterVersion, onResume);
  }

  /** A resuming WatchGame stream, one event at a time: an iterator to close when done. */
  @JvmOnly
  public final class Watch implements Iterator<WatchGameResponse>, AutoCloseable {
    private final CommitWatch commits;
    private final Iterator<WatchGameResponse> events;
    private long last;

    private Watch(CommitWatch commits, long afterVersion) {
      this.commits = commits;
      this.events = Commits.perEvent(commits);
      this.last = afterVersion;
    }

    @Override
    public boolean hasNext() {
      return events.hasNext();
    }

    @Override
    public WatchGameResponse next() {
      WatchGameResponse item = events.next();
      last = Math.max(last, item.getEvent().getVersion());
      return item;
    }

    /** The last version delivered. */
    public long lastVersion() { return last; }

    @Override
    public void close() {
      commits.close();
    }
  }

  /** A resuming WatchGame stream with {@code per_commit}, one message per commit: an iterator to close when done. */
  @JvmOnly
  public final class CommitWatch implements Iterator<WatchGameResponse>, AutoCloseable {
    private final String name;
    private final BiConsumer<Long, TrucoException> onResume;
    private long last;
    private int failures;
    private Context.CancellableContext context;
    private Iterator<WatchGameResponse> stream;
    private WatchGameResponse next;
    private boolean done;

    private CommitWatch(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
      this.name = name;
      this.last = afterVersion;
      this.onResume = onResume;
    }

    private void open() {
      context = Context.current().withCancellation();
      WatchGameRequest request =
          WatchGameRequest.newBuilder().setName(name).setAfterVersion(last).setPerCommit(true).build();
      Context previous = context.attach();
      try {
        stream = GameServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(name)))
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
            List<Event> events = Commits.events(next);
            if (!events.isEmpty()) {
              last = Math.max(last, events.get(events.size() - 1).getVersion());
            }
            seen.saw(name, Commits.version(next));
          } else {
            close();
          }
        } catch (StatusRuntimeException error) {
          TrucoException failure = TrucoException.from(error);
          context.cancel(null);
          stream = null;
          long wait = done ? -1 : resumeWaitMillis(failure, failures);
          if (wait < 0) {
            done = true;
            throw failure;
          }
          if (onResume != null) {
            onResume.accept(last, failure);
          }
          sleep(wait);
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

    /** The last version received (of the last event of the last commit delivered). */
    public long lastVersion() { return last; }

    @Override
    public void close() {
      done = true;
      if (context != null) {
        context.cancel(null);
      }
    }
  }

  /**
   * Plays this client's seat of the game from one PlayGame call (a bidirectional stream): a {@link Session}, whose
   * {@link Session#submit} sends commands on the stream and returns each one's version (or throws the
   * {@link TrucoException} SubmitCommand would have), and whose {@link Session#commits()} (one message per commit, as
   * {@link #watchCommits}) or {@link Session#events()} (one event at a time, as {@link #watch}) hand the game's
   * commits after {@code afterVersion} in order. It replaces {@link #submit} plus a watch: no new call per command.
   * It sends the metadata a watch sends (the seat token, the API key, {@code x-truco-game}).
   *
   * <p>A broken stream (as a watch's: UNAVAILABLE, a connection closed under it) is reopened after the last version
   * received and the commands still waiting for their outcome are sent again with their request ids, up to the
   * client's retries in a row with backoff; {@code onResume} (may be null) hears of each, with the version it
   * resumes after and the failure. A quota's refusal of a command (within {@code maxQuotaWait}) is sent again after
   * its delay. When the match ends the server ends the stream, and the session's iterators end. Close it when done
   * (try-with-resources). It needs HTTP/2 end to end (native gRPC); browser transports use submit and watch.
   */
  public Session play(String name, long afterVersion, BiConsumer<Long, TrucoException> onResume) {
    return new Session(this, gameName(name), afterVersion, onResume);
  }

  /** {@link #play(String, long, BiConsumer)} with no resume callback. */
  public Session play(String name, long afterVersion) {
    return play(name, afterVersion, null);
  }

  /** Every open game (a seat free, not over) the caller may see, newest first, fetched page after page. */
  public Iterable<Game> listGames(int pageSize) {
    return () -> new Iterator<>() {
      private Iterator<Game> page = java.util.Collections.emptyIterator();
      private String nextToken = "";
      private boolean last;

      @Override
      public boolean hasNext() {
        while (!page.hasNext() && !last) {
          ListGamesRequest request = ListGamesRequest.newBuilder().setPageSize(pageSize).setPageToken(nextToken).build();
          ListGamesResponse response = unary(() -> games(null).listGames(request));
          page = response.getGamesList().iterator();
          nextToken = response.getNextPageToken();
          last = nextToken.isEmpty();
        }
        return page.hasNext();
      }

      @Override
      public Game next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return page.next();
      }
    };
  }

  /** The game: seats (with presence and takeover), clock settings, phase, scores, rematch links. */
  public Game getGame(String name) {
    GetGameRequest request = GetGameRequest.newBuilder().setName(gameName(name)).build();
    Game game = unary(() -> games(request.getName()).getGame(request)).getGame();
    seen.saw(request.getName(), game.getVersion());
    return game;
  }

  /** Leaves this client's seat: a bot plays it until {@link #resumeSeat}. Returns the seat's view. */
  public SeatView leaveGame(String name) {
    LeaveGameRequest request = LeaveGameRequest.newBuilder().setName(gameName(name)).build();
    SeatView view = unary(() -> games(request.getName()).leaveGame(request)).getView();
    seen.saw(request.getName(), view.getPublic().getVersion());
    return view;
  }

  /** Takes this client's seat back from the bot that played it (after its clock ran out, or a leave). */
  public SeatView resumeSeat(String name) {
    ResumeSeatRequest request = ResumeSeatRequest.newBuilder().setName(gameName(name)).build();
    SeatView view = unary(() -> games(request.getName()).resumeSeat(request)).getView();
    seen.saw(request.getName(), view.getPublic().getVersion());
    return view;
  }

  /**
   * The next game of a finished one (its game and this client's seat there): same seats, and this client's token
   * holds its seat there too. Every seat asking gets the same game.
   *
   * @throws TrucoException.IllegalMove GAME_NOT_FINISHED for a game still in play
   */
  public RematchResponse rematch(String name) {
    RematchRequest request = RematchRequest.newBuilder().setName(gameName(name)).build();
    return unary(() -> games(request.getName()).rematch(request));
  }

  /**
   * Deals a game waiting for friends now, the server's bots in its open seats at the game's level (its game: the
   * seats after; its view: this seat's view after the deal). Only the table's host may: the player who sat down
   * first.
   *
   * @throws TrucoException.PermissionDenied NOT_TABLE_HOST from another seat
   * @throws TrucoException.IllegalMove GAME_ALREADY_STARTED once the game was dealt
   */
  public StartWithBotsResponse startWithBots(String name) {
    StartWithBotsRequest request = StartWithBotsRequest.newBuilder().setName(gameName(name)).build();
    StartWithBotsResponse response = unary(() -> games(request.getName()).startWithBots(request));
    seen.saw(request.getName(), response.getView().getPublic().getVersion());
    return response;
  }

  // --- PlayerService -------------------------------------------------------------------------------------------

  /** The resource name players/{sub}, from it or from the bare sub ("me": the caller's own player). */
  public static String playerName(String name) {
    return name.startsWith("players/") ? name : "players/" + name;
  }

  /**
   * Opens a quick-match ticket ({@code request}: the rules, whose {@code players} is the table size; the party; the
   * wait; when bots may fill) and follows it: a {@link TicketStream} of the server's messages, to close when done.
   * A fresh request id is set when it has none, and sent again on every reopening of a broken stream (which then
   * follows the same ticket). Needs a player token. {@code onResume} (may be null) hears of each reopening.
   */
  public TicketStream findMatch(FindMatchRequest.Builder request, Consumer<TrucoException> onResume) {
    if (request.getRequestId().isEmpty()) {
      request.setRequestId(newRequestId());
    }
    return new TicketStream(this, request.build(), onResume);
  }

  /** What {@link #quickMatch} found: the game, this player's seat, a client acting as the seat, the ticket. */
  @JvmOnly
  public record QuickMatch(String game, int seat, TrucoClient client, MatchTicket ticket) {}

  /**
   * Finds a match and sits in it: opens a ticket ({@link #findMatch}), tells {@code onTicket} (may be null) each
   * state it passes through, and returns once it is MATCHED. Interrupting the calling thread abandons it (the ticket
   * is cancelled); {@link AsyncTrucoClient#quickMatch} is the same as a future that {@code cancel} abandons.
   *
   * @throws NoMatchException when the ticket EXPIRES or is CANCELLED
   * @throws java.util.concurrent.CancellationException when abandoned
   */
  public QuickMatch quickMatch(FindMatchRequest.Builder request, Consumer<MatchTicket> onTicket) {
    try (TicketStream tickets = findMatch(request, null)) {
      return tickets.awaitMatch(onTicket);
    }
  }

  /**
   * Cancels this player's open ticket ({@code name}, or "": its only one); returns the ticket as it ends (CANCELLED,
   * or as it was when already over).
   *
   * @throws TrucoException.IllegalMove TICKET_ALREADY_MATCHED for a matched ticket
   */
  public MatchTicket cancelMatch(String name) {
    CancelMatchRequest request = CancelMatchRequest.newBuilder().setName(name).build();
    return unary(() -> players().cancelMatch(request)).getTicket();
  }

  /** A player of this app (players/{sub}, a bare sub, or "me": the player of this client's token) with its ratings. */
  public Player getPlayer(String name) {
    GetPlayerRequest request = GetPlayerRequest.newBuilder().setName(playerName(name)).build();
    return unary(() -> players().getPlayer(request)).getPlayer();
  }

  /**
   * One page of the app's ranking at a table size (2, 4 or 6), best first: the top ({@code pageToken} "" for the
   * first page, then the previous page's {@code next_page_token}), or with {@code aroundPlayer} (players/{sub} or
   * "me"; null: the top) the page with that player in its middle. {@code pageSize} 0: the server's default (20).
   */
  public ListLeaderboardResponse listLeaderboard(int players, int pageSize, String pageToken, String aroundPlayer) {
    ListLeaderboardRequest.Builder request =
        ListLeaderboardRequest.newBuilder().setPlayers(players).setPageSize(pageSize).setPageToken(pageToken);
    if (aroundPlayer != null && !aroundPlayer.isEmpty()) {
      request.setAroundPlayer(playerName(aroundPlayer));
    }
    ListLeaderboardRequest built = request.build();
    return unary(() -> players().listLeaderboard(built));
  }

  /** One page of a player's finished games, newest first (each replayable with {@link #watch} from version 0). */
  public ListPlayerMatchesResponse listPlayerMatches(String name, int pageSize, String pageToken) {
    ListPlayerMatchesRequest request = ListPlayerMatchesRequest.newBuilder()
        .setName(playerName(name)).setPageSize(pageSize).setPageToken(pageToken).build();
    return unary(() -> players().listPlayerMatches(request));
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
