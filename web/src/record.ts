// What the page remembers of each hand from the events it saw (live or replayed from version 0): the cards played
// in each round, which the view's `last_hand` summary does not carry. The end-of-hand summary shows them.
import type { Card, Event } from "truco-client";

export interface Play {
  seat: number;
  card: Card;
}

export interface HandRecord {
  number: number;
  muestra: Card | undefined;
  rounds: Play[][];
}

export class Records {
  private readonly hands = new Map<number, HandRecord>();
  private current: HandRecord | undefined;

  /** Takes one event into the record of its hand. */
  note(event: Event): void {
    const kind = event.kind;
    if (kind.case === "handDealt") {
      this.current = { number: kind.value.number, muestra: kind.value.muestra?.card, rounds: [[]] };
      this.hands.set(kind.value.number, this.current);
      if (this.hands.size > 64) this.hands.delete(Math.min(...this.hands.keys()));
    } else if (kind.case === "cardPlayed" && this.current && kind.value.card) {
      this.current.rounds[this.current.rounds.length - 1].push({ seat: kind.value.seat, card: kind.value.card });
    } else if (kind.case === "roundEnded" && this.current) {
      this.current.rounds.push([]);
    }
  }

  /** The muestra of hand `number`, if the page saw that hand dealt. */
  muestra(number: number): Card | undefined {
    return this.hands.get(number)?.muestra;
  }

  /** The cards played in each round of hand `number` (empty rounds left out), if the page saw that hand. */
  plays(number: number): Play[][] {
    return (this.hands.get(number)?.rounds ?? []).filter((round) => round.length > 0);
  }
}
