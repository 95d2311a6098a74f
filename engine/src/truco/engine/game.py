"""A match as one object: its events, its state and the commands that move it on.

>>> from truco.engine import Game, RuleSet
>>> game = Game(RuleSet(players=2))
>>> game.state.phase.value
'AWAITING_DEAL'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import Card
from .commands import Command, Deal, SeatCommand
from .decide import execute, execute_legal, start_match
from .events import Event
from .legal import actors, is_legal, legal_actions
from .rules import RuleSet
from .state import MatchState, evolve
from .views import SeatView, SpectatorView, seat_view, spectator_view


class Game:
    """A match: the list of its events and the state they fold to.

    :ivar events: every event so far, in order; ``Game.from_events(game.events)`` rebuilds an equal game.
    """

    def __init__(self, rules: RuleSet | None = None) -> None:
        self.state = MatchState()
        self.events: list[Event] = []
        if rules is not None:
            self._apply(start_match(rules))

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Game:
        """Rebuild a game by folding ``events``."""
        game = cls()
        game._apply(events)
        return game

    def _apply(self, events: Iterable[Event]) -> None:
        for event in events:
            evolve(self.state, event)
            self.events.append(event)

    @property
    def rules(self) -> RuleSet:
        return self.state.rules

    @property
    def version(self) -> int:
        """The number of public events so far (what views show; señas are not counted)."""
        return self.state.version

    @property
    def over(self) -> bool:
        return self.state.winner is not None

    def execute(self, command: Command) -> list[Event]:
        """Apply ``command`` and return its events.

        :raises InvalidCommand: the command is malformed.
        :raises RuleViolation: the rules refuse it now; the game is unchanged.
        """
        events = execute(self.state, command)
        self.events.extend(events)
        return events

    def execute_legal(self, command: Command) -> list[Event]:
        """Apply a command taken from :meth:`legal_actions` of this very state, without checking it again (see
        :func:`truco.engine.execute_legal`); commands from anywhere else go through :meth:`execute`."""
        events = execute_legal(self.state, command)
        self.events.extend(events)
        return events

    def deal(self, order: Sequence[object], salt: str) -> list[Event]:
        """Deal the next hand from a deck order (cards or their notation) and a 32-hex-digit salt."""
        cards = tuple(c if isinstance(c, Card) else Card.parse(str(c)) for c in order)
        return self.execute(Deal(cards, salt))

    def legal_actions(self, seat: int) -> list[SeatCommand]:
        return legal_actions(self.state, seat)

    def is_legal(self, command: Command) -> bool:
        return is_legal(self.state, command)

    def actors(self) -> tuple[int, ...]:
        return actors(self.state)

    def view(self, seat: int) -> SeatView:
        return seat_view(self.state, seat)

    def spectator_view(self) -> SpectatorView:
        return spectator_view(self.state)
