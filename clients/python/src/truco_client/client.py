"""An asyncio client of the Truco service: GameService and RulesService over one grpc.aio channel.

::

    async with TrucoClient("localhost:50051") as client:
        game = await client.create_game(rules={"players": 2}, bots={1: "heuristic"})
        seat, token, view = await client.join_game(game.name)     # the client now plays that seat
        await client.submit(game.name, play(card_text(view.cards[0])), expected_version=view.public.version)

One client plays one seat: :meth:`TrucoClient.join_game` remembers the seat token and sends it, as
``authorization: Bearer <token>``, on every later seat call (view, legal actions, submit, watch). A client
built with ``token=`` starts as that seat; :meth:`TrucoClient.with_token` gives another seat's client on the
same channel. Without a token the client is a spectator.

Every call about one game (all but CreateGame, ListGames and the rules calculator) names it in the metadata
``x-truco-game: games/{id}`` (:data:`GAME_HEADER`): a load balancer that hashes it keeps a game's calls on one
replica, which then answers from memory.

Reads (views, legal actions) send the newest version of the game the client has seen as ``min_version``: the
answer is never older than that, even from another replica than the one that took the client's move, and a
replica that already holds it answers from memory.

Every call has a deadline (``timeout`` seconds). Failures are retried as errors.proto's retry policy says
(:func:`~truco_client.errors.is_retried`: UNAVAILABLE, DEADLINE_EXCEEDED, a CANCELLED the caller did not ask for,
and a proxy's stream reset), up to ``retries`` times with exponential backoff and jitter; a retried write sends
the same request id. A call refused by a quota (RESOURCE_EXHAUSTED with a google.rpc.RetryInfo) is sent again,
the same request, after the delay the server asked for, when that delay is at most ``max_quota_wait`` seconds
(and within the same ``retries``). Failures raise the typed errors of :mod:`truco_client.errors`.

Every RPC of the service has one method here (:data:`WRAPPERS`), plus the helpers every SDK has: a turn helper
(:meth:`TrucoClient.play_turn`, :func:`~truco_client.commands.is_my_turn`), watches that resume, legal-action
pickers (:mod:`truco_client.commands`), proof checks (:mod:`truco_client.proofs`) and the versions seen.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import aclosing
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

import grpc
import grpc.aio

from .cards import CardLike, card, parse_cards
from .commands import plain_bot
from .commits import commit_events, commit_version, per_event
from .errors import ResourceExhausted, TrucoError, VersionConflict, from_rpc_error, is_retried
from .sessions import PlaySession
from .v1 import (
    game_service_pb2,
    game_service_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    rules_pb2,
    rules_service_pb2,
    rules_service_pb2_grpc,
    views_pb2,
)
from .v1.commands_pb2 import Command
from .versions import VersionsSeen

Game = game_service_pb2.Game
SeatView = views_pb2.SeatView
RuleSet = rules_pb2.RuleSet

T = TypeVar("T")

BOT_KINDS: dict[str, game_service_pb2.BotKind] = {
    "random": game_service_pb2.BOT_KIND_RANDOM,
    "heuristic": game_service_pb2.BOT_KIND_HEURISTIC,
}
"""The server's bots by name, for ``create_game(bots={seat: name})``."""

BOT_LEVELS: dict[str, game_service_pb2.BotLevel] = {
    "beginner": game_service_pb2.BOT_LEVEL_BEGINNER,
    "intermediate": game_service_pb2.BOT_LEVEL_INTERMEDIATE,
    "expert": game_service_pb2.BOT_LEVEL_EXPERT,
}
"""The server bots' playing strengths by name, for ``create_game(bot_level=...)``."""

WRAPPERS: dict[str, str] = {
    "truco.v1.GameService/CreateGame": "create_game",
    "truco.v1.GameService/JoinGame": "join_game",
    "truco.v1.GameService/GetGameView": "get_view",
    "truco.v1.GameService/ListLegalActions": "legal_actions",
    "truco.v1.GameService/SubmitCommand": "submit",
    "truco.v1.GameService/WatchGame": "watch",
    "truco.v1.GameService/ListGames": "list_games",
    "truco.v1.GameService/GetGame": "get_game",
    "truco.v1.GameService/LeaveGame": "leave_game",
    "truco.v1.GameService/ResumeSeat": "resume_seat",
    "truco.v1.GameService/Rematch": "rematch",
    "truco.v1.GameService/PlayGame": "play",
    "truco.v1.GameService/StartWithBots": "start_with_bots",
    "truco.v1.RulesService/EvaluateHand": "evaluate_hand",
    "truco.v1.RulesService/CompareCards": "compare_cards",
    "truco.v1.PlayerService/FindMatch": "find_match",
    "truco.v1.PlayerService/CancelMatch": "cancel_match",
    "truco.v1.PlayerService/GetPlayer": "get_player",
    "truco.v1.PlayerService/ListLeaderboard": "list_leaderboard",
    "truco.v1.PlayerService/ListPlayerMatches": "list_player_matches",
}
"""The :class:`TrucoClient` method that wraps each RPC of the service (tests check none is missing)."""

