package uy.truco.kotlin

import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.Server
import io.grpc.ServerCall
import io.grpc.ServerCallHandler
import io.grpc.ServerInterceptor
import io.grpc.ServerInterceptors
import io.grpc.Status
import io.grpc.inprocess.InProcessChannelBuilder
import io.grpc.inprocess.InProcessServerBuilder
import io.grpc.stub.StreamObserver
import java.util.Collections
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import uy.truco.client.NoMatchException
import uy.truco.v1.BotLevel
import uy.truco.v1.CancelMatchRequest
import uy.truco.v1.CancelMatchResponse
import uy.truco.v1.FindMatchRequest
import uy.truco.v1.FindMatchResponse
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.GetGameViewRequest
import uy.truco.v1.GetGameViewResponse
import uy.truco.v1.GetPlayerRequest
import uy.truco.v1.GetPlayerResponse
import uy.truco.v1.ListLeaderboardRequest
import uy.truco.v1.ListLeaderboardResponse
import uy.truco.v1.ListPlayerMatchesRequest
import uy.truco.v1.ListPlayerMatchesResponse
import uy.truco.v1.MatchTicket
import uy.truco.v1.Player
import uy.truco.v1.PlayerServiceGrpc
import uy.truco.v1.RuleSet
import uy.truco.v1.SeatView
import uy.truco.v1.TicketState

/**
 * The PlayerService wrappers and the quick-match helper against an in-process PlayerService that records what it is
 * sent: the player token, the tickets' request ids, the cancellations. A plain (POJO) Surefire test.
 */
class PlayersTest {
    /**
     * FindMatch sends the ticket through [states] (MATCHED with games/g9, seat 1, "seat-token"), then holds the stream
     * until the client closes it; with [breakFirst] the first stream breaks (UNAVAILABLE) after its first message.
     */
    class FakePlayers : PlayerServiceGrpc.PlayerServiceImplBase() {
        @Volatile var states = listOf(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_MATCHED)
        @Volatile var breakFirst = false
        val finds: MutableList<FindMatchRequest> = Collections.synchronizedList(mutableListOf())
        val calls: MutableList<String> = Collections.synchronizedList(mutableListOf())
        val cancels: MutableList<String> = Collections.synchronizedList(mutableListOf())

        override fun findMatch(request: FindMatchRequest, reply: StreamObserver<FindMatchResponse>) {
            finds.add(request)
            val breaking = breakFirst
            breakFirst = false
            for (state in states) {
                val ticket = MatchTicket.newBuilder().setName("tickets/t1").setState(state).build()
                val response = FindMatchResponse.newBuilder().setTicket(ticket)
                if (state == TicketState.TICKET_STATE_MATCHED) response.setGame("games/g9").setSeat(1).setSeatToken("seat-token")
                reply.onNext(response.build())
                if (breaking) {
                    reply.onError(Status.UNAVAILABLE.withDescription("going away").asRuntimeException())
                    return
                }
            }
            // held open: the client's cancel ends it
        }

        override fun cancelMatch(request: CancelMatchRequest, reply: StreamObserver<CancelMatchResponse>) {
            cancels.add(request.name)
            val ticket = MatchTicket.newBuilder().setName(request.name).setState(TicketState.TICKET_STATE_CANCELLED)
            reply.onNext(CancelMatchResponse.newBuilder().setTicket(ticket).build())
            reply.onCompleted()
        }

        override fun getPlayer(request: GetPlayerRequest, reply: StreamObserver<GetPlayerResponse>) {
            calls.add("GetPlayer ${request.name}")
            reply.onNext(GetPlayerResponse.newBuilder().setPlayer(Player.newBuilder().setName(request.name).setDisplayName("Ana")).build())
            reply.onCompleted()
        }

        override fun listLeaderboard(request: ListLeaderboardRequest, reply: StreamObserver<ListLeaderboardResponse>) {
            calls.add("ListLeaderboard ${request.players} ${request.aroundPlayer}")
            reply.onNext(ListLeaderboardResponse.newBuilder().setTotal(request.players).build())
            reply.onCompleted()
        }

        override fun listPlayerMatches(request: ListPlayerMatchesRequest, reply: StreamObserver<ListPlayerMatchesResponse>) {
            calls.add("ListPlayerMatches ${request.name} ${request.pageToken}")
            reply.onNext(ListPlayerMatchesResponse.getDefaultInstance())
            reply.onCompleted()
        }
    }

    private lateinit var fake: FakePlayers
    private lateinit var server: Server
    private lateinit var channel: ManagedChannel
    private lateinit var client: TrucoClient
    private val headers: MutableList<Metadata> = Collections.synchronizedList(mutableListOf())

