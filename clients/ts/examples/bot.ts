/**
 * An example bot: creates a match against the server's heuristic bots, plays its seats to the end with the SDK,
 * and tries one illegal card (one not in its hand) on its first turn to show the typed error. Prints one JSON line:
 *   {"sdk": "ts", "over": true, "scores": [a, b], "illegal_reason": "CARD_NOT_IN_HAND", ...}
 * and exits 0 only if the match ended and the illegal card was refused with CARD_NOT_IN_HAND.
 *
 *   node dist/examples/bot.js ADDRESS                 2 players: this bot in seat 0, a server bot in seat 1
 *   node dist/examples/bot.js ADDRESS --players 4 --watch
 *        4 players (or 6): this bot plays the even seats (a client each), server bots the odd ones; each seat waits
 *        for its turn on a WatchGame stream that resumes by itself after a dropped connection or a server restart.
 *   --session: each seat plays its match from one PlayGame session (client.play) instead: its commits in, its
 *        commands out, on one stream that also resumes by itself (gRPC only: it needs HTTP/2).
 *   --target N (points to win), --think-ms N (a pause before each move), --bot-level LEVEL (the server bots')
 * It runs against a server with its default settings (quotas on): the SDK waits out a quota's RetryInfo itself.
 *   --protocol connect|grpc-web: talk to the server's web port (truco serve --web-port) the way a browser does
 *   --quick: a quick match instead (PlayerService's FindMatch, with the player token in $TRUCO_PLAYER_TOKEN): the
 *        bot waits for rivals at a table of --players, the server's bots filling the seats still free after
 *        --bots-after S seconds (default 5), and plays its one seat (by polling, --watch or --session).
 */
import {
  cardText,
  deck,
  type GameSession,
  IllegalMove,
  isMyTurn,
  isOver,
  plainBot,
  play,
  type SeatView,
  TicketState,
  TrucoClient,
  TrucoError,
  VersionConflict,
} from "../src/index.js";
import { createNodeTransport, type Protocol } from "../src/node.js";

