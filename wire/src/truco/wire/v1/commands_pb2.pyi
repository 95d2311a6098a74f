from . import cards_pb2 as _cards_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CallKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CALL_KIND_UNSPECIFIED: _ClassVar[CallKind]
    CALL_KIND_TRUCO: _ClassVar[CallKind]
    CALL_KIND_RETRUCO: _ClassVar[CallKind]
    CALL_KIND_VALE_CUATRO: _ClassVar[CallKind]
    CALL_KIND_ENVIDO: _ClassVar[CallKind]
    CALL_KIND_REAL_ENVIDO: _ClassVar[CallKind]
    CALL_KIND_FALTA_ENVIDO: _ClassVar[CallKind]
    CALL_KIND_CON_FLOR_ENVIDO: _ClassVar[CallKind]
    CALL_KIND_CONTRA_FLOR: _ClassVar[CallKind]
    CALL_KIND_CONTRA_FLOR_AL_RESTO: _ClassVar[CallKind]
    CALL_KIND_FLOR: _ClassVar[CallKind]

class Sena(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SENA_UNSPECIFIED: _ClassVar[Sena]
    SENA_PIEZA_2: _ClassVar[Sena]
    SENA_PIEZA_4: _ClassVar[Sena]
    SENA_PIEZA_5: _ClassVar[Sena]
    SENA_PIEZA_11: _ClassVar[Sena]
    SENA_PIEZA_10: _ClassVar[Sena]
    SENA_MATA_1: _ClassVar[Sena]
    SENA_MATA_7: _ClassVar[Sena]
    SENA_CHICA_3: _ClassVar[Sena]
    SENA_CHICA_2: _ClassVar[Sena]
    SENA_CHICA_1: _ClassVar[Sena]
    SENA_NEGRAS: _ClassVar[Sena]
    SENA_ENVIDO: _ClassVar[Sena]
CALL_KIND_UNSPECIFIED: CallKind
CALL_KIND_TRUCO: CallKind
CALL_KIND_RETRUCO: CallKind
CALL_KIND_VALE_CUATRO: CallKind
CALL_KIND_ENVIDO: CallKind
CALL_KIND_REAL_ENVIDO: CallKind
CALL_KIND_FALTA_ENVIDO: CallKind
CALL_KIND_CON_FLOR_ENVIDO: CallKind
CALL_KIND_CONTRA_FLOR: CallKind
CALL_KIND_CONTRA_FLOR_AL_RESTO: CallKind
CALL_KIND_FLOR: CallKind
SENA_UNSPECIFIED: Sena
SENA_PIEZA_2: Sena
SENA_PIEZA_4: Sena
SENA_PIEZA_5: Sena
SENA_PIEZA_11: Sena
SENA_PIEZA_10: Sena
SENA_MATA_1: Sena
SENA_MATA_7: Sena
SENA_CHICA_3: Sena
SENA_CHICA_2: Sena
SENA_CHICA_1: Sena
SENA_NEGRAS: Sena
SENA_ENVIDO: Sena

class PlayCard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: _cards_pb2.Card
    def __init__(self, card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class MakeCall(_message.Message):
    __slots__ = ("call",)
    CALL_FIELD_NUMBER: _ClassVar[int]
    call: CallKind
    def __init__(self, call: _Optional[_Union[CallKind, str]] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("accept", "call")
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    accept: bool
    call: CallKind
    def __init__(self, accept: _Optional[bool] = ..., call: _Optional[_Union[CallKind, str]] = ...) -> None: ...

class GoToMazo(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SendSena(_message.Message):
    __slots__ = ("sena",)
    SENA_FIELD_NUMBER: _ClassVar[int]
    sena: Sena
    def __init__(self, sena: _Optional[_Union[Sena, str]] = ...) -> None: ...

class CallPerros(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SkipPerros(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AnswerPerros(_message.Message):
    __slots__ = ("accept_envido", "accept_truco")
    ACCEPT_ENVIDO_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_TRUCO_FIELD_NUMBER: _ClassVar[int]
    accept_envido: bool
    accept_truco: bool
    def __init__(self, accept_envido: _Optional[bool] = ..., accept_truco: _Optional[bool] = ...) -> None: ...

class Command(_message.Message):
    __slots__ = ("play_card", "call", "answer", "go_to_mazo", "send_sena", "call_perros", "skip_perros", "answer_perros")
    PLAY_CARD_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    GO_TO_MAZO_FIELD_NUMBER: _ClassVar[int]
    SEND_SENA_FIELD_NUMBER: _ClassVar[int]
    CALL_PERROS_FIELD_NUMBER: _ClassVar[int]
    SKIP_PERROS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_PERROS_FIELD_NUMBER: _ClassVar[int]
    play_card: PlayCard
    call: MakeCall
    answer: Answer
    go_to_mazo: GoToMazo
    send_sena: SendSena
    call_perros: CallPerros
    skip_perros: SkipPerros
    answer_perros: AnswerPerros
    def __init__(self, play_card: _Optional[_Union[PlayCard, _Mapping]] = ..., call: _Optional[_Union[MakeCall, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ..., go_to_mazo: _Optional[_Union[GoToMazo, _Mapping]] = ..., send_sena: _Optional[_Union[SendSena, _Mapping]] = ..., call_perros: _Optional[_Union[CallPerros, _Mapping]] = ..., skip_perros: _Optional[_Union[SkipPerros, _Mapping]] = ..., answer_perros: _Optional[_Union[AnswerPerros, _Mapping]] = ...) -> None: ...
