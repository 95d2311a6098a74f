"""Checking the fair deal: every card a client sees opens the commitment published before play.

When a hand is dealt, ``HandDealt.commitments`` (also ``HandView.commitments``) holds one commitment per deck
position: SHA-256, lowercase hex, of the ASCII text ``"{position}|{card}|{salt}"`` (the card in notation,
``7|1e|<salt>``). Each position has its own secret salt. A seat receives the ``CardProof``
of its own three cards (``SeatView.own_proofs``, ``HandDealt.own``); every other proof arrives when its card
becomes public (``HandDealt.muestra``, ``CardPlayed.proof``, ``HandEnded.proofs``, ``HandView.proofs``). A
card never shown keeps its salt secret, so its commitment can never be opened by anyone else.

>>> import hashlib
>>> salt = "00" * 16
>>> commitment = hashlib.sha256(f"7|1e|{salt}".encode()).hexdigest()
>>> verify(commitment, 7, "1e", salt)
True
>>> verify(commitment, 8, "1e", salt), verify(commitment, 7, "2e", salt)
(False, False)
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from .cards import CardLike, card, card_text
from .v1 import events_pb2

card_of = card


def commitment_of(position: int, value: CardLike, salt: str) -> str:
    """The commitment of ``card`` at deck ``position`` with ``salt``: SHA-256 of ``"{position}|{card}|{salt}"``."""
    return hashlib.sha256(f"{position}|{card_text(card_of(value))}|{salt}".encode("ascii")).hexdigest()


def verify(commitment: str, position: int, value: CardLike, salt: str) -> bool:
    """Whether ``card`` at ``position`` with ``salt`` opens ``commitment`` (the hand's ``commitments[position]``).

    ``value`` is a ``truco.v1.Card`` or its notation (``"1e"``). A malformed card is simply not a match.
    """
    try:
        expected = commitment_of(position, value, salt)
    except (ValueError, UnicodeEncodeError):
        return False
    return hmac.compare_digest(expected, commitment)


def verify_proof(commitments: Sequence[str], proof: events_pb2.CardProof) -> bool:
    """Whether ``proof`` (a ``CardProof`` message) opens its position's commitment among the hand's 40."""
    if not 0 <= proof.position < len(commitments):
        return False
    return verify(commitments[proof.position], proof.position, proof.card, proof.salt)
