"""The top-k recipe of docs/guides/constrained-decoding.md end to end, with tiny models: decode train and dev into
DIR/hyps/{train,dev} → `negatives DIR --kinds synthetic,random,topk --topk-from DIR/hyps` → `train voc-de` and
`train seq-de` on them → `loop`, resumed after its finished rounds; locally in one process, and on an emulated
gs:// bucket with the decodes and the negatives on Beam's portable runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.cli import cli  # noqa: E402


def tnforge(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, f"tnforge {' '.join(args)}:\n{result.output}"
    return result.output


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    result, _ = H.train_tiny(tmp_path_factory.mktemp("recipe"), epochs=3)
    return Path(result.run)


def topk_pairs(directory: str, read) -> int:
    manifest = json.loads(read(f"{directory}/manifest.json"))
    return sum(counts.get("topk", 0) for counts in manifest["negatives"]["counts"].values())


def recipe(run: Path, directory: str, runs: Path, beam_args: tuple[str, ...], read) -> None:
    """The recipe's commands as the guide writes them (tiny sizes and `--threads 1` added)."""
    after = ("--", *beam_args) if beam_args else ()
    for split in ("train", "dev"):
        tnforge("decode", "--model", str(run), "--data", directory, "--split", split, "--top-k", "3",
                "--out", f"{directory}/hyps/{split}", "--threads", "1", "--device", "cpu", *after)
    tnforge("negatives", directory, "--kinds", "synthetic,random,topk", "--topk-from", f"{directory}/hyps",
            "--ratio", "3", *after)
    assert topk_pairs(directory, read) > 0
    tnforge("train", "voc-de", "--data", directory, "--out", str(runs / "voc-topk"), "--negatives", "topk",
            "--epochs", "1", "--threads", "1", "--device", "cpu", "--no-progress")
    tnforge("train", "seq-de", "--data", directory, "--out", str(runs / "seq-de"), "--epochs", "1", "--threads", "1",
            "--device", "cpu", "--no-progress")
    assert (runs / "voc-topk" / "best.pt").is_file() and (runs / "seq-de" / "best.pt").is_file()


def loop_args(run: Path, data: str, out: str) -> tuple[str, ...]:
    return ("loop", "--model", str(run), "--data", data, "--epochs", "1", "--out", out, "--threads", "1",
            "--device", "cpu")


@pytest.fixture(scope="module")
def local_loop(tiny_run, bundled_build, tmp_path_factory) -> tuple[Path, str]:
    """The loop in one process on the bundled build (only read), run for one round and then resumed for two:
    (its work folder, what the second run said)."""
    work = tmp_path_factory.mktemp("local-loop") / "loop"
    tnforge(*loop_args(tiny_run, str(bundled_build), str(work)), "--rounds", "1")
    first = (work / "round-1" / "voc-de" / "best.pt").stat().st_mtime_ns
    said = tnforge(*loop_args(tiny_run, str(bundled_build), str(work)), "--rounds", "2")
    assert (work / "round-1" / "voc-de" / "best.pt").stat().st_mtime_ns == first  # round 1 was not run again
    return work, said


def test_the_topk_recipe_runs_as_written_and_the_loop_resumes(tiny_run, bundled_build, local_loop, tmp_path):
    directory = tmp_path / "sample"
    shutil.copytree(bundled_build, directory)
    recipe(tiny_run, str(directory), tmp_path / "runs", (), lambda path: Path(path).read_text())
    work, said = local_loop
    assert (work / "round-2" / "round.json").is_file() and "| 2 |" in said
    assert not (work / "data" / "examples").exists()  # the pairs folder holds pairs only; the dataset is read


def files_below(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))}


