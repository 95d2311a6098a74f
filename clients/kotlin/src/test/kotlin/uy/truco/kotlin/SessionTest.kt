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
import io.grpc.Status
import io.grpc.inprocess.InProcessChannelBuilder
import io.grpc.inprocess.InProcessServerBuilder
import io.grpc.protobuf.StatusProto
import io.grpc.stub.StreamObserver
import java.util.Collections
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import uy.truco.client.Commands
import uy.truco.client.Commits
import uy.truco.client.TrucoException
import uy.truco.v1.CommandError
import uy.truco.v1.Event
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.MatchView
import uy.truco.v1.PlayGameCommand
import uy.truco.v1.PlayGameOutcome
import uy.truco.v1.PlayGameRequest
import uy.truco.v1.PlayGameResponse
import uy.truco.v1.SeatView
import uy.truco.v1.WatchGameResponse

/**
 * The PlayGame session ([TrucoClient.play]) against an in-process fake GameService whose PlayGame calls each test
 * scripts: what a call does when its `start` arrives ([FakePlay.onStart]) and when a command arrives
 * ([FakePlay.onCommand]), both given the call (its index, what it was sent, its metadata, and how to answer). A plain
 * (POJO) Surefire test, as [TrucoClientTest].
 */
class SessionTest {
    /** One PlayGame call the fake served. */
    class Call(val index: Int, val headers: Metadata, private val reply: StreamObserver<PlayGameResponse>) {
        val received: MutableList<PlayGameRequest> = Collections.synchronizedList(mutableListOf())

        @Volatile
        var ended = false // half-closed or cancelled by the client
        private var over = false

        val commands: List<PlayGameCommand> get() = synchronized(received) { received.filter { it.hasCommand() }.map { it.command } }

        /** Sends one commit of these event versions, with the seat's view after the last. */
        @Synchronized
        fun commit(vararg versions: Long) {
            val view = SeatView.newBuilder().setPublic(MatchView.newBuilder().setVersion(versions.last()))
            send(
                PlayGameResponse.newBuilder().setCommit(
                    WatchGameResponse.newBuilder().setSeat(view).addAllEvents(versions.map { Event.newBuilder().setVersion(it).build() }),
                ).build(),
            )
        }

        @Synchronized
        fun accept(command: PlayGameCommand, version: Long) =
            send(PlayGameResponse.newBuilder().setOutcome(PlayGameOutcome.newBuilder().setRequestId(command.requestId).setVersion(version)).build())

        @Synchronized
        fun refuse(command: PlayGameCommand, error: CommandError) =
            send(PlayGameResponse.newBuilder().setOutcome(PlayGameOutcome.newBuilder().setRequestId(command.requestId).setError(error)).build())

        @Synchronized
        fun fail(error: Throwable) {
            if (!over) {
                over = true
                reply.onError(error)
            }
        }

        /** Ends the call OK, as the server does after the commit that ends the match. */
        @Synchronized
        fun end() {
            if (!over) {
                over = true
                reply.onCompleted()
            }
        }

        private fun send(response: PlayGameResponse) {
            if (!over) reply.onNext(response)
        }
    }

    /** A GameService whose PlayGame calls do what the test sets; the metadata comes from [Headers]. */
    class FakePlay : GameServiceGrpc.GameServiceImplBase() {
        val calls: MutableList<Call> = Collections.synchronizedList(mutableListOf())
        val headers: MutableList<Metadata> = Collections.synchronizedList(mutableListOf())

        @Volatile
        var onStart: (Call) -> Unit = {}

        @Volatile
        var onCommand: (Call, PlayGameCommand) -> Unit = { call, command -> call.accept(command, 1) }

        override fun playGame(reply: StreamObserver<PlayGameResponse>): StreamObserver<PlayGameRequest> {
            val call = synchronized(calls) { Call(calls.size, headers[calls.size], reply).also { calls.add(it) } }
            return object : StreamObserver<PlayGameRequest> {
                override fun onNext(request: PlayGameRequest) {
                    call.received.add(request)
                    if (request.hasStart()) onStart(call) else onCommand(call, request.command)
                }

                override fun onError(error: Throwable) {
                    call.ended = true
                }

                override fun onCompleted() {
                    call.ended = true
                }
            }
        }
    }

