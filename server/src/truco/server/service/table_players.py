"""The web table's players, as the web door serves them: ``POST /table/player-token`` with a JSON body
``{"name": "<display name>", "credential": "<kept credential>"}`` (both optional), answered with the JSON of
:func:`reply_json`. No RPC of the contract: the door calls one of two :class:`~truco.server.service.pipeline.Method`
s of a service of its own (``truco.web.Table``) through the one pipeline, so the call is observed (metrics, a log
line without token or credential), admitted (the caller's call rate; a *new* player also the per-address
``table_players_per_minute``) and its failure reported as any call's is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from google.protobuf.struct_pb2 import Struct

from truco.server.core.table_players import Minted, TablePlayers
from truco.server.limits.admission import NEW_TABLE_PLAYER
from truco.server.service.pipeline import Call, Malformed, Method

TABLE_SERVICE = "truco.web.Table"
"""The name the table's calls are counted and logged under (no service of the contract)."""
RENEW_TABLE_PLAYER = "RenewTablePlayer"
MAX_BODY_BYTES = 4096
_FIELDS = frozenset({"name", "credential"})


@dataclass(frozen=True, slots=True)
class TableRequest:
    """What a browser asks for: a display name, and the credential it keeps (None: a new player). The fields are
    not called ``name`` or ``request_id``, which the call's log line would show (``pipeline.request_fields``)."""

    display_name: str
    credential: str | None


def read_request(body: bytes) -> TableRequest | Malformed:
    """The request a body holds, or what is wrong with it (the pipeline refuses it: MALFORMED_REQUEST)."""
    if len(body) > MAX_BODY_BYTES:
        return Malformed(f"a body of at most {MAX_BODY_BYTES} bytes")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return Malformed('a JSON object: {"name": ..., "credential": ...}')
    if not isinstance(data, dict) or not set(data) <= _FIELDS:
        return Malformed('a JSON object of "name" and "credential" only')
    name, credential = data.get("name", ""), data.get("credential")
    if not isinstance(name, str) or not (credential is None or isinstance(credential, str)):
        return Malformed('"name" and "credential" are strings')
    return TableRequest(name, credential or None)


def reply_json(minted: Minted) -> bytes:
    """``{"token", "expiresAt", "credential", "player", "name"}``: the player token (send it as
    ``x-player-token``), its ``exp``, the credential to keep for the next mint, the player (``players/<id>``) and
    its display name."""
    answer = {
        "token": minted.token,
        "expiresAt": minted.expires_at,
        "credential": minted.credential,
        "player": minted.player.name,
        "name": minted.player.display_name,
    }
    return json.dumps(answer, ensure_ascii=False).encode()


class TableService:
    """The two methods of the table's players: a new player, and the next token of a known one."""

    def __init__(self, players: TablePlayers) -> None:
        self.players = players
        self.new = Method(TABLE_SERVICE, NEW_TABLE_PLAYER, False, Struct, Struct, self._mint)
        self.renew = Method(TABLE_SERVICE, RENEW_TABLE_PLAYER, False, Struct, Struct, self._mint)

    def method_for(self, request: TableRequest | Malformed) -> Method:
        """The method a request calls: a new player without a credential, else the player's next token."""
        return self.renew if isinstance(request, TableRequest) and request.credential else self.new

    async def _mint(self, request: TableRequest, _: Call) -> bytes:
        return reply_json(await self.players.mint(request.display_name, request.credential))


__all__ = ["MAX_BODY_BYTES", "TABLE_SERVICE", "TableRequest", "TableService", "read_request", "reply_json"]
