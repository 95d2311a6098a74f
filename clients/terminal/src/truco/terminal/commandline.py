"""The command line of ``truco-terminal``, on the frame it shares with the server's ``truco``
(:mod:`truco.commandline`): what is its own is how a call the server refused or never answered reads in one line.

The server's ``truco`` adopts ``play`` and ``selfplay`` from here when this package is installed, and reports their
failures with :func:`explain_failure` too.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from truco.commandline import Failure, one_line

if TYPE_CHECKING:
    from truco_client import TrucoError

    from .voices import Voice

__all__ = ["Failure", "explain_failure", "refused"]


def explain_failure(error: BaseException) -> str | None:
    """The line for a :class:`Failure` or a call the server refused or never answered; None for anything else
    (a bug: its traceback is worth seeing)."""
    if isinstance(error, Failure):
        return one_line(str(error))
    truco_client = sys.modules.get("truco_client")  # no call was made unless the SDK was imported
    if truco_client is not None and isinstance(error, truco_client.TrucoError):
        return refused(error)
    return None


def refused(error: TrucoError, server: str = "", voice: Voice | None = None) -> str:
    """``No hay conexión con el servidor en localhost:1 (UNAVAILABLE: …)``, or ``El servidor no aceptó el pedido: …
    (SEAT_UNAVAILABLE)``, in ``voice``'s language (None: the locale's, :func:`~.voices.voice_for`)."""
    import grpc

    from .voices import voice_for

    says = voice or voice_for(None)
    where = says.notice("at", server=server) if server else ""
    if error.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) and not error.reason:
        return one_line(says.notice("unreachable", where=where, code=error.code.name, message=error.message))
    reason = error.reason or error.code.name
    return one_line(says.notice("refused", where=where, message=error.message, reason=reason))
