import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from . import cards_pb2 as _cards_pb2
from . import commands_pb2 as _commands_pb2
from . import events_pb2 as _events_pb2
from . import rules_pb2 as _rules_pb2
from . import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClockPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_POLICY_UNSPECIFIED: _ClassVar[ClockPolicy]
    CLOCK_POLICY_TAKEOVER: _ClassVar[ClockPolicy]
    CLOCK_POLICY_FORFEIT: _ClassVar[ClockPolicy]

class SeatKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_KIND_UNSPECIFIED: _ClassVar[SeatKind]
    SEAT_KIND_OPEN: _ClassVar[SeatKind]
    SEAT_KIND_TAKEN: _ClassVar[SeatKind]
    SEAT_KIND_BOT: _ClassVar[SeatKind]

class BotLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_LEVEL_UNSPECIFIED: _ClassVar[BotLevel]
    BOT_LEVEL_BEGINNER: _ClassVar[BotLevel]
    BOT_LEVEL_INTERMEDIATE: _ClassVar[BotLevel]
    BOT_LEVEL_EXPERT: _ClassVar[BotLevel]

class BotKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_KIND_UNSPECIFIED: _ClassVar[BotKind]
    BOT_KIND_RANDOM: _ClassVar[BotKind]
    BOT_KIND_HEURISTIC: _ClassVar[BotKind]
CLOCK_POLICY_UNSPECIFIED: ClockPolicy
CLOCK_POLICY_TAKEOVER: ClockPolicy
CLOCK_POLICY_FORFEIT: ClockPolicy
SEAT_KIND_UNSPECIFIED: SeatKind
SEAT_KIND_OPEN: SeatKind
SEAT_KIND_TAKEN: SeatKind
SEAT_KIND_BOT: SeatKind
BOT_LEVEL_UNSPECIFIED: BotLevel
BOT_LEVEL_BEGINNER: BotLevel
BOT_LEVEL_INTERMEDIATE: BotLevel
BOT_LEVEL_EXPERT: BotLevel
BOT_KIND_UNSPECIFIED: BotKind
BOT_KIND_RANDOM: BotKind
BOT_KIND_HEURISTIC: BotKind

class ClockSettings(_message.Message):
    __slots__ = ("decision", "reserve", "on_expiry", "takeover_bot", "takeover_level")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    ON_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_BOT_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_LEVEL_FIELD_NUMBER: _ClassVar[int]
    decision: _duration_pb2.Duration
    reserve: _duration_pb2.Duration
    on_expiry: ClockPolicy
    takeover_bot: BotKind
    takeover_level: BotLevel
    def __init__(self, decision: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., on_expiry: _Optional[_Union[ClockPolicy, str]] = ..., takeover_bot: _Optional[_Union[BotKind, str]] = ..., takeover_level: _Optional[_Union[BotLevel, str]] = ...) -> None: ...

class BotSeat(_message.Message):
    __slots__ = ("seat", "kind", "level")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: BotKind
    level: BotLevel
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[BotKind, str]] = ..., level: _Optional[_Union[BotLevel, str]] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "kind", "bot", "player_name", "present", "taken_over", "bot_level", "host", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    PRESENT_FIELD_NUMBER: _ClassVar[int]
    TAKEN_OVER_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: SeatKind
    bot: BotKind
    player_name: str
    present: bool
    taken_over: bool
    bot_level: BotLevel
    host: bool
    player: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[SeatKind, str]] = ..., bot: _Optional[_Union[BotKind, str]] = ..., player_name: _Optional[str] = ..., present: _Optional[bool] = ..., taken_over: _Optional[bool] = ..., bot_level: _Optional[_Union[BotLevel, str]] = ..., host: _Optional[bool] = ..., player: _Optional[str] = ...) -> None: ...

class FixedDeal(_message.Message):
    __slots__ = ("hands", "muestra", "seat_hands")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    MUESTRA_FIELD_NUMBER: _ClassVar[int]
    SEAT_HANDS_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[DealtHand]
    muestra: _cards_pb2.Card
    seat_hands: _containers.RepeatedCompositeFieldContainer[SeatHand]
    def __init__(self, hands: _Optional[_Iterable[_Union[DealtHand, _Mapping]]] = ..., muestra: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., seat_hands: _Optional[_Iterable[_Union[SeatHand, _Mapping]]] = ...) -> None: ...

class SeatHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class DealtHand(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class Game(_message.Message):
    __slots__ = ("name", "rules", "seats", "version", "phase", "scores", "public", "clock", "previous_game", "next_game", "closed")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_GAME_FIELD_NUMBER: _ClassVar[int]
    NEXT_GAME_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    name: str
    rules: _rules_pb2.RuleSet
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    version: int
    phase: _views_pb2.Phase
    scores: _containers.RepeatedCompositeFieldContainer[_views_pb2.TeamScore]
    public: bool
    clock: ClockSettings
    previous_game: str
    next_game: str
    closed: bool
    def __init__(self, name: _Optional[str] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., version: _Optional[int] = ..., phase: _Optional[_Union[_views_pb2.Phase, str]] = ..., scores: _Optional[_Iterable[_Union[_views_pb2.TeamScore, _Mapping]]] = ..., public: _Optional[bool] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ..., previous_game: _Optional[str] = ..., next_game: _Optional[str] = ..., closed: _Optional[bool] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("request_id", "rules", "bots", "fixed_deals", "public", "clock")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    FIXED_DEALS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: _rules_pb2.RuleSet
    bots: _containers.RepeatedCompositeFieldContainer[BotSeat]
    fixed_deals: _containers.RepeatedCompositeFieldContainer[FixedDeal]
    public: bool
    clock: ClockSettings
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[BotSeat, _Mapping]]] = ..., fixed_deals: _Optional[_Iterable[_Union[FixedDeal, _Mapping]]] = ..., public: _Optional[bool] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("name", "request_id", "seat", "player_name")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    seat: int
    player_name: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ..., seat: _Optional[int] = ..., player_name: _Optional[str] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    view: _views_pb2.SeatView
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., view: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ...) -> None: ...

class GetGameViewRequest(_message.Message):
    __slots__ = ("name", "min_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_version: int
    def __init__(self, name: _Optional[str] = ..., min_version: _Optional[int] = ...) -> None: ...

class GetGameViewResponse(_message.Message):
    __slots__ = ("seat", "public")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    seat: _views_pb2.SeatView
    public: _views_pb2.MatchView
    def __init__(self, seat: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ..., public: _Optional[_Union[_views_pb2.MatchView, _Mapping]] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("name", "min_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_version: int
    def __init__(self, name: _Optional[str] = ..., min_version: _Optional[int] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("version", "actions")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    version: int
    actions: _containers.RepeatedCompositeFieldContainer[_commands_pb2.Command]
    def __init__(self, version: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[_commands_pb2.Command, _Mapping]]] = ...) -> None: ...

class SubmitCommandRequest(_message.Message):
    __slots__ = ("name", "request_id", "expected_version", "command")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    expected_version: int
    command: _commands_pb2.Command
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., command: _Optional[_Union[_commands_pb2.Command, _Mapping]] = ...) -> None: ...

class SubmitCommandResponse(_message.Message):
    __slots__ = ("version", "events", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    view: _views_pb2.SeatView
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ..., view: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("name", "after_version", "per_commit", "table_changes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    PER_COMMIT_FIELD_NUMBER: _ClassVar[int]
    TABLE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_version: int
    per_commit: bool
    table_changes: bool
    def __init__(self, name: _Optional[str] = ..., after_version: _Optional[int] = ..., per_commit: _Optional[bool] = ..., table_changes: _Optional[bool] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("event", "seat", "public", "events")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    event: _events_pb2.Event
    seat: _views_pb2.SeatView
    public: _views_pb2.MatchView
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    def __init__(self, event: _Optional[_Union[_events_pb2.Event, _Mapping]] = ..., seat: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ..., public: _Optional[_Union[_views_pb2.MatchView, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ...) -> None: ...

class PlayGameRequest(_message.Message):
    __slots__ = ("start", "command")
    START_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    start: PlayGameStart
    command: PlayGameCommand
    def __init__(self, start: _Optional[_Union[PlayGameStart, _Mapping]] = ..., command: _Optional[_Union[PlayGameCommand, _Mapping]] = ...) -> None: ...

class PlayGameStart(_message.Message):
    __slots__ = ("name", "after_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_version: int
    def __init__(self, name: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class PlayGameCommand(_message.Message):
    __slots__ = ("request_id", "expected_version", "command")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    expected_version: int
    command: _commands_pb2.Command
    def __init__(self, request_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., command: _Optional[_Union[_commands_pb2.Command, _Mapping]] = ...) -> None: ...

class PlayGameResponse(_message.Message):
    __slots__ = ("commit", "outcome")
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    commit: WatchGameResponse
    outcome: PlayGameOutcome
    def __init__(self, commit: _Optional[_Union[WatchGameResponse, _Mapping]] = ..., outcome: _Optional[_Union[PlayGameOutcome, _Mapping]] = ...) -> None: ...

class PlayGameOutcome(_message.Message):
    __slots__ = ("request_id", "version", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    version: int
    error: CommandError
    def __init__(self, request_id: _Optional[str] = ..., version: _Optional[int] = ..., error: _Optional[_Union[CommandError, _Mapping]] = ...) -> None: ...

class CommandError(_message.Message):
    __slots__ = ("code", "reason", "message", "metadata", "retry_delay")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    RETRY_DELAY_FIELD_NUMBER: _ClassVar[int]
    code: int
    reason: str
    message: str
    metadata: _containers.ScalarMap[str, str]
    retry_delay: _duration_pb2.Duration
    def __init__(self, code: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., retry_delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[Game]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[Game, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class LeaveGameRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class LeaveGameResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _views_pb2.SeatView
    def __init__(self, view: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ...) -> None: ...

class ResumeSeatRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ResumeSeatResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _views_pb2.SeatView
    def __init__(self, view: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ("game", "seat")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game: Game
    seat: int
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class StartWithBotsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class StartWithBotsResponse(_message.Message):
    __slots__ = ("game", "view")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game: Game
    view: _views_pb2.SeatView
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., view: _Optional[_Union[_views_pb2.SeatView, _Mapping]] = ...) -> None: ...
