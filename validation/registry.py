"""The one table of what is validated: each dataset (and the manifest) → its frames, in order, each frame
with its stage, its builder and its expectation suite (`tnforge.schemas.suites`).

Stages: "rows" frames are built and checked per chunk of a shard (`shards`), "group" frames per key-hash
partition of the whole dataset (`groups`: id uniqueness, label consistency), "final" frames once, from
the counts every shard contributed (`frames`). To check something new, add a builder and a suite function
and list them here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tnforge.schemas import suites
from tnforge.schemas.suites import SuiteParams
from tnforge.validation import frames

if TYPE_CHECKING:
    import pandas as pd
    from great_expectations import ExpectationSuite


def _always(params: SuiteParams) -> bool:
    return True


@dataclass(frozen=True)
class Frame:
    """One frame: how it is built, the expectations run on it, and when it is checked at all."""

    name: str  # DATASET.KIND
    build: Callable[..., pd.DataFrame] | None  # final: (FrameInputs); rows: (dataset, table); group: (table)
    expectations: Callable[[SuiteParams], list[Any]]
    applies: Callable[[SuiteParams], bool] = _always
    index: tuple[str, ...] | None = None  # columns naming an offending row (None: every column)
    note: Callable[[pd.DataFrame, SuiteParams], str] | None = None  # a line for the report's notes
    stage: str = "final"  # "rows" | "group" | "final"

    def suite(self, params: SuiteParams) -> ExpectationSuite:
        """The GX suite of this frame for a build's parameters."""
        import great_expectations as gx

        return gx.ExpectationSuite(name=self.name, expectations=self.expectations(params))

    def index_columns(self, columns: list[str]) -> list[str]:
        """The columns that identify an offending row, among the frame's columns."""
        wanted = self.index if self.index is not None else columns
        return [column for column in wanted if column in columns]


@dataclass(frozen=True)
class Dataset:
    """How one dataset is validated: the columns read from its files, and its frames in the order built."""

    frames: tuple[Frame, ...]
    columns: tuple[str, ...] | None = None  # columns the frames read (None: the whole schema)

    def frame(self, name: str) -> Frame:
        return next(frame for frame in self.frames if frame.name == name)


def _checked(dataset: str, rows: Callable[[SuiteParams], list[Any]], index: tuple[str, ...]) -> tuple[Frame, ...]:
    """The three frames of every dataset: each file's schema, the rows with `rows`' expectations (per chunk),
    and the ids (per key-hash partition)."""
    return (Frame(f"{dataset}.schema", frames.schema_frame, suites.file_schema),
            Frame(f"{dataset}.rows", frames.rows_frame, rows, index=index, stage="rows"),
            Frame(f"{dataset}.ids", None, suites.unique_ids(dataset),
                  index=tuple(dict.fromkeys((*suites.ID_COLUMNS[dataset], *index))), stage="group"))


def _standard_split(params: SuiteParams) -> bool:
    return params.standard is not None


def _split_by_text(params: SuiteParams) -> bool:
    return params.split in ("hash", "standard")


#: Every dataset of `tnforge.schemas.SCHEMAS`, in its order, then "manifest" (checked when there is one).
DATASETS: dict[str, Dataset] = {
    "examples": Dataset(
        (*_checked("examples", suites.examples_rows, ("split", "source", "line")),
         Frame("examples.shares", frames.shares_frame, suites.examples_shares),
         Frame("examples.upsampling", frames.upsampling_frame, suites.examples_upsampling),
         Frame("examples.standard_split", frames.standard_split_frame, suites.examples_standard_split,
               applies=_standard_split)),
        columns=("key", "copy", "split", "source", "line", "class", "before", "after", "trivial", "input")),
    "sentences": Dataset(
        (*_checked("sentences", suites.sentences_rows, ("split", "key")),
         Frame("sentences.leakage", frames.leakage_frame, suites.sentences_leakage, applies=_split_by_text,
               note=frames.leakage_note)),
        columns=("key", "split", "n_tokens", "text_hash", "written", "readings")),
    "positive_pairs": Dataset(_checked("positive_pairs", suites.positive_pairs_rows, ("split", "before", "after"))),
    "rejects": Dataset(_checked("rejects", suites.rejects_rows, ("source", "line"))),
    "pairs": Dataset(
        (*_checked("pairs", suites.pairs_rows, ("split", "before", "reading", "negative_type")),
         Frame("pairs.labels", None, suites.pairs_labels, index=("split", "before", "reading", "negative_type"),
               stage="group"),
         Frame("pairs.ratios", frames.ratios_frame, suites.pairs_ratios))),
    "vocab_pairs": Dataset(_checked("vocab_pairs", suites.vocab_pairs_rows, ("split", "before", "word"))),
    "hypotheses": Dataset(_checked("hypotheses", suites.hypotheses_rows, ("key", "rank"))),
    "manifest": Dataset((Frame("manifest.datasets", frames.manifest_datasets_frame, suites.manifest_datasets),
                         Frame("manifest.counts", frames.manifest_counts_frame, suites.manifest_counts))),
}
