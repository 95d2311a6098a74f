/**
 * Checking the fair deal: every card a client sees opens the commitment published before play.
 *
 * `HandDealt.commitments` (also `HandView.commitments`) holds one commitment per deck position: SHA-256, lowercase
 * hex, of the ASCII text `"{position}|{card}|{salt}"` (the card in notation: `7|1e|<salt>`). A seat receives the
 * proofs of its own three cards (`SeatView.ownProofs`); every other proof arrives when its card becomes public
 * (`HandView.proofs`, `CardPlayed.proof`, `HandEnded.proofs`). Uses Web Crypto (Node 20+ and browsers).
 */
import { cardText } from "./cards.js";
import type { Card } from "./gen/truco/v1/cards_pb.js";
import type { CardProof } from "./gen/truco/v1/events_pb.js";

/** The commitment of `card` at deck `position` with `salt`: SHA-256 hex of `"{position}|{card}|{salt}"`. */
export async function commitmentOf(position: number, card: Card, salt: string): Promise<string> {
  const text = new TextEncoder().encode(`${position}|${cardText(card)}|${salt}`);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", text));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Whether `proof` opens its position's commitment among the hand's 40 (a malformed card is no match). */
export async function verifyProof(commitments: readonly string[], proof: CardProof): Promise<boolean> {
  if (proof.position < 0 || proof.position >= commitments.length || proof.card === undefined) {
    return false;
  }
  try {
    return (await commitmentOf(proof.position, proof.card, proof.salt)) === commitments[proof.position];
  } catch {
    return false;
  }
}
