"""Ctrl-C in any phase of a long command says what is complete and what is not, in one line, exit 130.

The interrupt is raised where the work runs (the step a user would stop), so each message is checked without
racing a signal; tests/pipelines/test_build_errors.py sends real SIGINTs to the build and negatives pipelines."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tnforge.cli import cli


def _stop(*_args, **_kwargs):
    raise KeyboardInterrupt


def _interrupted(args: list[str]) -> list[str]:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 130, result.output
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("[tnforge ")]
    return lines[-1:] if lines and "interrupted" in lines[-1] else lines


def test_build_with_negatives_stopped_in_the_negatives_phase(tmp_path, monkeypatch) -> None:
    from tnforge.pipelines import negatives

    monkeypatch.setattr(negatives, "run_negatives", _stop)
    out = tmp_path / "ds"
    lines = _interrupted(["build", "--out", str(out), "--negatives", "synthetic"])
    assert lines == [f"interrupted during the negatives; {out} holds a complete dataset (manifest.json written) "
                     f"without negatives: `tnforge negatives {out}` makes them"]
    assert (out / "manifest.json").exists() and not (out / "pairs").exists()


def test_build_with_validation_stopped_in_the_validation_phase(tmp_path, monkeypatch) -> None:
    pytest.importorskip("great_expectations")
    import tnforge.validation

    monkeypatch.setattr(tnforge.validation, "validate_directory", _stop)
    out = tmp_path / "ds"
    assert _interrupted(["build", "--out", str(out), "--validate"]) == [
        f"interrupted during validation; {out} holds a complete dataset, not validated: `tnforge validate {out}` "
        "checks it"]


def test_negatives_validate_and_tagger_say_what_was_not_written(bundled_build: Path, tmp_path, monkeypatch) -> None:
    from tnforge.pipelines import negatives
    from tnforge.trainers.tagger import train as tagger

    monkeypatch.setattr(negatives, "run_negatives", _stop)
    assert _interrupted(["negatives", str(bundled_build)]) == [
        f"interrupted; no negatives were written to {bundled_build}"]
    import tnforge.validation

    monkeypatch.setattr(tnforge.validation, "validate_directory", _stop)
    assert _interrupted(["validate", str(bundled_build)]) == [
        f"interrupted; the validation of {bundled_build} did not finish: no verdict (results in its validation/ "
        "folder may be partial)"]
    monkeypatch.setattr(tagger, "train_tagger", _stop)
    out = tmp_path / "tagger"
    assert _interrupted(["train", "tagger", "--data", str(bundled_build), "--out", str(out)]) == [
        f"interrupted; the tagger was not written to {out}"]


def test_decode_and_evaluate_say_how_far_they_got(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    from tests.support.tiny_models import train_tiny
    from tnforge.trainers.decoding import decode
    from tnforge.trainers.evaluation import decoded as outputs

    train_tiny(tmp_path, epochs=1)
    model, data = tmp_path / "run", tmp_path / "data"
    real = decode.decode_rows

    def two_batches_then_stop(*args, **kwargs):
        two_batches_then_stop.calls += 1
        if two_batches_then_stop.calls == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    two_batches_then_stop.calls = 0
    monkeypatch.setattr(decode, "decode_rows", two_batches_then_stop)
    out = tmp_path / "hyps"
    lines = _interrupted(["decode", "--model", str(model), "--data", str(data), "--split", "train", "--out", str(out),
                          "--batch-size", "4", "--rows-per-file", "10", "--device", "cpu"])
    # Parts are written once every input is decoded, and committed by their marker last: nothing half done.
    assert lines == [f"interrupted after 8 of 26 inputs; nothing was written to {out}"] and not out.exists()
    monkeypatch.setattr(outputs, "evaluate_decoding", _stop)
    report = tmp_path / "report"
    assert _interrupted(["evaluate", "--model", str(model), "--data", str(data), "--report", str(report),
                         "--no-grammar", "--device", "cpu"]) == [
        f"interrupted; the report was not written to {report}"]
    assert not report.exists()
    from tnforge.reading import streams

    monkeypatch.setattr(streams, "normalize_lines", _stop)
    (tmp_path / "in.txt").write_text("Train 540 leaves at 4:45\n")
    spoken = tmp_path / "spoken.txt"
    assert _interrupted(["normalize", "--model", str(model), "--unguarded", "--file", str(tmp_path / "in.txt"), "--out", str(spoken),
                         "--device", "cpu", "--no-progress"]) == [f"interrupted; nothing was written to {spoken}"]
    assert not spoken.exists()
