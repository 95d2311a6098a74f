"""The terminal client of the Truco Uruguayo service: ``truco-terminal play`` (a human against the server's
bots, or in a shared game) and ``truco-terminal selfplay`` (whole matches through the server, one client per
seat). A client only: it needs the engine, the bots, the SDK and truco.wire, none of the server's dependencies."""

__version__ = "0.3.0"
