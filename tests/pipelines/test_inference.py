"""`tnforge decode` as a Beam pipeline (`pipelines/inference.py`, RunInference): the same hypotheses bytes in
one process, on Beam's in-process runner, with two local worker processes and on the portable runner (a job
service and a worker pool, the process model of Dataflow), local and on an emulated gs:// bucket; committed
by `_hypotheses.json` last, so a killed job leaves nothing a reader takes as complete."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge import schemas  # noqa: E402
from tnforge.cli import cli  # noqa: E402
from tnforge.datasets import dataset_path, write_sharded  # noqa: E402
from tnforge.manifest import mark_complete, write_manifest  # noqa: E402

#: The tiny sentences many times over: a few hundred inputs in two examples files (two decode units).
SENTENCES = H.TINY_SENTENCES * 30
MULTI = ["--runner", "DirectRunner", "--direct_num_workers", "2", "--direct_running_mode", "multi_processing"]


@pytest.fixture(scope="module")
def model_and_data(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("inference")
    result, _ = H.train_tiny(tmp, epochs=3)
    data = tmp / "many"
    write_sharded(H.examples_table(SENTENCES, "dev"), dataset_path(data, "examples", "dev"), schemas.EXAMPLES, 2)
    write_manifest(data, mark_complete({}))
    return Path(result.run), data


def decode(model: Path, data: Path | str, out: Path | str, *beam_args: str, extra: tuple[str, ...] = ()) -> str:
    args = ["decode", "--model", str(model), "--data", str(data), "--split", "dev", "--out", str(out), "--top-k", "3",
            "--batch-size", "16", "--rows-per-file", "300", "--threads", "1", "--device", "cpu", *extra]
    result = CliRunner().invoke(cli, [*args, *(["--", *beam_args] if beam_args else [])])
    assert result.exit_code == 0, result.output
    return result.output


def folder_bytes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_decode_writes_the_same_bytes_in_one_process_and_on_beams_local_runners(model_and_data, tmp_path):
    model, data = model_and_data
    decode(model, data, tmp_path / "one")
    said = decode(model, data, tmp_path / "beam", "--runner", "FnApiRunner")
    decode(model, data, tmp_path / "two_workers", *MULTI)
    one = folder_bytes(tmp_path / "one")
    assert len(one) == 1 + 8  # _hypotheses.json + 8 shards of about 300 rows (780 inputs × 3)
    assert folder_bytes(tmp_path / "beam") == one and folder_bytes(tmp_path / "two_workers") == one
    marker = json.loads((tmp_path / "one" / "_hypotheses.json").read_text())
    assert marker["inputs"] == sum(len(s) for s in SENTENCES) and marker["complete"]
    assert "on Beam" in said and f"{marker['inputs']:,} inputs" in said


def test_a_folder_with_hypotheses_is_refused_on_any_runner(model_and_data, tmp_path):
    model, data = model_and_data
    decode(model, data, tmp_path / "hyps")
    before = folder_bytes(tmp_path / "hyps")
    for beam_args in ([], ["--runner", "FnApiRunner"]):
        args = ["decode", "-m", str(model), "-d", str(data), "--out", str(tmp_path / "hyps"), "--device", "cpu"]
        result = CliRunner().invoke(cli, [*args, *(["--", *beam_args] if beam_args else [])])
        assert result.exit_code == 1
        assert result.output.strip().splitlines() == [
            f"Error: {tmp_path / 'hyps'}: already holds hypotheses (a complete decode): decode into a new folder, "
            "or remove it first"]
    assert folder_bytes(tmp_path / "hyps") == before


def test_a_killed_decode_leaves_nothing_taken_as_complete(model_and_data, tmp_path):
    """Shards written but the job killed before its marker: `negatives --topk-from` refuses the folder, and a
    new decode into it is refused (nothing is mixed with a half run)."""
    from tnforge.generators.topk import read_hypotheses

    model, data = model_and_data
    decode(model, data, tmp_path / "hyps", "--runner", "FnApiRunner")
    (tmp_path / "hyps" / "_hypotheses.json").unlink()  # as a job killed after its shards, before its commit
    with pytest.raises(ValueError, match="without a complete _hypotheses.json"):
        read_hypotheses(tmp_path / "hyps")
    result = CliRunner().invoke(cli, ["decode", "-m", str(model), "-d", str(data), "--out", str(tmp_path / "hyps")])
    assert result.exit_code == 1 and "part file(s) of an unfinished decode" in result.output


def test_the_decode_job_graph_is_built_without_torch(model_and_data, tmp_path):
    """A launcher without torch builds the job (torch is needed in the workers only). Beam's own RunInference
    imports torch when it is installed, so here torch is made unimportable, as on such a launcher."""
    model, data = model_and_data
    script = f"""