    /** Keeps each call's metadata, in order. */
    class Headers(private val fake: FakePlay) : ServerInterceptor {
        override fun <Q, R> interceptCall(call: ServerCall<Q, R>, headers: Metadata, next: ServerCallHandler<Q, R>): ServerCall.Listener<Q> {
            fake.headers.add(headers)
            return next.startCall(call, headers)
        }
    }

    private lateinit var fake: FakePlay
    private lateinit var server: Server
    private lateinit var channel: ManagedChannel
    private lateinit var client: TrucoClient

    fun setUp() {
        fake = FakePlay()
        val name = InProcessServerBuilder.generateName()
        server = InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(fake, Headers(fake))).build().start()
        channel = InProcessChannelBuilder.forName(name).build()
        client = TrucoClient(
            channel,
            Options(token = "tok", apiKey = "key", retries = 2, backoff = 1.milliseconds, maxQuotaWait = 1.seconds),
        )
    }

    fun tearDown() {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    }

    private suspend fun await(what: String, condition: () -> Boolean) {
        withTimeoutOrNull(5.seconds) {
            while (!condition()) delay(5)
        } ?: error("waited 5 s for $what")
    }

    private suspend fun call(index: Int): Call {
        await("PlayGame call $index") { fake.calls.size > index }
        return fake.calls[index]
    }

    private fun key(name: String): Metadata.Key<String> = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER)

    private fun error(code: Status.Code, reason: String, metadata: Map<String, String> = emptyMap()): CommandError =
        CommandError.newBuilder().setCode(code.value()).setReason(reason).setMessage("refused $reason").putAllMetadata(metadata).build()

    private fun versions(commit: WatchGameResponse): List<Long> = Commits.events(commit).map { it.version }

    /** Runs [block] with a time limit: a session that waits for ever fails the test instead. */
    private fun <T> timed(block: suspend kotlinx.coroutines.CoroutineScope.() -> T): T = runBlocking { withTimeout(10.seconds) { block() } }

    fun testStartIsSentFirstWithTheNameTheVersionAndTheWatchsMetadata() = timed {
        client.play("g1", 7).use { session ->
            val call = call(0)
            await("the start") { call.received.isNotEmpty() }
            val start = call.received[0]
            check(start.hasStart() && start.start.name == "games/g1" && start.start.afterVersion == 7L) { "$start" }
            check(call.headers[key("authorization")] == "Bearer tok") { "${call.headers}" }
            check(call.headers[key("x-api-key")] == "key") { "${call.headers}" }
            check(call.headers[key(TrucoClient.GAME_HEADER)] == "games/g1") { "${call.headers}" }
            check(session.name == "games/g1" && session.lastVersion == 7L)
        }
    }

    fun testACommandsOutcomeResolvesItsSubmitAndCountsAsSeen() = timed {
        fake.onCommand = { call, command -> call.accept(command, command.expectedVersion + 2) }
        client.play("games/g1").use { session ->
            check(session.submit(Commands.play("1e"), 7, "id-1") == 9L)
            val sent = call(0).commands
            check(sent.size == 1 && sent[0].requestId == "id-1" && sent[0].expectedVersion == 7L && sent[0].command == Commands.play("1e")) {
                "$sent"
            }
            check(client.seen.of("games/g1") == 9L) { "seen ${client.seen.of("games/g1")}" }
            check(session.submit(Commands.mazo()) == 2L)
            val second = call(0).commands[1].requestId
            check(second.isNotEmpty() && second != "id-1") { "request id $second" }
        }
    }

    fun testARefusedOutcomeIsTheTypedErrorWithItsReasonAndMetadataAndTheStreamGoesOn() = timed {
        fake.onCommand = { call, command ->
            when (command.requestId) {
                "illegal" -> call.refuse(command, error(Status.Code.FAILED_PRECONDITION, "CARD_NOT_IN_HAND", mapOf("card" to "1e")))
                "stale" -> call.refuse(command, error(Status.Code.ABORTED, "VERSION_CONFLICT", mapOf("version" to "12")))
                else -> call.accept(command, 13)
            }
        }
        client.play("g1").use { session ->
            val refused = runCatching { session.submit(Commands.play("1e"), 0, "illegal") }.exceptionOrNull()
            check(
                refused is TrucoException.IllegalMove && refused.code() == Status.Code.FAILED_PRECONDITION &&
                    refused.reason() == "CARD_NOT_IN_HAND" && refused.metadata() == mapOf("card" to "1e") &&
                    refused.statusMessage() == "refused CARD_NOT_IN_HAND" && !refused.connectionLost(),
            ) { "got $refused" }
            val conflict = runCatching { session.submit(Commands.mazo(), 3, "stale") }.exceptionOrNull()
            check(conflict is TrucoException.VersionConflict && conflict.reason() == "VERSION_CONFLICT") { "got $conflict" }
            check(client.seen.of("games/g1") == 12L) { "the version a VERSION_CONFLICT tells of counts as seen" }
            check(session.submit(Commands.mazo(), 12, "fine") == 13L)
            check(fake.calls.size == 1) { "a refused command ended the stream" }
        }
    }

    fun testAQuotaOutcomeIsSentAgainAfterItsDelayWithTheSameRequestId() = timed {
        val quota = error(Status.Code.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED", mapOf("quota" to "player")).toBuilder()
            .setRetryDelay(com.google.protobuf.Duration.newBuilder().setNanos(300_000_000)).build()
        fake.onCommand = { call, command -> if (call.commands.size == 1) call.refuse(command, quota) else call.accept(command, 5) }
        client.play("g1").use { session ->
            val started = System.nanoTime()
            check(session.submit(Commands.mazo(), 4) == 5L)
            val waitedMs = (System.nanoTime() - started) / 1_000_000
            check(waitedMs >= 300) { "sent again after $waitedMs ms, before the 300 ms the server asked for" }
            val sent = call(0).commands
            check(sent.size == 2 && sent[0] == sent[1]) { "$sent" }
            check(fake.calls.size == 1)
        }
    }

    fun testAQuotaOutcomeLongerThanMaxQuotaWaitIsThrownAtOnce() = timed {
        val quota = error(Status.Code.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED").toBuilder()
            .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(30)).build()
        fake.onCommand = { call, command -> call.refuse(command, quota) }
        client.play("g1").use { session ->
            val refused = runCatching { session.submit(Commands.mazo()) }.exceptionOrNull()
            check(refused is TrucoException.ResourceExhausted && refused.reason() == "QUOTA_EXCEEDED" && refused.retryDelay() == java.time.Duration.ofSeconds(30)) {
                "got $refused"
            }
            check(call(0).commands.size == 1)
        }
    }

    fun testABrokenStreamIsReopenedAfterTheLastVersionAndThePendingCommandSentAgain() = timed {
        fake.onStart = { call -> if (call.index == 0) call.commit(1, 2) else call.commit(3) }
        fake.onCommand = { call, command ->
            if (call.index == 0) {
                call.fail(Status.UNAVAILABLE.withDescription("going away").asRuntimeException()) // the outcome never came
            } else {
                call.accept(command, 4)
                call.commit(4)
                call.end()
            }
        }
        val resumed = Collections.synchronizedList(mutableListOf<String>())
        client.play("g1", 0) { after, error -> resumed.add("$after ${error.code()}") }.use { session ->
            val commits = async { session.commits().map(::versions).toList() }
            await("the first commit") { session.lastVersion == 2L }
            check(session.submit(Commands.mazo(), 2, "the-id") == 4L)
            check(commits.await() == listOf(listOf(1L, 2L), listOf(3L), listOf(4L))) { "commits ${commits.await()}" }
            check(session.lastVersion == 4L)
        }
        check(resumed == listOf("2 UNAVAILABLE")) { "resumed $resumed" }
        check(fake.calls.size == 2) { "calls ${fake.calls.size}" }
        val start = call(1).received[0]
        check(start.hasStart() && start.start.afterVersion == 2L && start.start.name == "games/g1") { "$start" }
        check(call(1).headers[key("authorization")] == "Bearer tok")
        val again = call(1).commands
        check(again.size == 1 && again[0].requestId == "the-id" && again[0].expectedVersion == 2L) { "$again" }
    }

    fun testAStreamAQuotaRefusedIsOpenedAgainAfterItsDelay() = timed {
        val quota = com.google.rpc.Status.newBuilder().setCode(Code.RESOURCE_EXHAUSTED_VALUE).setMessage("too many watches")
            .addDetails(Any.pack(ErrorInfo.newBuilder().setReason("QUOTA_EXCEEDED").setDomain(TrucoException.DOMAIN).build()))
            .addDetails(Any.pack(RetryInfo.newBuilder().setRetryDelay(com.google.protobuf.Duration.newBuilder().setNanos(200_000_000)).build()))
            .build()
        val opened = Collections.synchronizedList(mutableListOf<Long>())
        fake.onStart = { call ->
            opened.add(System.nanoTime())
            if (call.index == 0) {
                call.fail(StatusProto.toStatusRuntimeException(quota))
            } else {
                call.commit(1)
                call.end()
            }
        }
        client.play("g1").use { session -> check(session.commits().map(::versions).toList() == listOf(listOf(1L))) }
        check(opened.size == 2)
        val waitedMs = (opened[1] - opened[0]) / 1_000_000
        check(waitedMs >= 200) { "opened again after $waitedMs ms" }
    }

    fun testTheEventsFlowEmitsEachEventWithTheViewOnTheLast() = timed {
        fake.onStart = { call ->
            call.commit(8, 9)
            call.commit(10)
            call.end()
        }
        client.play("g1", 7).use { session ->
            val got = session.events().map { listOf(it.event.version, it.seat.public.version, it.public.version) }.toList()
            check(got == listOf(listOf(8L, 0L, 0L), listOf(9L, 9L, 9L), listOf(10L, 10L, 10L))) { "$got" }
        }
        check(client.seen.of("games/g1") == 10L)
    }

    fun testTheEndOfTheMatchCompletesTheCommitsAndFailsTheCommandsStillWaiting() = timed {
        fake.onStart = { call -> call.commit(5) }
        fake.onCommand = { call, _ -> call.end() } // the match ended before this command was applied
        client.play("g1").use { session ->
            val over = runCatching { session.submit(Commands.mazo()) }.exceptionOrNull()
            check(over is TrucoException.IllegalMove && over.reason() == "MATCH_OVER") { "got $over" }
            check(session.commits().map(::versions).toList() == listOf(listOf(5L)))
            val after = runCatching { session.submit(Commands.mazo()) }.exceptionOrNull()
            check(after is TrucoException.IllegalMove && after.reason() == "MATCH_OVER") { "got $after" }
        }
        check(fake.calls.size == 1) { "an ended match was reopened" }
    }

    fun testCloseEndsTheCallTheFlowsAndTheCommandsWaiting() = timed {
        fake.onCommand = { _, _ -> } // never answered
        val session = client.play("g1")
        val waiting = async { runCatching { session.submit(Commands.mazo(), 0, "id") }.exceptionOrNull() }
        val call = call(0)
        await("the command") { call.commands.size == 1 }
        session.close()
        val failure = waiting.await()
        check(failure is TrucoException && failure.code() == Status.Code.CANCELLED) { "got $failure" }
        check(session.commits().toList().isEmpty())
        await("the call's end") { call.ended }
    }

    fun testCancellingTheCallingCoroutineCancelsTheSession() = runBlocking {
        fake.onStart = { call -> call.commit(1) }
        val seen = Collections.synchronizedList(mutableListOf<Long>())
        val player = async {
            client.play("g1").use { session -> session.commits().collect { seen.addAll(versions(it)) } }
        }
        await("the first commit") { seen == listOf(1L) }
        val first = call(0)
        player.cancel()
        runCatching { player.await() }
        await("the call's end") { first.ended }
    }
}
