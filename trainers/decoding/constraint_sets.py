"""Decoding constraints built from run directories: dual-encoder scorers, the grammar mask, their combination,
and the matrix of configurations that `compare` decodes. The grammar arrives as a callable
`(before, cls) → word tuples` (from `tnforge.grammars.adapter`); this module imports no grammar library.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # torch is imported only by the functions that need it (`tnforge --help` imports this module)
    from tnforge.trainers.decoding.class_weights import Weight
    from tnforge.trainers.decoding.protocol import DecodableModel

#: The constraint weight λ when none is given.
WEIGHT = 5.0

ReadingWords = Callable[[str, str | None], Collection[tuple[str, ...]]]


def parse_weights(text: str) -> list[float]:
    """λ values from "0,1,2,5": sorted, distinct, non-negative (ValueError otherwise)."""
    try:
        weights = sorted({float(v) for v in text.split(",") if v.strip()})
    except ValueError as error:
        raise ValueError(f"{text!r}: comma-separated numbers, e.g. 0,1,2,5,10") from error
    if not weights or min(weights) < 0:
        raise ValueError(f"{text!r}: give non-negative weights")
    return weights


def named_runs(values: Iterable[str]) -> list[tuple[str, str]]:
    """Runs given as RUN or NAME=RUN, as (NAME, RUN); NAME defaults to the run's folder name."""
    runs = []
    for value in values:
        name, _, path = value.rpartition("=") if "=" in value else ("", "", value)
        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no such run directory or checkpoint")
        runs.append((name or Path(path).name, path))
    return runs


def load_scorer(path: str, device: Any, kind: str) -> Any:
    """A trained dual encoder of `kind` ("sequence" or "vocabulary"), loaded through the family registry;
    ValueError when it is the other kind or another family's run."""
    from tnforge.trainers.families import load

    _family, scorer = load(path, device, kind="scorer")
    if scorer.kind != kind:
        raise ValueError(f"{path}: a {scorer.kind} dual encoder, but a {kind} one is needed here")
    return scorer


def sequence_constraint(loaded: DecodableModel, path: str, weight: Weight = WEIGHT) -> Any:
    """STOP + λ(s − 0.5) with the sequence dual encoder of run `path`."""
    from tnforge.trainers.decoding.constraints import SequenceDEConstraint

    return SequenceDEConstraint(load_scorer(path, loaded.device, "sequence"), weight)


def vocabulary_constraint(loaded: DecodableModel, path: str, weight: Weight = WEIGHT) -> Any:
    """Each word + λ(s − 1) with the vocabulary-filter dual encoder of run `path`."""
    from tnforge.trainers.decoding.constraints import VocabularyFilterConstraint

    return VocabularyFilterConstraint(load_scorer(path, loaded.device, "vocabulary"), weight)


def grammar_constraint(loaded: DecodableModel, reading_words: ReadingWords, covered: Collection[str]) -> Any:
    """The covering grammar's hard mask for inputs of the covered classes, within the model's output length."""
    from tnforge.trainers.decoding.constraints import GrammarConstraint

    return GrammarConstraint(reading_words, covered, max_length=loaded.max_output_length)


def build_constraint(loaded: DecodableModel, seq_de: str | None = None, voc_de: str | None = None,
                     reading_words: ReadingWords | None = None, covered: Collection[str] = frozenset(),
                     weight: Weight = WEIGHT) -> tuple[Any, str]:
    """The decoding constraint for a loaded seq2seq model (None when nothing is asked for) and a note on it.

    `seq_de` / `voc_de` are dual-encoder runs; `reading_words` (with the classes it `covered`) adds the
    grammar mask.
    """
    from tnforge.trainers.decoding.hooks import combine

    parts, notes = [], []
    if seq_de:
        parts.append(sequence_constraint(loaded, seq_de, weight))
        notes.append(f"seqDE λ={weight:g}")
    if voc_de:
        parts.append(vocabulary_constraint(loaded, voc_de, weight))
        notes.append(f"vocDE λ={weight:g}")
    if reading_words is not None:
        parts.append(grammar_constraint(loaded, reading_words, covered))
        notes.append("grammar mask")
    return combine(parts), (", ".join(notes) or "unconstrained")


def constraint_pieces(loaded: DecodableModel, seq_de: str | None = None, voc_des: Sequence[tuple[str, str]] = (),
                      reading_words: ReadingWords | None = None, covered: Collection[str] = frozenset(),
                      weight: Weight = WEIGHT) -> dict[str, Any]:
    """Each single constraint by name: "seqDE", "vocDE[NAME]" per (NAME, run) of `voc_des`, "grammar"."""
    pieces: dict[str, Any] = {}
    if seq_de:
        pieces["seqDE"] = sequence_constraint(loaded, seq_de, weight)
    for name, path in voc_des:
        pieces[f"vocDE[{name}]"] = vocabulary_constraint(loaded, path, weight)
    if reading_words is not None:
        pieces["grammar"] = grammar_constraint(loaded, reading_words, covered)
    return pieces


def configuration_matrix(pieces: Mapping[str, Any]) -> dict[str, Any]:
    """The configurations `compare` decodes, in report order: "none" (None), each piece alone ("+NAME"),
    seqDE with each vocabulary filter, and every dual encoder together with the grammar."""
    from tnforge.trainers.decoding.hooks import combine

    configurations: dict[str, Any] = {"none": None}
    configurations.update({f"+{name}": piece for name, piece in pieces.items()})
    des = [name for name in pieces if name != "grammar"]
    if "seqDE" in pieces:
        for name in (n for n in des if n != "seqDE"):
            configurations[f"+seqDE+{name}"] = combine([pieces["seqDE"], pieces[name]])
    if "grammar" in pieces and des:
        configurations["+" + "+".join([*des, "grammar"])] = combine([pieces[n] for n in [*des, "grammar"]])
    return configurations