PLAYER_TOKEN_HEADER = "x-player-token"
"""The metadata key of a player token: a short-lived JWT an app's backend signs for one of its players."""

GAME_HEADER = "x-truco-game"
"""The metadata key naming the game a call is about (``games/{id}``), for load balancers' game affinity."""

MAX_QUOTA_WAIT = 10.0
"""The longest RetryInfo delay a client waits out by itself (seconds); a longer one is raised at once."""


class Turn(NamedTuple):
    """What :meth:`TrucoClient.play_turn` did.

    :ivar command: the command sent.
    :ivar response: the server's reply: the version after it (and any bot moves) and the seat's view.
    :ivar conflicts: how many times the game had moved on (ABORTED) and the view was read again first.
    """

    command: Command
    response: game_service_pb2.SubmitCommandResponse
    conflicts: int


class JoinResult(NamedTuple):
    """A seat taken with :meth:`TrucoClient.join_game`.

    :ivar seat: the seat (0 .. players-1).
    :ivar token: the seat token; the server cannot show it again.
    :ivar view: the seat's view right after joining.
    """

    seat: int
    token: str
    view: views_pb2.SeatView


def game_name(name: str) -> str:
    """The resource name ``games/{game}``, from it or from the bare id."""
    return name if name.startswith("games/") else f"games/{name}"


def new_request_id() -> str:
    """A fresh request id: 192 random bits in 32 URL-safe characters (a JoinGame request id needs 128 bits at
    least, more than a UUID4's 122)."""
    return secrets.token_urlsafe(24)


class QuickMatch(NamedTuple):
    """A quick match found: the game, this player's seat in it and its seat token."""

    game: str
    seat: int
    token: str
    ticket: players_pb2.MatchTicket


