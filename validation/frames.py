"""The frames the suites check: a dataset's rows, and small aggregates computed with pyarrow for the checks
that span rows or datasets (schema per file, up-sampling targets, standard split, leakage, ratios, manifest).

Every builder takes the same `FrameInputs`; `tnforge.validation.registry` says which builder serves which frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tnforge import datasets, schemas
from tnforge.schemas import negative_kinds, suites
from tnforge.validation.reading import read_columns, row_count

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class FrameInputs:
    """What a frame builder reads: the directory, its manifest and suite parameters, the rows read so far."""

    root: Path
    manifest: dict[str, Any] | None
    params: suites.SuiteParams
    dataset: str  # the dataset being validated ("manifest" for the manifest's frames)
    files: list[Path] = field(default_factory=list)  # its Parquet files
    tables: dict[str, pa.Table] = field(default_factory=dict)  # rows read so far, per dataset
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)  # this dataset's frames built so far

    @property
    def rows(self) -> pa.Table:
        """The rows of the dataset being validated."""
        return self.tables.get(self.dataset, pa.table({}))


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas(split_blocks=True, self_destruct=False)


def count_by(table: pa.Table, keys: list[str]) -> dict[tuple, int]:
    """Rows per distinct value of `keys` ({} when the table is empty or lacks a key column)."""
    if not table.num_rows or any(k not in table.column_names for k in keys):
        return {}
    grouped = table.group_by(keys).aggregate([([], "count_all")])
    columns = [grouped.column(k).to_pylist() for k in keys]
    return dict(zip(zip(*columns, strict=True), grouped.column("count_all").to_pylist(), strict=True))


def schema_frame(inputs: FrameInputs) -> pd.DataFrame:
    """One row per expected or found column, and per metadata key, of every file: expected vs found."""
    import pandas as pd

    name, root = inputs.dataset, inputs.root
    expected = {f.name: suites.field_descriptor(f) for f in schemas.SCHEMAS[name]}
    expected_meta = suites.expected_metadata(name)
    rows = []
    for path in inputs.files:
        relative = str(path.relative_to(root))
        try:
            schema = pq.read_schema(path)
        except (OSError, pa.ArrowException) as error:
            rows.append((relative, "column", "a readable Parquet file", f"unreadable: {error}"))
            continue
        found = {f.name: suites.field_descriptor(f) for f in schema}
        for column, descriptor in expected.items():
            rows.append((relative, "column", descriptor, found.get(column, f"{column}: <missing>")))
        for column in found.keys() - expected.keys():
            rows.append((relative, "column", f"{column}: <not in schema>", found[column]))
        metadata = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
        for key, value in expected_meta.items():
            rows.append((relative, "metadata", f"{key}={value}", f"{key}={metadata.get(key, '<missing>')}"))
    return pd.DataFrame(rows, columns=["file", "kind", "expected", "found"])


def rows_frame(inputs: FrameInputs) -> pd.DataFrame:
    """The dataset's rows, with the derived columns its suite checks (after_is_trivial, equals_positive …)."""
    name, rows = inputs.dataset, inputs.rows
    if name == "examples" and "after" in rows.column_names:
        trivial = pc.is_in(rows.column("after"), value_set=pa.array(sorted(schemas.TRIVIAL_TARGETS)))
        rows = rows.append_column("after_is_trivial", trivial)
    frame = _to_pandas(rows)
    if name in ("pairs", "vocab_pairs") and "label" in frame:
        # A generated reading the covering grammar licenses is kept as acceptable (label 1, licensed) and
        # keeps its negative type for traceability; every other label-1 row is a corpus positive.
        licensed = frame["licensed"].fillna(False).astype(bool) if "licensed" in frame else False
        frame["corpus_positive"] = (frame["label"] == 1) & ~licensed
    if name == "pairs":
        positives = inputs.tables.get("positive_pairs")
        positive_frame = _to_pandas(positives.select(["before", "after"])) if positives is not None else None
        frame["equals_positive"] = equals_positive(frame, positive_frame)
    return frame