interface Options {
  address: string;
  players: number;
  watch: boolean;
  session: boolean;
  target: number;
  thinkMs: number;
  protocol: Protocol;
  botLevel?: string;
  quick: boolean;
  botsAfter: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { address: "", players: 2, watch: false, session: false, target: 0, thinkMs: 0, protocol: "grpc", quick: false, botsAfter: 5 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--players") options.players = Number(argv[++i]);
    else if (arg === "--watch") options.watch = true;
    else if (arg === "--session") options.session = true;
    else if (arg === "--target") options.target = Number(argv[++i]);
    else if (arg === "--think-ms") options.thinkMs = Number(argv[++i]);
    else if (arg === "--protocol") options.protocol = argv[++i] as Protocol;
    else if (arg === "--bot-level") options.botLevel = argv[++i];
    else if (arg === "--quick") options.quick = true;
    else if (arg === "--bots-after") options.botsAfter = Number(argv[++i]);
    else if (!options.address && !arg.startsWith("--")) options.address = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.address || ![2, 4, 6].includes(options.players)) {
    throw new Error("usage: bot ADDRESS [--players 2|4|6] [--watch|--session] [--target N] [--think-ms N] [--protocol P] [--bot-level L] [--quick [--bots-after S]]");
  }
  return options;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How often a polling seat reads its view while it waits (5 reads a second, well inside a player's quota). */
const POLL_MS = 200;
const log = (line: string) => process.stderr.write(`bot(ts): ${line}\n`);

/**
 * A card of the deck that is not in the seat's hand: playing it must fail with CARD_NOT_IN_HAND. Sent with
 * SubmitCommand, or through the seat's session when it has one.
 */
async function tryIllegalCard(client: TrucoClient, name: string, view: SeatView, session?: GameSession): Promise<string> {
  const held = new Set(view.cards.map(cardText));
  const stranger = deck().find((candidate) => !held.has(cardText(candidate)));
  if (!stranger) throw new Error("every card is in hand?");
  try {
    const expectedVersion = view.public?.version ?? 0n;
    if (session) await session.submit(play(stranger), { expectedVersion });
    else await client.submit(name, play(stranger), { expectedVersion });
    return "ACCEPTED";
  } catch (error) {
    if (error instanceof IllegalMove) {
      log(`illegal ${cardText(stranger)} refused: ${error.reason} (${error.rawMessage})`);
      return error.reason;
    }
    throw error;
  }
}

/** Plays one seat by reading its view after each move (the server's bots answer before the reply). */
async function playByPolling(client: TrucoClient, name: string, first: SeatView, options: Options, state: State): Promise<void> {
  let view = first;
  while (!isOver(view)) {
    if (!isMyTurn(view)) {
      await sleep(POLL_MS);
      view = await client.seatView(name);
      continue;
    }
    if (!state.illegalReason && view.legalActions.some((action) => action.kind.case === "playCard")) {
      state.illegalReason = await tryIllegalCard(client, name, view);
    }
    if (options.thinkMs) await sleep(options.thinkMs);
    const turn = await client.playTurn(name, plainBot, { view });
    state.moves++;
    view = turn?.response.view ?? (await client.seatView(name));
  }
}

/** Plays one seat from a WatchGame stream: a move each time the stream shows the seat legal actions. */
async function playByWatching(client: TrucoClient, name: string, first: SeatView, options: Options, state: State): Promise<void> {
  const act = async (view: SeatView) => {
    if (!isMyTurn(view)) return;
    if (!state.illegalReason && view.legalActions.some((action) => action.kind.case === "playCard")) {
      state.illegalReason = await tryIllegalCard(client, name, view);
    }
    if (options.thinkMs) await sleep(options.thinkMs);
    // playTurn re-reads the view when the game moved on (ABORTED): a stale stream item costs one read.
    if (await client.playTurn(name, plainBot, { view })) state.moves++;
  };
  await act(first);
  const onResume = (after: bigint, error: TrucoError) => {
    state.resumes++;
    log(`seat ${first.seat}: watch broken (${error.code}), resuming after version ${after}`);
  };
  // The SDK's watch hands each event of a commit in order; the seat's view after the commit comes with its last event.
  for await (const item of client.watch(name, first.public?.version ?? 0n, { onResume })) {
    if (first.seat === 0 && item.event && item.event.kind.case !== "senaSent") state.watched.push(item.event.version);
    if (!item.seat) continue;
    if (isOver(item.seat)) return;
    await act(item.seat);
  }
}

/**
 * Plays one seat from one PlayGame session: a move each time a commit shows the seat legal actions, sent through the
 * session, which reopens itself (and sends again a move whose outcome did not come) after a restart.
 */
async function playBySession(client: TrucoClient, name: string, first: SeatView, options: Options, state: State): Promise<void> {
  const onResume = (after: bigint, error: TrucoError) => {
    state.resumes++;
    log(`seat ${first.seat}: session broken (${error.code}), resuming after version ${after}`);
  };
  const session = client.play(name, { afterVersion: first.public?.version ?? 0n, onResume });
  const act = async (view: SeatView) => {
    if (!isMyTurn(view)) return;
    if (!state.illegalReason && view.legalActions.some((action) => action.kind.case === "playCard")) {
      state.illegalReason = await tryIllegalCard(client, name, view, session);
    }
    if (options.thinkMs) await sleep(options.thinkMs);
    const command = plainBot(view);
    if (!command) return;
    try {
      await session.submit(command, { expectedVersion: view.public?.version ?? 0n });
      state.moves++;
    } catch (error) {
      // The game moved on before the move (a stale commit: the partner answered first, say): the session brings
      // the newer commits, to act on. MATCH_OVER: the partner's move ended the match before this one was answered.
      const matchOver = error instanceof IllegalMove && error.reason === "MATCH_OVER";
      if (!(error instanceof VersionConflict) && !matchOver) throw error;
    }
  };
  try {
    await act(first);
    // Each event of a commit in order; the seat's view after the commit comes with its last event.
    for await (const item of session.events()) {
      if (first.seat === 0 && item.event && item.event.kind.case !== "senaSent") state.watched.push(item.event.version);
      if (!item.seat) continue;
      if (isOver(item.seat)) return;
      await act(item.seat);
    }
  } finally {
    session.close();
  }
}

interface State {
  illegalReason: string;
  moves: number;
  resumes: number;
  /**
   * The versions of the events seat 0's watch (or session) delivered, in order (señas aside: they keep the version
   * before).
   */
  watched: bigint[];
}

/** The seats this bot plays, each with its own client, in the game `name`. */
interface Table {
  name: string;
  seats: { client: TrucoClient; view: SeatView }[];
}

/** A new game against the server's bots: they take the odd seats (the rival team), this bot every even one. */
async function createTable(creator: TrucoClient, options: Options, rules: { players: number; target?: number }): Promise<Table> {
  const seats = Array.from({ length: options.players / 2 }, (_, i) => 2 * i);
  const bots: Record<number, string> = Object.fromEntries(seats.map((seat) => [seat + 1, "heuristic"]));
  const game = await creator.createGame({ rules, bots, botLevel: options.botLevel });
  log(`game ${game.name}`);
  const joined = await Promise.all(
    seats.map(async (seat) => {
      const client = creator.withToken(undefined);
      const { view } = await client.joinGame(game.name, { seat, playerName: `ts bot ${seat}` });
      return { client, view };
    }),
  );
  return { name: game.name, seats: joined };
}

/** A quick match: a ticket followed until the server seats this player (and rivals, or its bots after a wait). */
async function quickTable(player: TrucoClient, options: Options, rules: { players: number; target?: number }): Promise<Table> {
  const match = await player.quickMatch({
    rules,
    botsAfterMs: options.botsAfter * 1000,
    botLevel: options.botLevel,
    onTicket: (ticket) => log(`ticket ${ticket.name} ${TicketState[ticket.state]}`),
  });
  log(`game ${match.game} (seat ${match.seat})`);
  return { name: match.game, seats: [{ client: match.client, view: await match.client.seatView(match.game) }] };
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const transport = createNodeTransport(options.address, { protocol: options.protocol });
  const retries = options.watch || options.session ? { retries: 60, maxBackoffMs: 1000 } : {};
  const playerToken = process.env.TRUCO_PLAYER_TOKEN || undefined;
  if (options.quick && !playerToken) throw new Error("--quick needs a player token in $TRUCO_PLAYER_TOKEN");
  const creator = new TrucoClient(transport, { ...retries, apiKey: process.env.TRUCO_API_KEY || undefined, playerToken });
  const rules = { players: options.players, ...(options.target ? { target: options.target } : {}) };
  const table = options.quick ? await quickTable(creator, options, rules) : await createTable(creator, options, rules);
  const state: State = { illegalReason: "", moves: 0, resumes: 0, watched: [] };
  const playSeat = options.session ? playBySession : options.watch ? playByWatching : playByPolling;
  await Promise.all(table.seats.map(({ client, view }) => playSeat(client, table.name, view, options, state)));
  const first = table.seats[0].client;
  const final = (await first.getView(table.name)).public;
  const scores = [0, 1].map((team) => final?.scores.find((score) => score.team === team)?.points ?? 0);
  const over = isOver((await first.getView(table.name)).seat);
  const result = {
    sdk: "ts",
    over,
    scores,
    illegal_reason: state.illegalReason,
    game: table.name,
    quick: options.quick,
    seats: table.seats.map(({ view }) => view.seat),
    players: options.players,
    moves: state.moves,
    resumes: state.resumes,
    watched: state.watched.map(Number),
  };
  console.log(JSON.stringify(result));
  return over && state.illegalReason === "CARD_NOT_IN_HAND" ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? `${error.name}: ${error.message}\n${(error.cause as Error | undefined)?.stack ?? error.stack}` : String(error));
    process.exit(2);
  },
);
