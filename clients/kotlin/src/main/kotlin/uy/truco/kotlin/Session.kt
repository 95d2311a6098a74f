package uy.truco.kotlin

import io.grpc.CallOptions
import io.grpc.Status
import io.grpc.kotlin.ClientCalls
import java.io.Closeable
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.SendChannel
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.consumeAsFlow
import kotlinx.coroutines.flow.receiveAsFlow
import kotlinx.coroutines.flow.transform
import kotlinx.coroutines.launch
import uy.truco.client.Commits
import uy.truco.client.TrucoException
import uy.truco.client.VersionsSeen
import uy.truco.v1.Command
import uy.truco.v1.CommandError
import uy.truco.v1.GameServiceGrpc
import uy.truco.v1.PlayGameCommand
import uy.truco.v1.PlayGameOutcome
import uy.truco.v1.PlayGameRequest
import uy.truco.v1.PlayGameStart
import uy.truco.v1.WatchGameResponse

/**
 * A seat's whole match on one PlayGame call (a bidirectional stream), from [TrucoClient.play]: its commands go out
 * with [submit], the game's commits come in as a [Flow] ([commits], one message per commit as
 * [TrucoClient.watchCommits] emits them; [events], one event at a time as [TrucoClient.watch]). It replaces the pair
 * of [TrucoClient.submit] and a watch, with the same semantics and quotas, and costs the server no new call per
 * command.
 *
 * It needs HTTP/2 end to end (native gRPC: okhttp or netty channels, as this SDK's): browser transports (gRPC-Web,
 * Connect over HTTP/1.1) have no full-duplex streams and use the pair.
 *
 * The stream runs in a coroutine that is a child of the one that called [TrucoClient.play] (with its dispatcher):
 * cancelling that coroutine or its scope (`lifecycleScope`, `viewModelScope`) cancels the session, and that coroutine
 * completes once the session ended (the match over, or [close]). It carries the metadata a watch does (the seat
 * token, the API key, `x-truco-game`). Each command is answered by its outcome: [submit] returns the version it
 * reached, or throws the [TrucoException] SubmitCommand would have (a refused command ends nothing). A command a
 * quota refused (RESOURCE_EXHAUSTED, QUOTA_EXCEEDED) is sent again by the session, with the same request id, after the
 * server's retry delay when that is at most [Options.maxQuotaWait], up to [Options.retries] times.
 *
 * A stream broken as a watch's breaks (UNAVAILABLE, the server's SERVER_SHUTTING_DOWN included; a connection closed
 * under it) is reopened after the last version received, and every command still waiting for its outcome is sent
 * again with its request id (the server applies a request id once and answers the same outcome), up to the client's
 * retries in a row with backoff; `onResume` hears of each. A stream a quota refused is opened again after its
 * RetryInfo delay. When the match ends the server ends the stream: the flows complete after its last commit, and a
 * command still waiting (or submitted later) fails with [TrucoException.IllegalMove] MATCH_OVER.
 */