def upsampling_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Train examples per up-sampled MEASURE unit and in the big-CARDINAL group, against their targets."""
    import pandas as pd

    from tnforge.tokens import cardinal_value, measure_unit

    rows, params, manifest = inputs.rows, inputs.params, inputs.manifest
    config = (manifest or {}).get("config", {})
    sampling = (manifest or {}).get("sampling", {})
    out: list[tuple[str, str, int, int]] = []
    needed = {"split", "class", "before"}
    if not rows.num_rows or not needed <= set(rows.column_names):
        return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])
    train = rows.filter(pc.equal(rows.column("split"), "train"))
    by_before = count_by(train.select(["class", "before"]), ["class", "before"])
    if params.measure_min_count is not None:
        units: dict[str, int] = {}
        for (cls, before), count in by_before.items():
            unit = measure_unit(before) if cls == "MEASURE" else None
            if unit is not None:
                units[unit] = units.get(unit, 0) + count
        listed = sampling.get("measure_units", {})
        rare = {unit for unit, count in units.items() if count < params.measure_min_count}
        for unit in sorted(set(listed) | rare):  # the applied target (caps may lower the configured one)
            target = listed.get(unit, {}).get("examples", params.measure_min_count)
            out.append((f"MEASURE unit {unit!r}", "measure", units.get(unit, 0), target))
    if params.cardinal_target is not None:
        threshold = config.get("cardinal_min_value", 1_000_000)
        big = 0
        for (cls, before), count in by_before.items():
            value = cardinal_value(before) if cls == "CARDINAL" else None
            if value is not None and value >= threshold:
                big += count
        group = sampling.get("big_cardinals") or {}
        if group.get("tokens", big) > 0:
            target = group.get("examples") or params.cardinal_target
            out.append((f"CARDINAL ≥ {threshold:,}", "cardinal", big, target))
    return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])


def standard_split_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Per split and source: original rows (copy 0) and their first and last line."""
    import pandas as pd

    rows = inputs.rows
    columns = ["split", "source", "rows", "min_line", "max_line"]
    if not rows.num_rows or not {"split", "source", "line", "copy"} <= set(rows.column_names):
        return pd.DataFrame([], columns=columns)
    originals = rows.filter(pc.equal(rows.column("copy"), 0)).select(["split", "source", "line"])
    grouped = originals.group_by(["split", "source"]).aggregate([([], "count_all"), ("line", "min"), ("line", "max")])
    frame = grouped.to_pandas().rename(columns={"count_all": "rows", "line_min": "min_line", "line_max": "max_line"})
    return frame[columns]


