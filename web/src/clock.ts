// The turn clock of a seat, from the view's clock fields (`MatchView.clock`: the seats it times, when the decision
// started and its deadline) and the game's settings (the time per decision): whether the decision's own time or
// the seat's reserve is running, and how much is left. Times are the server's; the page reads them with its own
// clock, as the proto allows.
import { durationMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ClockSettings, MatchView } from "truco-client";

export interface SeatClock {
  /** The decision's own time, or the reserve drawn on once that ran out. */
  kind: "decision" | "reserve";
  /** What is left of it, in milliseconds (never below 0). */
  left: number;
  /** The fraction of the decision's time left (1 to 0; 0 while on the reserve). */
  fraction: number;
}

/** The running clock of `seat` at `now`, or undefined when no clock runs for it. */
export function seatClock(view: MatchView | undefined, settings: ClockSettings | undefined, seat: number, now: number): SeatClock | undefined {
  const clock = view?.clock;
  // A stand-in's pace is the bot's, not the seat's time: the seat shows no countdown for it.
  if (!clock?.deadline || !clock.started || clock.standIn || !clock.seats.includes(seat)) return undefined;
  const started = timestampMs(clock.started);
  const deadline = timestampMs(clock.deadline);
  const decision = settings?.decision ? durationMs(settings.decision) : deadline - started;
  const decisionEnd = Math.min(deadline, started + decision);
  if (now < decisionEnd) {
    return { kind: "decision", left: decisionEnd - now, fraction: decision > 0 ? (decisionEnd - now) / decision : 0 };
  }
  return { kind: "reserve", left: Math.max(0, deadline - now), fraction: 0 };
}

/** What is left of a seat's reserve for the match (undefined in games without one). */
export function reserveLeft(view: MatchView | undefined, seat: number): number | undefined {
  const status = view?.seats.find((s) => s.seat === seat);
  return status?.reserveLeft ? durationMs(status.reserveLeft) : undefined;
}