class Session internal constructor(
    private val client: TrucoClient,
    /** The game's name (`games/{id}`). */
    val name: String,
    afterVersion: Long,
    private val onResume: ((afterVersion: Long, error: TrucoException) -> Unit)?,
    context: CoroutineContext,
) : Closeable {
    /** A command sent, until its outcome. */
    private class Pending(val request: PlayGameRequest) {
        val result = CompletableDeferred<Long>()
        var attempts = 0

        /** Waiting out a quota's delay: its timer sends it again, not a reopened stream. */
        var held = false
    }

    private val lock = Any()

    /** The commands sent and still waiting for their outcome, by request id, in the order they were submitted. */
    private val pending = LinkedHashMap<String, Pending>()
    private val arrivals = Channel<WatchGameResponse>(Channel.UNLIMITED)

    /** The current call's outgoing messages (null while reopening, and once ended). Guarded by [lock]. */
    private var requests: SendChannel<PlayGameRequest>? = null

    /** Why the session ended (null while it lives). Guarded by [lock]. */
    private var ended: TrucoException? = null
    private val job = SupervisorJob(context[Job])
    private val scope = CoroutineScope(context.minusKey(Job) + job + CoroutineName("truco-session $name"))

    /** The last version received (of the last event of the last commit); a resumed stream starts after it. */
    @Volatile
    var lastVersion: Long = afterVersion
        private set

    init {
        scope.launch {
            try {
                run()
            } finally {
                job.cancel() // the quota timers too
            }
        }
    }

    /**
     * Sends [command], chosen at [expectedVersion] (0 skips the check), on the stream and suspends until its outcome:
     * the game's version after it (which counts as seen; its events arrive, or arrived, as a commit). [requestId] is
     * sent unchanged on every resend (after a quota's delay, on a reopened stream); the server applies it once.
     *
     * @throws TrucoException.IllegalMove when the rules refuse it (`reason()` says why), or MATCH_OVER when the
     *   stream ended (the match is over) before its outcome
     * @throws TrucoException.VersionConflict when the game moved past [expectedVersion]
     * @throws TrucoException the error SubmitCommand would have thrown, or the one that ended the session
     */
    suspend fun submit(command: Command, expectedVersion: Long = 0, requestId: String = TrucoClient.newRequestId()): Long {
        val request = PlayGameRequest.newBuilder().setCommand(
            PlayGameCommand.newBuilder().setRequestId(requestId).setExpectedVersion(expectedVersion).setCommand(command),
        ).build()
        val sent = Pending(request)
        val result = synchronized(lock) {
            if (ended != null) throw endedError()
            val already = pending.putIfAbsent(requestId, sent)
            if (already != null) {
                already.result // the same request id: the same outcome
            } else {
                requests?.trySend(request)
                sent.result
            }
        }
        return result.await()
    }

    /**
     * The game's commits in order, one message each (WatchGame's `per_commit` message: [Commits.events] in order, the
     * caller's view after the last one, `seat` for a seat, `public` for a spectator), from the session's
     * `afterVersion` on. It completes after the commit that ends the match (or once the session is closed), and
     * throws the [TrucoException] that ended the session when it could not be resumed. Each commit's version counts
     * as seen. A hot flow of the session's one stream: collect it (or [events]) once.
     */
    fun commits(): Flow<WatchGameResponse> = arrivals.receiveAsFlow()

    /**
     * The game's events one at a time, as [TrucoClient.watch] emits them: each event of a commit in order, the
     * caller's views after the commit with its last one (`seat` for a seat, `public` for anyone). It reads [commits].
     */
    fun events(): Flow<WatchGameResponse> = commits().transform { commit -> Commits.perEvent(commit).forEach { emit(it) } }

    /**
     * Half-closes the stream and cancels it: the flows complete, and a command still waiting fails with CANCELLED. A
     * session the match ended is closed already.
     */
    override fun close() {
        val waiting = synchronized(lock) {
            requests?.close() // the half-close
            requests = null
            if (ended != null) {
                emptyList()
            } else {
                ended = closed()
                takePending()
            }
        }
        arrivals.close()
        waiting.forEach { it.result.completeExceptionally(closed()) }
        job.cancel()
    }

    // --- the stream ------------------------------------------------------------------------------------------------

    /** Opens calls until the match ends (OK), one fails past resuming, or the session is cancelled or closed. */
    private suspend fun run() {
        var failures = 0
        try {
            while (true) {
                val outgoing = Channel<PlayGameRequest>(Channel.UNLIMITED)
                synchronized(lock) {
                    if (ended != null) return
                    // The start after the last version received, then every command waiting (not held).
                    outgoing.trySend(
                        PlayGameRequest.newBuilder()
                            .setStart(PlayGameStart.newBuilder().setName(name).setAfterVersion(lastVersion)).build(),
                    )
                    pending.values.filter { !it.held }.forEach { outgoing.trySend(it.request) }
                    requests = outgoing
                }
                val failure: TrucoException
                try {
                    ClientCalls.bidiStreamingRpc(
                        client.channel, GameServiceGrpc.getPlayGameMethod(), outgoing.consumeAsFlow(),
                        CallOptions.DEFAULT, client.headers(name),
                    ).collect { response ->
                        failures = 0
                        when {
                            response.hasCommit() -> commit(response.commit)
                            response.hasOutcome() -> outcome(response.outcome)
                        }
                    }
                    finish(null) // the server ended the stream: the match is over
                    return
                } catch (error: Throwable) {
                    synchronized(lock) { if (requests === outgoing) requests = null }
                    outgoing.close()
                    failure = client.failureOf(error) ?: throw error
                }
                val wait = client.resumeWait(failure, failures)
                if (wait == null) {
                    finish(failure)
                    return
                }
                onResume?.invoke(lastVersion, failure)
                delay(wait)
                failures++
            }
        } catch (cancelled: CancellationException) {
            finish(closed())
            throw cancelled
        } catch (stop: Throwable) { // onResume threw, or something unforeseen: the session ends with it
            finish(stop as? TrucoException ?: TrucoException.from(stop))
        }
    }

    private fun commit(commit: WatchGameResponse) {
        Commits.events(commit).lastOrNull()?.let { lastVersion = maxOf(lastVersion, it.version) }
        client.seen.saw(name, Commits.version(commit))
        arrivals.trySend(commit)
    }

    /** A command's outcome: its submit's result, or (a quota's refusal within the budget) the same command later. */
    private fun outcome(outcome: PlayGameOutcome) {
        var refused: TrucoException? = null
        val command = synchronized(lock) {
            val command = pending[outcome.requestId] ?: return // answered already (sent twice around a resume)
            if (outcome.hasError()) {
                val failure = TrucoException.from(outcome.error)
                val wait = client.quotaWait(failure)
                if (wait != null && command.attempts < client.options.retries) {
                    command.attempts++
                    command.held = true
                    scope.launch {
                        delay(wait)
                        resend(command)
                    }
                    return
                }
                refused = failure
            }
            pending.remove(outcome.requestId)
            command
        }
        when (val failure = refused) {
            null -> {
                client.seen.saw(name, outcome.version)
                command.result.complete(outcome.version)
            }
            else -> {
                if (failure is TrucoException.VersionConflict) client.seen.saw(name, VersionsSeen.conflictVersion(failure))
                command.result.completeExceptionally(failure)
            }
        }
    }

    /** Sends a command again after a quota's delay (when the stream is down, its reopening will). */
    private fun resend(command: Pending) {
        synchronized(lock) {
            if (pending[command.request.command.requestId] !== command) return
            command.held = false
            requests?.trySend(command.request)
        }
    }

    /** Ends the session: OK (null: the match is over) or with [failure]. */
    private fun finish(failure: TrucoException?) {
        val waiting = synchronized(lock) {
            if (ended != null) return
            ended = failure ?: matchOver()
            requests?.close()
            requests = null
            takePending()
        }
        if (failure == null) arrivals.close() else arrivals.close(failure)
        waiting.forEach { it.result.completeExceptionally(endedError()) }
    }

    private fun takePending(): List<Pending> = pending.values.toList().also { pending.clear() }

    /** Why a command fails now that the session ended (a fresh error each once the match is over). */
    private fun endedError(): TrucoException {
        val why = ended!!
        return if (why.reason() == "MATCH_OVER") matchOver() else why
    }

    private fun matchOver(): TrucoException = TrucoException.from(
        CommandError.newBuilder().setCode(Status.Code.FAILED_PRECONDITION.value()).setReason("MATCH_OVER")
            .setMessage("the match is over: the PlayGame stream ended before this command's outcome").build(),
    )

    private fun closed(): TrucoException =
        TrucoException(Status.Code.CANCELLED, "", "the PlayGame session was closed", emptyMap(), "", null)
}
