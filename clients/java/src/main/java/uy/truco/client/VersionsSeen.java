package uy.truco.client;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Per game name, the highest public version seen in any reply or streamed event: a {@link TrucoClient} sends it
 * back with its reads as {@code min_version}. A replica may then answer a read from memory when it already holds
 * that version and has heard of no newer move: the answer is never older than what the client saw (its own moves
 * included, wherever they were made; señas aside, which do not advance the version), and costs the server no
 * event-store read.
 *
 * <p>At most {@code maxGames} games are remembered; the least recently seen is forgotten first (a read of it then
 * asks for the newest). Thread-safe: every method holds the instance's lock, which keeps the recency order exact
 * (the map is tiny and each call constant-time).
 */
public final class VersionsSeen {
  /** Games remembered at once by default. */
  public static final int MAX_GAMES = 1024;

  private final int maxGames;
  /** By game name, in insertion order: the least recently seen first. */
  private final LinkedHashMap<String, Long> versions = new LinkedHashMap<>();

  public VersionsSeen(int maxGames) {
    if (maxGames < 1) {
      throw new IllegalArgumentException("maxGames must be 1 or more");
    }
    this.maxGames = maxGames;
  }

  /** Records that {@code version} of game {@code name} was seen (an older one changes nothing but its recency). */
  public synchronized void saw(String name, long version) {
    Long known = versions.remove(name);
    long newest = Math.max(known == null ? 0 : known, version);
    if (newest <= 0) {
      return; // nothing seen of this game yet
    }
    versions.put(name, newest); // re-inserted: now the most recently seen
    if (versions.size() > maxGames) {
      Iterator<String> oldest = versions.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
  }

  /** The newest version of {@code name} seen; 0 when none was. */
  public synchronized long of(String name) {
    return versions.getOrDefault(name, 0L);
  }

  /** How many games are remembered. */
  public synchronized int size() {
    return versions.size();
  }

  /** The game's current version a VERSION_CONFLICT tells of (its ErrorInfo metadata "version"), or 0. */
  public static long conflictVersion(TrucoException.VersionConflict conflict) {
    try {
      return Long.parseLong(conflict.metadata().getOrDefault("version", "0"));
    } catch (NumberFormatException notAVersion) {
      return 0;
    }
  }
}