def leakage_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Distinct sentence text hashes shared by each split pair, and their share of the first split's."""
    import pandas as pd

    rows = inputs.rows
    out, by_split = [], {}
    if rows.num_rows and {"split", "text_hash"} <= set(rows.column_names):
        split = rows.column("split").to_numpy(zero_copy_only=False)
        hashes = rows.column("text_hash").to_numpy(zero_copy_only=False)
        by_split = {name: np.unique(hashes[split == name]) for name in schemas.SPLITS}
    for first, second in suites.LEAK_PAIRS:
        a, b = by_split.get(first, np.zeros(0, np.uint64)), by_split.get(second, np.zeros(0, np.uint64))
        both = np.intersect1d(a, b, assume_unique=True)
        out.append((f"{first}~{second}", int(both.size), float(both.size / a.size) if a.size else 0.0))
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
    three standard errors of the stable-hash rounding of fractional ratios either side. Reads pairs.rows.
    """
    import pandas as pd

    pairs, params = inputs.frames["pairs.rows"], inputs.params
    columns = ["split", "type", "negatives", "positives", "ratio", "min_ratio", "max_ratio"]
    ratio = params.negative_ratio
    needed = {"split", "label", "negative_type"}
    budgeted = [k for k in (params.negative_kinds or negative_kinds.DEFAULT_KINDS) if k not in negative_kinds.UNBUDGETED]
    if pairs.empty or not isinstance(ratio, (int, float)) or not needed <= set(pairs) or not budgeted:
        return pd.DataFrame([], columns=columns)
    out = []
    for split, part in pairs.groupby("split", sort=True):
        # Negatives the covering grammar licensed keep their type (label 1): they were generated as negatives.
        positives = int(((part["label"] == 1) & (part["negative_type"].fillna("") == "")).sum())
        if not positives:
            continue
        negatives = int(part["negative_type"].isin(budgeted).sum())
        slack = 3 * (0.25 / positives) ** 0.5
        out.append((split, "+".join(budgeted), negatives, positives, negatives / positives,
                    ratio * (1 - suites.RATIO_TOLERANCE) - slack, ratio + slack))
    return pd.DataFrame(out, columns=columns)


def manifest_counts_frame(inputs: FrameInputs) -> pd.DataFrame:
    """Every count the manifest states that the files can confirm: (what, manifest, files)."""
    import pandas as pd

    root, tables, manifest = inputs.root, inputs.tables, inputs.manifest or {}
    out: list[tuple[str, int, int]] = []

    def rows_of(name: str, split: str | None) -> int:
        return sum(row_count(p) for p in datasets.dataset_files(root, name, split))

    for name, stated in (manifest.get("datasets") or {}).items():
        if name not in datasets.DATASET_DIRS:
            continue
        if isinstance(stated, dict):
            for split, count in stated.items():
                out.append((f"{name}/{split} rows", int(count), rows_of(name, split)))
        else:
            out.append((f"{name} rows", int(stated), rows_of(name, None)))
    examples = read_columns(root, tables, "examples", ["split", "class", "trivial", "copy"])
    if examples is not None and examples.num_rows:
        by_class = count_by(examples.select(["split", "class"]), ["split", "class"])
        trivial = count_by(examples.filter(examples.column("trivial")).select(["split"]), ["split"])
        copies = count_by(examples.filter(pc.greater(examples.column("copy"), 0)).select(["split"]), ["split"])
        for split, stats in (manifest.get("splits") or {}).items():
            for cls, count in (stats.get("examples") or {}).items():
                out.append((f"examples/{split} class {cls}", int(count), by_class.get((split, cls), 0)))
            if "trivial_examples" in stats:
                out.append((f"examples/{split} trivial", int(stats["trivial_examples"]), trivial.get((split,), 0)))
            if "copies" in stats:
                out.append((f"examples/{split} copies", int(stats["copies"]), copies.get((split,), 0)))
    rejects = read_columns(root, tables, "rejects", ["reason"])
    if "rejects_by_reason" in manifest:
        by_reason = count_by(rejects, ["reason"]) if rejects is not None else {}
        for reason in sorted(set(manifest["rejects_by_reason"]) | {r for (r,) in by_reason}):
            out.append((f"rejects reason {reason!r}", int(manifest["rejects_by_reason"].get(reason, 0)),
                        by_reason.get((reason,), 0)))
    accounting = manifest.get("accounting") or {}
    if examples is not None and "copy" in examples.column_names:
        copy = examples.column("copy")
        if "kept" in accounting:
            out.append(("accounting kept (examples with copy 0)", int(accounting["kept"]),
                        int(pc.sum(pc.equal(copy, 0)).as_py() or 0)))
        if "copies_added" in accounting:
            out.append(("accounting copies_added", int(accounting["copies_added"]),
                        int(pc.sum(pc.greater(copy, 0)).as_py() or 0)))
    if "rejected" in accounting:
        out.append(("accounting rejected (rejects rows)", int(accounting["rejected"]), rows_of("rejects", None)))
    if "reconciles" in accounting:
        out.append(("accounting reconciles (build's own check, 1 = yes)", 1, int(bool(accounting["reconciles"]))))
    pairs = read_columns(root, tables, "pairs", ["split", "label", "negative_type"])
    counts = (manifest.get("negatives") or {}).get("counts") or {}
    if counts:
        found: dict[tuple, int] = {}
        if pairs is not None and pairs.num_rows:
            kind = pc.if_else(pc.equal(pairs.column("negative_type"), ""), "positive", pairs.column("negative_type"))
            found = count_by(pa.table({"split": pairs.column("split"), "type": kind}), ["split", "type"])
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

    root, out = inputs.root, []
    for name, split in expected_folders(inputs.manifest or {}):
        folder = datasets.dataset_path(root, name, split)
        if not folder.is_dir():
            found = "missing: no such folder"
        elif not datasets.dataset_files(root, name, split):
            found = "missing: no Parquet file in the folder"
        else:
            found = "present"
        out.append((f"{folder.relative_to(root).as_posix()}/", "present", found))
    return pd.DataFrame(out, columns=["folder", "expected", "found"])
