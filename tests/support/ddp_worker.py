"""A seq2seq training run for tests/trainers/training/test_engine_distributed.py, started by torchrun (gloo ranks on the CPU) or as a
plain process. Each rank logs, per optimizer step it trains, a checksum of the weights it starts from and
the (input, reading) rows of its batch, to LOG.rankN (JSON lines); `--stop-at N` sends each rank Ctrl-C
during its step N."""

from __future__ import annotations

import argparse
import json
import os
import signal

import torch

from tnforge.trainers.seq2seq.model import Seq2SeqConfig
from tnforge.trainers.seq2seq.train import Seq2SeqTask, Seq2SeqTrainConfig
from tnforge.trainers.training import sharding
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.runs import TrainingInterrupted

TINY = Seq2SeqConfig(input_embedding=8, output_embedding=8, encoder_hidden=16, decoder_hidden=16, attention=8)


class RecordingTask(Seq2SeqTask):
    """The seq2seq task, logging what each step trains on (a batch run again with weight 0 — a rank whose part
    ran out — is logged once)."""

    def __init__(self, config: Seq2SeqTrainConfig, log: str, stop_at: int) -> None:
        super().__init__(config)
        self.log, self.stop_at, self.calls, self.last = log, stop_at, 0, None

    def loss(self, model, batch, device):
        self.calls += 1
        weights = sum(float(p.detach().double().sum()) for p in model.parameters())
        rows = [] if batch is self.last else list(zip(batch.rows["input"], batch.rows["after"], strict=True))
        self.last = batch
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"call": self.calls, "weights": weights, "rows": rows}) + "\n")
        if self.calls == self.stop_at:
            signal.raise_signal(signal.SIGINT)
        return super().loss(model, batch, device)


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--data", "--out", "--record"):
        parser.add_argument(name, required=True)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--unit-rows", type=int, default=150)
    parser.add_argument("--stop-at", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    sharding.UNIT_ROWS = args.unit_rows
    torch.set_num_threads(1)
    config = Seq2SeqTrainConfig(data=args.data, out=args.out, device="cpu", epochs=args.epochs, batch_size=args.batch_size,
                         max_copies=1, dev_limit=64, threads=1, progress=False, max_minutes=0, model=TINY)
    log = f"{args.record}.rank{os.environ.get('RANK', '0')}"
    try:
        fit(RecordingTask(config, log, args.stop_at), resume=args.resume)
    except TrainingInterrupted:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
