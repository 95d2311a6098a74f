// The Spanish deck, drawn by the project: the four suit marks (our own SVG drawings of an espada, a basto, an oro
// and a copa), card faces with the pips laid out as on a baraja española, the frame's breaks that tell the suit
// (none for oro, one for copa, two for espada, three for basto), the figures (10, 11, 12) and a card back.
import { type Card, Suit } from "truco-client";

const SVG = "http://www.w3.org/2000/svg";

/** Each suit's mark, drawn in a 32×32 box, and its colour. */
const SUITS: Readonly<Record<number, { id: string; color: string; mark: string; breaks: number }>> = {
  [Suit.ESPADA]: {
    id: "espada",
    color: "#24518f",
    breaks: 2,
    // A straight sword, point up: blade with its ridge, a curved cross-guard, the grip and the pommel.
    mark: `<path d="M16 1.5 L18.4 6 L18.4 21 L13.6 21 L13.6 6 Z" fill="#8fb3e0" stroke="#24518f" stroke-width="1"/>
      <path d="M16 3.5 V20.5" stroke="#24518f" stroke-width="0.8"/>
      <path d="M7.5 20.2 Q16 24.5 24.5 20.2 L24.5 22.6 Q16 26.6 7.5 22.6 Z" fill="#d8a93a" stroke="#7a5a12" stroke-width="0.8"/>
      <rect x="14.6" y="24" width="2.8" height="4.6" rx="0.8" fill="#7a4a22" stroke="#4a2a10" stroke-width="0.6"/>
      <circle cx="16" cy="29.8" r="1.8" fill="#d8a93a" stroke="#7a5a12" stroke-width="0.7"/>`,
  },
  [Suit.BASTO]: {
    id: "basto",
    color: "#3f6d22",
    breaks: 3,
    // A knotty club, thick end up: the wood, three cut knots, and the grain.
    mark: `<path d="M13.5 30.5 Q12.6 22 10.2 13 Q8.6 6.6 12.4 3.2 Q16.6 0.4 20.6 3.2 Q23.6 6 22.2 12.6 Q19.8 22 18.5 30.5 Z"
        fill="#6f9a35" stroke="#2f4f14" stroke-width="1"/>
      <path d="M15.2 28 Q14.4 18 13.2 8" stroke="#3f6d22" stroke-width="0.7" fill="none"/>
      <path d="M17.6 27 Q18.2 17 19.6 8.4" stroke="#3f6d22" stroke-width="0.7" fill="none"/>
      <ellipse cx="10.6" cy="11.5" rx="1.9" ry="1.3" fill="#a7c466" stroke="#2f4f14" stroke-width="0.6"/>
      <ellipse cx="21.6" cy="9.5" rx="1.8" ry="1.2" fill="#a7c466" stroke="#2f4f14" stroke-width="0.6"/>
      <ellipse cx="12.4" cy="20" rx="1.5" ry="1.1" fill="#a7c466" stroke="#2f4f14" stroke-width="0.6"/>`,
  },
  [Suit.ORO]: {
    id: "oro",
    color: "#a06d06",
    breaks: 0,
    // A gold coin: rim, a sun of eight rays inside a ring, and its face.
    mark: `<circle cx="16" cy="16" r="13.5" fill="#f2c23b" stroke="#8a5a04" stroke-width="1.2"/>
      <circle cx="16" cy="16" r="10.5" fill="none" stroke="#b8860b" stroke-width="0.9"/>
      <path d="M16 7.5 L17.2 12.6 L22 10 L19.4 14.8 L24.5 16 L19.4 17.2 L22 22 L17.2 19.4 L16 24.5 L14.8 19.4 L10 22 L12.6 17.2 L7.5 16 L12.6 14.8 L10 10 L14.8 12.6 Z"
        fill="#e0a21c" stroke="#8a5a04" stroke-width="0.6"/>
      <circle cx="16" cy="16" r="3.4" fill="#f7d870" stroke="#8a5a04" stroke-width="0.7"/>`,
  },
  [Suit.COPA]: {
    id: "copa",
    color: "#a8251c",
    breaks: 1,
    // A goblet: its mouth, the bowl, a knot on the stem and the foot.
    mark: `<path d="M6.5 5.5 H25.5 Q25.5 16.5 16 18.5 Q6.5 16.5 6.5 5.5 Z" fill="#d23b2e" stroke="#6e140e" stroke-width="1"/>
      <ellipse cx="16" cy="5.6" rx="9.5" ry="2.2" fill="#f0a24b" stroke="#6e140e" stroke-width="0.9"/>
      <path d="M14.6 18.4 H17.4 L17 24.5 H15 Z" fill="#f0a24b" stroke="#6e140e" stroke-width="0.7"/>
      <circle cx="16" cy="21" r="1.6" fill="#d23b2e" stroke="#6e140e" stroke-width="0.6"/>
      <path d="M9.5 29.5 Q16 23 22.5 29.5 Z" fill="#d23b2e" stroke="#6e140e" stroke-width="0.9"/>`,
  },
};

