/**
 * Cards in the project's notation: number then suit letter (`1e` espada, `4b` basto, `7o` oro, `12c` copa).
 * The 40-card Spanish deck has ranks 1 to 7, 10, 11 and 12 in each suit. These helpers only convert between the
 * notation and `truco.v1.Card`; the rules are the server's (ask RulesService).
 */
import { create } from "@bufbuild/protobuf";
import { type Card, CardSchema, Suit } from "./gen/truco/v1/cards_pb.js";

/** The ten ranks of each suit. */
export const RANKS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12];

const SUIT_BY_LETTER: Readonly<Record<string, Suit>> = { e: Suit.ESPADA, b: Suit.BASTO, o: Suit.ORO, c: Suit.COPA };
const LETTER_BY_SUIT: Readonly<Partial<Record<Suit, string>>> = {
  [Suit.ESPADA]: "e",
  [Suit.BASTO]: "b",
  [Suit.ORO]: "o",
  [Suit.COPA]: "c",
};

/** Text that is not a card of the 40-card deck in the notation ("8e", "1x", "e1"). */
export class CardError extends Error {}

/** A card in notation ("1e") or already a `truco.v1.Card`. */
export type CardLike = string | Card;

/** The `truco.v1.Card` written as `value` (case and surrounding blanks ignored). Throws {@link CardError}. */
export function card(value: CardLike): Card {
  if (typeof value !== "string") {
    cardText(value);
    return create(CardSchema, { rank: value.rank, suit: value.suit });
  }
  const match = /^([1-9][0-9]?)([a-z])$/.exec(value.trim().toLowerCase());
  const suit = match ? SUIT_BY_LETTER[match[2]] : undefined;
  const rank = match ? Number(match[1]) : NaN;
  if (!match || suit === undefined || !RANKS.includes(rank)) {
    throw new CardError(`${JSON.stringify(value)} is not a card: write number then suit letter, like 1e or 12c`);
  }
  return create(CardSchema, { rank, suit });
}

/** Several cards, from "1e 2e 3e" or a list of card texts or Cards. */
export function parseCards(values: string | Iterable<CardLike>): Card[] {
  const items = typeof values === "string" ? values.split(/\s+/).filter(Boolean) : [...values];
  return items.map(card);
}

/** The notation of a `truco.v1.Card`: "1e". Throws {@link CardError} for a rank or suit the deck lacks. */
export function cardText(value: Card): string {
  const letter = LETTER_BY_SUIT[value.suit];
  if (letter === undefined || !RANKS.includes(value.rank)) {
    throw new CardError(`not a card of the deck: rank ${value.rank}, suit ${value.suit}`);
  }
  return `${value.rank}${letter}`;
}

/** Every card of the deck, in notation order (1e .. 12c). */
export function deck(): Card[] {
  return Object.keys(SUIT_BY_LETTER).flatMap((letter) => RANKS.map((rank) => card(`${rank}${letter}`)));
}

/** Whether two cards are the same card. */
export function sameCard(a: Card, b: Card): boolean {
  return a.rank === b.rank && a.suit === b.suit;
}
