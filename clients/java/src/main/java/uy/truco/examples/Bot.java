package uy.truco.examples;

import uy.truco.client.JvmOnly;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import uy.truco.client.Cards;
import uy.truco.client.Commands;
import uy.truco.client.Session;
import uy.truco.client.TrucoClient;
import uy.truco.client.TrucoException;
import uy.truco.v1.BotKind;
import uy.truco.v1.BotLevel;
import uy.truco.v1.Card;
import uy.truco.v1.Command;
import uy.truco.v1.FindMatchRequest;
import uy.truco.v1.RuleSet;
import uy.truco.v1.SeatView;
import uy.truco.v1.TeamScore;
import uy.truco.v1.WatchGameResponse;

/**
 * The Java SDK's example bot: creates a match against the server's heuristic bots, plays its seats to the end, and
 * tries one illegal card (one not in its hand) on its first turn to show the typed error. Prints one JSON line
 * {@code {"sdk": "java", "over": true, "scores": [a, b], "illegal_reason": "CARD_NOT_IN_HAND", ...}} and exits 0
 * only if the match ended and the illegal card was refused with CARD_NOT_IN_HAND.
 *
 * <pre>
 *   java uy.truco.examples.Bot ADDRESS                        2 players: seat 0, a server bot in seat 1
 *   java uy.truco.examples.Bot ADDRESS --players 4 --watch    4 players (or 6): the even seats (a client each),
 *        server bots in the odd ones; each seat waits for its turn on a WatchGame stream that resumes by itself
 *   java uy.truco.examples.Bot ADDRESS --players 4 --session  the same, each seat playing its whole match from one
 *        PlayGame session (commands and commits on one stream, resumed by itself), the illegal card tried through it
 *   --target N (points to win), --think-ms N (a pause before each move), --bot-level LEVEL (the server bots')
 *   --quick: a quick match instead (PlayerService's FindMatch, with the player token in $TRUCO_PLAYER_TOKEN): the
 *        bot waits for rivals at a table of --players, the server's bots filling the seats still free after
 *        --bots-after S seconds (default 5), and plays its one seat (by polling, --watch or --session)
 * </pre>
 *
 * <p>It runs against a server with its default settings (quotas on): the SDK waits out a quota's RetryInfo itself.
 */
@JvmOnly
public final class Bot {
  /** How often a polling seat reads its view while it waits (5 reads a second, well inside a player's quota). */
  private static final long POLL_MILLIS = 200;
  private final Object lock = new Object();
  private volatile String illegalReason = "";
  private final AtomicInteger moves = new AtomicInteger();
  private final AtomicInteger resumes = new AtomicInteger();
  /**
   * The versions of the events seat 0's watch (or session) delivered, in order (señas aside: they keep the version
   * before).
   */
  private final List<Long> watched = new ArrayList<>();
  private final long thinkMs;

  private Bot(long thinkMs) {
    this.thinkMs = thinkMs;
  }

  private static void log(String line) {
    System.err.println("bot(java): " + line);
  }

  /** Plays a card of the deck that is not in the hand: the server must refuse it with CARD_NOT_IN_HAND. */
  private String tryIllegalCard(TrucoClient client, String name, SeatView view) {
    Set<String> held = new HashSet<>();
    view.getCardsList().forEach(card -> held.add(Cards.text(card)));
    for (Card card : Cards.deck()) {
      if (held.contains(Cards.text(card))) {
        continue;
      }
      try {
        client.submit(name, Commands.play(card), view.getPublic().getVersion());
        return "ACCEPTED";
      } catch (TrucoException.IllegalMove refused) {
        log("illegal " + Cards.text(card) + " refused: " + refused.getMessage());
        return refused.reason();
      }
    }
    throw new IllegalStateException("every card is in hand?");
  }

  private void act(TrucoClient client, String name, SeatView view) throws InterruptedException {
    if (!Commands.isMyTurn(view)) {
      return;
    }
    synchronized (lock) {
      if (illegalReason.isEmpty() && Commands.hasLegal(view, Commands.Preference.PLAY_CARD)) {
        illegalReason = tryIllegalCard(client, name, view);
      }
    }
    Thread.sleep(thinkMs);
    // playTurn re-reads the view when the game moved on (ABORTED) and chooses again.
    if (client.playTurn(name, view, Commands::plainBot) != null) {
      moves.incrementAndGet();
    }
  }

  /** Plays one seat by reading its view after each move (the server's bots answer before the reply). */
  private void playByPolling(TrucoClient client, String name, SeatView first) throws InterruptedException {
    SeatView view = first;
    while (!TrucoClient.isOver(view)) {
      if (!Commands.isMyTurn(view)) {
        Thread.sleep(POLL_MILLIS);
      } else {
        act(client, name, view);
      }
      view = client.seatView(name);
    }
  }

