// A table in play: the seat's view kept current by WatchGame, the log of the whole match (rebuilt from version 0
// on every load, so a reload loses nothing), the end-of-hand summary, the clocks, and the seat's own calls (a move,
// leaving, coming back after a bot took the seat, the rematch).
import {
  type Command,
  type Event,
  type Game,
  type HandSummary,
  type MatchView,
  NotFound,
  PermissionDenied,
  Phase,
  type SeatView,
  SeatKind,
  type TrucoClient,
  type TrucoError,
  Unauthenticated,
  commitEvents,
  toTrucoError,
} from "truco-client";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { SeatCalls, gameId, holdSeat } from "./api";
import { Records } from "./record";
import { type Seating, botName, describeEvent, emptySeatName, playerName, refusal } from "./text";

/** How long the end-of-hand summary stays up unless the player continues first. */
export const SUMMARY_MS = 7000;

export interface LogLine {
  hand: number;
  readonly text: string;
  kind: string;
}

/** Why a bot plays a seat: its clock ran out, or its player left. */
export type Away = "clock" | "left";

export class Table implements Seating {
  view: SeatView | undefined;
  pub: MatchView | undefined;
  game: Game | undefined;
  version = 0n;
  readonly log: LogLine[] = [];
  readonly records = new Records();
  readonly away = new Map<number, Away>();
  summary: { hand: HandSummary; until: number } | undefined;
  error = "";
  sending = false;
  /** Each team's points as the log has counted them so far. */
  private readonly scores = [0, 0];
  /** "Dejar la mesa" was pressed: the page asks before leaving. */
  confirmingLeave = false;
  /** The version the page had when it opened: events up to it are the replayed past, not news. */
  private openedAt = 0n;
  private logged = -1n;
  /** The hand the events being noted belong to (replayed events are older than the view on screen). */
  private loggedHand = 0;
  /** A hand that just ended, whose summary shows as soon as a view carries its `last_hand`. */
  private summaryDue = 0;
  private readonly stop = new AbortController();
  readonly calls: SeatCalls;

  constructor(
    readonly id: string,
    readonly client: TrucoClient,
    readonly me: number | undefined,
    private readonly onChange: () => void,
    private readonly onConnection: (state: "live" | "reconnecting" | "over") => void,
    private readonly onMove: (game: string) => void,
  ) {
    this.calls = new SeatCalls(client, id);
  }

  get gameName(): string {
    return `games/${this.id}`;
  }

  // --- Seating: names from the game's seats ---------------------------------------------------------------------

  name(seat: number): string {
    const info = this.game?.seats.find((s) => s.seat === seat);
    if (info?.kind === SeatKind.BOT) return botName(seat);
    if (info?.kind === SeatKind.OPEN) return emptySeatName();
    return info?.playerName || playerName(seat);
  }

  isAway(seat: number): boolean {
    return this.away.has(seat);
  }

  /** The players' seats nobody has taken yet (the first deal waits for them). */
  openSeats(): number[] {
    return (this.game?.seats ?? []).filter((s) => s.kind === SeatKind.OPEN).map((s) => s.seat);
  }

  /** Whether this page's seat is the table's host (the player who sat down first): it alone may start a table
   * waiting for friends with bots in the open seats. */
  isHost(): boolean {
    return this.me !== undefined && this.game?.seats.find((s) => s.seat === this.me)?.host === true;
  }

  isBot(seat: number): boolean {
    return this.game?.seats.find((s) => s.seat === seat)?.kind === SeatKind.BOT;
  }

  players(): number {
    return this.pub?.rules?.players ?? this.game?.rules?.players ?? 2;
  }

  over(): boolean {
    return this.pub?.phase === Phase.MATCH_OVER;
  }

  takenOver(seat: number): boolean {
    return this.pub?.seats.find((s) => s.seat === seat)?.takenOver ?? false;
  }

  /** Until when (ms since the epoch, the server's clock) a bot keeps a person's pace for the away `seat`. */
  graceUntil(seat: number): number | undefined {
    const until = this.pub?.seats.find((s) => s.seat === seat)?.graceUntil;
    return until ? timestampMs(until) : undefined;
  }

  /** The seats the match waits for that a bot plays for their absent player. */
  standIns(): number[] {
    return (this.pub?.toAct ?? []).filter((seat) => this.takenOver(seat));
  }

  /** The first press of "Dejar la mesa" asks; `confirmed` leaves, `false` stays. */
  askLeave(asking: boolean): void {
    this.confirmingLeave = asking;
    this.onChange();
  }

  // --- Following the game ---------------------------------------------------------------------------------------

