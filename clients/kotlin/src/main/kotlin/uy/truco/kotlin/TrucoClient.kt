package uy.truco.kotlin

import io.grpc.CallOptions
import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.Status
import io.grpc.StatusException
import io.grpc.StatusRuntimeException
import io.grpc.kotlin.ClientCalls
import io.grpc.okhttp.OkHttpChannelBuilder
import java.io.Closeable
import java.util.UUID
import java.util.concurrent.TimeUnit
import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.nanoseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.withContext
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.transform
import kotlinx.coroutines.flow.transformWhile
import uy.truco.client.Commands
import uy.truco.client.Commits
import uy.truco.client.NoMatchException
import uy.truco.client.TrucoException
import uy.truco.client.VersionsSeen
import uy.truco.v1.BotKind
import uy.truco.v1.BotLevel
import uy.truco.v1.BotSeat
import uy.truco.v1.CancelMatchRequest
import uy.truco.v1.FindMatchRequest
import uy.truco.v1.FindMatchResponse
import uy.truco.v1.GetPlayerRequest
import uy.truco.v1.ListLeaderboardRequest
import uy.truco.v1.ListLeaderboardResponse
import uy.truco.v1.ListPlayerMatchesRequest
import uy.truco.v1.ListPlayerMatchesResponse
import uy.truco.v1.MatchTicket
import uy.truco.v1.Player
import uy.truco.v1.PlayerServiceGrpc
import uy.truco.v1.TicketState
import uy.truco.v1.Card
import uy.truco.v1.ClockSettings
import uy.truco.v1.Command
import uy.truco.v1.CompareCardsRequest
import uy.truco.v1.CompareCardsResponse
import uy.truco.v1.CreateGameRequest
import uy.truco.v1.EvaluateHandRequest
import uy.truco.v1.EvaluateHandResponse
import uy.truco.v1.Game
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.GetGameRequest
import uy.truco.v1.GetGameViewRequest
import uy.truco.v1.GetGameViewResponse
import uy.truco.v1.JoinGameRequest
import uy.truco.v1.LeaveGameRequest
import uy.truco.v1.ListGamesRequest
import uy.truco.v1.ListLegalActionsRequest
import uy.truco.v1.ListLegalActionsResponse
import uy.truco.v1.Phase
import uy.truco.v1.RematchRequest
import uy.truco.v1.RematchResponse
import uy.truco.v1.StartWithBotsRequest
import uy.truco.v1.StartWithBotsResponse
import uy.truco.v1.ResumeSeatRequest
import uy.truco.v1.RuleSet
import uy.truco.v1.RulesServiceGrpc
import uy.truco.v1.SeatView
import uy.truco.v1.SubmitCommandRequest
import uy.truco.v1.SubmitCommandResponse
import uy.truco.v1.WatchGameRequest
import uy.truco.v1.WatchGameResponse

/**
 * How a [TrucoClient] calls; every setting has a default.
 *
 * @property token a seat token to act as that seat (null: a spectator until [TrucoClient.joinGame]).
 * @property apiKey the app's API key (`truco keys create`), sent as `x-api-key` on every call.
 * @property playerToken a player token (the JWT the app's backend signed for this player), sent as `x-player-token`
 *   on every call: the seats this client takes are the player's; [TrucoClient.findMatch] and
 *   [TrucoClient.cancelMatch] need one.
 * @property timeout the deadline of each attempt of a call.
 * @property retries how many times a retryable failure is retried (so at most `retries + 1` attempts).
 * @property backoff the first retry's delay; each later one doubles up to [maxBackoff], jittered.
 * @property maxQuotaWait a call a quota refused is sent again after the server's RetryInfo delay when that delay is
 *   at most this long; a longer one throws [TrucoException.ResourceExhausted] at once.
 */
data class Options(
    val token: String? = null,
    val apiKey: String? = null,
    val playerToken: String? = null,
    val timeout: Duration = 10.seconds,
    val retries: Int = 4,
    val backoff: Duration = 100.milliseconds,
    val maxBackoff: Duration = 3.seconds,
    val maxQuotaWait: Duration = 10.seconds,
) {
    init {
        require(timeout.isPositive() && retries >= 0) { "timeout must be positive and retries 0 or more" }
    }
}

/** A seat taken with [TrucoClient.joinGame]: the seat, its token (the server cannot show it again) and its view. */
data class JoinResult(val seat: Int, val token: String, val view: SeatView)

