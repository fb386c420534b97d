"""The frames the suites check: a chunk of a dataset's rows, and small aggregates built at the end from the
counts every shard contributed (schema per file, trivial shares, up-sampling targets, standard split,
leakage, ratios, manifest). `tnforge.validation.registry` says which builder serves which frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from tnforge import datasets, schemas
from tnforge.filesystems import NotParquet
from tnforge.generators.negatives import budgeted_kinds, default_kinds
from tnforge.schemas import suites
from tnforge.validation.combine import Partial
from tnforge.validation.reading import DataFile, folder_state, read_schema
from tnforge.validation.stats import trivial_targets

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class FrameInputs:
    """What a final frame builder reads: the directory, its manifest and suite parameters, the dataset being
    validated ("manifest" for the manifest's frames), the files found, and what every shard contributed."""

    root: str
    manifest: dict[str, Any] | None
    params: suites.SuiteParams
    dataset: str
    partial: Partial = field(default_factory=Partial)
    present: dict[str, list[DataFile]] = field(default_factory=dict)  # every dataset's files

    def stats(self, name: str) -> dict[tuple, int]:
        return self.partial.stats.get(name, {})


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas(split_blocks=True, self_destruct=False)


def _widened(frame: pd.DataFrame) -> pd.DataFrame:
    """Narrow integer and float columns as int64/float64: GX compares those vectorised, others value by value."""
    import numpy as np

    for column, dtype in frame.dtypes.items():
        if dtype.kind == "i" and dtype != np.int64 or dtype.kind == "u" and dtype.itemsize < 8:
            frame[column] = frame[column].astype(np.int64)
        elif dtype.kind == "f" and dtype != np.float64:
            frame[column] = frame[column].astype(np.float64)
    return frame


def schema_frame(inputs: FrameInputs) -> pd.DataFrame:
    """One row per expected or found column, and per metadata key, of every file: expected vs found."""
    import pandas as pd

    rows = inputs.partial.schema_rows.get(inputs.dataset, [])
    return pd.DataFrame(rows, columns=["file", "kind", "expected", "found"])


def schema_rows(name: str, item: DataFile) -> list[tuple[str, str, str, str]]:
    """The schema frame's rows of one file: each expected or found column and metadata key."""
    expected = {f.name: suites.field_descriptor(f) for f in schemas.SCHEMAS[name]}
    try:
        schema = read_schema(item.path)
    except (OSError, pa.ArrowException, NotParquet) as error:
        return [(item.relative, "column", "a readable Parquet file", f"unreadable: {error}")]
    rows = []
    found = {f.name: suites.field_descriptor(f) for f in schema}
    for column, descriptor in expected.items():
        rows.append((item.relative, "column", descriptor, found.get(column, f"{column}: <missing>")))
    for column in sorted(found.keys() - expected.keys()):
        rows.append((item.relative, "column", f"{column}: <not in schema>", found[column]))
    metadata = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
    for key, value in suites.expected_metadata(name).items():
        rows.append((item.relative, "metadata", f"{key}={value}", f"{key}={metadata.get(key, '<missing>')}"))
    return rows


def rows_frame(name: str, rows: pa.Table) -> pd.DataFrame:
    """A chunk of a dataset's rows, with the derived columns its suite checks (after_is_trivial …)."""
    if name == "examples" and "after" in rows.column_names:
        rows = rows.append_column("after_is_trivial", pc.is_in(rows.column("after"), value_set=trivial_targets()))
    if name == "sentences" and "readings" in rows.column_names:  # the alignment: one reading per token
        readings = rows.column("readings")
        rows = rows.drop(["readings"]).append_column("n_readings", pc.list_value_length(readings))
    frame = _widened(_to_pandas(rows))
    if name in ("pairs", "vocab_pairs") and "label" in frame:
        # A generated reading the covering grammar licenses is kept as acceptable (label 1, licensed) and
        # keeps its negative type for traceability; every other label-1 row is a corpus positive.
        licensed = frame["licensed"].fillna(False).astype(bool) if "licensed" in frame else False
        frame["corpus_positive"] = (frame["label"] == 1) & ~licensed
    return frame


def shares_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Per split: examples, trivial examples and their share."""
    import pandas as pd

    rows, trivial = inputs.stats("examples.split_rows"), inputs.stats("examples.split_trivial")
    out = [(split, n, trivial.get((split,), 0), trivial.get((split,), 0) / n) for (split,), n in sorted(rows.items())]
    return pd.DataFrame(out, columns=["split", "rows", "trivial", "share"])


def upsampling_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Train examples per up-sampled MEASURE unit and in the big-CARDINAL group, against their targets."""
    import pandas as pd

    params, manifest = inputs.params, inputs.manifest
    config = (manifest or {}).get("config", {})
    sampling = (manifest or {}).get("sampling", {})
    out: list[tuple[str, str, int, int]] = []
    if not inputs.stats("examples.split_class"):
        return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])
    if params.measure_min_count is not None:
        units = {unit: count for (unit,), count in inputs.stats("examples.measure_units").items()}
        listed = sampling.get("measure_units", {})
        rare = {unit for unit, count in units.items() if count < params.measure_min_count}
        for unit in sorted(set(listed) | rare):  # the applied target (caps may lower the configured one)
            target = listed.get(unit, {}).get("examples", params.measure_min_count)
            out.append((f"MEASURE unit {unit!r}", "measure", units.get(unit, 0), target))
    if params.cardinal_target is not None:
        threshold = config.get("cardinal_min_value", 1_000_000)
        big = inputs.stats("examples.big_cardinals").get((), 0)
        group = sampling.get("big_cardinals") or {}
        if group.get("tokens", big) > 0:
            target = group.get("examples") or params.cardinal_target
            out.append((f"CARDINAL ≥ {threshold:,}", "cardinal", big, target))
    return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])


