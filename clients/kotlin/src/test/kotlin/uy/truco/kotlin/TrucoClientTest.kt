package uy.truco.kotlin

import com.google.protobuf.Any
import com.google.rpc.Code
import com.google.rpc.ErrorInfo
import com.google.rpc.RetryInfo
import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.Server
import io.grpc.ServerCall
import io.grpc.ServerCallHandler
import io.grpc.ServerInterceptor
import io.grpc.ServerInterceptors
import io.grpc.inprocess.InProcessChannelBuilder
import io.grpc.inprocess.InProcessServerBuilder
import io.grpc.protobuf.StatusProto
import io.grpc.stub.StreamObserver
import java.util.Collections
import java.util.concurrent.TimeUnit
import kotlin.reflect.full.declaredMemberFunctions
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import uy.truco.client.Cards
import uy.truco.client.Commands
import uy.truco.client.Commits
import uy.truco.client.TrucoException
import uy.truco.v1.Event
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.JoinGameRequest
import uy.truco.v1.JoinGameResponse
import uy.truco.v1.MatchView
import uy.truco.v1.RuleSet
import uy.truco.v1.RulesServiceGrpc
import uy.truco.v1.SeatView
import uy.truco.v1.SubmitCommandRequest
import uy.truco.v1.SubmitCommandResponse
import uy.truco.v1.WatchGameRequest
import uy.truco.v1.WatchGameResponse

/**
 * The Kotlin SDK against an in-process fake GameService: a wrapper for each RPC, quota refusals retried after their
 * RetryInfo delay with the same request id, and a watch Flow that resumes after the last version delivered. A plain
 * (POJO) Surefire test: each public `test*` method runs between [setUp] and [tearDown]; checks use `check`.
 */
class TrucoClientTest {
    /**
     * Refuses the first submits with QUOTA_EXCEEDED (a RetryInfo of each delay, in ms). Its watches stream versions
     * 1 to 3, then break (the first), or go on to 5: with `per_commit` in commits of up to two events, each with the
     * seat's view after its last one, else one event per message.
     */
    class FakeGames : GameServiceGrpc.GameServiceImplBase() {
        val quotaDelaysMs: MutableList<Long> = Collections.synchronizedList(mutableListOf())
        val ids: MutableList<String> = Collections.synchronizedList(mutableListOf())
        val watches: MutableList<Long> = Collections.synchronizedList(mutableListOf())
        val perCommit: MutableList<Boolean> = Collections.synchronizedList(mutableListOf())

        override fun submitCommand(request: SubmitCommandRequest, reply: StreamObserver<SubmitCommandResponse>) {
            ids.add(request.requestId)
            if (quotaDelaysMs.isNotEmpty()) {
                val delay = quotaDelaysMs.removeAt(0)
                val info = ErrorInfo.newBuilder().setReason("QUOTA_EXCEEDED").setDomain("truco.v1").build()
                val retry = RetryInfo.newBuilder().setRetryDelay(
                    com.google.protobuf.Duration.newBuilder().setSeconds(delay / 1000).setNanos((delay % 1000).toInt() * 1_000_000),
                ).build()
                val status = com.google.rpc.Status.newBuilder().setCode(Code.RESOURCE_EXHAUSTED_VALUE).setMessage("slow down")
                    .addDetails(Any.pack(info)).addDetails(Any.pack(retry)).build()
                reply.onError(StatusProto.toStatusRuntimeException(status))
                return
            }
            reply.onNext(SubmitCommandResponse.newBuilder().setVersion(request.expectedVersion + 1).build())
            reply.onCompleted()
        }

        override fun joinGame(request: JoinGameRequest, reply: StreamObserver<JoinGameResponse>) {
            ids.add(request.requestId)
            reply.onNext(JoinGameResponse.newBuilder().setSeatToken("t").setView(SeatView.getDefaultInstance()).build())
            reply.onCompleted()
        }

