import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import game_service_pb2 as _game_service_pb2
from . import rules_pb2 as _rules_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TicketState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATE_UNSPECIFIED: _ClassVar[TicketState]
    TICKET_STATE_WAITING: _ClassVar[TicketState]
    TICKET_STATE_WAITING_FOR_PARTY: _ClassVar[TicketState]
    TICKET_STATE_MATCHED: _ClassVar[TicketState]
    TICKET_STATE_EXPIRED: _ClassVar[TicketState]
    TICKET_STATE_CANCELLED: _ClassVar[TicketState]
TICKET_STATE_UNSPECIFIED: TicketState
TICKET_STATE_WAITING: TicketState
TICKET_STATE_WAITING_FOR_PARTY: TicketState
TICKET_STATE_MATCHED: TicketState
TICKET_STATE_EXPIRED: TicketState
TICKET_STATE_CANCELLED: TicketState

class Rating(_message.Message):
    __slots__ = ("players", "mu", "sigma", "ordinal", "matches", "wins")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    players: int
    mu: float
    sigma: float
    ordinal: float
    matches: int
    wins: int
    def __init__(self, players: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("name", "display_name", "ratings")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ...) -> None: ...

class FindMatchRequest(_message.Message):
    __slots__ = ("request_id", "rules", "party", "max_wait", "bots_after", "bot_level")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    MAX_WAIT_FIELD_NUMBER: _ClassVar[int]
    BOTS_AFTER_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: _rules_pb2.RuleSet
    party: _containers.RepeatedScalarFieldContainer[str]
    max_wait: _duration_pb2.Duration
    bots_after: _duration_pb2.Duration
    bot_level: _game_service_pb2.BotLevel
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., party: _Optional[_Iterable[str]] = ..., max_wait: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bots_after: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bot_level: _Optional[_Union[_game_service_pb2.BotLevel, str]] = ...) -> None: ...

class FindMatchResponse(_message.Message):
    __slots__ = ("ticket", "game", "seat", "seat_token")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ticket: MatchTicket
    game: str
    seat: int
    seat_token: str
    def __init__(self, ticket: _Optional[_Union[MatchTicket, _Mapping]] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class MatchTicket(_message.Message):
    __slots__ = ("name", "state", "rules", "party", "open_time", "waited", "window_low", "window_high")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    OPEN_TIME_FIELD_NUMBER: _ClassVar[int]
    WAITED_FIELD_NUMBER: _ClassVar[int]
    WINDOW_LOW_FIELD_NUMBER: _ClassVar[int]
    WINDOW_HIGH_FIELD_NUMBER: _ClassVar[int]
    name: str
    state: TicketState
    rules: _rules_pb2.RuleSet
    party: _containers.RepeatedScalarFieldContainer[str]
    open_time: _timestamp_pb2.Timestamp
    waited: _duration_pb2.Duration
    window_low: float
    window_high: float
    def __init__(self, name: _Optional[str] = ..., state: _Optional[_Union[TicketState, str]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., party: _Optional[_Iterable[str]] = ..., open_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., waited: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., window_low: _Optional[float] = ..., window_high: _Optional[float] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CancelMatchResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: MatchTicket
    def __init__(self, ticket: _Optional[_Union[MatchTicket, _Mapping]] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class ListLeaderboardRequest(_message.Message):
    __slots__ = ("players", "page_size", "page_token", "around_player")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AROUND_PLAYER_FIELD_NUMBER: _ClassVar[int]
    players: int
    page_size: int
    page_token: str
    around_player: str
    def __init__(self, players: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., around_player: _Optional[str] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "player", "display_name", "rating")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player: str
    display_name: str
    rating: Rating
    def __init__(self, rank: _Optional[int] = ..., player: _Optional[str] = ..., display_name: _Optional[str] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class ListLeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token", "total")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    next_page_token: str
    total: int
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class ListPlayerMatchesRequest(_message.Message):
    __slots__ = ("name", "page_size", "page_token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    page_size: int
    page_token: str
    def __init__(self, name: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class PlayerMatch(_message.Message):
    __slots__ = ("game", "players", "seat", "won", "rated", "end_time", "scores", "rating_after", "seat_players")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RATING_AFTER_FIELD_NUMBER: _ClassVar[int]
    SEAT_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    seat: int
    won: bool
    rated: bool
    end_time: _timestamp_pb2.Timestamp
    scores: _containers.RepeatedScalarFieldContainer[int]
    rating_after: Rating
    seat_players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., seat: _Optional[int] = ..., won: _Optional[bool] = ..., rated: _Optional[bool] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., rating_after: _Optional[_Union[Rating, _Mapping]] = ..., seat_players: _Optional[_Iterable[str]] = ...) -> None: ...

class ListPlayerMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[PlayerMatch]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[PlayerMatch, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
