"""trainers.adversarial_loop: rounds of injected steps, their records (local and gs://), and the checks made
before a round starts. The loop on real data, locally and on Beam: tests/pipelines/test_topk_recipe.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tnforge.trainers.adversarial_loop import LoopConfig, adversarial_loop


def test_rounds_chain_each_filter_into_the_next_decode(tmp_path):
    calls: list[tuple] = []

    def decode_topk(r: int, previous: Path | None) -> Path:
        calls.append(("decode", r, previous))
        return tmp_path / f"h{r}"

    rows = adversarial_loop(2, decode_topk, lambda r, h: calls.append(("regenerate", r, h)),
                            lambda r: tmp_path / f"f{r}", lambda r, run: {"errors": 3 - r})
    assert [c for c in calls if c[0] == "decode"] == [("decode", 1, None), ("decode", 2, tmp_path / "f1")]
    assert [(row["round"], row["errors"], row["filter"]) for row in rows] == [(1, 2, str(tmp_path / "f1")),
                                                                           (2, 1, str(tmp_path / "f2"))]
    assert all(row[f"{step}_s"] >= 0 for row in rows for step in ("decode", "negatives", "train", "evaluate"))
    with pytest.raises(ValueError, match="at least 1"):
        adversarial_loop(0, decode_topk, print, print, print)


class Stopped(Exception):
    """An interruption inside a round."""


def test_a_loop_interrupted_between_rounds_resumes_after_its_last_finished_round(tmp_path):
    calls: list[tuple] = []
    interrupted: list[int] = []

    def retrain(r: int) -> Path:
        calls.append(("retrain", r))
        if r == 2 and not interrupted:
            interrupted.append(r)
            raise Stopped  # as Ctrl-C (or a crash) in round 2: round 1 is finished and recorded
        return tmp_path / f"f{r}"

    def decode_topk(r: int, previous: Path | None) -> Path:
        calls.append(("decode", r, previous))
        return tmp_path / f"h{r}"

    steps = (decode_topk, lambda r, h: None, retrain, lambda r, run: {"errors": 3 - r})
    with pytest.raises(Stopped):
        adversarial_loop(3, *steps, work=tmp_path, settings={"lambda": 5})
    assert (tmp_path / "round-1" / "round.json").is_file() and not (tmp_path / "round-2" / "round.json").exists()
    calls.clear()
    seen: list[int] = []
    rows = adversarial_loop(3, *steps, on_round=lambda row: seen.append(row["round"]), work=tmp_path,
                            settings={"lambda": 5})
    # Round 1 comes from its record; round 2 starts again, from round 1's filter.
    assert calls[0] == ("decode", 2, tmp_path / "f1") and ("decode", 1, None) not in calls
    assert [row["round"] for row in rows] == seen == [1, 2, 3] and [row["errors"] for row in rows] == [2, 1, 0]
    with pytest.raises(ValueError, match="holds rounds of a loop with other settings"):
        adversarial_loop(3, *steps, work=tmp_path, settings={"lambda": 1})


def test_loop_defaults():
    config = LoopConfig()
    assert (config.rounds, config.split, config.top_k, config.ratio, config.weight, config.epochs) == \
        (2, "dev", 5, 3.0, 5.0, 20)


def test_an_evaluation_split_without_examples_stops_the_loop_before_anything(tmp_path):
    """`loop --split test` on a build without test examples (`--split none`): one error before the loop writes,
    decodes or trains anything (it used to fail only after a whole round)."""
    from tests.support.tiny_models import examples_table, write_tiny_dataset
    from tnforge import schemas
    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.trainers.adversarial_loop import run_loop

    data = write_tiny_dataset(tmp_path / "data")
    write_sharded(examples_table([], "test"), dataset_path(data, "examples", "test"), schemas.EXAMPLES)
    with pytest.raises(ValueError, match="the test split has no examples: nothing to evaluate"):
        run_loop(None, data, tmp_path / "work", lambda *args: None, LoopConfig(split="test"))
    assert not (tmp_path / "work").exists()


def test_round_records_on_gs_resume_the_loop_with_the_same_rows(gcs):
    """The round records (round-N/round.json, written last) work on gs://: a loop interrupted between rounds
    resumes from them with exactly the rows of the rounds it finished."""
    work = f"{gcs.bucket('loop-records')}/work"
    interrupted: list[int] = []

    def retrain(r: int) -> str:
        if r == 2 and not interrupted:
            interrupted.append(r)
            raise Stopped
        return f"{work}/round-{r}/voc-de"

    decoded: list[int] = []
    steps = (lambda r, previous: decoded.append((r, previous)) or f"{work}/round-{r}/hypotheses.parquet",
             lambda r, h: None, retrain, lambda r, run: {"errors": 3 - r})
    with pytest.raises(Stopped):
        adversarial_loop(2, *steps, work=work, settings={"lambda": 5})
    first = json.loads(gcs.read(f"{work}/round-1/round.json"))["row"]
    decoded.clear()
    rows = adversarial_loop(2, *steps, work=work, settings={"lambda": 5})
    assert decoded == [(2, f"{work}/round-1/voc-de")] and rows[0] == first and [row["round"] for row in rows] == [1, 2]
    assert json.loads(gcs.read(f"{work}/round-2/round.json"))["row"] == rows[1]
    with pytest.raises(ValueError, match="other settings"):
        adversarial_loop(2, *steps, work=work, settings={"lambda": 6})
