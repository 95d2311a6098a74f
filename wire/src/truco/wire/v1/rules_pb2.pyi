from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FaltaEnvido(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FALTA_ENVIDO_UNSPECIFIED: _ClassVar[FaltaEnvido]
    FALTA_ENVIDO_LEADER_REMAINING: _ClassVar[FaltaEnvido]
    FALTA_ENVIDO_MATCH_IF_MALAS: _ClassVar[FaltaEnvido]
FALTA_ENVIDO_UNSPECIFIED: FaltaEnvido
FALTA_ENVIDO_LEADER_REMAINING: FaltaEnvido
FALTA_ENVIDO_MATCH_IF_MALAS: FaltaEnvido

class RuleSet(_message.Message):
    __slots__ = ("players", "target", "falta_envido", "flor", "pico_a_pico", "perros", "senas")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    FALTA_ENVIDO_FIELD_NUMBER: _ClassVar[int]
    FLOR_FIELD_NUMBER: _ClassVar[int]
    PICO_A_PICO_FIELD_NUMBER: _ClassVar[int]
    PERROS_FIELD_NUMBER: _ClassVar[int]
    SENAS_FIELD_NUMBER: _ClassVar[int]
    players: int
    target: int
    falta_envido: FaltaEnvido
    flor: bool
    pico_a_pico: bool
    perros: bool
    senas: bool
    def __init__(self, players: _Optional[int] = ..., target: _Optional[int] = ..., falta_envido: _Optional[_Union[FaltaEnvido, str]] = ..., flor: _Optional[bool] = ..., pico_a_pico: _Optional[bool] = ..., perros: _Optional[bool] = ..., senas: _Optional[bool] = ...) -> None: ...
