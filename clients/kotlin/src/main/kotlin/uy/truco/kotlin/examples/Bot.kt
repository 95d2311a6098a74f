/**
 * The Kotlin SDK's example bot, the same as the other SDKs' (scripts/sdk-play runs each): it creates a match against
 * the server's heuristic bots, plays its seats to the end with coroutines, and tries one illegal card (one not in
 * its hand) on its first turn to show the typed error. It prints one JSON line
 * `{"sdk": "kotlin", "over": true, "scores": [a, b], "illegal_reason": "CARD_NOT_IN_HAND", ...}` ("kotlin-lite" on
 * the javalite flavour) and exits 0 only if
 * the match ended and the illegal card was refused with CARD_NOT_IN_HAND.
 *
 *     Bot ADDRESS                        2 players: this bot in seat 0, a server bot in seat 1
 *     Bot ADDRESS --players 4 --watch    4 players (or 6): the even seats (a client each), server bots in the odd
 *                                        ones; each seat waits for its turn on a watch Flow that resumes by itself
 *     Bot ADDRESS --players 4 --session  the same, each seat playing its whole match from one PlayGame session
 *                                        (commands and commits on one stream, resumed by itself), the illegal card
 *                                        tried through it
 *     --target N (points to win), --think-ms N (a pause before each move), --bot-level LEVEL (the server bots')
 *     --quick: a quick match instead (PlayerService's FindMatch, with the player token in $TRUCO_PLAYER_TOKEN): the
 *         bot waits for rivals at a table of --players, the server's bots filling the seats still free after
 *         --bots-after S seconds (default 5), and plays its one seat (by polling, --watch or --session)
 *
 * It runs against a server with its default settings (quotas on): the SDK waits out a quota's RetryInfo itself.
 */
package uy.truco.kotlin.examples

import java.util.concurrent.atomic.AtomicInteger
import kotlin.system.exitProcess
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.takeWhile
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import uy.truco.client.Cards
import uy.truco.client.Commands
import uy.truco.client.TrucoException
import uy.truco.kotlin.Options
import uy.truco.kotlin.Session
import uy.truco.kotlin.TrucoClient
import uy.truco.v1.BotKind
import uy.truco.v1.BotLevel
import uy.truco.v1.RuleSet
import uy.truco.v1.SeatView
import uy.truco.v1.WatchGameResponse

/** How often a polling seat reads its view while it waits (5 reads a second, well inside a player's quota). */
private const val POLL_MILLIS = 200L

/**
 * Which flavour of the SDK this bot runs on, read from the messages it was compiled with: "kotlin-lite" when they
 * are protobuf-javalite's (truco-client-kotlin-lite), else "kotlin" (truco-client-kotlin, on protobuf-java).
 */
private val FLAVOUR =
    if (SeatView::class.java.superclass.name == "com.google.protobuf.GeneratedMessageLite") "kotlin-lite" else "kotlin"

private fun log(line: String) = System.err.println("bot($FLAVOUR): $line")

private class Match(val client: TrucoClient, val name: String, val thinkMs: Long) {
    private val lock = Mutex()
    var illegalReason = ""
    val moves = AtomicInteger()
    val resumes = AtomicInteger()

    /** The versions of the events seat 0's watch (or session) delivered, in order (señas aside: they keep the version before). */
    val watched: MutableList<Long> = java.util.Collections.synchronizedList(mutableListOf())

    /** Plays a card of the deck that is not in the hand: the server must refuse it with CARD_NOT_IN_HAND. */
    private suspend fun tryIllegalCard(seat: TrucoClient, view: SeatView): String {
        val held = view.cardsList.map(Cards::text).toSet()
        val stranger = Cards.deck().first { Cards.text(it) !in held }
        return try {
            seat.submit(name, Commands.play(stranger), view.public.version)
            "ACCEPTED"
        } catch (refused: TrucoException.IllegalMove) {
            log("illegal ${Cards.text(stranger)} refused: ${refused.message}")
            refused.reason()
        }
    }