/** What [TrucoClient.quickMatch] found: the game, this player's seat, a client acting as the seat, the ticket. */
data class QuickMatch(val game: String, val seat: Int, val client: TrucoClient, val ticket: MatchTicket)

/** What [TrucoClient.playTurn] did; [conflicts] counts the ABORTED answers that made it read the view again. */
data class Turn(val command: Command, val response: SubmitCommandResponse, val conflicts: Int)

/**
 * A coroutine client of the Truco service (GameService and RulesService) on one gRPC channel, for Android apps and
 * any Kotlin/JVM program: every call is a `suspend` function, a watch is a cold [Flow].
 *
 * One client plays one seat: [joinGame] keeps the seat token and sends it, as `authorization: Bearer <token>`, on
 * every later call; [withToken] gives another seat's client on the same channel. Every call has a deadline
 * ([Options.timeout]); UNAVAILABLE, DEADLINE_EXCEEDED, a CANCELLED the caller did not ask for and a
 * connection closed under the call ([TrucoException.connectionLost]) are retried with
 * backoff and jitter, a quota's refusal after its RetryInfo delay, and a retried write sends the same request id,
 * which the server applies once. Failures throw the Java SDK's [TrucoException] subclasses (the ErrorInfo reason in
 * `reason()`); cancelling the calling coroutine cancels the call.
 *
 * Every call about one game (all but CreateGame, ListGames and the rules calculator) names it in the metadata
 * `x-truco-game: games/{id}` ([GAME_HEADER]): a load balancer that hashes it keeps a game's calls on one replica,
 * which then answers from memory.
 *
 * Every RPC of the service has one method here ([WRAPPERS]), with the helpers every SDK has: the turn helper
 * ([playTurn], [Commands.isMyTurn]), resuming watches ([watch]), a seat's whole match from one resuming PlayGame
 * session ([play]), legal-action pickers ([Commands]), proof checks
 * ([uy.truco.client.Proofs]) and the versions seen (reads send the newest as `min_version`).
 *
 * A player: a client whose [Options.playerToken] holds the short-lived JWT an app's backend signed for one of its
 * players sends it as `x-player-token` ([PLAYER_HEADER]) on every call, so the seats it takes are that player's and
 * its calls count against the player's quota. PlayerService's calls (quick match, ratings, rankings, history) are
 * wrapped here too, and [quickMatch] follows a ticket to its match.
 */
