"""The words of the tables, one catalogue per language: ``catalogue/{lang}.json`` beside this module.

Each file holds a language's every message, the terminal's (``terminal``) and, for Spanish, the web table's
(``web``, read by web/src/text.ts through its build): templates with named fields (``{who} juega {card}``) and
tables of names (the calls, the reasons points are scored for). A template that depends on who it is about has
variants: ``me`` and ``other`` (the reader's own act, or another seat's), ``ours``, ``theirs`` and ``spectator``
(a team's, as its reader sees it). :mod:`truco.terminal.telling` puts the words together, the same code for
every language; what differs between languages is only here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("es", "en")
"""The languages of the terminal: Rioplatense Spanish with voseo (the table's), and English."""


def capital(text: str) -> str:
    """The text with its first letter in capitals (and nothing else changed: names keep theirs)."""
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Catalogue:
    """One language's words for the terminal (its catalogue's ``terminal`` section)."""

    lang: str
    words: Mapping[str, Any]

    def say(self, path: str, variant: str = "", **fields: object) -> str:
        """The template at ``path`` (``"events.card_played"``), its ``variant`` when it has several, filled in.
        Every text field may also be used capitalized, by its name capitalized: ``{Who}`` beside ``{who}``."""
        template: Any = self.words
        for key in path.split("."):
            template = template[key]
        if isinstance(template, Mapping):
            template = template[variant]
        capitals = {capital(name): capital(value) for name, value in fields.items() if isinstance(value, str)}
        return str(template).format(**fields, **capitals)

    def name(self, table: str, key: str, **fields: object) -> str:
        """The name ``key`` has in the table ``table`` (``calls``, ``score_reasons``...), or its default."""
        names: Mapping[str, str] = self.words["names"][table]
        return (names[key] if key in names else names[""]).format(**fields)


@cache
def catalogue(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (one of :data:`LANGUAGES`), read once."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalogue for {lang!r}: one of {', '.join(LANGUAGES)}")
    text = resources.files("truco.terminal").joinpath("catalogue", f"{lang}.json").read_text(encoding="utf-8")
    return Catalogue(lang, json.loads(text)["terminal"])


__all__ = ["LANGUAGES", "Catalogue", "capital", "catalogue"]