    /** One move when the match waits for this seat: the SDK's turn helper re-reads the view on ABORTED. */
    suspend fun act(seat: TrucoClient, view: SeatView) {
        if (!Commands.isMyTurn(view)) return
        lock.withLock {
            if (illegalReason.isEmpty() && Commands.hasLegal(view, Commands.Preference.PLAY_CARD)) {
                illegalReason = tryIllegalCard(seat, view)
            }
        }
        delay(thinkMs)
        if (seat.playTurn(name, view) != null) moves.incrementAndGet()
    }

    suspend fun playByPolling(seat: TrucoClient, first: SeatView) {
        var view = first
        while (!TrucoClient.isOver(view)) {
            if (Commands.isMyTurn(view)) act(seat, view) else delay(POLL_MILLIS)
            view = seat.seatView(name)
        }
    }

    /** [tryIllegalCard] through a session: the refusal comes back as the same typed error. */
    private suspend fun tryIllegalCard(session: Session, view: SeatView): String {
        val held = view.cardsList.map(Cards::text).toSet()
        val stranger = Cards.deck().first { Cards.text(it) !in held }
        return try {
            session.submit(Commands.play(stranger), view.public.version)
            "ACCEPTED"
        } catch (refused: TrucoException.IllegalMove) {
            log("illegal ${Cards.text(stranger)} refused on the session: ${refused.message}")
            refused.reason()
        }
    }

    /** One move through the session when the view waits for this seat. */
    suspend fun act(session: Session, view: SeatView) {
        if (!Commands.isMyTurn(view)) return
        lock.withLock {
            if (illegalReason.isEmpty() && Commands.hasLegal(view, Commands.Preference.PLAY_CARD)) {
                illegalReason = tryIllegalCard(session, view)
            }
        }
        delay(thinkMs)
        val command = Commands.plainBot(view) ?: return
        try {
            session.submit(command, view.public.version)
            moves.incrementAndGet()
        } catch (moved: TrucoException.VersionConflict) {
            // The game moved on first: its commit is on the way, with the view to choose from again.
        } catch (refused: TrucoException.IllegalMove) {
            // A teammate's answer ended the match first: the session ended before this command's outcome.
            if (refused.reason() != "MATCH_OVER") throw refused
        }
    }

    /** Plays one seat from one PlayGame session: a move each time a commit shows it legal actions. */
    suspend fun playBySession(seat: TrucoClient, first: SeatView) {
        val onResume = { after: Long, error: TrucoException ->
            resumes.incrementAndGet()
            log("seat ${first.seat}: session broken (${error.code()}), resuming after version $after")
        }
        seat.play(name, first.public.version, onResume).use { session ->
            act(session, first)
            // One PlayGame stream: commands go out on it, and its events come as the watch's do.
            follow(session.events(), first.seat) { act(session, it) }
        }
    }

    suspend fun playByWatching(seat: TrucoClient, first: SeatView) {
        act(seat, first)
        val onResume = { after: Long, error: TrucoException ->
            resumes.incrementAndGet()
            log("seat ${first.seat}: watch broken (${error.code()}), resuming after version $after")
        }
        follow(seat.watch(name, first.public.version, onResume), first.seat) { act(seat, it) }
    }

    /**
     * Follows a seat's events as the watch and a session's events() emit them (each event of a commit in order, the
     * seat's view after the commit with its last one): seat 0 records their versions, and the seat acts on each view
     * until the match is over.
     */
    private suspend fun follow(items: Flow<WatchGameResponse>, seat: Int, act: suspend (SeatView) -> Unit) {
        items
            .onEach { if (seat == 0 && !it.event.hasSenaSent()) watched.add(it.event.version) }
            .takeWhile { !it.hasSeat() || !TrucoClient.isOver(it.seat) }
            .collect { if (it.hasSeat()) act(it.seat) }
    }
}