def standard_split_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Per split and source: original rows (copy 0) and their first and last line."""
    import pandas as pd

    rows = inputs.stats("examples.standard_rows")
    lows = inputs.partial.lows.get("examples.standard_line", {})
    highs = inputs.partial.highs.get("examples.standard_line", {})
    out = [(split, source, n, lows[(split, source)], highs[(split, source)])
           for (split, source), n in sorted(rows.items())]
    return pd.DataFrame(out, columns=["split", "source", "rows", "min_line", "max_line"])


def leakage_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Distinct sentence text hashes shared by each split pair, and their share of the first split's
    (counted per partition of the hashes, `groups.leakage_counts`)."""
    import pandas as pd

    counts = inputs.stats("sentences.leakage")
    out = []
    for first, second in suites.LEAK_PAIRS:
        shared, distinct = counts.get(("shared", f"{first}~{second}"), 0), counts.get(("distinct", first), 0)
        out.append((f"{first}~{second}", shared, float(shared / distinct) if distinct else 0.0))
    return pd.DataFrame(out, columns=["pair", "shared", "rate"])


def leakage_note(frame: pd.DataFrame, params: suites.SuiteParams) -> str:
    """The report note on sentences shared between splits (every pair, failed or not)."""
    rates = ", ".join(f"{row.pair} {row.shared:,} ({row.rate:.1%})" for row in frame.itertuples())
    return f"sentences shared between splits ({params.split} split): {rates}"


def _pair_strings(before: pd.Series, reading: pd.Series) -> pd.Series:
    return before.astype(str) + "\x1f" + reading.astype(str)


def equals_positive(pairs: pd.DataFrame, positives: pd.DataFrame | None) -> pd.Series:
    """For each labelled pair: a negative (label 0) whose (before, reading) is accepted anywhere in the dataset.

    The dual encoders see no class, so this is class- and split-independent: accepted are the corpus positives
    (label 1 rows and the positive pairs) and the readings the covering grammar licensed (label 1, their
    negative type kept)."""
    import pandas as pd

    if pairs.empty or not {"label", "before", "reading"} <= set(pairs.columns):
        return pd.Series(False, index=pairs.index)
    accepted = pairs["label"] == 1
    known = set(_pair_strings(pairs.loc[accepted, "before"], pairs.loc[accepted, "reading"]))
    if positives is not None and not positives.empty:
        known |= set(_pair_strings(positives["before"], positives["after"]))
    negative = pairs["label"] == 0
    return negative & _pair_strings(pairs["before"], pairs["reading"]).isin(known)


