"""The ``truco`` command: the rules calculator, in-process simulations, the server and the terminal client."""

__version__ = "0.3.0"
