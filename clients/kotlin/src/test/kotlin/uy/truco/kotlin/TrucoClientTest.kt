package uy.truco.kotlin

import com.google.protobuf.Any
import com.google.rpc.Code
import com.google.rpc.ErrorInfo
import com.google.rpc.RetryInfo
import io.grpc.ManagedChannel
import io.grpc.Server
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
import uy.truco.client.Commands
import uy.truco.client.TrucoException
import uy.truco.v1.Event
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.MatchView
import uy.truco.v1.RulesServiceGrpc
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
    /** Refuses the first submits with QUOTA_EXCEEDED (a RetryInfo of each delay, in ms); its first watch breaks. */
    class FakeGames : GameServiceGrpc.GameServiceImplBase() {
        val quotaDelaysMs: MutableList<Long> = Collections.synchronizedList(mutableListOf())
        val ids: MutableList<String> = Collections.synchronizedList(mutableListOf())
        val watches: MutableList<Long> = Collections.synchronizedList(mutableListOf())

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

        override fun watchGame(request: WatchGameRequest, reply: StreamObserver<WatchGameResponse>) {
            watches.add(request.afterVersion)
            val last = if (watches.size > 1) 5L else 3L
            for (version in request.afterVersion + 1..last) {
                reply.onNext(
                    WatchGameResponse.newBuilder().setEvent(Event.newBuilder().setVersion(version))
                        .setPublic(MatchView.newBuilder().setVersion(version)).build(),
                )
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

    fun setUp() {
        fake = FakeGames()
        val name = InProcessServerBuilder.generateName()
        server = InProcessServerBuilder.forName(name).addService(fake).build().start()
        channel = InProcessChannelBuilder.forName(name).build()
        client = TrucoClient(channel, Options(retries = 2, backoff = 0.01.seconds, maxQuotaWait = 1.seconds))
    }

    fun tearDown() {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    }

    fun testEveryRpcOfTheServiceHasAWrapper() {
        val methods = listOf(GameServiceGrpc.getServiceDescriptor(), RulesServiceGrpc.getServiceDescriptor())
            .flatMap { service -> service.methods.map { it.fullMethodName } }.toSortedSet()
        check(methods == TrucoClient.WRAPPERS.keys.toSortedSet()) { "methods $methods, wrapped ${TrucoClient.WRAPPERS.keys}" }
        val functions = TrucoClient::class.declaredMemberFunctions.map { it.name }.toSet()
        TrucoClient.WRAPPERS.values.forEach { check(it in functions) { "no TrucoClient.$it" } }
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
        val versions = client.watch("g1", 0) { after, _ -> resumed.add(after) }.toList().map { it.event.version }
        check(versions == listOf(1L, 2L, 3L, 4L, 5L)) { "versions $versions" }
        check(fake.watches == listOf(0L, 3L) && resumed == listOf(3L)) { "watches ${fake.watches}, resumed $resumed" }
    }
}
