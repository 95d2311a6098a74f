/**
 * The Android lifecycle paths of the Kotlin SDK's README ("Lifecycle"), run on the JVM against a server, each as an
 * app would take it. What an app keeps in encrypted storage is kept here in a properties file (`--state FILE`, a
 * temporary one by default); a "process death" is a client closed and a new one built from that file only.
 *
 *     Lifecycle ADDRESS [--state FILE]
 *
 * 1. join, dying mid-call: the request id is stored before JoinGame is sent; the reborn process sends it again and
 *    gets the same seat and token (never a second seat);
 * 2. resume after process death: a client built from the stored token only reads the seat's view and plays;
 * 3. a network change: the channel is told to drop its connections (`enterIdle`), and the next call reconnects;
 * 4. backgrounding: the player leaves (a server bot plays the seat while the app is away), then ResumeSeat takes it
 *    back and the app follows the game from the last version it showed.
 *
 * It prints one JSON line `{"sdk": "kotlin-lifecycle", "join_again": true, "resumed": true, "network": true,
 * "background": true}` and exits 0 only if every path held.
 */
package uy.truco.kotlin.examples

import io.grpc.okhttp.OkHttpChannelBuilder
import java.io.File
import java.util.Properties
import kotlin.system.exitProcess
import kotlinx.coroutines.runBlocking
import uy.truco.client.Commands
import uy.truco.kotlin.Options
import uy.truco.kotlin.TrucoClient
import uy.truco.v1.BotKind
import uy.truco.v1.RuleSet

/** The app's encrypted storage, standing in: on Android, EncryptedSharedPreferences or a Keystore-wrapped DataStore. */
private class Kept(val file: File) {
    private val values = Properties().apply { if (file.exists()) file.inputStream().use { load(it) } }

    operator fun get(key: String): String = values.getProperty(key) ?: error("nothing kept under $key")

    operator fun set(key: String, value: String) {
        values.setProperty(key, value)
        file.outputStream().use { values.store(it, "truco seat (secret: it plays the seat)") }
    }
}

private fun log(line: String) = System.err.println("lifecycle(kotlin): $line")

/** Path 1: the request id is kept before the call, so a join cut by process death is sent again as the same join. */
private suspend fun joinDyingMidCall(address: String, kept: Kept): Boolean {
    val first = TrucoClient.connect(address).use { app ->
        val game = app.createGame(RuleSet.newBuilder().setPlayers(2).build(), mapOf(1 to BotKind.BOT_KIND_HEURISTIC))
        kept["game"] = game.name
        kept["join_request_id"] = TrucoClient.newRequestId()
        app.joinGame(kept["game"], seat = 0, playerName = "ana", requestId = kept["join_request_id"])
    } // the process dies here, before it could store the token
    val again = TrucoClient.connect(address).use { reborn ->
        reborn.joinGame(kept["game"], seat = 0, playerName = "ana", requestId = kept["join_request_id"])
    }
    kept["token"] = again.token
    log("joined again with the kept request id: seat ${again.seat}, the same token: ${again.token == first.token}")
    return again.seat == first.seat && again.token == first.token
}

/** Path 2: a new process, the kept token only: it reads the seat's view and plays its turn. */
private suspend fun resumeAfterDeath(address: String, kept: Kept): Boolean =
    TrucoClient.connect(address, Options(token = kept["token"])).use { app ->
        val view = app.seatView(kept["game"])
        if (Commands.isMyTurn(view)) app.playTurn(kept["game"], view)
        kept["last_version"] = app.seatView(kept["game"]).public.version.toString()
        log("resumed from the kept token: seat ${view.seat}, version ${kept["last_version"]}")
        view.seat == 0
    }

/** Path 3: the network changed under the channel; it reconnects on the next call (the app's NetworkCallback). */
private suspend fun networkChange(address: String, kept: Kept): Boolean {
    val channel = OkHttpChannelBuilder.forTarget(address).usePlaintext().build()
    try {
        val app = TrucoClient(channel, Options(token = kept["token"]))
        val before = app.seatView(kept["game"]).public.version
        channel.enterIdle() // what onAvailable(network) calls: drop the old connections now
        channel.resetConnectBackoff()
        val after = app.seatView(kept["game"]).public.version
        log("after the channel went idle the next call reconnected: version $before, then $after")
        return after >= before
    } finally {
        channel.shutdownNow()
    }
}

/** Path 4: in the background a bot plays the seat (LeaveGame, or a clock run out); back, ResumeSeat takes it back. */
private suspend fun background(address: String, kept: Kept): Boolean =
    TrucoClient.connect(address, Options(token = kept["token"])).use { app ->
        val game = kept["game"]
        val away = app.leaveGame(game) // onStop of a player who leaves on purpose: no waiting out the clock
        val takenOver = away.public.seatsList.any { it.seat == 0 && it.takenOver }
        val back = app.resumeSeat(game) // onStart
        val mine = back.public.seatsList.none { it.seat == 0 && it.takenOver }
        val shown = kept["last_version"].toLong()
        log("left (a bot plays: $takenOver), resumed (the seat is the player's: $mine), follows from version $shown")
        takenOver && mine && back.public.version >= shown
    }

fun main(args: Array<String>) {
    if (args.isEmpty()) {
        System.err.println("usage: Lifecycle ADDRESS [--state FILE]")
        exitProcess(2)
    }
    val address = args[0]
    val at = args.indexOf("--state")
    val file = if (at >= 0) File(args[at + 1]) else File.createTempFile("truco-seat", ".properties").apply { deleteOnExit() }
    val kept = Kept(file)
    val results = runBlocking {
        linkedMapOf(
            "join_again" to joinDyingMidCall(address, kept),
            "resumed" to resumeAfterDeath(address, kept),
            "network" to networkChange(address, kept),
            "background" to background(address, kept),
        )
    }
    println("{\"sdk\": \"kotlin-lifecycle\", " + results.entries.joinToString(", ") { "\"${it.key}\": ${it.value}" } + "}")
    exitProcess(if (results.values.all { it }) 0 else 1)
}