  /** Plays one seat from a WatchGame stream: a move each time the stream shows it legal actions. */
  private void playByWatching(TrucoClient client, String name, SeatView first) throws InterruptedException {
    act(client, name, first);
    try (TrucoClient.Watch watch = client.watch(name, first.getPublic().getVersion(), (after, error) -> {
      resumes.incrementAndGet();
      log("seat " + first.getSeat() + ": watch broken (" + error.code() + "), resuming after version " + after);
    })) {
      follow(watch, first.getSeat(), view -> act(client, name, view));
    }
  }

  /** A seat's move on a view, through unary calls or through its session. */
  @FunctionalInterface
  @JvmOnly
  private interface Act {
    void on(SeatView view) throws InterruptedException;
  }

  /**
   * Follows a seat's events as the watch and a session's events() hand them (each event of a commit in order, the
   * seat's view after the commit with its last one): seat 0 records their versions, and the seat acts on each view
   * until the match is over.
   */
  private void follow(Iterator<WatchGameResponse> items, int seat, Act act) throws InterruptedException {
    while (items.hasNext()) {
      WatchGameResponse item = items.next();
      if (seat == 0 && !item.getEvent().hasSenaSent()) {
        watched.add(item.getEvent().getVersion());
      }
      if (!item.hasSeat()) {
        continue;
      }
      if (TrucoClient.isOver(item.getSeat())) {
        return;
      }
      act.on(item.getSeat());
    }
  }

  /** {@link #tryIllegalCard} through a session: the refusal comes back as the same typed error. */
  private String tryIllegalCard(Session session, SeatView view) {
    Set<String> held = new HashSet<>();
    view.getCardsList().forEach(card -> held.add(Cards.text(card)));
    Card stranger = Cards.deck().stream().filter(card -> !held.contains(Cards.text(card))).findFirst().orElseThrow();
    try {
      session.submit(Commands.play(stranger), view.getPublic().getVersion());
      return "ACCEPTED";
    } catch (TrucoException.IllegalMove refused) {
      log("illegal " + Cards.text(stranger) + " refused on the session: " + refused.getMessage());
      return refused.reason();
    }
  }

  /** One move through the session when the view waits for this seat. */
  private void act(Session session, SeatView view) throws InterruptedException {
    if (!Commands.isMyTurn(view)) {
      return;
    }
    synchronized (lock) {
      if (illegalReason.isEmpty() && Commands.hasLegal(view, Commands.Preference.PLAY_CARD)) {
        illegalReason = tryIllegalCard(session, view);
      }
    }
    Thread.sleep(thinkMs);
    Command command = Commands.plainBot(view);
    if (command == null) {
      return;
    }
    try {
      session.submit(command, view.getPublic().getVersion());
      moves.incrementAndGet();
    } catch (TrucoException.VersionConflict moved) {
      // The game moved on first: its commit is on the way, with the view to choose from again.
    } catch (TrucoException.IllegalMove refused) {
      // A teammate's answer ended the match first: the session ended before this command's outcome.
      if (!"MATCH_OVER".equals(refused.reason())) {
        throw refused;
      }
    }
  }

  /** Plays one seat from one PlayGame session: a move each time a commit shows it legal actions. */
  private void playBySession(TrucoClient client, String name, SeatView first) throws InterruptedException {
    try (Session session = client.play(name, first.getPublic().getVersion(), (after, error) -> {
      resumes.incrementAndGet();
      log("seat " + first.getSeat() + ": session broken (" + error.code() + "), resuming after version " + after);
    })) {
      act(session, first);
      // One PlayGame stream: commands go out on it, and its events come as the watch's do.
      follow(session.events(), first.getSeat(), view -> act(session, view));
    }
  }

