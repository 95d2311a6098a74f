"""Pickling on both builds: every value class of the engine is rebuilt through its constructor.

Pure Python, a frozen dataclass pickles by its slots. Compiled by mypyc it does not: unpickling assigns the
fields one by one, which a frozen class refuses, and a compiled class whose ``__init__`` takes arguments cannot be
made empty first and filled in after. A process pool that sends a match state to a worker and gets a command back
(the server's thinking bots) needs both directions, so each class registers a reducer with :mod:`copyreg` that
rebuilds it from its fields, which every engine class's ``__init__`` takes in order
(tests/engine/test_pickling.py checks each one on both builds). :mod:`truco.engine` registers them when it is imported.
"""

from __future__ import annotations

import copyreg
from dataclasses import fields, is_dataclass
from types import ModuleType
from typing import Any

from . import commands, deal, evaluation, events, rules, schedule, state, views

MODULES: tuple[ModuleType, ...] = (commands, deal, evaluation, events, rules, schedule, state, views)
"""The modules whose dataclasses are values a caller may pickle."""


def value_classes() -> list[type]:
    """Every dataclass the engine's value modules define."""
    return [
        value
        for module in MODULES
        for value in vars(module).values()
        if isinstance(value, type) and is_dataclass(value) and value.__module__ == module.__name__
    ]


def reduce_to_fields(value: Any) -> tuple[type, tuple[object, ...]]:
    """The constructor and arguments that rebuild ``value``: its class, and its fields in order."""
    return type(value), tuple([getattr(value, field.name) for field in fields(value)])


def register() -> None:
    """Register :func:`reduce_to_fields` with :mod:`copyreg` for every value class (again: no change)."""
    for value_class in value_classes():
        copyreg.pickle(value_class, reduce_to_fields)