    fun setUp() {
        fake = FakePlayers()
        headers.clear()
        val recorder = object : ServerInterceptor {
            override fun <Q, R> interceptCall(call: ServerCall<Q, R>, metadata: Metadata, next: ServerCallHandler<Q, R>): ServerCall.Listener<Q> {
                headers.add(metadata)
                return next.startCall(call, metadata)
            }
        }
        val games = object : GameServiceGrpc.GameServiceImplBase() {
            override fun getGameView(request: GetGameViewRequest, reply: StreamObserver<GetGameViewResponse>) {
                reply.onNext(GetGameViewResponse.newBuilder().setSeat(SeatView.newBuilder().setSeat(1)).build())
                reply.onCompleted()
            }
        }
        val name = InProcessServerBuilder.generateName()
        server = InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(fake, recorder))
            .addService(ServerInterceptors.intercept(games, recorder)).build().start()
        channel = InProcessChannelBuilder.forName(name).build()
        client = TrucoClient(channel, Options(playerToken = "jwt", retries = 2, backoff = 0.01.seconds))
    }

    fun tearDown() {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    }

    private fun header(metadata: Metadata, key: String): String? =
        metadata.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER))

    fun testQuickMatchFollowsTheTicketAndActsAsTheSeat() = runBlocking {
        val seen = mutableListOf<TicketState>()
        val match = client.quickMatch(
            rules = RuleSet.newBuilder().setPlayers(4).build(),
            party = listOf("bea"),
            maxWait = 30500.milliseconds,
            botsAfter = 10.seconds,
            botLevel = BotLevel.BOT_LEVEL_EXPERT,
            onTicket = { seen.add(it.state) },
        )
        check(seen == listOf(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_MATCHED)) { seen }
        check(match.game == "games/g9" && match.seat == 1) { match }
        val sent = fake.finds[0]
        check(sent.rules.players == 4 && sent.partyList == listOf("bea") && sent.botLevel == BotLevel.BOT_LEVEL_EXPERT) { sent }
        check(sent.maxWait.seconds == 30L && sent.maxWait.nanos == 500_000_000 && sent.botsAfter.seconds == 10L) { sent }
        check(sent.requestId.length >= 32) { "a request id is set" }
        check(header(headers[0], "x-player-token") == "jwt") { "the player token is sent" }
        check(match.client.seatView(match.game).seat == 1)
        val view = headers.last()
        check(header(view, "authorization") == "Bearer seat-token" && header(view, "x-player-token") == "jwt") { view }
    }

    fun testABrokenTicketStreamIsReopenedWithTheSameRequestId() = runBlocking {
        fake.breakFirst = true
        val resumes = mutableListOf<Status.Code>()
        val match = client.findMatch(requestId = "r-1", onResume = { resumes.add(it.code()) })
        var game = ""
        match.collect { if (it.ticket.state == TicketState.TICKET_STATE_MATCHED) game = it.game }
        check(game == "games/g9") { game }
        check(resumes == listOf(Status.Code.UNAVAILABLE)) { resumes }
        check(fake.finds.size == 2 && fake.finds.all { it.requestId == "r-1" }) { fake.finds }
    }

    fun testAnExpiredTicketThrowsNoMatch() = runBlocking {
        fake.states = listOf(TicketState.TICKET_STATE_WAITING, TicketState.TICKET_STATE_EXPIRED)
        val failure = runCatching { client.quickMatch() }.exceptionOrNull()
        check(failure is NoMatchException && failure.state() == TicketState.TICKET_STATE_EXPIRED) { "$failure" }
    }

    fun testCancellingTheCoroutineAbandonsTheTicket() = runBlocking {
        fake.states = listOf(TicketState.TICKET_STATE_WAITING)
        // Cancelled once the client has heard of its ticket (a ticket it never heard of, it cannot name).
        val heard = CompletableDeferred<Unit>()
        val match = async { client.quickMatch(onTicket = { heard.complete(Unit) }) }
        withTimeout(5.seconds) { heard.await() }
        match.cancel()
        check(runCatching { match.await() }.isFailure)
        check(fake.cancels == listOf("tickets/t1")) { fake.cancels }
    }

    fun testPlayerCallsNamePlayersAndSendThePlayerToken() = runBlocking {
        check(client.getPlayer().displayName == "Ana")
        check(client.listLeaderboard(4, aroundPlayer = "me").total == 4)
        client.listPlayerMatches("ana", pageSize = 10, pageToken = "p2")
        check(fake.calls == listOf("GetPlayer players/me", "ListLeaderboard 4 players/me", "ListPlayerMatches players/ana p2")) {
            fake.calls
        }
        check(headers.all { header(it, "x-player-token") == "jwt" })
        TrucoClient(channel).listLeaderboard(2)
        check(header(headers.last(), "x-player-token") == null) { "no token, no header" }
    }
}