def ratios_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Negatives per positive in each split for the ratio-budgeted negative types, with the allowed range.

    The negatives generator spends `ratio` negatives per positive across its budgeted kinds together
    (round-robin over the kinds' candidate streams); top-k negatives are taken as found, so not counted.
    The range allows `RATIO_TOLERANCE` (relative) below the ratio for inputs whose candidates run out, and
    three standard errors of the stable-hash rounding of fractional ratios either side.
    """
    import pandas as pd

    params = inputs.params
    columns = ["split", "type", "negatives", "positives", "ratio", "min_ratio", "max_ratio"]
    ratio = params.negative_ratio
    types = inputs.stats("pairs.types")
    budgeted = budgeted_kinds(params.negative_kinds or default_kinds())
    if not types or not isinstance(ratio, (int, float)) or not budgeted:
        return pd.DataFrame([], columns=columns)
    out = []
    for split in sorted({split for split, _, _ in types}):
        # Negatives the covering grammar licensed keep their type (label 1): they were generated as negatives.
        positives = sum(n for (s, label, kind), n in types.items() if s == split and label == 1 and kind == "")
        if not positives:
            continue
        negatives = sum(n for (s, _, kind), n in types.items() if s == split and kind in budgeted)
        slack = 3 * (0.25 / positives) ** 0.5
        out.append((split, "+".join(budgeted), negatives, positives, negatives / positives,
                    ratio * (1 - suites.RATIO_TOLERANCE) - slack, ratio + slack))
    return pd.DataFrame(out, columns=columns)


def manifest_counts_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Every count the manifest states that the files can confirm: (what, manifest, files)."""
    import pandas as pd

    manifest, present = inputs.manifest or {}, inputs.present
    out: list[tuple[str, int, int]] = []
    files = inputs.stats("files.rows")

    def rows_of(name: str, split: str | None) -> int:
        return sum(n for (dataset, folder), n in files.items() if dataset == name and split in (None, folder))

    for name, stated in (manifest.get("datasets") or {}).items():
        if name not in datasets.DATASET_DIRS:
            continue
        if isinstance(stated, dict):
            for split, count in stated.items():
                out.append((f"{name}/{split} rows", int(count), rows_of(name, split)))
        else:
            out.append((f"{name} rows", int(stated), rows_of(name, None)))
    by_class, trivial = inputs.stats("examples.split_class"), inputs.stats("examples.split_trivial")
    copies, kept = inputs.stats("examples.split_copies"), inputs.stats("examples.copies")
    if by_class:
        for split, stats in (manifest.get("splits") or {}).items():
            for cls, count in (stats.get("examples") or {}).items():
                out.append((f"examples/{split} class {cls}", int(count), by_class.get((split, cls), 0)))
            if "trivial_examples" in stats:
                out.append((f"examples/{split} trivial", int(stats["trivial_examples"]), trivial.get((split,), 0)))
            if "copies" in stats:
                out.append((f"examples/{split} copies", int(stats["copies"]), copies.get((split,), 0)))
    if "rejects_by_reason" in manifest:
        by_reason = inputs.stats("rejects.reason")
        for reason in sorted(set(manifest["rejects_by_reason"]) | {r for (r,) in by_reason}):
            out.append((f"rejects reason {reason!r}", int(manifest["rejects_by_reason"].get(reason, 0)),
                        by_reason.get((reason,), 0)))
    accounting = manifest.get("accounting") or {}
    if "examples" in present:
        if "kept" in accounting:
            out.append(("accounting kept (examples with copy 0)", int(accounting["kept"]), kept.get(("kept",), 0)))
        if "copies_added" in accounting:
            out.append(("accounting copies_added", int(accounting["copies_added"]), kept.get(("added",), 0)))
    if "rejected" in accounting:
        out.append(("accounting rejected (rejects rows)", int(accounting["rejected"]), rows_of("rejects", None)))
    if "reconciles" in accounting:
        out.append(("accounting reconciles (build's own check, 1 = yes)", 1, int(bool(accounting["reconciles"]))))
    counts = (manifest.get("negatives") or {}).get("counts") or {}
    if counts:
        found: dict[tuple, int] = {}
        for (split, _label, kind), n in inputs.stats("pairs.types").items():
            key = (split, kind or "positive")
            found[key] = found.get(key, 0) + n
        for split, by_type in counts.items():
            for kind, count in by_type.items():
                out.append((f"pairs/{split} {kind}", int(count), found.get((split, kind), 0)))
    return pd.DataFrame(out, columns=["what", "manifest", "files"])


def expected_folders(manifest: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(dataset, split) of every dataset folder a manifest says was written (split None: split-free)."""
    out: list[tuple[str, str | None]] = []
    for name, stated in (manifest.get("datasets") or {}).items():
        if name in datasets.DATASET_DIRS:
            out += [(name, split) for split in stated] if isinstance(stated, dict) else [(name, None)]
    negatives = manifest.get("negatives") or {}
    for name, key in (("pairs", "counts"), ("vocab_pairs", "vocab_counts")):
        out += [(name, split) for split in negatives.get(key) or {}]
    return out


def manifest_datasets_frame(inputs: FrameInputs) -> pd.DataFrame:
    """One row per dataset folder the manifest says was written: "present", or what is missing."""
    import pandas as pd

    out = []
    for name, split in expected_folders(inputs.manifest or {}):
        folder, found = folder_state(inputs.root, name, split)
        out.append((folder, "present", found))
    return pd.DataFrame(out, columns=["folder", "expected", "found"])
