from . import cards_pb2 as _cards_pb2
from . import commands_pb2 as _commands_pb2
from . import rules_pb2 as _rules_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScoreReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORE_REASON_UNSPECIFIED: _ClassVar[ScoreReason]
    SCORE_REASON_ENVIDO: _ClassVar[ScoreReason]
    SCORE_REASON_ENVIDO_DECLINED: _ClassVar[ScoreReason]
    SCORE_REASON_FLOR: _ClassVar[ScoreReason]
    SCORE_REASON_FLOR_DECLINED: _ClassVar[ScoreReason]
    SCORE_REASON_HAND: _ClassVar[ScoreReason]
    SCORE_REASON_TRUCO_DECLINED: _ClassVar[ScoreReason]
    SCORE_REASON_MAZO: _ClassVar[ScoreReason]

class HandEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_END_UNSPECIFIED: _ClassVar[HandEnd]
    HAND_END_ROUNDS: _ClassVar[HandEnd]
    HAND_END_TRUCO_DECLINED: _ClassVar[HandEnd]
    HAND_END_MAZO: _ClassVar[HandEnd]
    HAND_END_MATCH_ENDED: _ClassVar[HandEnd]
    HAND_END_FORFEIT: _ClassVar[HandEnd]
SCORE_REASON_UNSPECIFIED: ScoreReason
SCORE_REASON_ENVIDO: ScoreReason
SCORE_REASON_ENVIDO_DECLINED: ScoreReason
SCORE_REASON_FLOR: ScoreReason
SCORE_REASON_FLOR_DECLINED: ScoreReason
SCORE_REASON_HAND: ScoreReason
SCORE_REASON_TRUCO_DECLINED: ScoreReason
SCORE_REASON_MAZO: ScoreReason
HAND_END_UNSPECIFIED: HandEnd
HAND_END_ROUNDS: HandEnd
HAND_END_TRUCO_DECLINED: HandEnd
HAND_END_MAZO: HandEnd
HAND_END_MATCH_ENDED: HandEnd
HAND_END_FORFEIT: HandEnd

class MatchStarted(_message.Message):
    __slots__ = ("rules", "first_dealer")
    RULES_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    rules: _rules_pb2.RuleSet
    first_dealer: int
    def __init__(self, rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., first_dealer: _Optional[int] = ...) -> None: ...