import sys
sys.modules["torch"] = None  # `import torch` raises ImportError, as where torch is not installed
import apache_beam as beam
from tnforge.decode_units import example_files
from tnforge.pipelines.inference import DecodeSpec, decode_pipeline
pipeline = beam.Pipeline()
decode_pipeline(pipeline, example_files({str(data)!r}, "dev"), {str(tmp_path / 'out')!r}, DecodeSpec({str(model)!r}),
                "dev", 16, False, 2)
print(sorted(name for name in pipeline.to_runner_api().components.transforms if "RunInference" in name)[:1])
"""
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert "Decode-BeamML_RunInference" in found.stdout


@pytest.mark.slow
def test_decode_on_the_portable_runner_and_on_a_bucket_writes_the_same_bytes(model_and_data, tmp_path, gcs,
                                                                              portable):
    model, data = model_and_data
    portable_args, logs = portable
    decode(model, data, tmp_path / "one")
    decode(model, data, tmp_path / "portable", *portable_args)
    assert folder_bytes(tmp_path / "portable") == folder_bytes(tmp_path / "one")
    assert "Running job" in (logs / "job_service.log").read_text()
    bucket = gcs.bucket("inference")
    for path in sorted((data / "examples" / "dev").iterdir()):
        gcs.upload(path, f"{bucket}/data/examples/dev/{path.name}")
    gcs.upload(data / "manifest.json", f"{bucket}/data/manifest.json")
    # The workers read and write the bucket (--no_auth: the emulator needs no credentials; no search for them).
    decode(model, f"{bucket}/data", f"{bucket}/hyps", *portable_args, "--no_auth")
    names = gcs.names("inference", "hyps/")
    assert [n.removeprefix("hyps/") for n in names] == sorted(folder_bytes(tmp_path / "one"))
    for name in names:
        local = tmp_path / "one" / name.removeprefix("hyps/")
        assert gcs.read(f"{bucket}/{name}") == local.read_bytes()


def test_evaluate_decodes_on_beam_to_the_same_report(model_and_data, tmp_path):
    model, data = model_and_data
    reports = {}
    for name, beam_args in (("one", []), ("two_workers", MULTI)):
        args = ["evaluate", "--model", str(model), "--data", str(data), "--split", "dev", "--no-grammar", "--threads",
                "1", "--device", "cpu", "--batch-size", "16", "--report", str(tmp_path / name)]
        result = CliRunner().invoke(cli, [*args, *(["--", *beam_args] if beam_args else [])])
        assert result.exit_code == 0, result.output
        reports[name] = (tmp_path / name / "report.json").read_bytes()
    assert reports["two_workers"] == reports["one"]
    assert json.loads(reports["one"])["tokens"]["count"] == sum(len(s) for s in SENTENCES)


def test_a_dataflow_dry_run_builds_the_decode_job_graph_offline(model_and_data):
    pytest.importorskip("apache_beam.runners.dataflow.dataflow_runner")
    pytest.importorskip("build")
    model, data = model_and_data
    said = decode(model, data, "gs://tnforge-test/hyps", "--runner=DataflowRunner", "--project=tnforge-test",
                  "--region=us-central1", "--temp_location=gs://tnforge-test/tmp", "--machine_type=g2-standard-4",
                  "--dataflow_service_options=worker_accelerator=type:nvidia-l4;count:1;install-nvidia-driver",
                  "--dry_run=True")
    assert said.strip().splitlines()[-1] == ("dry run: the decode job graph was built; nothing was decoded or "
                                             "written to gs://tnforge-test/hyps")


def test_each_worker_process_loads_the_model_once_for_all_its_batches(model_and_data, tmp_path, monkeypatch):
    """RunInference's shared handle: one load per process (here Beam's in-process runner), not one per batch or
    bundle; the ~50 batches all use it."""
    from tnforge.trainers import inference_worker

    loads: list[str] = []
    real = inference_worker.load_decoder

    def counted(*args, **kwargs):
        loads.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(inference_worker, "load_decoder", counted)
    model, data = model_and_data
    decode(model, data, tmp_path / "hyps", "--runner", "FnApiRunner")
    marker = json.loads((tmp_path / "hyps" / "_hypotheses.json").read_text())
    assert loads == [str(model)] and marker["inputs"] == sum(len(s) for s in SENTENCES)


def test_a_constrained_decode_is_the_same_on_beam(model_and_data, tmp_path):
    """The grammar mask (and any constraint) is built by each worker from the same options: the same bytes."""
    pytest.importorskip("pynini")
    model, data = model_and_data
    decode(model, data, tmp_path / "one", extra=("--grammar-constraint",))
    decode(model, data, tmp_path / "beam", *MULTI, extra=("--grammar-constraint",))
    assert folder_bytes(tmp_path / "beam") == folder_bytes(tmp_path / "one")
    unconstrained = tmp_path / "free"
    decode(model, data, unconstrained)
    assert folder_bytes(unconstrained) != folder_bytes(tmp_path / "one")  # the mask changed the hypotheses
