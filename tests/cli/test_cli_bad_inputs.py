"""Nothing passes that was not checked: every command that reads a dataset, a model or a grammar, given an empty
folder, a folder of another kind, a stray file or a damaged checkpoint, fails in one line naming what is wrong,
exits non-zero and writes nothing (no output folder, the input untouched)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from tests.support.tiny_models import SMALL, train_tiny, write_pair_dataset  # noqa: E402
from tnforge.cli import cli  # noqa: E402

# --- bad inputs: each makes its thing under `bad` and returns (path, what the one line must say) ----------------


def _empty(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "empty").mkdir()
    return bad / "empty", "not a dataset directory (an empty folder)"


def _docs(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "docs").mkdir()
    (bad / "docs" / "guide.md").write_text("# a guide\n")
    return bad / "docs", "not a dataset directory (no manifest.json and no Parquet files in it or its sub-folders)"


def _model_run(_bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    return good["s2s"], "not a dataset directory (a model run: it holds best.pt)"


def _stray_parquet(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "stray").mkdir()
    pq.write_table(pa.table({"x": [1]}), bad / "stray" / "one.parquet")
    return bad / "stray", "one.parquet: no column"


def _corpus_file(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "part.tsv").write_text("PLAIN\ta\t<self>\n")
    return bad / "part.tsv", "part.tsv is a corpus file: run `tnforge build"


def _junk_parquet(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "junk.parquet").write_bytes(b"not Parquet at all\n")
    return bad / "junk.parquet", "junk.parquet: not a Parquet file"


def _cut_parquet(bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    whole = next((good["ds"] / "examples" / "dev").glob("*.parquet")).read_bytes()
    (bad / "cut.parquet").write_bytes(whole[: len(whole) // 2])
    return bad / "cut.parquet", "cut.parquet: a damaged Parquet file (cut short: no footer)"


def _junk_in_folder(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "loose").mkdir()
    (bad / "loose" / "junk.parquet").write_bytes(b"not Parquet at all\n")
    return bad / "loose", f"{bad / 'loose' / 'junk.parquet'}: not a Parquet file (Parquet magic bytes not found"


def _deep_tree(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    """Parquet only deeper than a folder's sub-folders (like /tmp): refused without reading it (were it read,
    its junk file would be named instead)."""
    deep = bad / "tree" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "junk.parquet").write_bytes(b"not Parquet at all\n")
    (bad / "tree" / "notes.txt").write_text("not data\n")
    return bad / "tree", "not a dataset directory (no manifest.json and no Parquet files in it or its sub-folders)"


DATASETS: dict[str, Callable[[Path, dict[str, Path]], tuple[Path, str]]] = {
    "empty": _empty, "docs": _docs, "model run": _model_run, "stray parquet": _stray_parquet,
    "corpus file": _corpus_file, "junk parquet": _junk_parquet, "cut parquet": _cut_parquet,
    "junk in a folder": _junk_in_folder, "deep tree": _deep_tree}
#: Inputs that are files: commands whose DIR must be a folder refuse them as click does (usage error, exit 2).
FILES = {"corpus file", "junk parquet", "cut parquet"}


def _dataset_commands(data: str, good: dict[str, Path], out: str) -> dict[str, list[str]]:
    model, seq_de, cpu = str(good["s2s"]), str(good["seq-de"]), ["--device", "cpu"]
    return {
        "negatives": ["negatives", data, "--no-grammar"],
        "validate": ["validate", data, "--no-docs"],
        "train seq2seq": ["train", "seq2seq", "--data", data, "--out", out, "--epochs", "1", *cpu],
        "train dnc": ["train", "dnc", "--data", data, "--out", out, "--epochs", "1", *cpu],
        "train tagger": ["train", "tagger", "--data", data, "--out", out, "--rounds", "2"],
        "train seq-de": ["train", "seq-de", "--data", data, "--out", out, "--epochs", "1", *cpu],
        "train voc-de": ["train", "voc-de", "--data", data, "--out", out, "--epochs", "1", *cpu],
        "decode": ["decode", "--data", data, "--model", model, "--out", out, *cpu],
        "evaluate": ["evaluate", "--data", data, "--model", model, "--report", out, "--no-grammar", *cpu],
        "compare": ["compare", "--data", data, "--model", model, "--seq-de", seq_de, "--report", out,
                    "--no-grammar-constraint", *cpu],
        "sweep-lambda": ["sweep-lambda", "--data", data, "--model", model, "--seq-de", seq_de, "--out", out, *cpu],
        "loop": ["loop", "--data", data, "--model", model, "--out", out, "--rounds", "1", *cpu],
        "grammar coverage": ["grammar", "coverage", data],
        "grammar learn-lexicon": ["grammar", "learn-lexicon", data, "--out", out],
    }


#: What the stray Parquet folder is refused with where no examples file is read: what was looked for.
STRAY_ELSEWHERE = {
    "negatives": "not a dataset directory (no manifest.json and no datasets in the tnforge layout)",
    "train tagger": "not a dataset directory (no manifest.json and no datasets in the tnforge layout)",
    "validate": "not a dataset directory (no manifest.json and no datasets in the tnforge layout): nothing to validate",
    "loop": "not a dataset directory (no manifest.json and no datasets in the tnforge layout)",
    "train seq-de": "pairs/train needs positive and negative pairs (found 0 rows",
    "train voc-de": "vocab_pairs/train needs positive and negative pairs (found 0 rows",
    "grammar coverage": "not a dataset directory (no manifest.json and no datasets in the tnforge layout)",
    "grammar learn-lexicon": "not a dataset directory (no manifest.json and no datasets in the tnforge layout)",
}
#: What a file given as a corpus TSV to the grammar tools (which read one) is refused with.
GRAMMAR_TOOLS_ON_FILES = {"junk parquet": "junk.parquet: no CLASS<TAB>before<TAB>after line",
                          "cut parquet": "cut.parquet: a Parquet file; give the dataset directory"}


@pytest.fixture(scope="module")
def good(bundled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The bundled build, a tiny trained seq2seq and sequence dual encoder (an epoch or two: only loading is
    exercised)."""
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    tmp = tmp_path_factory.mktemp("good")
    train_tiny(tmp, epochs=2)
    train_dual_encoder(DETrainConfig(data=write_pair_dataset(tmp / "pairs"), out=str(tmp / "seq-de"), device="cpu",
                                     epochs=1, progress=False, threads=1, model=DualEncoderConfig(**SMALL)))
    return {"ds": bundled_build, "s2s": tmp / "run", "seq-de": tmp / "seq-de"}