  public static void main(String[] args) throws Exception {
    String address = null;
    int players = 2;
    boolean watch = false;
    boolean session = false;
    int target = 0;
    long thinkMs = 0;
    BotLevel level = BotLevel.BOT_LEVEL_UNSPECIFIED;
    boolean quick = false;
    int botsAfter = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bot-level" -> level = BotLevel.valueOf("BOT_LEVEL_" + args[++i].toUpperCase(java.util.Locale.ROOT));
        case "--players" -> players = Integer.parseInt(args[++i]);
        case "--watch" -> watch = true;
        case "--session" -> session = true;
        case "--target" -> target = Integer.parseInt(args[++i]);
        case "--think-ms" -> thinkMs = Long.parseLong(args[++i]);
        case "--quick" -> quick = true;
        case "--bots-after" -> botsAfter = Integer.parseInt(args[++i]);
        default -> address = args[i];
      }
    }
    if (address == null || (players != 2 && players != 4 && players != 6)) {
      log("usage: Bot ADDRESS [--players 2|4|6] [--watch | --session] [--target N] [--think-ms N] [--bot-level L] [--quick [--bots-after S]]");
      System.exit(2);
    }
    int code;
    try {
      RuleSet rules = RuleSet.newBuilder().setPlayers(players).setTarget(target).build();
      code = new Bot(thinkMs).run(address, rules, watch, session, level, quick ? botsAfter : -1);
    } catch (Exception error) {
      log(error.toString());
      code = 2;
    }
    System.exit(code);
  }

  /** A seat this bot plays: its client and its first view. */
  @JvmOnly
  private record Seated(TrucoClient client, SeatView view) {}

  /** The game this bot plays and its seats there. */
  @JvmOnly
  private record Table(String name, List<Seated> seats) {}

  /** A new game against the server's bots: they take the odd seats (the rival team), this bot every even one. */
  private static Table createTable(TrucoClient creator, RuleSet rules, BotLevel level) {
    Map<Integer, BotKind> bots = new java.util.TreeMap<>();
    for (int seat = 1; seat < rules.getPlayers(); seat += 2) {
      bots.put(seat, BotKind.BOT_KIND_HEURISTIC);
    }
    String name = creator.createGame(rules, bots, level).getName();
    log("game " + name);
    List<Seated> seats = new ArrayList<>();
    for (int seat = 0; seat < rules.getPlayers(); seat += 2) {
      TrucoClient client = creator.withToken(null);
      seats.add(new Seated(client, client.joinGame(name, seat, "java bot " + seat).view()));
    }
    return new Table(name, seats);
  }

  /** A quick match: a ticket followed until the server seats this player (with rivals, or its bots after a wait). */
  private static Table quickTable(TrucoClient player, RuleSet rules, BotLevel level, int botsAfter) {
    FindMatchRequest.Builder request = FindMatchRequest.newBuilder().setRules(rules).setBotLevel(level)
        .setBotsAfter(com.google.protobuf.Duration.newBuilder().setSeconds(botsAfter));
    TrucoClient.QuickMatch match =
        player.quickMatch(request, ticket -> log("ticket " + ticket.getName() + " " + ticket.getState()));
    log("game " + match.game() + " (seat " + match.seat() + ")");
    return new Table(match.game(), List.of(new Seated(match.client(), match.client().seatView(match.game()))));
  }

  /** Plays a match (a quick one when {@code botsAfter} is 0 or more) and prints its JSON line. */
  private int run(String address, RuleSet rules, boolean watch, boolean session, BotLevel level, int botsAfter)
      throws Exception {
    String playerToken = System.getenv("TRUCO_PLAYER_TOKEN");
    if (botsAfter >= 0 && (playerToken == null || playerToken.isEmpty())) {
      throw new IllegalArgumentException("--quick needs a player token in $TRUCO_PLAYER_TOKEN");
    }
    TrucoClient.Builder options =
        TrucoClient.builder(address).apiKey(System.getenv("TRUCO_API_KEY")).playerToken(playerToken);
    if (watch || session) {
      options.retries(60).maxBackoff(Duration.ofSeconds(1));  // watching seats (and sessions) ride out a restart
    }
    try (TrucoClient creator = options.build()) {
      Table table = botsAfter >= 0 ? quickTable(creator, rules, level, botsAfter) : createTable(creator, rules, level);
      String name = table.name();
      List<Seated> seats = table.seats();
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = new ArrayList<>();
      for (Seated seated : seats) {
        TrucoClient client = seated.client();
        SeatView view = seated.view();
        boolean byWatching = watch;
        boolean bySession = session;
        Thread thread = new Thread(() -> {
          try {
            if (bySession) {
              playBySession(client, name, view);
            } else if (byWatching) {
              playByWatching(client, name, view);
            } else {
              playByPolling(client, name, view);
            }
          } catch (Throwable error) {
            synchronized (failures) {
              failures.add(error);
            }
          }
        });
        thread.start();
        threads.add(thread);
      }
      for (Thread thread : threads) {
        thread.join();
      }
      if (!failures.isEmpty()) {
        throw new RuntimeException(failures.get(0));
      }
      SeatView last = seats.get(0).client().seatView(name);
      int[] scores = new int[2];
      for (TeamScore score : last.getPublic().getScoresList()) {
        scores[score.getTeam()] = score.getPoints();
      }
      boolean over = TrucoClient.isOver(last);
      System.out.printf(
          "{\"sdk\": \"java\", \"over\": %b, \"scores\": [%d, %d], \"illegal_reason\": \"%s\", \"game\": \"%s\", "
              + "\"quick\": %b, \"seats\": %s, \"players\": %d, \"moves\": %d, \"resumes\": %d, \"watched\": %s}%n",
          over, scores[0], scores[1], illegalReason, name, botsAfter >= 0,
          seats.stream().map(seated -> seated.view().getSeat()).toList(), rules.getPlayers(), moves.get(), resumes.get(), watched);
      System.out.flush();
      return over && illegalReason.equals("CARD_NOT_IN_HAND") ? 0 : 1;
    }
  }
}