class PerrosCalled(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PerrosSkipped(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class CardProof(_message.Message):
    __slots__ = ("position", "card", "salt")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: _cards_pb2.Card
    salt: str
    def __init__(self, position: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., salt: _Optional[str] = ...) -> None: ...

class HandDealt(_message.Message):
    __slots__ = ("number", "dealer", "seats", "pico", "order", "salt", "commitment", "commitments", "muestra", "own")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PICO_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENTS_FIELD_NUMBER: _ClassVar[int]
    MUESTRA_FIELD_NUMBER: _ClassVar[int]
    OWN_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    pico: bool
    order: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    salt: str
    commitment: str
    commitments: _containers.RepeatedScalarFieldContainer[str]
    muestra: CardProof
    own: _containers.RepeatedCompositeFieldContainer[CardProof]
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., pico: _Optional[bool] = ..., order: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., salt: _Optional[str] = ..., commitment: _Optional[str] = ..., commitments: _Optional[_Iterable[str]] = ..., muestra: _Optional[_Union[CardProof, _Mapping]] = ..., own: _Optional[_Iterable[_Union[CardProof, _Mapping]]] = ...) -> None: ...

class FlorSung(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class CardPlayed(_message.Message):
    __slots__ = ("seat", "card", "proof")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    proof: CardProof
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., proof: _Optional[_Union[CardProof, _Mapping]] = ...) -> None: ...

class RoundEnded(_message.Message):
    __slots__ = ("round", "winner_team", "winning_seat")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    WINNING_SEAT_FIELD_NUMBER: _ClassVar[int]
    round: int
    winner_team: int
    winning_seat: int
    def __init__(self, round: _Optional[int] = ..., winner_team: _Optional[int] = ..., winning_seat: _Optional[int] = ...) -> None: ...

class CallMade(_message.Message):
    __slots__ = ("seat", "call")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    call: _commands_pb2.CallKind
    def __init__(self, seat: _Optional[int] = ..., call: _Optional[_Union[_commands_pb2.CallKind, str]] = ...) -> None: ...

class CallAccepted(_message.Message):
    __slots__ = ("seat", "call")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    call: _commands_pb2.CallKind
    def __init__(self, seat: _Optional[int] = ..., call: _Optional[_Union[_commands_pb2.CallKind, str]] = ...) -> None: ...

class CallDeclined(_message.Message):
    __slots__ = ("seat", "call")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    call: _commands_pb2.CallKind
    def __init__(self, seat: _Optional[int] = ..., call: _Optional[_Union[_commands_pb2.CallKind, str]] = ...) -> None: ...

class EnvidoVoided(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EnvidoSettled(_message.Message):
    __slots__ = ("winner_seat", "points")
    WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    winner_seat: int
    points: int
    def __init__(self, winner_seat: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class FlorSettled(_message.Message):
    __slots__ = ("winner_seat", "points")
    WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    winner_seat: int
    points: int
    def __init__(self, winner_seat: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class PerrosAnswered(_message.Message):
    __slots__ = ("seat", "en_ley", "accept_envido", "accept_truco")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EN_LEY_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_ENVIDO_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_TRUCO_FIELD_NUMBER: _ClassVar[int]
    seat: int
    en_ley: bool
    accept_envido: bool
    accept_truco: bool
    def __init__(self, seat: _Optional[int] = ..., en_ley: _Optional[bool] = ..., accept_envido: _Optional[bool] = ..., accept_truco: _Optional[bool] = ...) -> None: ...

class WentToMazo(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SenaSent(_message.Message):
    __slots__ = ("seat", "sena")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SENA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    sena: _commands_pb2.Sena
    def __init__(self, seat: _Optional[int] = ..., sena: _Optional[_Union[_commands_pb2.Sena, str]] = ...) -> None: ...

class PointsScored(_message.Message):
    __slots__ = ("team", "points", "reason")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    team: int
    points: int
    reason: ScoreReason
    def __init__(self, team: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[_Union[ScoreReason, str]] = ...) -> None: ...

class ShownHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("winner_team", "end", "salt", "order", "shown", "proofs")
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    PROOFS_FIELD_NUMBER: _ClassVar[int]
    winner_team: int
    end: HandEnd
    salt: str
    order: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    shown: _containers.RepeatedCompositeFieldContainer[ShownHand]
    proofs: _containers.RepeatedCompositeFieldContainer[CardProof]
    def __init__(self, winner_team: _Optional[int] = ..., end: _Optional[_Union[HandEnd, str]] = ..., salt: _Optional[str] = ..., order: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., shown: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ..., proofs: _Optional[_Iterable[_Union[CardProof, _Mapping]]] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("winner_team",)
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    winner_team: int
    def __init__(self, winner_team: _Optional[int] = ...) -> None: ...

class ClockExpired(_message.Message):
    __slots__ = ("seat", "deadline_us", "forfeit")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_US_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deadline_us: int
    forfeit: bool
    def __init__(self, seat: _Optional[int] = ..., deadline_us: _Optional[int] = ..., forfeit: _Optional[bool] = ...) -> None: ...

class SeatLeft(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatResumed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("version", "match_started", "perros_called", "perros_skipped", "hand_dealt", "flor_sung", "card_played", "round_ended", "call_made", "call_accepted", "call_declined", "envido_voided", "envido_settled", "flor_settled", "perros_answered", "went_to_mazo", "sena_sent", "points_scored", "hand_ended", "match_ended", "clock_expired", "seat_left", "seat_resumed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    PERROS_CALLED_FIELD_NUMBER: _ClassVar[int]
    PERROS_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    HAND_DEALT_FIELD_NUMBER: _ClassVar[int]
    FLOR_SUNG_FIELD_NUMBER: _ClassVar[int]
    CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    ROUND_ENDED_FIELD_NUMBER: _ClassVar[int]
    CALL_MADE_FIELD_NUMBER: _ClassVar[int]
    CALL_ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    CALL_DECLINED_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_VOIDED_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_SETTLED_FIELD_NUMBER: _ClassVar[int]
    FLOR_SETTLED_FIELD_NUMBER: _ClassVar[int]
    PERROS_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    WENT_TO_MAZO_FIELD_NUMBER: _ClassVar[int]
    SENA_SENT_FIELD_NUMBER: _ClassVar[int]
    POINTS_SCORED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_EXPIRED_FIELD_NUMBER: _ClassVar[int]
    SEAT_LEFT_FIELD_NUMBER: _ClassVar[int]
    SEAT_RESUMED_FIELD_NUMBER: _ClassVar[int]
    version: int
    match_started: MatchStarted
    perros_called: PerrosCalled
    perros_skipped: PerrosSkipped
    hand_dealt: HandDealt
    flor_sung: FlorSung
    card_played: CardPlayed
    round_ended: RoundEnded
    call_made: CallMade
    call_accepted: CallAccepted
    call_declined: CallDeclined
    envido_voided: EnvidoVoided
    envido_settled: EnvidoSettled
    flor_settled: FlorSettled
    perros_answered: PerrosAnswered
    went_to_mazo: WentToMazo
    sena_sent: SenaSent
    points_scored: PointsScored
    hand_ended: HandEnded
    match_ended: MatchEnded
    clock_expired: ClockExpired
    seat_left: SeatLeft
    seat_resumed: SeatResumed
    def __init__(self, version: _Optional[int] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., perros_called: _Optional[_Union[PerrosCalled, _Mapping]] = ..., perros_skipped: _Optional[_Union[PerrosSkipped, _Mapping]] = ..., hand_dealt: _Optional[_Union[HandDealt, _Mapping]] = ..., flor_sung: _Optional[_Union[FlorSung, _Mapping]] = ..., card_played: _Optional[_Union[CardPlayed, _Mapping]] = ..., round_ended: _Optional[_Union[RoundEnded, _Mapping]] = ..., call_made: _Optional[_Union[CallMade, _Mapping]] = ..., call_accepted: _Optional[_Union[CallAccepted, _Mapping]] = ..., call_declined: _Optional[_Union[CallDeclined, _Mapping]] = ..., envido_voided: _Optional[_Union[EnvidoVoided, _Mapping]] = ..., envido_settled: _Optional[_Union[EnvidoSettled, _Mapping]] = ..., flor_settled: _Optional[_Union[FlorSettled, _Mapping]] = ..., perros_answered: _Optional[_Union[PerrosAnswered, _Mapping]] = ..., went_to_mazo: _Optional[_Union[WentToMazo, _Mapping]] = ..., sena_sent: _Optional[_Union[SenaSent, _Mapping]] = ..., points_scored: _Optional[_Union[PointsScored, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., clock_expired: _Optional[_Union[ClockExpired, _Mapping]] = ..., seat_left: _Optional[_Union[SeatLeft, _Mapping]] = ..., seat_resumed: _Optional[_Union[SeatResumed, _Mapping]] = ...) -> None: ...
