"""A small normalizer for the reading tests, trained once per session: a tiny seq2seq on hand-made sentences
(the README's example and issue #29's), a real tagger trained on the bundled sample, and the normalizer
folder assembling them (`tnforge normalizer assemble`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import tiny_models as H

#: The README's normalize example and the issue's sentences, read as the corpus reads them.
ISSUE_SENTENCES: list[list[tuple[str, str, str]]] = [
    [("PLAIN", "It", "<self>"), ("PLAIN", "costs", "<self>"), ("MONEY", "$3.50", "three dollars fifty cents"),
     ("PLAIN", "and", "<self>"), ("PLAIN", "weighs", "<self>"), ("MEASURE", "3kg", "three kilograms"),
     ("PUNCT", ".", "sil")],
    [("PLAIN", "It", "<self>"), ("PLAIN", "takes", "<self>"), ("MEASURE", "20 min", "twenty minutes"),
     ("PUNCT", ".", "sil")],
    [("PLAIN", "He", "<self>"), ("PLAIN", "lives", "<self>"), ("PLAIN", "on", "<self>"), ("PLAIN", "Baker", "<self>"),
     ("PLAIN", "St", "street"), ("PUNCT", ".", "sil")],
]


@pytest.fixture(scope="session")
def safe_models(bundled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(tiny seq2seq run, tagger run trained on the bundled sample, normalizer run directory assembling them)."""
    for module in ("torch", "xgboost", "pynini"):
        pytest.importorskip(module)
    from tnforge import schemas
    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.manifest import mark_complete, write_manifest
    from tnforge.trainers.seq2seq.train import train
    from tnforge.trainers.tagger import TaggerConfig, train_tagger

    root = tmp_path_factory.mktemp("safe")
    for split in ("train", "dev"):
        write_sharded(H.examples_table(H.TINY_SENTENCES + ISSUE_SENTENCES, split),
                      dataset_path(root / "data", "examples", split), schemas.EXAMPLES)
    write_manifest(root / "data", mark_complete({}))
    result = train(H.tiny_config(root / "data", root / "s2s", epochs=80))
    train_tagger(TaggerConfig(data=str(bundled_build), out=str(root / "tagger"), rounds=40, threads=1))
    from click.testing import CliRunner

    from tnforge.cli import cli

    assembled = CliRunner().invoke(cli, ["normalizer", "assemble", "--model", str(result.run), "--tagger",
                                         str(root / "tagger"), "--out", str(root / "normalizer")])
    assert assembled.exit_code == 0, assembled.output
    return result.run, root / "tagger", root / "normalizer"