@pytest.mark.slow
def test_the_topk_recipe_on_a_bucket_with_the_portable_runner(tiny_run, bundled_build, local_loop, tmp_path, gcs,
                                                             portable, monkeypatch):
    """The recipe on an emulated bucket with the portable runner, then the loop there, its decoding and
    negatives on Beam: Ctrl-C in round 2's retraining, run again, round 2 is redone from the start and the
    loop's rows, hypotheses and pairs are the bytes the loop writes in one process."""
    from tnforge.trainers import adversarial_loop

    portable_args, _logs = portable
    beam_args = (*portable_args, "--no_auth")
    bucket = gcs.bucket("recipe")
    for path in sorted(p for p in bundled_build.rglob("*") if p.is_file()):
        gcs.upload(path, f"{bucket}/sample/{path.relative_to(bundled_build).as_posix()}")
    recipe(tiny_run, f"{bucket}/sample", tmp_path / "runs", beam_args, lambda uri: gcs.read(uri).decode())
    names = gcs.names("recipe", "sample/hyps/")
    assert "sample/hyps/train/_hypotheses.json" in names and "sample/hyps/dev/_hypotheses.json" in names

    work = f"{bucket}/loop"
    retrain, rounds = adversarial_loop.retrain_filter, []

    def interrupted_in_round_2(pairs: str, run: str, device: str, epochs: int) -> str:
        rounds.append(run)
        if len(rounds) == 2:
            raise KeyboardInterrupt  # Ctrl-C after round 2's decode and negatives were written
        return retrain(pairs, run, device, epochs)

    monkeypatch.setattr(adversarial_loop, "retrain_filter", interrupted_in_round_2)
    loop = loop_args(tiny_run, f"{bucket}/sample", work)
    result = CliRunner().invoke(cli, [*loop, "--rounds", "2", "--", *beam_args])
    assert result.exit_code == 130, result.output
    assert "holds the rounds finished before it" in result.output
    names = gcs.names("recipe", "loop/")
    assert "loop/round-1/round.json" in names and "loop/round-2/hypotheses/_hypotheses.json" in names
    assert "loop/round-2/round.json" not in names
    first = gcs.read(f"{work}/round-1/round.json")

    said = tnforge(*loop, "--rounds", "2", "--", *beam_args)  # round 1 from its record, round 2 redone whole
    assert len(rounds) == 3 and rounds[2].endswith("round-2/voc-de") and gcs.read(f"{work}/round-1/round.json") == first
    assert "| 2 |" in said
    local, _ = local_loop
    mirror = tmp_path / "mirror"
    for name in gcs.names("recipe", "loop/"):
        (mirror / name).parent.mkdir(parents=True, exist_ok=True)
        (mirror / name).write_bytes(gcs.read(f"gs://recipe/{name}"))
    for folder in ("round-1/hypotheses", "round-2/hypotheses", "data/pairs", "data/vocab_pairs"):
        written = files_below(mirror / "loop" / folder)
        assert written and written == files_below(local / folder), folder
    for r in (1, 2):
        beam_row, local_row = (json.loads(((root / f"round-{r}" / "round.json")).read_text())["row"]
                               for root in (mirror / "loop", local))
        figures = ("errors", "error_rate", "unrecoverable", "filter_auc")
        assert [beam_row[f] for f in figures] == [local_row[f] for f in figures]


def test_a_dataflow_dry_run_of_the_loop_builds_its_first_decode_job_graph_offline(tiny_run, bundled_build):
    pytest.importorskip("apache_beam.runners.dataflow.dataflow_runner")
    pytest.importorskip("build")
    said = tnforge(*loop_args(tiny_run, str(bundled_build), "gs://tnforge-test/loop"), "--",
                   "--runner=DataflowRunner", "--project=tnforge-test", "--region=us-central1",
                   "--temp_location=gs://tnforge-test/tmp", "--dry_run=True")
    assert said.strip().splitlines()[-1] == ("dry run: the loop's first decode job graph was built; nothing was "
                                             "decoded, trained or written to gs://tnforge-test/loop")


def test_the_loop_on_dataflow_refuses_local_folders_in_one_line(tiny_run, bundled_build, tmp_path):
    """Dataflow's workers cannot reach the launcher's disk: a local dataset or work folder is refused before
    anything runs (a dry run, which reads nothing, may name them)."""
    pytest.importorskip("apache_beam.runners.dataflow.dataflow_runner")
    result = CliRunner().invoke(cli, [*loop_args(tiny_run, str(bundled_build), str(tmp_path / "loop")), "--",
                                      "--runner=DataflowRunner", "--project=tnforge-test", "--region=us-central1",
                                      "--temp_location=gs://tnforge-test/tmp"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (f"Error: {bundled_build}: Dataflow workers cannot reach a "
                                                      "local dataset directory; give its gs:// copy")
    assert not (tmp_path / "loop").exists()
