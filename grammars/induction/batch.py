"""The work of `tnforge grammar induce / verbalize / read`: learn into a directory; say or read many items,
from arguments and from files (one a line), each answer on its own line, each refusal one line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tnforge.grammars.induction.examples import InductionError, read_pairs
from tnforge.grammars.induction.learn import induce
from tnforge.grammars.induction.rules import Refusal
from tnforge.grammars.induction.store import InducedGrammar, save


def induce_directory(examples: str, lang: str, out: str, allomorph_text: str | None = None) -> list[str]:
    """Learn from a pair file, write the grammar directory; the report's lines."""
    pairs = read_pairs(examples)
    lm_lines: list[str] = []
    if allomorph_text:
        try:
            lm_lines = [line.strip() for line in Path(allomorph_text).read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, UnicodeDecodeError) as error:
            raise InductionError(f"{allomorph_text}: cannot read the allomorph text ({error})") from error
    rules, report = induce(pairs, lang, lm_lines)
    manifest = save(rules, report, pairs, out, len(lm_lines))
    return [*report.lines(rules), f"compiled in {manifest['compile_seconds']:.2f} s; wrote {out}"]


def _items(arguments: Iterable[str], files: Iterable[str]) -> Iterator[tuple[str, str]]:
    for argument in arguments:
        yield "argument", argument
    for name in files:
        try:
            lines = Path(name).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise InductionError(f"{name}: cannot read ({error})") from error
        for number, line in enumerate(lines, start=1):
            if line.strip():
                yield f"{name}:{number}", line.strip()


def run(directory: str, action: str, arguments: Iterable[str], files: Iterable[str],
        echo: Callable[..., None]) -> int:
    """Apply `action` ("best", "all" or "read") to every item; the number of refusals."""
    grammar = InducedGrammar(directory)
    refused = 0
    for where, item in _items(arguments, files):
        try:
            if action == "read":
                echo(str(grammar.read(item)))
            elif action == "all":
                echo("\t".join(grammar.readings(item)))
            else:
                echo(grammar.say(item))
        except Refusal as error:
            refused += 1
            echo(f"{where}: refused: {error}" if where != "argument" else f"refused: {error}", err=True)
    return refused
