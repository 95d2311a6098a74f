package uy.truco.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import uy.truco.v1.Card;
import uy.truco.v1.CardProof;

/**
 * Checking the fair deal: every card a client sees opens the commitment published before play.
 *
 * <p>{@code HandDealt.commitments} (also {@code HandView.commitments}) holds one commitment per deck position: SHA-256,
 * lowercase hex, of {@code "{position}|{card}|{salt}"} (the card in notation: {@code 7|1e|<salt>}). A seat receives
 * the proofs of its own three cards ({@code SeatView.own_proofs}); every other proof arrives when its card becomes
 * public ({@code HandView.proofs}, {@code CardPlayed.proof}, {@code HandEnded.proofs}).
 */
public final class Proofs {
  private Proofs() {}

  /** The commitment of {@code card} at deck {@code position} with {@code salt}. */
  public static String commitmentOf(int position, Card card, String salt) {
    try {
      byte[] text = (position + "|" + Cards.text(card) + "|" + salt).getBytes(StandardCharsets.US_ASCII);
      return hex(MessageDigest.getInstance("SHA-256").digest(text));
    } catch (NoSuchAlgorithmException missing) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", missing);
    }
  }

  /** Whether {@code proof} opens its position's commitment among the hand's 40 (a malformed card is no match). */
  public static boolean verifyProof(List<String> commitments, CardProof proof) {
    int position = proof.getPosition();
    if (position < 0 || position >= commitments.size()) {
      return false;
    }
    if (Cards.text(proof.getCard()).equals("?")) {
      return false;
    }
    String expected = commitmentOf(position, proof.getCard(), proof.getSalt());
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII), commitments.get(position).getBytes(StandardCharsets.US_ASCII));
  }

  /** Lower-case hexadecimal, two digits a byte (java.util.HexFormat would need Android API 34). */
  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      out.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return out.toString();
  }
}