/** The suit's name as an id ("espada"), or "back". */
export function suitId(card: Card | undefined): string {
  return card ? (SUITS[card.suit]?.id ?? "back") : "back";
}

/** An inline SVG of the suit's mark alone, e.g. for a label. */
export function suitMark(suit: Suit, size = 16): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 32 32");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("suit-mark");
  const id = SUITS[suit]?.id;
  svg.innerHTML = id ? use(id, 16, 16, 32) : "";
  return svg;
}

// Where the pips go on a face of 60×92 units (centres of 16×16 marks), by rank, as on a baraja española.
const PIPS: Readonly<Record<number, [number, number][]>> = {
  2: [[30, 28], [30, 64]],
  3: [[30, 22], [30, 46], [30, 70]],
  4: [[20, 28], [40, 28], [20, 64], [40, 64]],
  5: [[20, 24], [40, 24], [30, 46], [20, 68], [40, 68]],
  6: [[20, 22], [40, 22], [20, 46], [40, 46], [20, 70], [40, 70]],
  7: [[20, 20], [40, 20], [30, 33], [20, 46], [40, 46], [20, 70], [40, 70]],
};

/** The frame with the suit's breaks (pintas): gaps in the line along the top and bottom edges. */
function frame(breaks: number, color: string): string {
  const gaps = [15, 27, 39].slice(0, breaks);
  const top = segments(gaps).map(([a, b]) => `M${a} 6.5 H${b} M${a} 85.5 H${b}`).join(" ");
  return `<path d="M5 6.5 V85.5 M55 6.5 V85.5 ${top}" stroke="${color}" stroke-width="1.3" fill="none"/>`;
}

function segments(gaps: number[]): [number, number][] {
  const cuts = [5, ...gaps.flatMap((g) => [g, g + 6]), 55];
  const out: [number, number][] = [];
  for (let i = 0; i < cuts.length; i += 2) out.push([cuts[i], cuts[i + 1]]);
  return out;
}

function use(suit: string, x: number, y: number, size: number): string {
  return `<use href="#mark-${suit}" x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"/>`;
}

/** A figure (sota 10, caballo 11, rey 12): the suit's mark held in a framed panel, with a cap, a horse's head or
 * a crown above it. */
function figure(rank: number, suit: string, color: string): string {
  const head =
    rank === 12
      ? `<path d="M20 30 L22 20 L26 26 L30 17 L34 26 L38 20 L40 30 Z" fill="#e8b930" stroke="#7a5a12" stroke-width="0.9"/>`
      : rank === 11
        ? `<path d="M22 32 Q22 22 28 18 L31 14 L33 18 Q40 21 38 27 L34 26 Q33 30 36 32 Z" fill="#9a6a3a" stroke="#4a2a10" stroke-width="0.9"/>
           <circle cx="33.5" cy="21.5" r="0.9" fill="#222"/>`
        : `<path d="M22 30 Q30 16 38 30 Z" fill="${color}" stroke="#333" stroke-width="0.8"/>
           <circle cx="30" cy="20" r="2" fill="#e8b930" stroke="#7a5a12" stroke-width="0.6"/>`;
  return `<rect x="13" y="14" width="34" height="64" rx="4" fill="#f6ecd2" stroke="${color}" stroke-width="1"/>
    ${head}${use(suit, 30, 52, 24)}`;
}