fun main(args: Array<String>) {
    var address: String? = null
    var players = 2
    var watch = false
    var session = false
    var target = 0
    var thinkMs = 0L
    var level = BotLevel.BOT_LEVEL_UNSPECIFIED
    var quick = false
    var botsAfter = 5
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--players" -> players = args[++i].toInt()
            "--watch" -> watch = true
            "--session" -> session = true
            "--target" -> target = args[++i].toInt()
            "--think-ms" -> thinkMs = args[++i].toLong()
            "--bot-level" -> level = TrucoClient.BOT_LEVELS.getValue(args[++i].lowercase())
            "--quick" -> quick = true
            "--bots-after" -> botsAfter = args[++i].toInt()
            else -> address = args[i]
        }
        i++
    }
    if (address == null || players !in setOf(2, 4, 6)) {
        log("usage: Bot ADDRESS [--players 2|4|6] [--watch | --session] [--target N] [--think-ms N] [--bot-level L] [--quick [--bots-after S]]")
        exitProcess(2)
    }
    val code = try {
        val rules = RuleSet.newBuilder().setPlayers(players).setTarget(target).build()
        runBlocking { play(address, rules, watch, session, thinkMs, level, if (quick) botsAfter else null) }
    } catch (error: Exception) {
        log(error.toString())
        2
    }
    exitProcess(code)
}

/** The game this bot plays and its seats there, each with its client and first view. */
private data class Table(val name: String, val seats: List<Pair<TrucoClient, SeatView>>)

/** A new game against the server's bots: they take the odd seats (the rival team), this bot every even one. */
private suspend fun createTable(creator: TrucoClient, rules: RuleSet, level: BotLevel): Table {
    val bots = (1 until rules.players step 2).associateWith { BotKind.BOT_KIND_HEURISTIC }
    val game = creator.createGame(rules, bots, level)
    log("game ${game.name}")
    val seats = (0 until rules.players step 2).map { seat ->
        val client = creator.withToken(null)
        client to client.joinGame(game.name, seat, "kotlin bot $seat").view
    }
    return Table(game.name, seats)
}

/** A quick match: a ticket followed until the server seats this player (with rivals, or its bots after a wait). */
private suspend fun quickTable(player: TrucoClient, rules: RuleSet, level: BotLevel, botsAfter: Int): Table {
    val match = player.quickMatch(rules, botsAfter = botsAfter.seconds, botLevel = level, onTicket = { ticket ->
        log("ticket ${ticket.name} ${ticket.state}")
    })
    log("game ${match.game} (seat ${match.seat})")
    return Table(match.game, listOf(match.client to match.client.seatView(match.game)))
}

/** Plays a match (a quick one when [botsAfter] is set) and prints its JSON line. */
private suspend fun play(
    address: String,
    rules: RuleSet,
    watch: Boolean,
    session: Boolean,
    thinkMs: Long,
    level: BotLevel,
    botsAfter: Int?,
): Int {
    val playerToken = System.getenv("TRUCO_PLAYER_TOKEN")?.takeIf { it.isNotEmpty() }
    require(botsAfter == null || playerToken != null) { "--quick needs a player token in \$TRUCO_PLAYER_TOKEN" }
    // Watching seats (and sessions) ride out a server restart: more retries, short delays.
    val options = Options(apiKey = System.getenv("TRUCO_API_KEY"), playerToken = playerToken)
        .let { if (watch || session) it.copy(retries = 60, maxBackoff = 1.seconds) else it }
    TrucoClient.connect(address, options).use { creator ->
        val table = if (botsAfter != null) quickTable(creator, rules, level, botsAfter) else createTable(creator, rules, level)
        val match = Match(creator, table.name, thinkMs)
        val clients = table.seats
        kotlinx.coroutines.coroutineScope {
            clients.map { (client, view) ->
                async {
                    when {
                        session -> match.playBySession(client, view)
                        watch -> match.playByWatching(client, view)
                        else -> match.playByPolling(client, view)
                    }
                }
            }.awaitAll()
        }
        val last = clients.first().first.seatView(table.name)
        val scores = IntArray(2)
        last.public.scoresList.forEach { scores[it.team] = it.points }
        val over = TrucoClient.isOver(last)
        println(
            "{\"sdk\": \"$FLAVOUR\", \"over\": $over, \"scores\": [${scores[0]}, ${scores[1]}], " +
                "\"illegal_reason\": \"${match.illegalReason}\", \"game\": \"${table.name}\", " +
                "\"quick\": ${botsAfter != null}, \"seats\": ${clients.map { it.second.seat }}, \"players\": ${rules.players}, " +
                "\"moves\": ${match.moves.get()}, \"resumes\": ${match.resumes.get()}, \"watched\": ${match.watched}}",
        )
        System.out.flush()
        return if (over && match.illegalReason == "CARD_NOT_IN_HAND") 0 else 1
    }
}