        override fun watchGame(request: WatchGameRequest, reply: StreamObserver<WatchGameResponse>) {
            watches.add(request.afterVersion)
            perCommit.add(request.perCommit)
            val last = if (watches.size > 1) 5L else 3L
            val versions = (request.afterVersion + 1..last).toList()
            if (request.perCommit) {
                versions.chunked(2).forEach { commit ->
                    val view = SeatView.newBuilder().setPublic(MatchView.newBuilder().setVersion(commit.last()))
                    reply.onNext(
                        WatchGameResponse.newBuilder().setSeat(view)
                            .addAllEvents(commit.map { Event.newBuilder().setVersion(it).build() }).build(),
                    )
                }
            } else {
                versions.forEach { version ->
                    reply.onNext(
                        WatchGameResponse.newBuilder().setEvent(Event.newBuilder().setVersion(version))
                            .setPublic(MatchView.newBuilder().setVersion(version)).build(),
                    )
                }
            }
            if (watches.size == 1) {
                reply.onError(io.grpc.Status.UNAVAILABLE.withDescription("going away").asRuntimeException())
            } else {
                reply.onCompleted()
            }
        }
    }

    private lateinit var fake: FakeGames
    private lateinit var server: Server
    private lateinit var channel: ManagedChannel
    private lateinit var client: TrucoClient

    /** Records each call's method name and the game its `x-truco-game` metadata names ("-": none). */
    class Recorder : ServerInterceptor {
        val calls: MutableList<String> = Collections.synchronizedList(mutableListOf())

        override fun <Q, R> interceptCall(call: ServerCall<Q, R>, headers: Metadata, next: ServerCallHandler<Q, R>): ServerCall.Listener<Q> {
            val game = headers.get(Metadata.Key.of(TrucoClient.GAME_HEADER, Metadata.ASCII_STRING_MARSHALLER)) ?: "-"
            calls.add("${call.methodDescriptor.bareMethodName} $game")
            return next.startCall(call, headers)
        }
    }

    private lateinit var recorder: Recorder