function face(card: Card): string {
  const suit = SUITS[card.suit];
  if (!suit) return "";
  const center =
    card.rank >= 10 ? figure(card.rank, suit.id, suit.color) : card.rank === 1 ? use(suit.id, 30, 46, 36) : (PIPS[card.rank] ?? []).map(([x, y]) => use(suit.id, x, y, 16)).join("");
  const rank = String(card.rank);
  return `<rect x="1" y="1" width="58" height="90" rx="5" fill="#fffdf4" stroke="#b9ad90" stroke-width="1.2"/>
    ${frame(suit.breaks, suit.color)}
    <text x="8.5" y="17" class="index" fill="${suit.color}">${rank}</text>
    <text x="8.5" y="17" class="index" fill="${suit.color}" transform="rotate(180 30 46)">${rank}</text>
    ${center}`;
}

function back(): string {
  return `<rect x="1" y="1" width="58" height="90" rx="5" fill="#fffdf4" stroke="#b9ad90" stroke-width="1.2"/>
    <rect x="5" y="5" width="50" height="82" rx="3" fill="url(#lattice)"/>
    <ellipse cx="30" cy="46" rx="13" ry="17" fill="#fffdf4" stroke="#7d1d1d" stroke-width="1.4"/>
    <text x="30" y="53" class="monogram" fill="#7d1d1d">T</text>`;
}

/** Puts the suit marks and the back's pattern in the page once, for every card to use (one id each). */
export function installDeck(): void {
  if (document.getElementById("deck-sprite")) return;
  const sprite = document.createElementNS(SVG, "svg");
  sprite.id = "deck-sprite";
  sprite.setAttribute("aria-hidden", "true");
  sprite.setAttribute("style", "position:absolute;width:0;height:0;overflow:hidden");
  const marks = Object.values(SUITS).map((suit) => `<symbol id="mark-${suit.id}" viewBox="0 0 32 32">${suit.mark}</symbol>`);
  sprite.innerHTML = `<defs>${marks.join("")}
    <pattern id="lattice" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="8" height="8" fill="#7d1d1d"/><path d="M0 0 H8 M0 0 V8" stroke="#b8433a" stroke-width="1.6"/></pattern></defs>`;
  document.body.prepend(sprite);
}

/** A card drawn as an SVG of 60×92 units: its face, or its back when `card` is undefined. */
export function cardSvg(card: Card | undefined): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 60 92");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("card-art");
  svg.innerHTML = card ? face(card) : back();
  return svg;
}

/** The piezas of a muestra: its 2, 4, 5, 11 and 10; when the muestra is one of them, the 12 takes its place. */
export function piezas(muestra: Card | undefined): Card[] {
  if (!muestra) return [];
  return [2, 4, 5, 11, 10].map((rank) => ({ ...muestra, rank: rank === muestra.rank ? 12 : rank }));
}

export function isPieza(card: Card, muestra: Card | undefined): boolean {
  return piezas(muestra).some((p) => p.rank === card.rank && p.suit === card.suit);
}

/** The four matas (1 de espada, 1 de basto, 7 de espada, 7 de oro): the strongest cards after the piezas. */
export function isMata(card: Card, muestra: Card | undefined): boolean {
  if (isPieza(card, muestra)) return false;
  return (card.rank === 1 && (card.suit === Suit.ESPADA || card.suit === Suit.BASTO)) || (card.rank === 7 && (card.suit === Suit.ESPADA || card.suit === Suit.ORO));
}