def _snapshot(path: Path) -> object:
    if path.is_dir():
        return sorted((str(p.relative_to(path)), p.stat().st_size) for p in path.rglob("*"))
    return path.read_bytes()


def _refused(args: list[str], watched: Path, out: Path) -> tuple[int, list[str]]:
    """Run the command; assert it ran no traceback, wrote no output and left `watched` as it was."""
    before = _snapshot(watched)
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert not out.exists(), f"wrote {out}"
    assert _snapshot(watched) == before, f"changed {watched}"
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


@pytest.mark.parametrize("bad_input", list(DATASETS))
@pytest.mark.parametrize("command", list(_dataset_commands("D", {"s2s": Path("M"), "seq-de": Path("S")}, "O")))
def test_a_bad_dataset_is_one_line_and_nothing_written(good, tmp_path, command: str, bad_input: str) -> None:
    path, expected = DATASETS[bad_input](tmp_path, good)
    out = tmp_path / "out"
    args = _dataset_commands(str(path), good, str(out))[command]
    if bad_input == "corpus file" and command.startswith("grammar"):  # they read a corpus TSV too: not refused
        assert CliRunner().invoke(cli, args).exit_code == 0
        return
    code, lines = _refused(args, path, out)
    if bad_input in FILES and command in ("negatives", "validate", "loop"):  # DIR must be a folder: click says so
        assert code == 2 and lines[-1].endswith(f"'{path}' is a file."), lines
        return
    if bad_input in FILES and command.startswith("grammar"):  # they read a corpus TSV file too
        expected = GRAMMAR_TOOLS_ON_FILES[bad_input]
    if bad_input in ("stray parquet", "junk in a folder"):  # where no examples file is read: the folder refused
        expected = STRAY_ELSEWHERE.get(command, expected)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: ") and expected in lines[0], lines