    fun setUp() {
        fake = FakeGames()
        recorder = Recorder()
        val name = InProcessServerBuilder.generateName()
        server = InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(fake, recorder))
            .addService(ServerInterceptors.intercept(object : RulesServiceGrpc.RulesServiceImplBase() {}, recorder))
            .build().start()
        channel = InProcessChannelBuilder.forName(name).build()
        client = TrucoClient(channel, Options(retries = 2, backoff = 0.01.seconds, maxQuotaWait = 1.seconds))
    }

    fun tearDown() {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    }

    fun testEveryRpcOfTheServiceHasAWrapper() {
        val methods = listOf(
            GameServiceGrpc.getServiceDescriptor(),
            RulesServiceGrpc.getServiceDescriptor(),
            uy.truco.v1.PlayerServiceGrpc.getServiceDescriptor(),
        )
            .flatMap { service -> service.methods.map { it.fullMethodName } }.toSortedSet()
        check(methods == TrucoClient.WRAPPERS.keys.toSortedSet()) { "methods $methods, wrapped ${TrucoClient.WRAPPERS.keys}" }
        val functions = TrucoClient::class.declaredMemberFunctions.map { it.name }.toSet()
        TrucoClient.WRAPPERS.values.forEach { check(it in functions) { "no TrucoClient.$it" } }
    }

    fun testJoinGameSendsTheCallersRequestIdOrANewOne() = runBlocking {
        val chosen = TrucoClient.newRequestId()
        client.joinGame("g1", seat = 0, requestId = chosen)
        client.joinGame("g1")
        check(fake.ids.size == 2 && fake.ids[0] == chosen) { "join ids ${fake.ids}" }
        check(fake.ids[1].length >= 32 && fake.ids[1] != chosen) { "join ids ${fake.ids}" }
    }

    fun testAQuotaRefusalIsRetriedAfterItsRetryInfoDelayWithTheSameRequestId() = runBlocking {
        fake.quotaDelaysMs.add(300)
        val started = System.nanoTime()
        check(client.submit("g1", Commands.mazo(), 1).version == 2L)
        val waitedMs = (System.nanoTime() - started) / 1_000_000
        check(waitedMs >= 300) { "retried after $waitedMs ms, before the 300 ms the server asked for" }
        check(fake.ids.size == 2 && fake.ids[0] == fake.ids[1]) { "request ids ${fake.ids}" }
    }

    fun testAQuotaRefusalLongerThanMaxQuotaWaitIsThrownAtOnce() = runBlocking {
        fake.quotaDelaysMs.add(30_000)
        val refused = runCatching { client.submit("g1", Commands.mazo(), 1) }.exceptionOrNull()
        check(refused is TrucoException.ResourceExhausted && refused.reason() == "QUOTA_EXCEEDED") { "got $refused" }
        check(fake.ids.size == 1)
    }

    fun testTheWatchFlowResumesAfterTheLastVersionDelivered() = runBlocking {
        val resumed = mutableListOf<Long>()
        val items = client.watch("g1", 0) { after, _ -> resumed.add(after) }.toList()
        val versions = items.map { it.event.version }
        check(versions == listOf(1L, 2L, 3L, 4L, 5L)) { "versions $versions" }
        check(fake.watches == listOf(0L, 3L) && resumed == listOf(3L)) { "watches ${fake.watches}, resumed $resumed" }
        check(fake.perCommit == listOf(true, true)) { "per_commit ${fake.perCommit}" }
        // The view after a commit goes with its last event (both views: a seat's holds the public one).
        val withViews = items.filter { it.hasSeat() }.map { listOf(it.event.version, it.seat.public.version, it.public.version) }
        check(withViews == listOf(listOf(2L, 2L, 2L), listOf(3L, 3L, 3L), listOf(5L, 5L, 5L))) { "views $withViews" }
    }

    fun testWatchCommitsHandsEachCommitWhole() = runBlocking {
        val commits = client.watchCommits("g1", 1).toList().map { commit -> Commits.events(commit).map { it.version } }
        check(commits == listOf(listOf(2L, 3L), listOf(4L, 5L))) { "commits $commits" }
        check(fake.watches == listOf(1L, 3L)) { "watches ${fake.watches}" }
    }

    fun testEveryCallAboutOneGameNamesItForTheBalancer() = runBlocking {
        val calls: List<suspend () -> kotlin.Any> = listOf(
            { client.createGame(RuleSet.getDefaultInstance()) },
            { client.joinGame("g1") },
            { client.getView("g1") },
            { client.legalActions("games/g1") },
            { client.submit("g1", Commands.mazo(), 1) },
            { client.watch("g1", 3).toList() },
            { client.listGames().toList() },
            { client.getGame("g1") },
            { client.leaveGame("g1") },
            { client.resumeSeat("g1") },
            { client.rematch("g1") },
            { client.startWithBots("g1") },
            { client.evaluateHand(Cards.card("1o"), emptyList()) },
            { client.compareCards(Cards.card("1o"), Cards.card("2o"), Cards.card("1e")) },
        )
        calls.forEach { call -> runCatching { call() } } // the fake answers some UNIMPLEMENTED: what was sent counts
        val want = listOf(
            "CreateGame -", "JoinGame games/g1", "GetGameView games/g1", "ListLegalActions games/g1",
            "SubmitCommand games/g1", "WatchGame games/g1", "ListGames -", "GetGame games/g1", "LeaveGame games/g1",
            "ResumeSeat games/g1", "Rematch games/g1", "StartWithBots games/g1", "EvaluateHand -", "CompareCards -",
        )
        check(recorder.calls.distinct() == want) { "calls ${recorder.calls}" } // a watch that resumes calls twice
    }
}
