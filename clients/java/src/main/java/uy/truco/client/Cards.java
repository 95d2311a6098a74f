package uy.truco.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import uy.truco.v1.Card;
import uy.truco.v1.Suit;

/**
 * Cards in the project's notation: number then suit letter ({@code 1e} espada, {@code 4b} basto, {@code 7o} oro,
 * {@code 12c} copa). The 40-card Spanish deck has ranks 1 to 7, 10, 11 and 12 in each suit.
 */
public final class Cards {
  /** The ten ranks of each suit. */
  public static final List<Integer> RANKS = Collections.unmodifiableList(Arrays.asList(1, 2, 3, 4, 5, 6, 7, 10, 11, 12));

  private static final String LETTERS = "eboc";
  private static final Map<Character, Suit> SUITS = suits();

  private Cards() {}

  private static Map<Character, Suit> suits() {
    Map<Character, Suit> suits = new HashMap<>();
    suits.put('e', Suit.SUIT_ESPADA);
    suits.put('b', Suit.SUIT_BASTO);
    suits.put('o', Suit.SUIT_ORO);
    suits.put('c', Suit.SUIT_COPA);
    return Collections.unmodifiableMap(suits);
  }

  /** The card written as {@code text} (case and blanks ignored). @throws IllegalArgumentException if it is not one */
  public static Card card(String text) {
    String cleaned = text.trim().toLowerCase(Locale.ROOT);
    if (cleaned.length() >= 2 && !cleaned.startsWith("0")) {
      Suit suit = SUITS.get(cleaned.charAt(cleaned.length() - 1));
      try {
        int rank = Integer.parseInt(cleaned.substring(0, cleaned.length() - 1));
        if (suit != null && RANKS.contains(rank)) {
          return Card.newBuilder().setRank(rank).setSuit(suit).build();
        }
      } catch (NumberFormatException ignored) {
        // fall through
      }
    }
    throw new IllegalArgumentException("\"" + text + "\" is not a card: write number then suit letter, like 1e or 12c");
  }

  /** The notation of a card ("1e"); "?" for a rank or suit the deck lacks. */
  public static String text(Card card) {
    for (char letter : LETTERS.toCharArray()) {
      if (SUITS.get(letter) == card.getSuit() && RANKS.contains(card.getRank())) {
        return card.getRank() + String.valueOf(letter);
      }
    }
    return "?";
  }

  /** Every card of the deck, in notation order (1e .. 12c). */
  public static List<Card> deck() {
    List<Card> cards = new ArrayList<>(40);
    for (char letter : LETTERS.toCharArray()) {
      for (int rank : RANKS) {
        cards.add(Card.newBuilder().setRank(rank).setSuit(SUITS.get(letter)).build());
      }
    }
    return cards;
  }
}
