"""Dealing from a recorded deck order, and the per-card fair-dealing commitment.

The engine never shuffles: the caller brings the deck order (from a cryptographically secure source) and a
secret in a ``Deal`` command, and both are recorded in the ``HandDealt`` event, so replays need no random
source. Each deck position ``k`` gets its own salt, ``card_salt(secret, k)`` (keyed BLAKE2b: one position's
salt tells nothing about another's), and its own commitment, ``card_commitment(k, card, salt)``. Every seat
receives the 40 commitments when the hand is dealt and, privately, the :class:`CardProof` of its own three
cards; a card's proof becomes public when the card does (the muestra at once, a card when played, a hand
when the rules show it). Cards never shown keep their salt secret for ever. Anyone checks a proof with
:func:`verify`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from ._inits import CardProofInit, DealProofsInit
from .cards import DECK, Card

SALT_HEX_LENGTH: Final = 32
"""A salt is 16 random bytes written as 32 lowercase hex digits."""
_SALT: Final = re.compile(f"[0-9a-f]{{{SALT_HEX_LENGTH}}}")


def commitment(order: Sequence[Card], salt: str) -> str:
    """The whole-deck commitment of schema-1 deals (SHA-256 of the salt, ":" and the 40 cards joined by
    spaces). Kept to read old records; new deals use the per-card :func:`card_commitment`.

    >>> len(commitment(DECK, "00" * 16))
    64
    """
    text = salt + ":" + " ".join([card._text for card in order])
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(init=False, frozen=True, slots=True)
class CardProof(CardProofInit):
    """What opens one deck position's commitment: its position (0 to 39), its card and its salt."""

    position: int
    card: Card
    salt: str


def card_salt(secret: str, position: int) -> str:
    """The salt of deck position ``position``: keyed BLAKE2b-128 of the position (decimal ASCII) under the
    deal's 16-byte ``secret``, in hex. A pseudorandom function: salts of other positions stay unpredictable.

    >>> card_salt("00" * 16, 0) != card_salt("00" * 16, 1)
    True
    """
    return _card_salt(secret, position)


def _card_salt(secret: str, position: int) -> str:
    salts = _deal_salts(secret)
    if position < len(salts):
        return salts[position]
    return _salt(bytes.fromhex(secret), position)


@lru_cache(maxsize=512)
def _deal_salts(secret: str) -> tuple[str, ...]:
    """The salts of every deck position of a deal, computed together (once per deal, then cached): every deal
    shown to a seat needs all 40 for its commitments."""
    key = bytes.fromhex(secret)
    return tuple(_salt(key, position) for position in range(len(DECK)))


def _salt(key: bytes, position: int) -> str:
    return hashlib.blake2b(str(position).encode("ascii"), key=key, digest_size=16).hexdigest()


def card_commitment(position: int, card: Card, salt: str) -> str:
    """SHA-256, in lowercase hex, of ``"{position}|{card}|{salt}"`` in ASCII (card in notation, e.g. ``7|1e|…``).

    >>> card_commitment(0, DECK[0], "00" * 16) == hashlib.sha256(b"0|1e|" + b"0" * 32).hexdigest()
    True
    """
    return hashlib.sha256(f"{position}|{card}|{salt}".encode("ascii")).hexdigest()


def verify(commitment: str, proof: CardProof) -> bool:
    """Whether ``proof`` opens ``commitment`` (the commitment published for ``proof.position``)."""
    return card_commitment(proof.position, proof.card, proof.salt) == commitment


def deal_commitments(order: tuple[Card, ...], secret: str) -> tuple[str, ...]:
    """The 40 per-position commitments of a deal, in deck order."""
    return deal_proofs(order, secret).commitments


def deal_digest(commitments: Sequence[str]) -> str:
    """One short fingerprint of a deal: SHA-256 of its 40 commitments joined by single spaces."""
    return hashlib.sha256(" ".join(commitments).encode("ascii")).hexdigest()


def dealt_digest(order: tuple[Card, ...], secret: str) -> str:
    """:func:`deal_digest` of the deal's :func:`deal_commitments`: every view of the hand shows it."""
    return deal_proofs(order, secret).digest


@dataclass(init=False, frozen=True, slots=True)
class DealProofs(DealProofsInit):
    """What a deal's views publish or prove, derived from its secret once: every position's salt (secret itself:
    a viewer gets the salt of a card it may see, inside that card's proof), every position's commitment, and
    their digest."""

    salts: tuple[str, ...]
    commitments: tuple[str, ...]
    digest: str

    def proof(self, order: Sequence[Card], position: int) -> CardProof:
        """The proof of deck position ``position`` of the deal whose order is ``order``."""
        return CardProof(position, order[position], self.salts[position])


@lru_cache(maxsize=512)
def deal_proofs(order: tuple[Card, ...], secret: str) -> DealProofs:
    """The :class:`DealProofs` of a deal. Cached for the deals seen last (its ``HandDealt`` event goes to every
    audience of a commit); a hand's views keep theirs on the hand's state for the rest of its life
    (``HandState.proofs``), since a server plays more deals at once than any cache of recent ones holds."""
    salts = _deal_salts(secret)
    positions = enumerate(zip(order, salts, strict=False))
    commitments = tuple(card_commitment(k, card, salt) for k, (card, salt) in positions)
    return DealProofs(salts, commitments, deal_digest(commitments))


def card_proof(order: Sequence[Card], secret: str, position: int) -> CardProof:
    """The proof of deck position ``position``: give it only to those who may see that card."""
    return CardProof(position, order[position], _card_salt(secret, position))


def deck_problem(order: Sequence[Card]) -> str | None:
    """Why ``order`` is not a deck order (None when it is all 40 cards, each once)."""
    if len(order) != len(DECK):
        return f"a deck order has {len(DECK)} cards, not {len(order)}"
    if set(map(type, order)) != {Card} or len(set(order)) != len(DECK):  # cards hash by identity: C-speed
        return "a deck order holds every card exactly once"
    return None


def salt_problem(salt: str) -> str | None:
    """Why ``salt`` is not a salt (None when it is 32 lowercase hex digits)."""
    if not isinstance(salt, str) or _SALT.fullmatch(salt) is None:
        return f"a salt is {SALT_HEX_LENGTH} lowercase hex digits"
    return None


def deal_hands(order: Sequence[Card], players: int) -> tuple[tuple[tuple[Card, ...], ...], Card]:
    """Deal three cards each, one at a time, starting with the mano; then turn up the muestra.

    Position ``k`` of ``order`` goes to the ``k % players``-th player from the mano, for the first
    ``3 * players`` cards; the next card is the muestra.
    """
    dealt = 3 * players
    hands = tuple([tuple(order[p:dealt:players]) for p in range(players)])
    return hands, order[dealt]


def order_for_hands(hands: Sequence[Sequence[Card]], muestra: Card, rest: Sequence[Card] = ()) -> tuple[Card, ...]:
    """The deck order that deals ``hands`` (from the mano) and ``muestra``; the other cards follow, first
    those of ``rest`` in its order and then the remaining ones in deck order. For scripted deals in tests."""
    players = len(hands)
    front: list[Card] = [hands[k % players][k // players] for k in range(3 * players)] + [muestra]
    used = set(front)
    tail = [card for card in rest if card not in used]
    used.update(tail)
    tail += [card for card in DECK if card not in used]
    return tuple(front + tail)
