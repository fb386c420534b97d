"""The attention seq2seq family's one registration (read without importing torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="seq2seq", format="tnforge-seq2seq", kind="decoder",
    loader="tnforge.trainers.seq2seq.loading:from_payload",
    model_config="tnforge.trainers.seq2seq.model:Seq2SeqConfig",
    commands=(TrainCommand(
        name="seq2seq", help="The attention seq2seq normalizer: characters in, words out.",
        description="""Train the attention seq2seq normalizer (characters of the window in, words of the reading out).

Streams examples/train of --data, early-stops on examples/dev, writes checkpoint.pt, best.pt, metrics.jsonl,
timing.jsonl, run.json and training.png into --out. Several GPUs or machines: torchrun
(docs/guides/train-at-scale.md).

\b
Examples:
  tnforge train seq2seq --data out/sample --out runs/s2s
  tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
  tnforge train seq2seq --data out/sample --out runs/sp --input-units sentencepiece --sp-size 500
  torchrun --nproc_per_node 8 -m tnforge train seq2seq --data gs://BUCKET/en --out runs/big
""",
        config="tnforge.trainers.seq2seq.train:Seq2SeqTrainConfig",
        model_config="tnforge.trainers.seq2seq.model:Seq2SeqConfig",
        trainer="tnforge.trainers.seq2seq.train:train",
        describe="tnforge.trainers.kernel.window_task:describe"),),
))
