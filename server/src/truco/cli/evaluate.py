"""``truco eval``: the rules calculator (envido, flor and card strengths of a hand under a muestra)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from truco.commandline import Subcommands, UsageError
from truco.engine import Card, CardParseError, HandError, HandEvaluation, evaluate_hand, is_pieza, piezas


def command(commands: Subcommands) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="envido, flor and card strengths of a hand under a muestra",
        description="The rules calculator. Cards are number then suit letter: e espada, b basto, o oro, "
        "c copa (1e, 7o, 12c).",
        epilog="examples:\n  truco eval --muestra 1o 2o 7e 3c\n"
        "  printf '1o 2o 7e 3c\\n4e 4c 5c 6c\\n' | truco eval --batch",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate.add_argument("--muestra", metavar="CARD", help="the muestra (the card turned up)")
    evaluate.add_argument("cards", nargs="*", metavar="CARD", help="the three cards of the hand")
    evaluate.add_argument(
        "--batch",
        action="store_true",
        help="read one hand per line from standard input as 'MUESTRA C1 C2 C3'; write one JSON object per line",
    )
    evaluate.add_argument("--json", action="store_true", help="print the single hand as JSON")
    evaluate.add_argument("--sin-flor", action="store_true", help="evaluate for a match played without flor")
    evaluate.set_defaults(run=_run)


def _parse_hand(words: Sequence[str], with_flor: bool) -> HandEvaluation:
    if len(words) != 4:
        raise UsageError(f"expected a muestra and three cards, got {len(words)} card(s)")
    try:
        muestra, *cards = (Card.parse(word) for word in words)
        return evaluate_hand(muestra, cards, with_flor=with_flor)
    except (CardParseError, HandError) as error:
        raise UsageError(str(error)) from None


def evaluation_json(evaluation: HandEvaluation) -> dict[str, object]:
    """The JSON line of ``truco eval --batch``."""
    return {
        "envido": evaluation.envido,
        "flor": evaluation.flor,
        "flor_points": evaluation.flor_points,
        "strength": list(evaluation.strength),
    }


def _run(args: argparse.Namespace) -> int:
    with_flor = not args.sin_flor
    if args.batch:
        if args.cards or args.muestra:
            raise UsageError("--batch reads hands from standard input; give no cards on the command line")
        return _eval_batch(sys.stdin, sys.stdout, with_flor)
    if args.muestra is None:
        raise UsageError("give --muestra CARD and the hand's three cards (or --batch)")
    evaluation = _parse_hand([args.muestra, *args.cards], with_flor)
    if args.json:
        print(json.dumps(evaluation_json(evaluation)))
    else:
        print(format_evaluation(evaluation))
    return 0


def _eval_batch(source: TextIO, sink: TextIO, with_flor: bool) -> int:
    for number, line in enumerate(source, start=1):
        words = line.split()
        if not words:
            continue
        try:
            evaluation = _parse_hand(words, with_flor)
        except UsageError as error:
            sink.flush()
            print(f"truco eval: line {number}: {error}: {line.strip()!r}", file=sys.stderr)
            return 1
        sink.write(json.dumps(evaluation_json(evaluation)) + "\n")
    return 0


def format_evaluation(evaluation: HandEvaluation) -> str:
    muestra = evaluation.muestra
    lines = [
        f"muestra   {muestra}   piezas {' '.join(str(p) for p in piezas(muestra))}",
        f"hand      {' '.join(str(c) for c in evaluation.cards)}",
        f"envido    {evaluation.envido if evaluation.envido is not None else '- (flor: no envido is played)'}",
        f"flor      {'yes, ' + str(evaluation.flor_points) + ' points' if evaluation.flor else 'no'}",
        "strength  "
        + ", ".join(
            f"{card} {value}{' (pieza)' if is_pieza(card, muestra) else ''}"
            for card, value in zip(evaluation.cards, evaluation.strength, strict=True)
        )
        + "   (bigger wins a round; equal is a parda)",
    ]
    return "\n".join(lines)
