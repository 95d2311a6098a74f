import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import cards_pb2 as _cards_pb2
from . import commands_pb2 as _commands_pb2
from . import events_pb2 as _events_pb2
from . import rules_pb2 as _rules_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_AWAITING_PERROS: _ClassVar[Phase]
    PHASE_AWAITING_DEAL: _ClassVar[Phase]
    PHASE_PLAYING: _ClassVar[Phase]
    PHASE_MATCH_OVER: _ClassVar[Phase]

class Standing(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STANDING_UNSPECIFIED: _ClassVar[Standing]
    STANDING_MALAS: _ClassVar[Standing]
    STANDING_BUENAS: _ClassVar[Standing]
PHASE_UNSPECIFIED: Phase
PHASE_AWAITING_PERROS: Phase
PHASE_AWAITING_DEAL: Phase
PHASE_PLAYING: Phase
PHASE_MATCH_OVER: Phase
STANDING_UNSPECIFIED: Standing
STANDING_MALAS: Standing
STANDING_BUENAS: Standing

class PendingCall(_message.Message):
    __slots__ = ("call", "seat", "team", "value")
    CALL_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    call: _commands_pb2.CallKind
    seat: int
    team: int
    value: int
    def __init__(self, call: _Optional[_Union[_commands_pb2.CallKind, str]] = ..., seat: _Optional[int] = ..., team: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class Round(_message.Message):
    __slots__ = ("plays", "finished", "winner_team")
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    finished: bool
    winner_team: int
    def __init__(self, plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., finished: _Optional[bool] = ..., winner_team: _Optional[int] = ...) -> None: ...

class CardsLeft(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class TeamScore(_message.Message):
    __slots__ = ("team", "points", "standing")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    team: int
    points: int
    standing: Standing
    def __init__(self, team: _Optional[int] = ..., points: _Optional[int] = ..., standing: _Optional[_Union[Standing, str]] = ...) -> None: ...

class HandView(_message.Message):
    __slots__ = ("number", "dealer", "mano", "seats", "pico", "muestra", "commitment", "rounds", "turn", "cards_left", "truco_value", "truco_owner", "pending", "envido_chain", "envido_closed", "envido_winner_seat", "envido_winner_points", "flor_sung", "flor_chain", "flor_winner_seat", "flor_winner_points", "perros_by", "perros_pending", "points", "ended", "winner_team", "shown", "revealed_order", "revealed_salt", "commitments", "proofs", "pending_calls")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    MANO_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PICO_FIELD_NUMBER: _ClassVar[int]
    MUESTRA_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TRUCO_VALUE_FIELD_NUMBER: _ClassVar[int]
    TRUCO_OWNER_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_CHAIN_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_CLOSED_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_WINNER_POINTS_FIELD_NUMBER: _ClassVar[int]
    FLOR_SUNG_FIELD_NUMBER: _ClassVar[int]
    FLOR_CHAIN_FIELD_NUMBER: _ClassVar[int]
    FLOR_WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    FLOR_WINNER_POINTS_FIELD_NUMBER: _ClassVar[int]
    PERROS_BY_FIELD_NUMBER: _ClassVar[int]
    PERROS_PENDING_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    REVEALED_ORDER_FIELD_NUMBER: _ClassVar[int]
    REVEALED_SALT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENTS_FIELD_NUMBER: _ClassVar[int]
    PROOFS_FIELD_NUMBER: _ClassVar[int]
    PENDING_CALLS_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    mano: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    pico: bool
    muestra: _cards_pb2.Card
    commitment: str
    rounds: _containers.RepeatedCompositeFieldContainer[Round]
    turn: int
    cards_left: _containers.RepeatedCompositeFieldContainer[CardsLeft]
    truco_value: int
    truco_owner: int
    pending: PendingCall
    envido_chain: _containers.RepeatedScalarFieldContainer[_commands_pb2.CallKind]
    envido_closed: bool
    envido_winner_seat: int
    envido_winner_points: int
    flor_sung: _containers.RepeatedScalarFieldContainer[int]
    flor_chain: _containers.RepeatedScalarFieldContainer[_commands_pb2.CallKind]
    flor_winner_seat: int
    flor_winner_points: int
    perros_by: int
    perros_pending: bool
    points: _containers.RepeatedScalarFieldContainer[int]
    ended: bool
    winner_team: int
    shown: _containers.RepeatedCompositeFieldContainer[_events_pb2.ShownHand]
    revealed_order: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    revealed_salt: str
    commitments: _containers.RepeatedScalarFieldContainer[str]
    proofs: _containers.RepeatedCompositeFieldContainer[_events_pb2.CardProof]
    pending_calls: _containers.RepeatedCompositeFieldContainer[PendingCall]
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., mano: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., pico: _Optional[bool] = ..., muestra: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., commitment: _Optional[str] = ..., rounds: _Optional[_Iterable[_Union[Round, _Mapping]]] = ..., turn: _Optional[int] = ..., cards_left: _Optional[_Iterable[_Union[CardsLeft, _Mapping]]] = ..., truco_value: _Optional[int] = ..., truco_owner: _Optional[int] = ..., pending: _Optional[_Union[PendingCall, _Mapping]] = ..., envido_chain: _Optional[_Iterable[_Union[_commands_pb2.CallKind, str]]] = ..., envido_closed: _Optional[bool] = ..., envido_winner_seat: _Optional[int] = ..., envido_winner_points: _Optional[int] = ..., flor_sung: _Optional[_Iterable[int]] = ..., flor_chain: _Optional[_Iterable[_Union[_commands_pb2.CallKind, str]]] = ..., flor_winner_seat: _Optional[int] = ..., flor_winner_points: _Optional[int] = ..., perros_by: _Optional[int] = ..., perros_pending: _Optional[bool] = ..., points: _Optional[_Iterable[int]] = ..., ended: _Optional[bool] = ..., winner_team: _Optional[int] = ..., shown: _Optional[_Iterable[_Union[_events_pb2.ShownHand, _Mapping]]] = ..., revealed_order: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., revealed_salt: _Optional[str] = ..., commitments: _Optional[_Iterable[str]] = ..., proofs: _Optional[_Iterable[_Union[_events_pb2.CardProof, _Mapping]]] = ..., pending_calls: _Optional[_Iterable[_Union[PendingCall, _Mapping]]] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("winner_team",)
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    winner_team: int
    def __init__(self, winner_team: _Optional[int] = ...) -> None: ...

class HandScore(_message.Message):
    __slots__ = ("team", "points", "reason")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    team: int
    points: int
    reason: _events_pb2.ScoreReason
    def __init__(self, team: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[_Union[_events_pb2.ScoreReason, str]] = ...) -> None: ...

class HandSummary(_message.Message):
    __slots__ = ("number", "winner_team", "end", "rounds", "points", "scored", "shown", "proofs", "envido_winner_seat", "envido_winner_points", "flor_winner_seat", "flor_winner_points")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    PROOFS_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_WINNER_POINTS_FIELD_NUMBER: _ClassVar[int]
    FLOR_WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    FLOR_WINNER_POINTS_FIELD_NUMBER: _ClassVar[int]
    number: int
    winner_team: int
    end: _events_pb2.HandEnd
    rounds: _containers.RepeatedCompositeFieldContainer[RoundResult]
    points: _containers.RepeatedScalarFieldContainer[int]
    scored: _containers.RepeatedCompositeFieldContainer[HandScore]
    shown: _containers.RepeatedCompositeFieldContainer[_events_pb2.ShownHand]
    proofs: _containers.RepeatedCompositeFieldContainer[_events_pb2.CardProof]
    envido_winner_seat: int
    envido_winner_points: int
    flor_winner_seat: int
    flor_winner_points: int
    def __init__(self, number: _Optional[int] = ..., winner_team: _Optional[int] = ..., end: _Optional[_Union[_events_pb2.HandEnd, str]] = ..., rounds: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., points: _Optional[_Iterable[int]] = ..., scored: _Optional[_Iterable[_Union[HandScore, _Mapping]]] = ..., shown: _Optional[_Iterable[_Union[_events_pb2.ShownHand, _Mapping]]] = ..., proofs: _Optional[_Iterable[_Union[_events_pb2.CardProof, _Mapping]]] = ..., envido_winner_seat: _Optional[int] = ..., envido_winner_points: _Optional[int] = ..., flor_winner_seat: _Optional[int] = ..., flor_winner_points: _Optional[int] = ...) -> None: ...

class MatchView(_message.Message):
    __slots__ = ("game", "rules", "version", "phase", "scores", "hand", "to_act", "winner_team", "clock", "seats", "last_hand")
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    game: str
    rules: _rules_pb2.RuleSet
    version: int
    phase: Phase
    scores: _containers.RepeatedCompositeFieldContainer[TeamScore]
    hand: HandView
    to_act: _containers.RepeatedScalarFieldContainer[int]
    winner_team: int
    clock: TurnClock
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    last_hand: HandSummary
    def __init__(self, game: _Optional[str] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., version: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., scores: _Optional[_Iterable[_Union[TeamScore, _Mapping]]] = ..., hand: _Optional[_Union[HandView, _Mapping]] = ..., to_act: _Optional[_Iterable[int]] = ..., winner_team: _Optional[int] = ..., clock: _Optional[_Union[TurnClock, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ..., last_hand: _Optional[_Union[HandSummary, _Mapping]] = ...) -> None: ...

class TurnClock(_message.Message):
    __slots__ = ("seats", "started", "deadline", "stand_in")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    STAND_IN_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    started: _timestamp_pb2.Timestamp
    deadline: _timestamp_pb2.Timestamp
    stand_in: bool
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., started: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., stand_in: _Optional[bool] = ...) -> None: ...

class SeatStatus(_message.Message):
    __slots__ = ("seat", "taken_over", "reserve_left", "grace_until")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TAKEN_OVER_FIELD_NUMBER: _ClassVar[int]
    RESERVE_LEFT_FIELD_NUMBER: _ClassVar[int]
    GRACE_UNTIL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    taken_over: bool
    reserve_left: _duration_pb2.Duration
    grace_until: _timestamp_pb2.Timestamp
    def __init__(self, seat: _Optional[int] = ..., taken_over: _Optional[bool] = ..., reserve_left: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., grace_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SenaReceived(_message.Message):
    __slots__ = ("seat", "sena")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SENA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    sena: _commands_pb2.Sena
    def __init__(self, seat: _Optional[int] = ..., sena: _Optional[_Union[_commands_pb2.Sena, str]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "team", "public", "cards", "envido", "flor", "senas", "legal_actions", "own_proofs")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_FIELD_NUMBER: _ClassVar[int]
    FLOR_FIELD_NUMBER: _ClassVar[int]
    SENAS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    OWN_PROOFS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    public: MatchView
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    envido: int
    flor: int
    senas: _containers.RepeatedCompositeFieldContainer[SenaReceived]
    legal_actions: _containers.RepeatedCompositeFieldContainer[_commands_pb2.Command]
    own_proofs: _containers.RepeatedCompositeFieldContainer[_events_pb2.CardProof]
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., public: _Optional[_Union[MatchView, _Mapping]] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., envido: _Optional[int] = ..., flor: _Optional[int] = ..., senas: _Optional[_Iterable[_Union[SenaReceived, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[_Union[_commands_pb2.Command, _Mapping]]] = ..., own_proofs: _Optional[_Iterable[_Union[_events_pb2.CardProof, _Mapping]]] = ...) -> None: ...
