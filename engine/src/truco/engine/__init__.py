"""The rules of Truco Uruguayo (truco con muestra) as a pure, event-sourced library.

Commands are decided against a :class:`MatchState` and yield events (or a :class:`RuleViolation` with a
stable :class:`Reason`); the state is the fold of its events. No I/O, no clock, no random source: the deal's
deck order arrives in a :class:`Deal` command and is recorded in the ``HandDealt`` event.
"""

from .calls import CallKind, Family
from .cards import DECK, Card, CardParseError, Suit, envido_value, is_pieza, parse_cards, piezas, strength
from .commands import (
    Answer,
    AnswerPerros,
    Call,
    CallPerros,
    Command,
    Deal,
    GoToMazo,
    PlayCard,
    SeatCommand,
    SendSena,
    SkipPerros,
)
from .deal import (
    CardProof,
    card_commitment,
    card_salt,
    commitment,
    deal_commitments,
    deal_hands,
    order_for_hands,
    verify,
)
from .decide import decide, execute, execute_legal, start_match
from .determinize import determinize
from .errors import CommandError, InvalidCommand, Reason, RuleViolation
from .evaluation import HandError, HandEvaluation, compare_cards, evaluate_hand
from .events import Event, HandEnd, ScoreReason
from .game import Game
from .legal import actors, check, is_legal, legal_actions, violation
from .pickling import register as _register_pickling
from .rules import RULE_SETS, FaltaEnvido, RuleSet, RuleSetError, find_rule_set
from .senas import Sena
from .state import MatchState, Phase, advances_version, evolve, fold
from .tantos import envido_points, flor_points, has_flor
from .tricks import team_of
from .views import SeatView, SpectatorView, Standing, audience, event_for, events_for, seat_view, spectator_view

__all__ = [
    "DECK",
    "RULE_SETS",
    "Answer",
    "AnswerPerros",
    "Call",
    "CallKind",
    "CallPerros",
    "Card",
    "CardParseError",
    "CardProof",
    "Command",
    "CommandError",
    "Deal",
    "Event",
    "FaltaEnvido",
    "Family",
    "Game",
    "GoToMazo",
    "HandEnd",
    "HandError",
    "HandEvaluation",
    "InvalidCommand",
    "MatchState",
    "Phase",
    "PlayCard",
    "Reason",
    "RuleSet",
    "RuleSetError",
    "RuleViolation",
    "ScoreReason",
    "SeatCommand",
    "SeatView",
    "Sena",
    "SendSena",
    "SkipPerros",
    "SpectatorView",
    "Standing",
    "Suit",
    "actors",
    "advances_version",
    "audience",
    "card_commitment",
    "card_salt",
    "check",
    "commitment",
    "compare_cards",
    "deal_commitments",
    "deal_hands",
    "decide",
    "determinize",
    "envido_points",
    "envido_value",
    "evaluate_hand",
    "event_for",
    "events_for",
    "evolve",
    "execute",
    "execute_legal",
    "find_rule_set",
    "flor_points",
    "fold",
    "has_flor",
    "is_legal",
    "is_pieza",
    "legal_actions",
    "order_for_hands",
    "parse_cards",
    "piezas",
    "seat_view",
    "spectator_view",
    "start_match",
    "strength",
    "team_of",
    "verify",
    "violation",
]

_register_pickling()  # pickle works on the compiled build too (pickling.py)
