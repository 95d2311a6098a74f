/**
 * The newest version of each game a client has seen, sent back with its reads as `minVersion`.
 *
 * A replica may then answer a read from memory when it already holds that version and has heard of no newer move:
 * the answer is never older than what the client saw (its own moves included, wherever they were made; señas
 * aside, which do not advance the version), and costs the server no event-store read.
 */

/** Games remembered at once; the least recently seen is forgotten first (a read of it then asks for the newest). */
export const MAX_GAMES_SEEN = 1024;

/** Per game name, the highest public version seen in any reply or streamed event. */
export class VersionsSeen {
  private readonly versions = new Map<string, bigint>();

  constructor(readonly maxGames: number = MAX_GAMES_SEEN) {
    if (maxGames < 1) {
      throw new RangeError("maxGames must be 1 or more");
    }
  }

  /** Record that `version` of game `name` was seen (an older one, or none, changes nothing but its recency). */
  saw(name: string, version: bigint | undefined): void {
    let newest = this.versions.get(name) ?? 0n;
    if (version !== undefined && version > newest) {
      newest = version;
    }
    if (newest <= 0n) {
      return; // nothing seen of this game yet
    }
    this.versions.delete(name); // a Map keeps insertion order: re-inserting makes it the most recently seen
    this.versions.set(name, newest);
    for (const oldest of this.versions.keys()) {
      if (this.versions.size <= this.maxGames) {
        break;
      }
      this.versions.delete(oldest);
    }
  }

  /** The newest version of `name` seen; 0 when none was. */
  of(name: string): bigint {
    return this.versions.get(name) ?? 0n;
  }

  /** How many games are remembered. */
  get size(): number {
    return this.versions.size;
  }
}

/** A version from an ErrorInfo metadata value (VERSION_CONFLICT carries the game's current one), if it is one. */
export function parseVersion(text: string | undefined): bigint | undefined {
  return text !== undefined && /^[0-9]{1,18}$/.test(text) ? BigInt(text) : undefined;
}