# --- models: --model, --seq-de/--voc-de, --tagger ----------------------------------------------------------


def _cut_checkpoint(bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    whole = (good["s2s"] / "best.pt").read_bytes()
    (bad / "cut.pt").write_bytes(whole[: len(whole) // 2])
    return bad / "cut.pt", "cut.pt: not a readable tnforge checkpoint (damaged"


def _run_with_cut_checkpoint(bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "run").mkdir()
    whole = (good["s2s"] / "best.pt").read_bytes()
    (bad / "run" / "best.pt").write_bytes(whole[: len(whole) - 64])
    return bad / "run", "run/best.pt: not a readable tnforge checkpoint (damaged"


def _empty_run(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "empty").mkdir()
    return bad / "empty", "empty: no best.pt or checkpoint.pt in this run directory"


def _dataset_as_model(_bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    return good["ds"], "no best.pt or checkpoint.pt in this run directory"


def _text_as_model(bad: Path, _good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "part.tsv").write_text("PLAIN\ta\t<self>\n")
    return bad / "part.tsv", "part.tsv: not a readable tnforge checkpoint (not a file torch.save writes)"


MODELS = {"empty run": _empty_run, "dataset": _dataset_as_model, "text file": _text_as_model,
          "cut checkpoint": _cut_checkpoint, "run with a cut checkpoint": _run_with_cut_checkpoint}


def _model_commands(model: str, good: dict[str, Path], out: str) -> dict[str, list[str]]:
    data, s2s, seq_de, cpu = str(good["ds"]), str(good["s2s"]), str(good["seq-de"]), ["--device", "cpu"]
    return {
        "decode --model": ["decode", "--data", data, "--model", model, "--out", out, *cpu],
        "decode --seq-de": ["decode", "--data", data, "--model", s2s, "--seq-de", model, "--out", out, *cpu],
        "evaluate --voc-de": ["evaluate", "--data", data, "--model", s2s, "--voc-de", model, "--report", out, "--no-grammar", *cpu],
        "evaluate --model": ["evaluate", "--data", data, "--model", model, "--report", out, "--no-grammar", *cpu],
        "normalize --model": ["normalize", "--model", model, *cpu, "--file", "-", "--out", out],
        "compare --model": ["compare", "--data", data, "--model", model, "--seq-de", seq_de, "--report", out,
                            "--no-grammar-constraint", *cpu],
        "sweep-lambda --seq-de": ["sweep-lambda", "--data", data, "--model", s2s, "--seq-de", model, "--out", out,
                                  *cpu],
        "loop --model": ["loop", "--data", data, "--model", model, "--out", out, "--rounds", "1", *cpu],
    }


@pytest.mark.parametrize("bad_input", list(MODELS))
@pytest.mark.parametrize("command", list(_model_commands("M", {"ds": Path("D"), "s2s": Path("M"), "seq-de": Path("S")}, "O")))
def test_a_bad_model_is_one_line_and_nothing_written(good, tmp_path, command: str, bad_input: str) -> None:
    path, expected = MODELS[bad_input](tmp_path, good)
    out = tmp_path / "out"
    code, lines = _refused(_model_commands(str(path), good, str(out))[command], path, out)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: ") and expected in lines[0], lines


def _cut_tagger(bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    (bad / "tagger").mkdir()
    (bad / "tagger" / "tagger.json").write_text('{"format": ')
    return bad / "tagger", "tagger.json: unreadable tagger description"


def _seq2seq_as_tagger(_bad: Path, good: dict[str, Path]) -> tuple[Path, str]:
    return good["s2s"], "not a tagger run (no tagger.json): train one with `tnforge train tagger`"


@pytest.mark.parametrize("make", [_empty_run, _seq2seq_as_tagger, _cut_tagger], ids=["empty", "seq2seq run", "cut"])
def test_a_bad_tagger_is_one_line_and_nothing_written(good, tmp_path, make) -> None:
    path, expected = make(tmp_path, good)
    expected = expected.replace("empty: no best.pt or checkpoint.pt in this run directory", "empty: not a tagger run")
    out = tmp_path / "out"
    args = ["normalize", "--model", str(good["s2s"]), "--tagger", str(path), "--grammar-constraint", "--device", "cpu", "--file", "-",
            "--out", str(out)]
    code, lines = _refused(args, path, out)
    assert code == 1 and len(lines) == 1 and expected in lines[0], lines


# --- number grammars (`grammar verbalize/read GRAMMAR_DIR`) ------------------------------------------------------


def _grammar(bad: Path, rules: str, manifest: dict) -> Path:
    (bad / "g").mkdir()
    (bad / "g" / "rules.tsv").write_text(rules)
    (bad / "g" / "manifest.json").write_text(json.dumps(manifest))
    return bad / "g"


GRAMMARS = {
    "empty": (lambda bad: (bad / "e").mkdir() or bad / "e", "not a grammar directory (manifest.json is missing"),
    "file": (lambda bad: (bad / "f.tsv").write_text("1\tone\n") and bad / "f.tsv",
             "f.tsv: not a grammar directory (a file"),
    "cut manifest": (lambda bad: _grammar(bad, "", {}).joinpath("manifest.json").write_text('{"kind": "tnfo')
                     and bad / "g", "manifest.json: damaged (not JSON"),
    "other manifest": (lambda bad: _grammar(bad, "", {"layout": 2, "complete": True}),
                       "not a grammar directory (its manifest.json is not a grammar's"),
    "rules changed": (lambda bad: _grammar(bad, "lang\t\"en\"\n", {"kind": "tnforge induced number grammar",
                                                                   "sha256": {"rules.tsv": "0" * 64}}),
                      "rules.tsv: damaged (its SHA-256 is not the one manifest.json records)"),
    "rules cut": (lambda bad: _grammar(bad, "lang\t\"en\"\natom\t1", {"kind": "tnforge induced number grammar"}),
                  "rules.tsv: damaged (IndexError"),
}


@pytest.mark.parametrize("command", ["verbalize", "read"])
@pytest.mark.parametrize("bad_input", list(GRAMMARS))
def test_a_bad_grammar_directory_is_one_line(tmp_path, command: str, bad_input: str) -> None:
    make, expected = GRAMMARS[bad_input]
    path = make(tmp_path)
    code, lines = _refused(["grammar", command, str(path), "12"], path, tmp_path / "no-output")
    assert code == 1 and len(lines) == 1 and expected in lines[0], lines


def test_resuming_from_a_damaged_checkpoint_is_one_line_and_changes_nothing(good, tmp_path) -> None:
    run = tmp_path / "run"
    shutil.copytree(good["s2s"], run)
    whole = (run / "checkpoint.pt").read_bytes()
    (run / "checkpoint.pt").write_bytes(whole[: len(whole) // 3])
    data = good["s2s"].parent / "data"
    code, lines = _refused(["train", "seq2seq", "--data", str(data), "--out", str(run), "--resume", "--epochs", "3",
                            "--device", "cpu"], run, tmp_path / "no-output")
    assert code == 1 and lines == [f"Error: {run / 'checkpoint.pt'}: not a readable tnforge checkpoint (damaged, or "
                                   "holding more than tensors and plain values: RuntimeError)"]
