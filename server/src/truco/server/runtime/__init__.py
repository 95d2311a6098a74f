"""The process: ``truco serve`` (:mod:`.app`), its workers and its garbage collector's schedule."""
