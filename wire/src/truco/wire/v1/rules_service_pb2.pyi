from . import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvaluateHandRequest(_message.Message):
    __slots__ = ("muestra", "cards", "without_flor")
    MUESTRA_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WITHOUT_FLOR_FIELD_NUMBER: _ClassVar[int]
    muestra: _cards_pb2.Card
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    without_flor: bool
    def __init__(self, muestra: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., without_flor: _Optional[bool] = ...) -> None: ...

class EvaluateHandResponse(_message.Message):
    __slots__ = ("envido", "flor", "flor_points", "strength", "piezas")
    ENVIDO_FIELD_NUMBER: _ClassVar[int]
    FLOR_FIELD_NUMBER: _ClassVar[int]
    FLOR_POINTS_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    PIEZAS_FIELD_NUMBER: _ClassVar[int]
    envido: int
    flor: bool
    flor_points: int
    strength: _containers.RepeatedScalarFieldContainer[int]
    piezas: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, envido: _Optional[int] = ..., flor: _Optional[bool] = ..., flor_points: _Optional[int] = ..., strength: _Optional[_Iterable[int]] = ..., piezas: _Optional[_Iterable[bool]] = ...) -> None: ...

class CompareCardsRequest(_message.Message):
    __slots__ = ("muestra", "first", "second")
    MUESTRA_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    muestra: _cards_pb2.Card
    first: _cards_pb2.Card
    second: _cards_pb2.Card
    def __init__(self, muestra: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., first: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., second: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class CompareCardsResponse(_message.Message):
    __slots__ = ("result", "first_strength", "second_strength")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FIRST_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    SECOND_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    result: int
    first_strength: int
    second_strength: int
    def __init__(self, result: _Optional[int] = ..., first_strength: _Optional[int] = ..., second_strength: _Optional[int] = ...) -> None: ...
