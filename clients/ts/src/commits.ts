/**
 * What a watch (or a PlayGame session) message carries: a commit's events, and each event as the per-event stream
 * would have sent it. Re-exported by ./client.ts.
 */
import { create } from "@bufbuild/protobuf";
import type { Event } from "./gen/truco/v1/events_pb.js";
import { type WatchGameResponse, WatchGameResponseSchema } from "./gen/truco/v1/game_service_pb.js";

/**
 * The events a watch message carries, in order: its `events` (a commit, with `perCommit`), or the one `event` of a
 * message of the per-event stream (a server older than `perCommit`).
 */
export function commitEvents(message: WatchGameResponse): Event[] {
  if (message.events.length > 0) {
    return message.events;
  }
  return message.event ? [message.event] : [];
}

/**
 * A commit's message as the per-event stream's messages, one per event in order. The views after the commit go with
 * its last event (`seat` for a seat, and `public` for anyone: a seat's view holds it); the events before it carry
 * none, as no view after them was sent.
 */
export function perEvent(message: WatchGameResponse): WatchGameResponse[] {
  const events = commitEvents(message);
  return events.map((event, index) =>
    index < events.length - 1
      ? create(WatchGameResponseSchema, { event })
      : create(WatchGameResponseSchema, { event, seat: message.seat, public: message.public ?? message.seat?.public }),
  );
}
