"""When a JoinGame may be sent again. A join's request id fetches its seat token again, so that a client whose
reply was lost (a dropped connection, a killed app) gets its seat back instead of losing it. Whoever knows the id
fetches the token, and the server cannot tell a random id from a guessable one that looks random: so a join is
repeated only to recover a token never received. Once the seat has been used (a call or a watch with its token,
the proof that its holder has it) or :data:`JOIN_RETRY_SECONDS` after the join, the id fetches nothing more.
"""

from __future__ import annotations

from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.store.records import SeatRecord

JOIN_RETRY_SECONDS = 600
"""How long after a join its request id still fetches the token (while the seat has not been used): longer than
any client's retries and an app's restart after being killed in the background."""


def check_join_retry(seat: SeatRecord, player: str, seen_here_us: int, now_us: int) -> None:
    """Refuse a repeated join (``seat`` as the store keeps it, taken before this call, by the caller's verified
    ``player``, "" for none). A seat taken for a player is that player's: its own retries always get the token
    back (a quick match's stream reopened), anyone else's never. An anonymous seat's id is refused once the seat
    was used: seen by the store's sightings or by this process (``seen_here_us``, 0 when not), or after the
    retry window.

    :raises ServiceFailure: JOIN_NOT_REPEATABLE.
    """
    if seat.player:
        if player != seat.player:
            raise ServiceFailure(
                ServiceReason.JOIN_NOT_REPEATABLE,
                "the seat this request id took belongs to another player: only that player's token fetches it",
            )
        return
    if max(seat.seen_us, seen_here_us) > seat.joined_us:
        raise ServiceFailure(
            ServiceReason.JOIN_NOT_REPEATABLE,
            "the seat this request id took has been used since: a join is repeated only to recover a token never "
            "received, and the player who used it holds the seat",
        )
    if now_us - seat.joined_us > JOIN_RETRY_SECONDS * 1_000_000:
        raise ServiceFailure(
            ServiceReason.JOIN_NOT_REPEATABLE,
            f"this request id took its seat more than {JOIN_RETRY_SECONDS // 60} minutes ago: it fetches the "
            "token no more",
        )


__all__ = ["JOIN_RETRY_SECONDS", "check_join_retry"]
