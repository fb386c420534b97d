"""`tnforge normalize --file` as a Beam pipeline (`pipelines/inference.py`): the same spoken text, to the byte, in
one process and with two local worker processes (chunks of 512 lines, more than one here), the same count of
unlicensed readings; the output written whole at the end (a failed job writes nothing); bad input in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("xgboost")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.cli import cli  # noqa: E402

MULTI = ["--runner", "DirectRunner", "--direct_num_workers", "2", "--direct_running_mode", "multi_processing"]


def invoke(args: list[str]):
    return CliRunner().invoke(cli, args)


@pytest.fixture(scope="module")
def normalizer(bundled_build, tmp_path_factory) -> Path:
    """A normalizer run: the tiny seq2seq and a tagger trained briefly on the bundled sample (with the grammar
    when pynini is installed)."""
    from tnforge.trainers.tagger import TaggerConfig, train_tagger

    root = tmp_path_factory.mktemp("normalize_beam")
    result, _ = H.train_tiny(root, epochs=20)
    train_tagger(TaggerConfig(data=str(bundled_build), out=str(root / "tagger"), rounds=5, threads=1))
    assembled = invoke(["normalizer", "assemble", "--model", str(result.run), "--tagger", str(root / "tagger"),
                        "--out", str(root / "normalizer")])
    assert assembled.exit_code == 0, assembled.output
    return root / "normalizer"


def sentences() -> str:
    """600 lines (two chunks), the tiny sentences with their numbers varied, and an empty line."""
    lines = []
    for i in range(600):
        words = [before for _, before, _ in H.TINY_SENTENCES[i % 4]]
        lines.append(" ".join(str(i) if w.isdigit() else w for w in words) if i != 7 else "")
    return "\n".join(lines) + "\n"


def summary(output: str) -> str:
    """The closing lines, without the time taken."""
    return re.sub(r" in [0-9.]+ s \([0-9.,]+ sentences/s\)", "", output)


def test_normalize_file_gives_the_same_bytes_in_one_process_and_with_two_workers(normalizer, tmp_path):
    source = tmp_path / "in.txt"
    source.write_text(sentences())
    said = {}
    for name, beam_args in (("one", None), ("two", MULTI)):
        args = ["normalize", "--model", str(normalizer), "--file", str(source), "--out", str(tmp_path / f"{name}.txt"),
                "--threads", "1", "--device", "cpu", "--no-progress"]
        result = invoke([*args, *(["--", *beam_args] if beam_args is not None else [])])
        assert result.exit_code == 0, result.output
        said[name] = summary(result.output.replace(str(tmp_path / name), "OUT"))
    one = (tmp_path / "one.txt").read_bytes()
    assert one.count(b"\n") == 600 and one.split(b"\n")[7] == b""
    assert (tmp_path / "two.txt").read_bytes() == one
    assert said["two"] == said["one"] and "normalized 600 sentences" in said["one"]
    assert not list(tmp_path.glob("*.parts"))  # the chunks' scratch is gone


def test_normalize_on_beam_refuses_bad_input_in_one_line(normalizer, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    out = tmp_path / "out.txt"
    result = invoke(["normalize", "-m", str(normalizer), "-f", str(bad), "-o", str(out), "--device", "cpu", "--",
                     "--runner", "FnApiRunner"])
    assert result.exit_code == 1 and not out.exists()
    [line] = result.output.strip().splitlines()  # one line (Beam adds the step that found it)
    assert line.startswith(f"Error: {bad}, line 2: not UTF-8 text (byte 0xff at column 5)")
    model = normalizer.parent / "run"  # a bare model run without its tagger: refused by the worker's loader
    good = tmp_path / "in.txt"
    good.write_text("fine\n")
    result = invoke(["normalize", "-m", str(model), "-f", str(good), "-o", str(out), "--", "--runner", "FnApiRunner"])
    [line] = result.output.strip().splitlines()
    assert result.exit_code == 1 and line.startswith(f"Error: {model}") and not out.exists()


def test_normalize_on_beam_reads_and_writes_a_bucket(normalizer, tmp_path, gcs):
    source = tmp_path / "in.txt"
    source.write_text(sentences())
    local = tmp_path / "local.txt"
    args = ["normalize", "--model", str(normalizer), "--threads", "1", "--device", "cpu", "--no-progress"]
    assert invoke([*args, "--file", str(source), "--out", str(local)]).exit_code == 0
    bucket = gcs.bucket("normalize")
    gcs.upload(source, f"{bucket}/in.txt")
    result = invoke([*args, "--file", f"{bucket}/in.txt", "--out", f"{bucket}/out.txt", "--", "--runner",
                     "FnApiRunner"])
    assert result.exit_code == 0, result.output
    assert gcs.read(f"{bucket}/out.txt") == local.read_bytes()
    assert gcs.names("normalize") == ["in.txt", "out.txt"]  # the chunks' scratch removed