  async start(): Promise<void> {
    const response = await this.client.getView(this.gameName);
    this.take(response.seat, response.public ?? response.seat?.public);
    this.openedAt = this.version;
    await this.refreshGame();
    this.onChange();
    void this.follow();
  }

  close(): void {
    this.stop.abort();
  }

  async refreshGame(): Promise<void> {
    try {
      this.game = (await this.calls.game()) ?? this.game;
    } catch {
      // names and settings stay as they were until the next refresh
    }
  }

  /** Keeps a view if it is newer than the one shown (a seña keeps its version: equal counts when told so). */
  private take(seat: SeatView | undefined, pub: MatchView | undefined, sameVersionIsNewer = false): void {
    const version = pub?.version ?? seat?.public?.version;
    if (version === undefined) return;
    if (version < this.version || (version === this.version && !sameVersionIsNewer && this.pub)) return;
    this.version = version;
    this.view = seat ?? this.view;
    this.pub = pub ?? seat?.public ?? this.pub;
  }

  /** WatchGame from version 0: the past rebuilds the log, then every new move arrives as it happens. After any
   * failure (a dropped connection, a server restart) the view is read again and the watch resumes after the last
   * event shown. */
  private async follow(): Promise<void> {
    let failures = 0;
    while (!this.stop.signal.aborted) {
      try {
        this.onConnection("live");
        // One message per commit: a move with the bot moves and the deal it triggered, then the view after them,
        // drawn once.
        for await (const commit of this.client.watchCommits(this.gameName, this.logged < 0n ? 0n : this.logged, {
          signal: this.stop.signal,
          onResume: () => this.onConnection("reconnecting"),
          tableChanges: true,
        })) {
          failures = 0;
          this.onConnection("live");
          const events = commitEvents(commit);
          if (!events.length) {
            // The table changed without a move (a friend sat down): their name, and the clock that may have started.
            await this.refreshGame();
            this.take(commit.seat, commit.public ?? commit.seat?.public, true);
            this.onChange();
            continue;
          }
          for (const event of events) {
            this.note(event);
            if (this.isNews(event)) this.react(event);
          }
          // The first deal of a table that waited: its open seats were filled, by friends or by the host's bots.
          if (this.openSeats().length && events.some((event) => event.kind.case === "handDealt")) await this.refreshGame();
          const last = events.at(-1);
          this.take(commit.seat, commit.public ?? commit.seat?.public, last?.kind.case === "senaSent");
          this.onChange();
        }
        if (this.over()) {
          this.onConnection("over");
          await this.refreshGame();
          this.onChange();
          void this.awaitRematch();
          return;
        }
      } catch (error) {
        const failure = toTrucoError(error);
        if (failure instanceof NotFound || failure instanceof PermissionDenied || failure instanceof Unauthenticated) {
          this.fail(failure);
          return;
        }
      }
      if (this.stop.signal.aborted) return;
      failures++;
      this.onConnection("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, Math.min(3000, 200 * 2 ** Math.min(failures, 4))));
      await this.refresh().catch(() => undefined);
    }
  }

  private isNews(event: Event): boolean {
    return event.version > this.openedAt;
  }

  /** The log line, the hand's record and who is away, for every event (replayed or new) once. */
  private note(event: Event): void {
    // A seña keeps the version of the event before it; anything else at or below the last one was noted already.
    if (event.kind.case === "senaSent" ? event.version < this.logged : event.version <= this.logged) return;
    this.logged = event.version;
    this.records.note(event);
    const kind = event.kind;
    if (kind.case === "clockExpired" && !kind.value.forfeit) this.away.set(kind.value.seat, "clock");
    if (kind.case === "seatLeft") this.away.set(kind.value.seat, "left");
    if (kind.case === "seatResumed") this.away.delete(kind.value.seat);
    if (kind.case === "handDealt") this.loggedHand = kind.value.number;
    // The line is worded when drawn, so a seat's name read later (a friend who sat down) names them in it too; who
    // was away and the score before it are as they were at the event.
    const away = new Set(this.away.keys());
    const before = [...this.scores];
    const seating: Seating = {
      me: this.me,
      name: (seat) => this.name(seat),
      isAway: (seat) => away.has(seat),
      scoreBefore: (team) => before[team] ?? 0,
      target: this.pub?.rules?.target ?? this.game?.rules?.target,
    };
    if (kind.case === "pointsScored") this.scores[kind.value.team] = (this.scores[kind.value.team] ?? 0) + kind.value.points;
    if (!describeEvent(event, seating)) return;
    this.log.push({ hand: this.loggedHand, kind: kind.case ?? "", get text() { return describeEvent(event, seating) ?? ""; } });
  }

  /** What a new event changes beyond the view: the summary when a hand ends, the seats' names when someone joins,
   * leaves or comes back. */
  private react(event: Event): void {
    const kind = event.kind.case;
    if (kind === "handEnded") this.summaryDue = this.loggedHand;
    if (kind === "seatLeft" || kind === "seatResumed" || kind === "clockExpired" || kind === "matchStarted" || kind === "matchEnded") {
      void this.refreshGame().then(() => this.onChange());
    }
  }

  /** After the match, every human at the table hears of a rematch another one asked for (GetGame's next_game),
   * within a second, for as long as the page stays on the finished game (ten minutes at most). */
  private async awaitRematch(): Promise<void> {
    const until = Date.now() + 600_000;
    while (this.me !== undefined && !this.game?.nextGame && !this.stop.signal.aborted && Date.now() < until) {
      await new Promise((resolve) => window.setTimeout(resolve, 1000));
      await this.refreshGame();
      if (this.game?.nextGame) this.onChange();
    }
  }

  dismissSummary(): void {
    if (this.summary && !this.over()) this.summary = undefined;
  }

  /** The end-of-hand summary on screen, from the view's `last_hand`: it shows when a hand that ended live has its
   * summary in the view, and stays until the player continues or SUMMARY_MS pass (for good once the match is
   * over). */
  summaryShown(): HandSummary | undefined {
    const last = this.pub?.lastHand;
    if (this.summaryDue && last?.number === this.summaryDue) {
      this.summaryDue = 0;
      this.summary = { hand: last, until: this.over() ? Number.POSITIVE_INFINITY : Date.now() + SUMMARY_MS };
      if (!this.over()) setTimeout(() => this.onChange(), SUMMARY_MS + 50);
    }
    if (this.summary && Date.now() >= this.summary.until) this.summary = undefined;
    if (this.summary && last?.number === this.summary.hand.number) this.summary.hand = last;
    return this.summary?.hand;
  }

  private async refresh(): Promise<void> {
    const response = await this.client.getView(this.gameName);
    this.take(response.seat, response.public ?? response.seat?.public);
    this.onChange();
  }

  private fail(failure: TrucoError): void {
    this.error = refusal(failure.reason, failure.rawMessage);
    this.onChange();
  }

  // --- The seat's calls -----------------------------------------------------------------------------------------

  /** Sends one of the legal actions, chosen at the version on screen; a refusal is shown with its reason. */
  async act(command: Command): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    this.error = "";
    this.dismissSummary();
    try {
      const response = await this.client.submit(this.gameName, command, { expectedVersion: this.version });
      this.take(response.view, response.view?.public, command.kind.case === "sendSena");
    } catch (error) {
      const failure = toTrucoError(error);
      this.error = refusal(failure.reason, failure.rawMessage);
      if (failure.reason === "VERSION_CONFLICT") await this.refresh().catch(() => undefined);
    } finally {
      this.sending = false;
      this.onChange();
    }
  }