class TrucoClient:
    """A client of the Truco service on one grpc.aio channel, opened on first use, closed by ``close()``.

    :param target: the server address, ``host:port``.
    :param token: a seat token to act as that seat (``None``: a spectator until :meth:`join_game`).
    :param api_key: the app's API key (from ``truco keys create``), sent as ``x-api-key`` metadata on every call;
        a server started with ``--require-api-key`` needs it for CreateGame and JoinGame, and its quotas are
        then counted per key instead of per address.
    :param player_token: a player token (a JWT the app's backend signed for this player), sent as
        ``x-player-token`` on every call: seats joined belong to the player, its calls count on its own quota,
        and the PlayerService calls (quick match, ratings) know who it is. An app's client needs no API key
        beside it.
    :param timeout: the deadline of each attempt of a call, in seconds.
    :param retries: how many times a retryable failure is retried (so at most ``retries + 1`` attempts).
    :param backoff: the first retry's delay, in seconds; each later one doubles, up to ``max_backoff``, and
        each is jittered (between half and the whole of it).
    :param max_quota_wait: a call refused by a quota is sent again after the server's RetryInfo delay when that
        delay is at most this many seconds (a longer one raises :class:`ResourceExhausted` at once).
    :param credentials: channel credentials for TLS; ``None`` for a plaintext channel.
    :param options: grpc channel options, e.g. ``[("grpc.use_local_subchannel_pool", 1)]`` so that two clients
        to the same target do not share a connection.
    """

    def __init__(
        self,
        target: str,
        *,
        token: str | None = None,
        api_key: str | None = None,
        player_token: str | None = None,
        timeout: float = 10.0,
        retries: int = 4,
        backoff: float = 0.1,
        max_backoff: float = 3.0,
        max_quota_wait: float = MAX_QUOTA_WAIT,
        credentials: grpc.ChannelCredentials | None = None,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        self.target = target
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_quota_wait = max_quota_wait
        self._token = token
        self._api_key = api_key
        self._player_token = player_token
        self._credentials = credentials
        self._options = tuple(options)
        self._channel: grpc.aio.Channel | None = None
        self._owns_channel = True
        self._games: Any = None
        self._rules: Any = None
        self._players: Any = None
        self._seen = VersionsSeen()

    # --- Lifecycle -------------------------------------------------------------------------------------------

    async def __aenter__(self) -> TrucoClient:
        self._open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (a client from :meth:`with_token` leaves its parent's channel open)."""
        channel, self._channel = self._channel, None
        self._games = self._rules = self._players = None
        if channel is not None and self._owns_channel:
            await channel.close()

    @property
    def token(self) -> str | None:
        """The seat token sent with seat calls, if any."""
        return self._token

    def with_token(self, token: str | None) -> TrucoClient:
        """Another client on this client's channel that acts as the seat of ``token``. Closing it keeps the channel."""
        other = TrucoClient(
            self.target, token=token, api_key=self._api_key, player_token=self._player_token,
            timeout=self.timeout, retries=self.retries,
            backoff=self.backoff, max_backoff=self.max_backoff, max_quota_wait=self.max_quota_wait,
        )
        other._channel = self._open()
        other._owns_channel = False
        other._seen = self._seen  # what either saw, neither reads older than
        return other

    def _open(self) -> grpc.aio.Channel:
        if self._channel is None:
            if self._credentials is None:
                self._channel = grpc.aio.insecure_channel(self.target, options=self._options)
            else:
                self._channel = grpc.aio.secure_channel(self.target, self._credentials, options=self._options)
        if self._games is None:
            self._games = game_service_pb2_grpc.GameServiceStub(self._channel)
            self._rules = rules_service_pb2_grpc.RulesServiceStub(self._channel)
            self._players = players_pb2_grpc.PlayerServiceStub(self._channel)
        return self._channel

    def _stubs(self) -> tuple[Any, Any]:
        self._open()
        return self._games, self._rules

    def _metadata(self, authed: bool, game: str = "") -> tuple[tuple[str, str], ...]:
        """The call's metadata: the API key, the game it is about (``game``, a resource name) and, for a seat's
        call (``authed``), the seat token."""
        metadata: list[tuple[str, str]] = [("x-api-key", self._api_key)] if self._api_key else []
        if self._player_token:
            metadata.append((PLAYER_TOKEN_HEADER, self._player_token))
        if game:
            metadata.append((GAME_HEADER, game))
        if authed and self._token:
            metadata.append(("authorization", f"Bearer {self._token}"))
        return tuple(metadata)

    # --- Retries ---------------------------------------------------------------------------------------------

    def _delay(self, attempt: int) -> float:
        ceiling = min(self.max_backoff, self.backoff * 2.0**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _quota_wait(self, error: TrucoError) -> float | None:
        """How long to wait before sending a call a quota refused again; None: do not (no RetryInfo, or longer
        than ``max_quota_wait``)."""
        if not isinstance(error, ResourceExhausted) or error.retry_delay is None:
            return None
        return error.retry_delay if error.retry_delay <= self.max_quota_wait else None

    def _resume_wait(self, error: grpc.aio.AioRpcError, failures: int) -> tuple[TrucoError, float | None]:
        """A broken stream's typed error, and how long to wait before opening it again: its quota's RetryInfo
        delay, or the backoff after ``failures`` failures in a row; None when it must not be reopened (an answer
        of the service's, not a cut, or its retries spent).

        A stream is cut, not answered, by what errors.proto's retry policy sends again (:func:`is_retried`): a
        replica that went away (UNAVAILABLE), one shutting down that cancels what it cannot finish, or a proxy in
        front (nginx) whose replica died: it resets the stream (INTERNAL "RST_STREAM") or ends it with no status
        (UNKNOWN "Stream removed"), neither carrying the service's ErrorInfo. The same request (same request id)
        is then safe to send again, as the other SDKs do. But not DEADLINE_EXCEEDED: a stream's only deadline
        is the caller's ``timeout``, and reopening it with a fresh one would never let it end."""
        failure = from_rpc_error(error)
        quota_wait = self._quota_wait(failure)
        cut = is_retried(failure) and failure.code is not grpc.StatusCode.DEADLINE_EXCEEDED
        if (not cut and quota_wait is None) or failures >= self.retries:
            return failure, None
        return failure, quota_wait if quota_wait is not None else self._delay(failures)

    async def _unary(
        self, method: Callable[..., Awaitable[T]], request: object, *, authed: bool, game: str = ""
    ) -> T:
        """Call ``method`` with the deadline, retried as errors.proto's retry policy says (:func:`is_retried`;
        every call here is safe to send again: reads, and writes that carry a request id), and a quota's refusal
        after the delay its RetryInfo asks for."""
        attempt = 0
        while True:
            try:
                return await method(request, timeout=self.timeout, metadata=self._metadata(authed, game))
            except grpc.aio.AioRpcError as error:
                failure = from_rpc_error(error)
                quota_wait = self._quota_wait(failure)
                retryable = quota_wait is not None or is_retried(failure)
                if not retryable or attempt >= self.retries:
                    raise failure from error
            await asyncio.sleep(quota_wait if quota_wait is not None else self._delay(attempt))
            attempt += 1

    # --- GameService -----------------------------------------------------------------------------------------

    async def create_game(
        self,
        rules: rules_pb2.RuleSet | Mapping[str, Any] | None = None,
        bots: Mapping[int, str | int] | None = None,
        fixed_deals: Iterable[game_service_pb2.FixedDeal] = (),
        request_id: str | None = None,
        *,
        public: bool = False,
        clock: game_service_pb2.ClockSettings | None = None,
        bot_level: str | int | None = None,
    ) -> game_service_pb2.Game:
        """Create a match; the seats in ``bots`` (seat -> ``"random"`` or ``"heuristic"``) are the server's.

        :param rules: a ``RuleSet`` or its fields as a mapping (``{"players": 4, "target": 30}``); unset
            fields take the defaults.
        :param fixed_deals: scripted first deals (see :func:`truco_client.fixed_deal`); a server accepts them
            only when started with ``--allow-fixed-deals``.
        :param request_id: the idempotency key (a fresh random id by default): the same id returns the same game.
        :param public: list the game to every caller in ListGames, not only to this client's API key.
        :param clock: turn clocks (see :func:`truco_client.clock_settings`); None takes the server's default,
            ``clock_settings(0)`` asks for none.
        :param bot_level: the playing strength of every bot seat (``"beginner"``, ``"intermediate"``,
            ``"expert"`` or a ``BotLevel``); when set it chooses the bot and the kinds in ``bots`` are ignored.
        :raises InvalidArgument: for impossible rules or an unknown bot.
        :raises ResourceExhausted: past a quota (reason QUOTA_EXCEEDED; its metadata says which and when to retry).
        """
        if rules is None:
            rule_set = rules_pb2.RuleSet()
        elif isinstance(rules, rules_pb2.RuleSet):
            rule_set = rules
        else:
            rule_set = rules_pb2.RuleSet(**rules)
        request = game_service_pb2.CreateGameRequest(
            request_id=request_id or new_request_id(),
            rules=rule_set,
            bots=[
                game_service_pb2.BotSeat(seat=seat, kind=_bot_kind(kind), level=_bot_level(bot_level))
                for seat, kind in (bots or {}).items()
            ],
            fixed_deals=list(fixed_deals),
            public=public,
        )
        if clock is not None:
            request.clock.CopyFrom(clock)
        games, _ = self._stubs()
        response: game_service_pb2.CreateGameResponse = await self._unary(
            games.CreateGame, request, authed=False
        )
        self._seen.saw(response.game.name, response.game.version)
        return response.game

    async def join_game(
        self, name: str, seat: int | None = None, player_name: str = "", *, request_id: str | None = None
    ) -> JoinResult:
        """Take a seat (the first open one when ``seat`` is None); this client then acts as that seat.

        :raises NotFound: for an unknown game.
        :raises IllegalMove: SEAT_UNAVAILABLE when the seat is not open.
        """
        request = game_service_pb2.JoinGameRequest(
            name=game_name(name), request_id=request_id or new_request_id(), player_name=player_name
        )
        if seat is not None:
            request.seat = seat
        games, _ = self._stubs()
        response: game_service_pb2.JoinGameResponse = await self._unary(
            games.JoinGame, request, authed=False, game=request.name
        )
        self._token = response.seat_token
        self._seen.saw(request.name, response.view.public.version)
        return JoinResult(response.seat, response.seat_token, response.view)

    async def get_view(self, name: str) -> game_service_pb2.GetGameViewResponse:
        """The caller's view: ``.seat`` (its seat view, unset for a spectator) and ``.public``.

        Never older than the newest version of the game this client has seen (sent as ``min_version``).
        """
        games, _ = self._stubs()
        name = game_name(name)
        request = game_service_pb2.GetGameViewRequest(name=name, min_version=self._seen.of(name))
        response: game_service_pb2.GetGameViewResponse = await self._unary(
            games.GetGameView, request, authed=True, game=request.name
        )
        self._seen.saw(name, response.public.version)
        return response

    async def legal_actions(self, name: str) -> game_service_pb2.ListLegalActionsResponse:
        """Exactly the commands the server would accept from this client's seat now (``.actions``, ``.version``).

        Never older than the newest version of the game this client has seen (sent as ``min_version``).
        """
        games, _ = self._stubs()
        name = game_name(name)
        request = game_service_pb2.ListLegalActionsRequest(name=name, min_version=self._seen.of(name))
        response: game_service_pb2.ListLegalActionsResponse = await self._unary(
            games.ListLegalActions, request, authed=True, game=request.name
        )
        self._seen.saw(name, response.version)
        return response

    async def submit(
        self, name: str, command: Command, expected_version: int = 0, request_id: str | None = None
    ) -> game_service_pb2.SubmitCommandResponse:
        """Submit a command for this client's seat; the reply comes once the move is stored.

        :param expected_version: the version the command was chosen at (0 skips the check).
        :param request_id: the idempotency key, a fresh random id by default; every retry sends the same one.
        :raises IllegalMove: when the rules refuse the command (``reason`` says why: NOT_YOUR_TURN...).
        :raises VersionConflict: when the game moved past ``expected_version`` (its version then counts as seen).
        :raises Unauthenticated: without a seat token.
        """
        games, _ = self._stubs()
        request = game_service_pb2.SubmitCommandRequest(
            name=game_name(name),
            request_id=request_id or new_request_id(),
            expected_version=expected_version,
            command=command,
        )
        try:
            response: game_service_pb2.SubmitCommandResponse = await self._unary(
                games.SubmitCommand, request, authed=True, game=request.name
            )
        except VersionConflict as conflict:
            # It tells the game's current version: the read that follows must not answer older.
            if conflict.metadata.get("version", "").isdigit():
                self._seen.saw(request.name, int(conflict.metadata["version"]))
            raise
        self._seen.saw(request.name, response.version)
        return response

    async def play_turn(
        self,
        name: str,
        choose: Callable[[views_pb2.SeatView], Command | None] = plain_bot,
        *,
        view: views_pb2.SeatView | None = None,
        attempts: int = 10,
    ) -> Turn | None:
        """Choose and submit one command for this seat, at the version it was chosen at. When the game moved on
        first (ABORTED) the view is read again and ``choose`` asked again, up to ``attempts`` times.

        :param choose: picks one of the view's legal actions (:func:`~truco_client.commands.plain_bot` by
            default; :func:`~truco_client.commands.pick_action` with other preferences), or None to pass.
        :returns: what was sent and the reply; None when ``choose`` chose nothing (not this seat's turn, the
            match over).
        """
        current = view if view is not None else (await self.get_view(name)).seat
        conflicts = 0
        while True:
            command = choose(current)
            if command is None:
                return None
            try:
                response = await self.submit(name, command, expected_version=current.public.version)
                return Turn(command, response, conflicts)
            except VersionConflict:
                conflicts += 1
                if conflicts >= attempts:
                    raise
            current = (await self.get_view(name)).seat

    async def watch(
        self,
        name: str,
        after_version: int = 0,
        *,
        timeout: float | None = None,
        on_resume: Callable[[int, TrucoError], None] | None = None,
    ) -> AsyncGenerator[game_service_pb2.WatchGameResponse, None]:
        """Each new event of the game, in order, from ``after_version`` on: one ``WatchGameResponse`` per event.

        The stream underneath is :meth:`watch_commits` (one message per commit): the caller's views after a
        commit go with its last event (``.seat`` for a seat, ``.public`` for anyone); its earlier events carry
        no view (``item.HasField("seat")`` is false). Act on the items that carry a view.

        When the stream breaks with UNAVAILABLE (a restart, a dropped connection), is cancelled by a replica
        shutting down (CANCELLED) or is cut by a proxy whose replica went away (INTERNAL or UNKNOWN without the
        service's ErrorInfo: a reset, or an end with no status), it is opened again, wherever the proxy sends
        it, after the last version received, up to ``retries`` times in a row with backoff (the count starts
        again at each message received); a stream a quota refused (too many watches) is opened again after its
        RetryInfo delay. The iterator ends when the server ends the stream: right after the event that ends the
        match.

        The stream has no deadline unless ``timeout`` is given (a watch waits for moves as long as the match
        lasts). Close it early with ``contextlib.aclosing`` or ``await iterator.aclose()``.

        :param on_resume: called each time a broken stream is reopened, with the version it resumes after and
            the error that broke it.
        :raises NotFound: for an unknown game.
        """
        commits = self.watch_commits(name, after_version, timeout=timeout, on_resume=on_resume)
        async with aclosing(commits):
            async for commit in commits:
                for item in per_event(commit):
                    yield item

    async def watch_commits(
        self,
        name: str,
        after_version: int = 0,
        *,
        timeout: float | None = None,
        on_resume: Callable[[int, TrucoError], None] | None = None,
    ) -> AsyncGenerator[game_service_pb2.WatchGameResponse, None]:
        """Each new commit of the game as one message (WatchGame with ``per_commit``), from ``after_version`` on:
        a move with the bot moves and the deal it triggered arrives as one ``WatchGameResponse`` whose
        ``.events`` are all of them, in order, each with its version, and whose view is the caller's after the
        last one (``.seat`` for a seat, ``.public`` for a spectator). The first message holds every event after
        ``after_version``, which may be in the middle of a commit. :func:`~truco_client.commit_events` reads a
        message's events (also from a server older than ``per_commit``, which sends one event per message).

        It resumes and ends as :meth:`watch` does (which is this stream, one event at a time).
        """
        games, _ = self._stubs()
        name = game_name(name)
        last = after_version
        failures = 0
        while True:
            request = game_service_pb2.WatchGameRequest(name=name, after_version=last, per_commit=True)
            call = games.WatchGame(request, timeout=timeout, metadata=self._metadata(True, name))
            try:
                async for response in call:
                    failures = 0
                    events = commit_events(response)
                    last = max(last, events[-1].version if events else 0)
                    self._seen.saw(name, commit_version(response))
                    yield response
                return
            except grpc.aio.AioRpcError as error:
                failure, wait = self._resume_wait(error, failures)
                if wait is None:
                    raise failure from error
                if on_resume is not None:
                    on_resume(last, failure)
            finally:
                call.cancel()
            await asyncio.sleep(wait)
            failures += 1

    def play(
        self,
        name: str,
        after_version: int = 0,
        *,
        on_resume: Callable[[int, TrucoError], None] | None = None,
    ) -> PlaySession:
        """This seat's match on one PlayGame stream: :meth:`PlaySession.submit
        <truco_client.sessions.PlaySession.submit>` sends commands, :meth:`PlaySession.commits
        <truco_client.sessions.PlaySession.commits>` hands the commits after ``after_version``, in order, as
        :meth:`watch_commits` does, and a broken stream resumes as a watch does (``on_resume``), sending again
        the commands whose outcome had not arrived. Use it as ``async with client.play(name) as session:``.
        The pair of :meth:`submit` and :meth:`watch_commits` does the same over two calls; this one costs the
        server less per move."""
        return PlaySession(self, game_name(name), after_version, on_resume)

    async def list_games(self, page_size: int = 20) -> AsyncGenerator[game_service_pb2.Game, None]:
        """Every open game (a seat free, not over), newest first, fetching page after page."""
        games, _ = self._stubs()
        token = ""
        while True:
            request = game_service_pb2.ListGamesRequest(page_size=page_size, page_token=token)
            response: game_service_pb2.ListGamesResponse = await self._unary(
                games.ListGames, request, authed=False
            )
            for game in response.games:
                yield game
            token = response.next_page_token
            if not token:
                return

    async def get_game(self, name: str) -> game_service_pb2.Game:
        """The game: seats (with presence and takeover), clock settings, phase, scores, rematch links."""
        games, _ = self._stubs()
        request = game_service_pb2.GetGameRequest(name=game_name(name))
        response: game_service_pb2.GetGameResponse = await self._unary(
            games.GetGame, request, authed=False, game=request.name
        )
        self._seen.saw(request.name, response.game.version)
        return response.game

    async def leave_game(self, name: str) -> views_pb2.SeatView:
        """Leave this client's seat: a bot plays it until :meth:`resume_seat`."""
        games, _ = self._stubs()
        request = game_service_pb2.LeaveGameRequest(name=game_name(name))
        response: game_service_pb2.LeaveGameResponse = await self._unary(
            games.LeaveGame, request, authed=True, game=request.name
        )
        self._seen.saw(request.name, response.view.public.version)
        return response.view

    async def resume_seat(self, name: str) -> views_pb2.SeatView:
        """Take this client's seat back from the bot that played it (after its clock ran out, or a leave)."""
        games, _ = self._stubs()
        request = game_service_pb2.ResumeSeatRequest(name=game_name(name))
        response: game_service_pb2.ResumeSeatResponse = await self._unary(
            games.ResumeSeat, request, authed=True, game=request.name
        )
        self._seen.saw(request.name, response.view.public.version)
        return response.view

    async def rematch(self, name: str) -> game_service_pb2.RematchResponse:
        """The next game of a finished one (``.game``, ``.seat``): same seats, and this client's token holds
        its seat there too. Every seat asking gets the same game.

        :raises IllegalMove: GAME_NOT_FINISHED for a game still in play or closed.
        """
        games, _ = self._stubs()
        request = game_service_pb2.RematchRequest(name=game_name(name))
        response: game_service_pb2.RematchResponse = await self._unary(
            games.Rematch, request, authed=True, game=request.name
        )
        return response

    async def start_with_bots(self, name: str) -> game_service_pb2.StartWithBotsResponse:
        """Deal a game waiting for friends now, the server's bots in its open seats at the game's level
        (``.game``: the seats after; ``.view``: this seat's view after the deal). Only the table's host may:
        the player who sat down first.

        :raises IllegalMove: GAME_ALREADY_STARTED once the game was dealt (the table filled, or was started).
        :raises PermissionDenied: NOT_TABLE_HOST from another seat.
        """
        games, _ = self._stubs()
        request = game_service_pb2.StartWithBotsRequest(name=game_name(name))
        response: game_service_pb2.StartWithBotsResponse = await self._unary(
            games.StartWithBots, request, authed=True, game=request.name
        )
        self._seen.saw(request.name, response.view.public.version)
        return response

    # --- RulesService ----------------------------------------------------------------------------------------

    async def evaluate_hand(
        self, muestra: CardLike, hand: str | Iterable[CardLike], *, without_flor: bool = False
    ) -> rules_service_pb2.EvaluateHandResponse:
        """Envido, flor and card strengths of three cards under ``muestra``: ``evaluate_hand("1o", "2o 7e 3c")``.

        :raises CardError: for text that is not a card (before any call).
        :raises InvalidArgument: for a repeated card.
        """
        _, rules = self._stubs()
        request = rules_service_pb2.EvaluateHandRequest(
            muestra=card(muestra), cards=parse_cards(hand), without_flor=without_flor
        )
        response: rules_service_pb2.EvaluateHandResponse = await self._unary(
            rules.EvaluateHand, request, authed=False
        )
        return response

    async def compare_cards(
        self, muestra: CardLike, first: CardLike, second: CardLike
    ) -> rules_service_pb2.CompareCardsResponse:
        """Which card wins a round under ``muestra``: ``.result`` is 1 (first), -1 (second) or 0 (parda)."""
        _, rules = self._stubs()
        request = rules_service_pb2.CompareCardsRequest(muestra=card(muestra), first=card(first), second=card(second))
        response: rules_service_pb2.CompareCardsResponse = await self._unary(
            rules.CompareCards, request, authed=False
        )
        return response

    # --- PlayerService ---------------------------------------------------------------------------------------

    def _player_stub(self) -> Any:
        self._open()
        return self._players

    async def find_match(
        self,
        rules: rules_pb2.RuleSet | Mapping[str, Any] | None = None,
        *,
        party: Sequence[str] = (),
        max_wait: float | None = None,
        bots_after: float | None = None,
        bot_level: str | int | None = None,
        request_id: str | None = None,
    ) -> AsyncGenerator[players_pb2.FindMatchResponse, None]:
        """Open a quick-match ticket for this client's player (its ``player_token``) and follow it: each message
        is the ticket as it stands (WAITING, WAITING_FOR_PARTY), the last one MATCHED (with the game, the seat
        and its token), EXPIRED or CANCELLED. Closing the iterator early cancels the ticket.

        A stream that breaks (UNAVAILABLE, a proxy's reset) is opened again with the same request id, which
        follows the same ticket while it waits and hands a matched one's seat again.

        :param rules: the match wanted (``{"players": 4, "target": 30}``); ``players`` is the table size.
        :param party: the ``sub`` of each partner who sit with this player, each opening its own ticket.
        :param max_wait: seconds the player will wait (server default 120).
        :param bots_after: after this many seconds the server's bots may fill the free seats (unrated match).
        :raises FailedPrecondition: TICKET_ALREADY_OPEN when the player has another open ticket.
        :raises Unauthenticated: PLAYER_TOKEN_* for a refused (or missing) player token.
        """
        request = players_pb2.FindMatchRequest(
            request_id=request_id or new_request_id(),
            rules=_rule_set(rules),
            party=list(party),
            bot_level=_bot_level(bot_level),
        )
        if max_wait is not None:
            request.max_wait.FromNanoseconds(int(max_wait * 1e9))
        if bots_after is not None:
            request.bots_after.FromNanoseconds(int(bots_after * 1e9))
        failures = 0
        while True:
            call = self._player_stub().FindMatch(request, metadata=self._metadata(False))
            try:
                async for reply in call:
                    failures = 0
                    yield reply
                return
            except grpc.aio.AioRpcError as error:
                failure, wait = self._resume_wait(error, failures)
                if wait is None:
                    raise failure from error
            finally:
                call.cancel()
            await asyncio.sleep(wait)
            failures += 1

    async def quick_match(
        self,
        rules: rules_pb2.RuleSet | Mapping[str, Any] | None = None,
        *,
        on_update: Callable[[players_pb2.MatchTicket], None] | None = None,
        **options: Any,
    ) -> QuickMatch | None:
        """Find a match (:meth:`find_match`'s options) and take its seat: this client then acts as that seat, as
        after :meth:`join_game`. None when the ticket expired or was cancelled. ``on_update`` sees each state."""
        async with aclosing(self.find_match(rules, **options)) as replies:
            async for reply in replies:
                if on_update is not None:
                    on_update(reply.ticket)
                if reply.ticket.state == players_pb2.TICKET_STATE_MATCHED:
                    self._token = reply.seat_token
                    return QuickMatch(reply.game, reply.seat, reply.seat_token, reply.ticket)
        return None

    async def cancel_match(self, name: str = "") -> players_pb2.MatchTicket:
        """Cancel this player's ticket (``tickets/{id}``; empty: its open one).

        :raises NotFound: TICKET_NOT_FOUND. :raises IllegalMove: TICKET_ALREADY_MATCHED.
        """
        response: players_pb2.CancelMatchResponse = await self._unary(
            self._player_stub().CancelMatch, players_pb2.CancelMatchRequest(name=name), authed=False
        )
        return response.ticket

    async def get_player(self, name: str = "players/me") -> players_pb2.Player:
        """A player of this client's app (``players/{sub}``; ``players/me``: this client's): its ratings.

        :raises NotFound: PLAYER_NOT_FOUND.
        """
        response: players_pb2.GetPlayerResponse = await self._unary(
            self._player_stub().GetPlayer, players_pb2.GetPlayerRequest(name=name), authed=False
        )
        return response.player

    async def list_leaderboard(
        self, players: int = 2, *, page_size: int = 20, page_token: str = "", around_player: str = ""
    ) -> players_pb2.ListLeaderboardResponse:
        """One page of the app's ranking at a table size, best first (``around_player``: the page with that
        player in its middle); pass its ``next_page_token`` as ``page_token`` for the next."""
        request = players_pb2.ListLeaderboardRequest(
            players=players, page_size=page_size, page_token=page_token, around_player=around_player
        )
        response: players_pb2.ListLeaderboardResponse = await self._unary(
            self._player_stub().ListLeaderboard, request, authed=False
        )
        return response

    async def list_player_matches(
        self, name: str = "players/me", *, page_size: int = 20
    ) -> AsyncGenerator[players_pb2.PlayerMatch, None]:
        """A player's finished games, newest first, page after page (each replayable with :meth:`watch`)."""
        token = ""
        while True:
            request = players_pb2.ListPlayerMatchesRequest(name=name, page_size=page_size, page_token=token)
            response: players_pb2.ListPlayerMatchesResponse = await self._unary(
                self._player_stub().ListPlayerMatches, request, authed=False
            )
            for match in response.matches:
                yield match
            token = response.next_page_token
            if not token:
                return


def _rule_set(rules: rules_pb2.RuleSet | Mapping[str, Any] | None) -> rules_pb2.RuleSet:
    if rules is None:
        return rules_pb2.RuleSet()
    if isinstance(rules, rules_pb2.RuleSet):
        return rules
    return rules_pb2.RuleSet(**rules)


def _bot_level(level: str | int | None) -> game_service_pb2.BotLevel:
    if level is None:
        return game_service_pb2.BOT_LEVEL_UNSPECIFIED
    if isinstance(level, str):
        try:
            return BOT_LEVELS[level.strip().lower()]
        except KeyError:
            raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}") from None
    return level  # type: ignore[return-value]


def _bot_kind(kind: str | int) -> game_service_pb2.BotKind:
    if isinstance(kind, str):
        try:
            return BOT_KINDS[kind.strip().lower()]
        except KeyError:
            raise ValueError(f"unknown bot {kind!r}: one of {', '.join(BOT_KINDS)}") from None
    return kind  # type: ignore[return-value]