class TrucoClient private constructor(
    internal val channel: ManagedChannel,
    private val ownsChannel: Boolean,
    val options: Options,
    internal val seen: VersionsSeen,
) : Closeable {
    /** A client on [channel] (TLS, or a channel an app shares), which the caller closes. */
    constructor(channel: ManagedChannel, options: Options = Options()) :
        this(channel, false, options, VersionsSeen(VersionsSeen.MAX_GAMES))

    @Volatile
    private var currentToken: String? = options.token

    /** The seat token sent with every call, if any. */
    val token: String? get() = currentToken

    companion object {
        /** The RPC of the service each method wraps, by full method name (a test checks none is missing). */
        val WRAPPERS: Map<String, String> = mapOf(
            "truco.v1.GameService/CreateGame" to "createGame",
            "truco.v1.GameService/JoinGame" to "joinGame",
            "truco.v1.GameService/GetGameView" to "getView",
            "truco.v1.GameService/ListLegalActions" to "legalActions",
            "truco.v1.GameService/SubmitCommand" to "submit",
            "truco.v1.GameService/WatchGame" to "watch",
            "truco.v1.GameService/ListGames" to "listGames",
            "truco.v1.GameService/GetGame" to "getGame",
            "truco.v1.GameService/LeaveGame" to "leaveGame",
            "truco.v1.GameService/ResumeSeat" to "resumeSeat",
            "truco.v1.GameService/Rematch" to "rematch",
            "truco.v1.GameService/PlayGame" to "play",
            "truco.v1.GameService/StartWithBots" to "startWithBots",
            "truco.v1.RulesService/EvaluateHand" to "evaluateHand",
            "truco.v1.RulesService/CompareCards" to "compareCards",
            "truco.v1.PlayerService/FindMatch" to "findMatch",
            "truco.v1.PlayerService/CancelMatch" to "cancelMatch",
            "truco.v1.PlayerService/GetPlayer" to "getPlayer",
            "truco.v1.PlayerService/ListLeaderboard" to "listLeaderboard",
            "truco.v1.PlayerService/ListPlayerMatches" to "listPlayerMatches",
        )

        private val AUTHORIZATION: Metadata.Key<String> = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER)
        private val API_KEY: Metadata.Key<String> = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER)

        /** The metadata key naming the game a call is about (`games/{id}`), for load balancers' game affinity. */
        const val GAME_HEADER: String = "x-truco-game"
        private val GAME: Metadata.Key<String> = Metadata.Key.of(GAME_HEADER, Metadata.ASCII_STRING_MARSHALLER)

        /** The metadata key carrying a player token (a JWT an app's backend signed for one of its players). */
        const val PLAYER_HEADER: String = "x-player-token"
        private val PLAYER_TOKEN: Metadata.Key<String> = Metadata.Key.of(PLAYER_HEADER, Metadata.ASCII_STRING_MARSHALLER)

        /** The resource name players/{sub}, from it or from the bare sub ("me": the caller's own player). */
        fun playerName(name: String): String = if (name.startsWith("players/")) name else "players/$name"

        /** Whether a ticket in [state] is over: its stream sends nothing after it. */
        fun isFinal(state: TicketState): Boolean = state == TicketState.TICKET_STATE_MATCHED ||
            state == TicketState.TICKET_STATE_EXPIRED || state == TicketState.TICKET_STATE_CANCELLED

        /**
         * A plaintext client to [address] ("host:port") over the okhttp transport, the one for Android; [close] closes
         * its channel. For TLS build the channel yourself (`OkHttpChannelBuilder.forTarget(address).useTransportSecurity()`).
         */
        fun connect(address: String, options: Options = Options()): TrucoClient =
            TrucoClient(
                OkHttpChannelBuilder.forTarget(address).usePlaintext().build(),
                true,
                options,
                VersionsSeen(VersionsSeen.MAX_GAMES),
            )

        /** The resource name games/{game}, from it or from the bare id. */
        fun gameName(name: String): String = if (name.startsWith("games/")) name else "games/$name"

        /** A fresh request id (a UUID4: 122 random bits, what a JoinGame request id needs). */
        fun newRequestId(): String = UUID.randomUUID().toString().replace("-", "")

        /** Whether the view's match is over. */
        fun isOver(view: SeatView?): Boolean = view?.public?.phase == Phase.PHASE_MATCH_OVER

        /** The server bots' playing strengths by name, for [createGame]. */
        val BOT_LEVELS: Map<String, BotLevel> = mapOf(
            "beginner" to BotLevel.BOT_LEVEL_BEGINNER,
            "intermediate" to BotLevel.BOT_LEVEL_INTERMEDIATE,
            "expert" to BotLevel.BOT_LEVEL_EXPERT,
        )
    }

    /**
     * Another client on the same channel acting as the seat of [token] (null: a spectator). Both share the versions
     * seen: neither reads older than what either saw. Closing it leaves the channel open.
     */
    fun withToken(token: String?): TrucoClient = TrucoClient(channel, false, options.copy(token = token), seen)

    /** Closes the channel [connect] opened (not one passed in, nor a [withToken] client's). */
    override fun close() {
        if (ownsChannel) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        }
    }

    /** The call's metadata: the seat token, the API key, the player token, and the game it is about ([game], a name; null: none). */
    internal fun headers(game: String?): Metadata {
        val headers = Metadata()
        currentToken?.takeIf { it.isNotEmpty() }?.let { headers.put(AUTHORIZATION, "Bearer $it") }
        options.apiKey?.takeIf { it.isNotEmpty() }?.let { headers.put(API_KEY, it) }
        options.playerToken?.takeIf { it.isNotEmpty() }?.let { headers.put(PLAYER_TOKEN, it) }
        game?.let { headers.put(GAME, it) }
        return headers
    }

    private fun protoDuration(duration: Duration): com.google.protobuf.Duration =
        duration.toComponents { seconds, nanoseconds ->
            com.google.protobuf.Duration.newBuilder().setSeconds(seconds).setNanos(nanoseconds).build()
        }

    internal fun backoff(attempt: Int): Duration {
        val ceiling = minOf(options.maxBackoff, options.backoff * (1 shl minOf(attempt, 20)).toDouble())
        return ceiling / 2 + ceiling / 2 * Random.nextDouble()
    }

    /** How long to wait before sending again a call a quota refused; null: do not (no RetryInfo, or too long). */
    internal fun quotaWait(failure: TrucoException): Duration? {
        val nanos = failure.retryDelayNanos()
        if (nanos < 0) return null // no RetryInfo (java.time's Duration is not read here: Android API 26)
        val wait = nanos.nanoseconds
        return if (failure.code() == Status.Code.RESOURCE_EXHAUSTED && wait <= options.maxQuotaWait) wait else null
    }

    /** errors.proto's retry policy ([TrucoException.retried]); the caller's own cancellation never gets here. */
    private fun retryable(failure: TrucoException): Boolean = failure.retried()

    /**
     * How long to wait before opening again a stream (a watch, a session) that broke with [failure] after [failures]
     * failures in a row: its quota's RetryInfo delay, or the backoff (the channel then reconnects at once); null: do
     * not (neither a lost connection nor a quota's refusal, or its retries spent).
     */
    internal fun resumeWait(failure: TrucoException, failures: Int): Duration? {
        val quota = quotaWait(failure)
        if ((!failure.connectionLost() && quota == null) || failures >= options.retries) return null
        return quota ?: backoff(failures).also { channel.resetConnectBackoff() }
    }

    internal fun failureOf(error: Throwable): TrucoException? = when (error) {
        is CancellationException -> null // the caller's own cancellation: never retried, never converted
        is StatusException, is StatusRuntimeException -> TrucoException.from(error)
        else -> null
    }

    /**
     * One unary call with the deadline and the headers (naming [game], if any), retried as the class says; the request is built once, so a
     * retried write carries the same request id.
     */
    private suspend fun <Q : Any, R : Any> unary(method: MethodDescriptor<Q, R>, request: Q, game: String? = null): R {
        var attempt = 0
        while (true) {
            val wait: Duration
            try {
                val call = CallOptions.DEFAULT.withDeadlineAfter(options.timeout.inWholeMilliseconds, TimeUnit.MILLISECONDS)
                return ClientCalls.unaryRpc(channel, method, request, call, headers(game))
            } catch (error: Throwable) {
                val failure = failureOf(error) ?: throw error
                val quota = quotaWait(failure)
                if ((quota == null && !retryable(failure)) || attempt >= options.retries) {
                    throw failure
                }
                wait = quota ?: backoff(attempt).also { channel.resetConnectBackoff() }
            }
            delay(wait)
            attempt++
        }
    }

    // --- GameService -----------------------------------------------------------------------------------------------

    /**
     * Creates a match; [bots] maps seats to the server bots that play them, all at [botLevel] when it is set (it
     * then chooses the bot; the kinds are ignored). [clock] null takes the server's default clocks. [requestId] is
     * the idempotency key: the same id returns the same game.
     */
    suspend fun createGame(
        rules: RuleSet,
        bots: Map<Int, BotKind> = emptyMap(),
        botLevel: BotLevel = BotLevel.BOT_LEVEL_UNSPECIFIED,
        public: Boolean = false,
        clock: ClockSettings? = null,
        requestId: String = newRequestId(),
    ): Game {
        val request = CreateGameRequest.newBuilder().setRequestId(requestId).setRules(rules).setPublic(public)
        bots.toSortedMap().forEach { (seat, kind) ->
            request.addBots(BotSeat.newBuilder().setSeat(seat).setKind(kind).setLevel(botLevel))
        }
        clock?.let { request.setClock(it) }
        val game = unary(GameServiceGrpc.getCreateGameMethod(), request.build()).game
        seen.saw(gameName(game.name), game.version)
        return game
    }

    /**
     * Takes a seat (null: the first open one); this client then acts as that seat. The same [requestId] sent
     * again, by this process or by one restarted after it died, returns the same seat and token until the token
     * is first used (then, or 10 minutes after the join, JOIN_NOT_REPEATABLE): keep it as secret as the token.
     */
    suspend fun joinGame(
        name: String,
        seat: Int? = null,
        playerName: String = "",
        requestId: String = newRequestId(),
    ): JoinResult {
        val request = JoinGameRequest.newBuilder().setName(gameName(name)).setRequestId(requestId)
            .setPlayerName(playerName)
        seat?.let { request.setSeat(it) }
        val response = unary(GameServiceGrpc.getJoinGameMethod(), request.build(), request.name)
        currentToken = response.seatToken
        seen.saw(request.name, response.view.public.version)
        return JoinResult(response.seat, response.seatToken, response.view)
    }

    /** The caller's view (its seat view, unset for a spectator, and the public view); never older than seen. */
    suspend fun getView(name: String): GetGameViewResponse {
        val game = gameName(name)
        val request = GetGameViewRequest.newBuilder().setName(game).setMinVersion(seen.of(game)).build()
        val response = unary(GameServiceGrpc.getGetGameViewMethod(), request, game)
        seen.saw(game, maxOf(response.public.version, response.seat.public.version))
        return response
    }

    /** This seat's view. @throws IllegalStateException for a client without a seat token */
    suspend fun seatView(name: String): SeatView {
        val response = getView(name)
        check(response.hasSeat()) { "no seat view: this client has no seat token" }
        return response.seat
    }

    /** Exactly the commands the server would accept from this seat now; never older than seen. */
    suspend fun legalActions(name: String): ListLegalActionsResponse {
        val game = gameName(name)
        val request = ListLegalActionsRequest.newBuilder().setName(game).setMinVersion(seen.of(game)).build()
        val response = unary(GameServiceGrpc.getListLegalActionsMethod(), request, game)
        seen.saw(game, response.version)
        return response
    }

    /**
     * Submits a command chosen at [expectedVersion] (0 skips the check); [requestId] is sent unchanged on every
     * retry, and the server applies it once.
     *
     * @throws TrucoException.IllegalMove when the rules refuse it (`reason()` says why)
     * @throws TrucoException.VersionConflict when the game moved past [expectedVersion]
     */
    suspend fun submit(
        name: String,
        command: Command,
        expectedVersion: Long,
        requestId: String = newRequestId(),
    ): SubmitCommandResponse {
        val request = SubmitCommandRequest.newBuilder().setName(gameName(name)).setRequestId(requestId)
            .setExpectedVersion(expectedVersion).setCommand(command).build()
        try {
            val response = unary(GameServiceGrpc.getSubmitCommandMethod(), request, request.name)
            seen.saw(request.name, response.version)
            return response
        } catch (conflict: TrucoException.VersionConflict) {
            seen.saw(request.name, VersionsSeen.conflictVersion(conflict))
            throw conflict
        }
    }

    /**
     * Chooses and submits one command at the version it was chosen at; when the game moved on first (ABORTED) reads
     * the view again and asks [choose] again, up to [attempts] times. Returns null when [choose] chooses nothing (not
     * this seat's turn, the match over).
     */
    suspend fun playTurn(
        name: String,
        view: SeatView? = null,
        attempts: Int = 10,
        choose: (SeatView) -> Command? = Commands::plainBot,
    ): Turn? {
        var current = view ?: seatView(name)
        var conflicts = 0
        while (true) {
            val command = choose(current) ?: return null
            try {
                return Turn(command, submit(name, command, current.public.version), conflicts)
            } catch (conflict: TrucoException.VersionConflict) {
                if (++conflicts >= attempts) throw conflict
            }
            current = seatView(name)
        }
    }

    /**
     * Each new event of the game, in order, from [afterVersion] on: a cold Flow of one WatchGameResponse per event,
     * collected once per watch. The stream underneath is [watchCommits] (one message per commit): the caller's views
     * after a commit go with its last event (`seat` for a seat, `public` for anyone); its earlier events carry no
     * view. Act on the items that carry one.
     *
     * A stream broken by UNAVAILABLE (or a server-side CANCELLED: a restart, a dropped connection) is reopened after
     * the last version delivered, up to the client's retries in a row with backoff, and one a quota refused after its
     * RetryInfo delay; [onResume] hears of each. The flow completes when the server ends the stream (right after the
     * event that ends the match); cancel the collecting coroutine to stop early. A watch has no deadline. Each
     * event's version counts as seen.
     */
    fun watch(
        name: String,
        afterVersion: Long = 0,
        onResume: ((afterVersion: Long, error: TrucoException) -> Unit)? = null,
    ): Flow<WatchGameResponse> = watchCommits(name, afterVersion, onResume).transform { commit ->
        Commits.perEvent(commit).forEach { emit(it) }
    }

    /**
     * Each new commit of the game as one message (WatchGame with `per_commit`), from [afterVersion] on: a move with the
     * bot moves and the deal it triggered arrives as one WatchGameResponse whose `events` are all of them, in order,
     * each with its version, with the caller's view after the last one (`seat` for a seat, `public` for a
     * spectator). The first message holds every event after [afterVersion], which may be in the middle of a commit.
     * [Commits.events] reads a message's events (also from a server older than `per_commit`, which sends one event
     * per message). It resumes and ends as [watch] does (which is this flow, one event at a time).
     */
    fun watchCommits(
        name: String,
        afterVersion: Long = 0,
        onResume: ((afterVersion: Long, error: TrucoException) -> Unit)? = null,
    ): Flow<WatchGameResponse> = flow {
        val game = gameName(name)
        var last = afterVersion
        var failures = 0
        while (true) {
            val wait: Duration
            try {
                val request = WatchGameRequest.newBuilder().setName(game).setAfterVersion(last).setPerCommit(true).build()
                ClientCalls.serverStreamingRpc(channel, GameServiceGrpc.getWatchGameMethod(), request, CallOptions.DEFAULT, headers(game))
                    .collect { commit ->
                        failures = 0
                        Commits.events(commit).lastOrNull()?.let { last = maxOf(last, it.version) }
                        seen.saw(game, Commits.version(commit))
                        emit(commit)
                    }
                return@flow
            } catch (error: Throwable) {
                val failure = failureOf(error) ?: throw error
                wait = resumeWait(failure, failures) ?: throw failure
                onResume?.invoke(last, failure)
            }
            delay(wait)
            failures++
        }
    }

    /**
     * Plays this client's seat of the game from one PlayGame call (a bidirectional stream): a [Session], whose
     * suspending [Session.submit] sends commands on the stream and returns each one's version (or throws the
     * [TrucoException] SubmitCommand would have), and whose [Session.commits] (one message per commit, as
     * [watchCommits]) or [Session.events] (one event at a time, as [watch]) flows emit the game's commits after
     * [afterVersion] in order. It replaces [submit] plus a watch: no new call per command. It sends the metadata a
     * watch sends (the seat token, the API key, `x-truco-game`).
     *
     * The session runs as a child of the calling coroutine: cancelling it (or its scope) cancels the session, and it
     * completes once the session ended. A broken stream (as a watch's: UNAVAILABLE, a connection closed under it) is
     * reopened after the last version received and the commands still waiting for their outcome are sent again with
     * their request ids, up to [Options.retries] in a row with backoff; [onResume] hears of each, with the version it
     * resumes after and the failure. A quota's refusal of a command (within [Options.maxQuotaWait]) is sent again
     * after its delay. When the match ends the server ends the stream and the flows complete. Close it when done
     * (`session.use { ... }`). It needs HTTP/2 end to end (native gRPC); browser transports use submit and watch.
     */
    suspend fun play(
        name: String,
        afterVersion: Long = 0,
        onResume: ((afterVersion: Long, error: TrucoException) -> Unit)? = null,
    ): Session = Session(this, gameName(name), afterVersion, onResume, currentCoroutineContext())

    /** Every open game (a seat free, not over) the caller may see, newest first, fetched page after page. */
    fun listGames(pageSize: Int = 20): Flow<Game> = flow {
        var pageToken = ""
        do {
            val request = ListGamesRequest.newBuilder().setPageSize(pageSize).setPageToken(pageToken).build()
            val response = unary(GameServiceGrpc.getListGamesMethod(), request)
            response.gamesList.forEach { emit(it) }
            pageToken = response.nextPageToken
        } while (pageToken.isNotEmpty())
    }

    /** The game: seats (with presence and takeover), clock settings, phase, scores, rematch links. */
    suspend fun getGame(name: String): Game {
        val request = GetGameRequest.newBuilder().setName(gameName(name)).build()
        val game = unary(GameServiceGrpc.getGetGameMethod(), request, request.name).game
        seen.saw(request.name, game.version)
        return game
    }

    /** Leaves this client's seat: a bot plays it until [resumeSeat]. Returns the seat's view. */
    suspend fun leaveGame(name: String): SeatView {
        val request = LeaveGameRequest.newBuilder().setName(gameName(name)).build()
        val view = unary(GameServiceGrpc.getLeaveGameMethod(), request, request.name).view
        seen.saw(request.name, view.public.version)
        return view
    }

    /** Takes this client's seat back from the bot that played it (after its clock ran out, or a leave). */
    suspend fun resumeSeat(name: String): SeatView {
        val request = ResumeSeatRequest.newBuilder().setName(gameName(name)).build()
        val view = unary(GameServiceGrpc.getResumeSeatMethod(), request, request.name).view
        seen.saw(request.name, view.public.version)
        return view
    }

    /**
     * The next game of a finished one (its game and this client's seat there): same seats, and this client's token
     * holds its seat there too. @throws TrucoException.IllegalMove GAME_NOT_FINISHED for a game still in play
     */
    suspend fun rematch(name: String): RematchResponse {
        val request = RematchRequest.newBuilder().setName(gameName(name)).build()
        return unary(GameServiceGrpc.getRematchMethod(), request, request.name)
    }

    /**
     * Deals a game waiting for friends now, the server's bots in its open seats at the game's level (its game: the
     * seats after; its view: this seat's view after the deal). Only the table's host may: the player who sat down
     * first. @throws TrucoException.PermissionDenied NOT_TABLE_HOST from another seat
     * @throws TrucoException.IllegalMove GAME_ALREADY_STARTED once the game was dealt
     */
    suspend fun startWithBots(name: String): StartWithBotsResponse {
        val request = StartWithBotsRequest.newBuilder().setName(gameName(name)).build()
        val response = unary(GameServiceGrpc.getStartWithBotsMethod(), request, request.name)
        seen.saw(request.name, response.view.public.version)
        return response
    }

    // --- PlayerService ---------------------------------------------------------------------------------------------

    /**
     * Opens a quick-match ticket and follows it: a cold Flow of the server's messages (the ticket WAITING, its window
     * widening, ... then MATCHED with the game, the seat and the seat token, or EXPIRED or CANCELLED, after which it
     * completes). [rules]' `players` is the table size; [party] the subs of the party's other players; [maxWait]
     * null takes the server's default (2 min); [botsAfter] lets the server's bots fill the free seats after that wait
     * (the match is then unrated). Needs a player token. A stream broken by a lost connection is reopened with the
     * same [requestId], which follows the same ticket, as a watch resumes ([onResume] hears of each); one a quota
     * refused is opened again after its RetryInfo delay. Cancelling the collector closes the stream, which cancels a
     * ticket not yet matched; [quickMatch] does all of it and hands back the seat.
     */
    fun findMatch(
        rules: RuleSet = RuleSet.getDefaultInstance(),
        party: List<String> = emptyList(),
        maxWait: Duration? = null,
        botsAfter: Duration? = null,
        botLevel: BotLevel = BotLevel.BOT_LEVEL_UNSPECIFIED,
        requestId: String = newRequestId(),
        onResume: ((error: TrucoException) -> Unit)? = null,
    ): Flow<FindMatchResponse> = flow {
        val request = FindMatchRequest.newBuilder().setRequestId(requestId).setRules(rules).addAllParty(party)
            .setBotLevel(botLevel)
        maxWait?.let { request.setMaxWait(protoDuration(it)) }
        botsAfter?.let { request.setBotsAfter(protoDuration(it)) }
        val built = request.build()
        var failures = 0
        while (true) {
            val wait: Duration
            try {
                ClientCalls.serverStreamingRpc(channel, PlayerServiceGrpc.getFindMatchMethod(), built, CallOptions.DEFAULT, headers(null))
                    .transformWhile { item ->
                        emit(item)
                        !isFinal(item.ticket.state) // the ticket's last message: the stream has nothing after it
                    }
                    .collect { item ->
                        failures = 0
                        emit(item)
                    }
                return@flow
            } catch (error: Throwable) {
                val failure = failureOf(error) ?: throw error
                wait = resumeWait(failure, failures) ?: throw failure
                onResume?.invoke(failure)
            }
            delay(wait)
            failures++
        }
    }

    /**
     * Finds a match and sits in it: opens a ticket ([findMatch], same parameters), tells [onTicket] each state it
     * passes through, and returns once it is MATCHED: the game, the seat and a client acting as the seat (its seat
     * token, this client's player token and API key). Cancelling the calling coroutine abandons it: the stream
     * closes and the ticket is cancelled (CancelMatch, in case the server has not yet seen the stream go).
     *
     * @throws NoMatchException when the ticket EXPIRES or is CANCELLED
     */
    suspend fun quickMatch(
        rules: RuleSet = RuleSet.getDefaultInstance(),
        party: List<String> = emptyList(),
        maxWait: Duration? = null,
        botsAfter: Duration? = null,
        botLevel: BotLevel = BotLevel.BOT_LEVEL_UNSPECIFIED,
        requestId: String = newRequestId(),
        onTicket: ((MatchTicket) -> Unit)? = null,
    ): QuickMatch {
        var ticket: MatchTicket? = null
        try {
            findMatch(rules, party, maxWait, botsAfter, botLevel, requestId).collect { item ->
                if (!item.hasTicket()) return@collect
                ticket = item.ticket
                onTicket?.invoke(item.ticket)
                when (item.ticket.state) {
                    TicketState.TICKET_STATE_MATCHED -> throw Matched(
                        QuickMatch(gameName(item.game), item.seat, withToken(item.seatToken), item.ticket),
                    )
                    TicketState.TICKET_STATE_EXPIRED, TicketState.TICKET_STATE_CANCELLED -> throw NoMatchException(item.ticket)
                    else -> Unit
                }
            }
        } catch (matched: Matched) {
            return matched.match
        } catch (abandoned: CancellationException) {
            ticket?.let { open ->
                // The closed stream cancels the ticket; this says so at once, and a ticket matched meanwhile stays so.
                withContext(NonCancellable) { runCatching { cancelMatch(open.name) } }
            }
            throw abandoned
        }
        throw NoMatchException(ticket)
    }

    /** Ends [quickMatch]'s collection at its match (a flow is left by throwing). */
    private class Matched(val match: QuickMatch) : RuntimeException(null, null, false, false)

    /**
     * Cancels this player's open ticket ([name], or "": its only one); returns the ticket as it ends (CANCELLED, or as
     * it was when already over). @throws TrucoException.IllegalMove TICKET_ALREADY_MATCHED for a matched ticket
     */
    suspend fun cancelMatch(name: String = ""): MatchTicket =
        unary(PlayerServiceGrpc.getCancelMatchMethod(), CancelMatchRequest.newBuilder().setName(name).build()).ticket

    /** A player of this app (players/{sub}, a bare sub, or "me": the player of this client's token) with its ratings. */
    suspend fun getPlayer(name: String = "me"): Player =
        unary(PlayerServiceGrpc.getGetPlayerMethod(), GetPlayerRequest.newBuilder().setName(playerName(name)).build()).player

    /**
     * One page of the app's ranking at a table size ([players]: 2, 4 or 6), best first: the top (then [pageToken],
     * a previous page's `next_page_token`), or with [aroundPlayer] (players/{sub} or "me") the page with that player in
     * its middle. [pageSize] 0: the server's default (20).
     */
    suspend fun listLeaderboard(
        players: Int,
        pageSize: Int = 0,
        pageToken: String = "",
        aroundPlayer: String? = null,
    ): ListLeaderboardResponse {
        val request = ListLeaderboardRequest.newBuilder().setPlayers(players).setPageSize(pageSize).setPageToken(pageToken)
        aroundPlayer?.takeIf { it.isNotEmpty() }?.let { request.setAroundPlayer(playerName(it)) }
        return unary(PlayerServiceGrpc.getListLeaderboardMethod(), request.build())
    }

    /** One page of a player's finished games, newest first (each replayable with [watch] from version 0). */
    suspend fun listPlayerMatches(name: String = "me", pageSize: Int = 0, pageToken: String = ""): ListPlayerMatchesResponse {
        val request = ListPlayerMatchesRequest.newBuilder().setName(playerName(name)).setPageSize(pageSize)
            .setPageToken(pageToken).build()
        return unary(PlayerServiceGrpc.getListPlayerMatchesMethod(), request)
    }

    // --- RulesService ----------------------------------------------------------------------------------------------

    /** Envido, flor and card strengths of three cards under a muestra. */
    suspend fun evaluateHand(muestra: Card, cards: Iterable<Card>, withoutFlor: Boolean = false): EvaluateHandResponse =
        unary(
            RulesServiceGrpc.getEvaluateHandMethod(),
            EvaluateHandRequest.newBuilder().setMuestra(muestra).addAllCards(cards).setWithoutFlor(withoutFlor).build(),
        )

    /** Which card wins a round under a muestra: result 1 (first), -1 (second) or 0 (parda). */
    suspend fun compareCards(muestra: Card, first: Card, second: Card): CompareCardsResponse =
        unary(
            RulesServiceGrpc.getCompareCardsMethod(),
            CompareCardsRequest.newBuilder().setMuestra(muestra).setFirst(first).setSecond(second).build(),
        )
}
