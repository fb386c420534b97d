"""Environment errors of `tnforge build` end as one line (never a traceback) unless --debug asks for one."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.errors import InputError, Interrupted, describe


def run(args: list[str], env: dict | None = None):
    return CliRunner().invoke(cli, args, env=env)


def error_lines(output: str) -> list[str]:
    """The output without the progress lines."""
    return [line for line in output.splitlines() if line.strip() and not line.startswith("[tnforge")]


def test_corrupt_gzip_is_one_line(tmp_path):
    bad = tmp_path / "corpus.tsv.gz"
    bad.write_bytes(os.urandom(5000))
    result = run(["build", str(bad), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    lines = error_lines(result.output)
    assert len(lines) == 1 and lines[0].startswith(f"Error: {bad}: not a valid gzip file (")
    assert "Traceback" not in result.output and "while running" not in result.output
    assert not (tmp_path / "out" / ".tnforge-cache").exists()


def test_truncated_gzip_is_one_line(tmp_path, bundled_tsv):
    packed = gzip.compress(bundled_tsv.read_bytes())
    cut = tmp_path / "sample.tsv.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    result = run(["build", str(cut), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert error_lines(result.output) == [f"Error: {cut}: truncated gzip stream"]


def test_debug_shows_the_traceback(tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip at all")
    for args, env in ((["--debug"], None), ([], {"TNFORGE_DEBUG": "1"})):
        result = run([*args, "build", str(bad), "--out", str(tmp_path / f"out{len(args)}")], env=env)
        assert result.exit_code == 1
        assert "Traceback (most recent call last)" in result.output and "BadGzipFile" in result.output
        assert result.output.rstrip().endswith(f"Error: {bad}: not a valid gzip file (Not a gzipped file (b'no'))")


def test_unwritable_out_is_refused_before_the_pipeline(tmp_path, bundled_tsv):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    result = run(["build", str(bundled_tsv), "--out", str(blocker / "ds")])
    assert result.exit_code == 1
    assert error_lines(result.output) == [f"Error: --out {blocker / 'ds'}: cannot create or write to it (Not a directory)"]
    assert "building" not in result.output  # refused before the pipeline started


def test_unreachable_remote_out_is_refused_before_the_pipeline(bundled_tsv):
    result = run(["build", str(bundled_tsv), "--out", "nosuch://bucket/ds"])
    assert result.exit_code == 1
    lines = error_lines(result.output)
    assert lines == ["Error: --out nosuch://bucket/ds: no filesystem serves nosuch:// (is its apache-beam extra "
                     "installed?)"]
    assert "building" not in result.output


@pytest.mark.parametrize(("out", "reason"), [
    ("gs://", "no bucket name"), ("gs:///ds", "no bucket name"), ("gs://Bad_Bucket/ds", "'Bad_Bucket' is not a valid bucket name"),
    ("gs:/bucket/ds", "not a valid URI (a slash is missing: gs://…)")])
def test_malformed_gs_out_is_one_line_and_writes_nothing(tmp_path, monkeypatch, bundled_tsv, out, reason):
    monkeypatch.chdir(tmp_path)
    result = run(["build", str(bundled_tsv), "--out", out])
    assert result.exit_code == 1
    assert error_lines(result.output) == [f"Error: --out {out}: {reason}"]
    assert list(tmp_path.iterdir()) == []  # no local folder named "gs:"


def ctrl_c_as_at_a_terminal() -> None:
    """In the child before it starts: SIGINT's default action, as an interactive shell gives a command. A test
    runner started in the background (`cmd &`) ignores SIGINT, and a child inherits that, so Ctrl-C would never
    reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_after(process: subprocess.Popen, marker: str) -> str:
    """Ctrl-C to `process` a moment after the stderr line holding `marker` (not after a fixed time from the start,
    which a loaded machine may outlast); the stderr read so far."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if marker in line:
            break
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    return "".join(seen)


def test_ctrl_c_stops_in_one_line_and_removes_the_scratch_folder(tmp_path, bundled_tsv):
    corpus = tmp_path / "big.tsv"
    corpus.write_bytes(bundled_tsv.read_bytes() * 300)  # ~29 MB: seconds of work
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "tnforge", "build", str(corpus), "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    stderr = interrupt_after(process, "building")  # the pipeline starts right after this line; it runs seconds
    stdout, rest = process.communicate(timeout=120)
    stderr += rest
    assert process.returncode == 130, stderr
    assert error_lines(stdout + stderr) == [f"interrupted; {out} left incomplete"]
    assert "Traceback" not in stderr
    assert not (out / ".tnforge-cache").exists() and not (out / "manifest.json").exists()


def test_describe_finds_the_error_behind_beams_wrapping():
    beam_text = ("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                 "tnforge.errors.InputError: a.gz: truncated gzip stream [while running 'Parse/ParDo(_ParseFn)']\n")
    assert describe(RuntimeError(beam_text)) == ("a.gz: truncated gzip stream", 1)
    try:
        try:
            raise InputError("b.gz: truncated gzip stream")
        except InputError as inner:
            raise InputError(str(inner) + " [while running 'Parse']") from inner
    except InputError as wrapped:
        assert describe(wrapped) == ("b.gz: truncated gzip stream", 1)
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("KeyboardInterrupt [while running 'Parse']") from None
    except RuntimeError as wrapped:
        assert describe(wrapped) == ("interrupted", 130)
    assert describe(Interrupted("interrupted; d left incomplete")) == ("interrupted; d left incomplete", 130)
    assert describe(ValueError("a bug")) is None


@pytest.mark.parametrize("argv", [["--help"], ["build", "--help"]])
def test_help_mentions_debug_and_allow_empty(argv):
    result = run(argv)
    assert result.exit_code == 0
    assert ("--debug" if argv == ["--help"] else "--allow-empty") in result.output


def test_ctrl_c_during_negatives_is_one_line_and_leaves_no_scratch(tmp_path, shared_tsv):
    out = tmp_path / "ds"
    cli.main(args=["build", str(shared_tsv), "--out", str(out)], prog_name="tnforge", standalone_mode=False)
    process = subprocess.Popen([sys.executable, "-m", "tnforge", "negatives", str(out), "--ratio", "all"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    stderr = interrupt_after(process, "generating")  # the pipeline starts right after this line; it runs seconds
    stdout, rest = process.communicate(timeout=120)
    stderr += rest
    assert process.returncode == 130, stderr
    assert error_lines(stdout + stderr) == [f"interrupted; no negatives were written to {out}"]
    assert "Traceback" not in stderr
    assert not (out / ".tnforge-cache").exists() and not (out / "pairs").exists()
    assert "negatives" not in json.loads((out / "manifest.json").read_text())


def test_bad_input_with_worker_processes_is_still_one_line(tmp_path, bundled_tsv):
    """With `--workers 2` Beam's worker processes print the failure's traceback to the shared stderr; they are
    quiet (the driver's one line is the report), and `--debug` brings them back."""
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip at all")
    command = [sys.executable, "-m", "tnforge", "build", str(bundled_tsv), str(bad), "--workers", "2"]
    env = {k: v for k, v in os.environ.items() if k != "TNFORGE_DEBUG"}
    quiet = subprocess.run([*command, "--out", str(tmp_path / "a")], capture_output=True, text=True, env=env)
    assert quiet.returncode == 1
    assert error_lines(quiet.stderr) == [f"Error: {bad}: not a valid gzip file (Not a gzipped file (b'no'))"]
    loud = subprocess.run([sys.executable, "-m", "tnforge", "--debug", *command[3:], "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, env=env)
    assert loud.returncode == 1 and "Traceback (most recent call last)" in loud.stderr


def test_traceback_filter_drops_printed_tracebacks_only():
    import io

    from tnforge.worker_console import TracebackFilter

    sink = io.StringIO()
    stream = TracebackFilter(sink)
    print("[tnforge 1.0s] pass 1/2", file=stream)
    print("Traceback (most recent call last):\n  File ...\nValueError: x", file=stream)
    print("last line", file=stream)
    assert sink.getvalue() == "[tnforge 1.0s] pass 1/2\nlast line\n"