  /** Runs one of the seat's other calls, showing a refusal with its reason. */
  private async seatCall(run: () => Promise<void>): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    this.error = "";
    try {
      await run();
    } catch (error) {
      const failure = toTrucoError(error);
      this.error = refusal(failure.reason, failure.rawMessage);
    } finally {
      this.sending = false;
      this.onChange();
    }
  }

  /** LeaveGame: a bot plays the seat until the player comes back. */
  leave(): Promise<void> {
    this.confirmingLeave = false;
    return this.seatCall(async () => {
      const view = await this.calls.leave();
      if (this.me !== undefined) this.away.set(this.me, "left");
      this.take(view, view?.public, true);
    });
  }

  /** ResumeSeat: the seat is the player's again from its next decision. */
  resume(): Promise<void> {
    return this.seatCall(async () => {
      const view = await this.calls.resume();
      this.take(view, view?.public, true);
    });
  }

  /** StartWithBots (the host only): the server's bots take the open seats and the match is dealt. */
  startWithBots(): Promise<void> {
    return this.seatCall(async () => {
      const { game, view } = await this.client.startWithBots(this.gameName);
      this.game = game ?? this.game;
      this.take(view, view?.public);
    });
  }

    /** Rematch: every seat holds its seat in the next game with the same token; the page moves there. */
  rematch(): Promise<void> {
    return this.seatCall(async () => {
      const { game, seat } = await this.calls.rematch();
      const token = this.client.token;
      if (!game || token === undefined) return;
      const next = gameId(game.name);
      holdSeat(next, { seat, token });
      this.onMove(next);
    });
  }
}
