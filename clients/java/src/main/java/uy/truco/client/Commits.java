package uy.truco.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import uy.truco.v1.Event;
import uy.truco.v1.WatchGameResponse;

/**
 * WatchGame messages of one commit ({@code per_commit}), and the per-event shape made from them. A watch asked with
 * {@code per_commit} gets one message per commit: a move with the bot moves and the deal it triggered is one message
 * whose {@code events} are all of them, in order, with the caller's view after the last one ({@code seat} for a
 * seat, {@code public} for a spectator). A server older than {@code per_commit} ignores the field and sends one event
 * per message ({@code event}, {@code seat} and {@code public}): {@link #events} reads either.
 */
public final class Commits {
  private Commits() {}

  /** The events a watch message carries, in order: its {@code events}, or the one {@code event} of the per-event stream. */
  public static List<Event> events(WatchGameResponse message) {
    if (message.getEventsCount() > 0) {
      return message.getEventsList();
    }
    return message.hasEvent() ? Collections.singletonList(message.getEvent()) : Collections.emptyList();
  }

  /**
   * The newest version a watch message tells of: its last event's, or its view's (a seña keeps the version of the
   * event before it, so the view's is never older).
   */
  public static long version(WatchGameResponse message) {
    List<Event> events = events(message);
    long last = events.isEmpty() ? 0 : events.get(events.size() - 1).getVersion();
    return Math.max(last, Math.max(message.getSeat().getPublic().getVersion(), message.getPublic().getVersion()));
  }

  /**
   * A commit's message as the per-event stream's messages, one per event in order. The views after the commit go with
   * its last event ({@code seat} for a seat, and {@code public} for anyone: a seat's view holds it); the events
   * before it carry none, as no view after them was sent.
   */
  public static List<WatchGameResponse> perEvent(WatchGameResponse message) {
    List<Event> events = events(message);
    List<WatchGameResponse> out = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      WatchGameResponse.Builder item = WatchGameResponse.newBuilder().setEvent(events.get(i));
      if (i == events.size() - 1) {
        if (message.hasSeat()) {
          item.setSeat(message.getSeat());
        }
        if (message.hasPublic()) {
          item.setPublic(message.getPublic());
        } else if (message.hasSeat()) {
          item.setPublic(message.getSeat().getPublic());
        }
      }
      out.add(item.build());
    }
    return out;
  }

  /**
   * A stream of commits as one of events, as {@link TrucoClient#watch} and {@link Session#events()} hand them: each
   * event of a commit in order, the views after the commit with its last one ({@link #perEvent(WatchGameResponse)}).
   * {@code hasNext} waits on {@code commits} only when no event of the last commit is left.
   */
  static Iterator<WatchGameResponse> perEvent(Iterator<WatchGameResponse> commits) {
    return new Iterator<>() {
      private final ArrayDeque<WatchGameResponse> queued = new ArrayDeque<>();

      @Override
      public boolean hasNext() {
        while (queued.isEmpty() && commits.hasNext()) {
          queued.addAll(perEvent(commits.next()));
        }
        return !queued.isEmpty();
      }

      @Override
      public WatchGameResponse next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return queued.poll();
      }
    };
  }
}
