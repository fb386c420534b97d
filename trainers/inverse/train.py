"""Training the inverse model on the engine: the seq2seq network on ITN windows (`tnforge.itn_windows`) made
from the dataset's sentences and written into the run folder (`windows/<split>/part-00000.parquet`); the
window families' task does the rest (vocabularies, batches, loss, dev evaluation)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from tnforge.trainers.inverse.loading import FORMAT, sequence_log_probabilities
from tnforge.trainers.kernel.examples import Batch
from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.seq2seq.model import Seq2SeqConfig
from tnforge.trainers.seq2seq.train import Seq2SeqTask, Seq2SeqTrainConfig
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.engine_config import option
from tnforge.trainers.training.runs import TrainResult

#: The run folder's windows (one Parquet file a split).
WINDOWS = "windows"


@dataclass
class InverseTrainConfig(Seq2SeqTrainConfig):
    """The seq2seq's options, with written forms in characters, and how the windows are made."""

    output_units: str = option("char", "Output units of the written form.", choices=("char", "word", "sentencepiece"))
    width: int = option(3, "Spoken words of context either side of a span.", min=0)
    keep_plain: int = option(4, "Of the as-spoken tokens whose span the split writes one way only, keep one in N.",
                             min=1)
    contrast: float = option(0.0, "Weight of a sequence-level loss: each written form against the span's other "
                                  "forms in the split and the words as spoken (0, the default: the token loss alone).",
                             min=0)
    model: Seq2SeqConfig = field(default_factory=Seq2SeqConfig)


def write_windows(data: str, split: str, out: Path, width: int, keep_plain: int) -> list[Path]:
    """The ITN windows of a dataset split written (atomically) to `out/<split>/part-00000.parquet`; [] when the
    split has none."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tnforge.filesystems import write_atomically
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_windows import window_rows

    rows = window_rows(read_itn(data, split), width, keep_plain)
    if not rows["input"]:
        return []
    path = out / split / "part-00000.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    with write_atomically(str(path)) as handle:
        pq.write_table(pa.table(rows), handle)
    return [path]


class InverseTask(Seq2SeqTask):
    """The seq2seq task on windows of spoken words → written forms: the gold form's token loss, plus (weighted by
    `contrast`) the cross-entropy of the gold form among its span's alternatives (`others`), as the inverse
    normalizer will compare them: by their whole log-probabilities."""

    command, format = "inverse", FORMAT
    distributed = False
    columns = ("input", "after", "others")

    def loss(self, model: nn.Module, batch: Batch, device: torch.device) -> tuple[torch.Tensor, int, int]:
        groups = [[gold, *(others.split("\n") if others else ())]
                  for gold, others in zip(batch.rows["after"], batch.rows["others"], strict=True)]
        if not self.config.contrast or all(len(group) == 1 for group in groups):
            return super().loss(model, batch, device)
        moved = batch.to(device)
        sequences = sequence_log_probabilities(model, moved.source, moved.source_lengths, self.output_vocab, groups)
        gold, units = sequences[0], int((moved.target_out != PAD).sum())
        contrast = sum(-torch.log_softmax(scores, 0)[0] for scores in sequences[1] if len(scores) > 1)
        return -gold.sum() + self.config.contrast * contrast, units, len(batch)

    def split_files(self, split: str) -> list[Path]:
        config = self.config
        return write_windows(config.data, split, Path(config.out) / WINDOWS, config.width, config.keep_plain)


def train(config: InverseTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) the inverse model into `config.out` (`kernel.window_task.WindowTask`'s rules)."""
    return fit(InverseTask(config), resume, overwrite, explicit)
