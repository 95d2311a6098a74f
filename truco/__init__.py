"""Truco Uruguayo: the rules engine (truco.engine), bots (truco.bots) and the `truco` command."""

__version__ = "0.1.0"
