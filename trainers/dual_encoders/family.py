"""The dual encoders' one registration: one checkpoint format, two train commands (read without torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

_DATA = "Dataset directory with pairs/ (sequence) or vocab_pairs/ (vocabulary) from `tnforge negatives`."
_OUT = "Run directory: best.pt, checkpoint.pt, metrics.jsonl, run.json, dev.md."
_RUNS = "tnforge.trainers.dual_encoders.runs"

register_family(Family(
    name="dual encoder", format="tnforge-dual-encoder", kind="scorer",
    loader="tnforge.trainers.dual_encoders.scorer:from_payload",
    model_config="tnforge.trainers.dual_encoders.config:DualEncoderConfig",
    commands=(
        TrainCommand(
            name="seq-de", help="Sequence dual encoder: p(reading acceptable for token).",
            description="""Train the sequence dual encoder on DIR/pairs (from `tnforge negatives`), early-stopping on dev AUC.

\b
Examples:
  tnforge train seq-de --data out/sample --out runs/seq-de
  tnforge train seq-de --data out/sample --out runs/seq-de-r3 --negatives synthetic,random --ratio 3
""",
            config="tnforge.trainers.dual_encoders.train:DETrainConfig", make_config=f"{_RUNS}:sequence_config",
            options="tnforge.trainers.dual_encoders.options:SequenceOptions", trainer=f"{_RUNS}:train_with_report",
            describe=f"{_RUNS}:describe_report", data_help=_DATA, out_help=_OUT),
        TrainCommand(
            name="voc-de", help="Vocabulary-filter dual encoder: p(word may appear in the reading).",
            description="""Train the vocabulary-filter dual encoder on DIR/vocab_pairs, early-stopping on dev AUC.

\b
Examples:
  tnforge train voc-de --data out/sample --out runs/voc-de --negatives class,global
  tnforge train voc-de --data out/sample --out runs/voc-de-topk --negatives topk
""",
            config="tnforge.trainers.dual_encoders.train:DETrainConfig", make_config=f"{_RUNS}:vocabulary_config",
            options="tnforge.trainers.dual_encoders.options:VocabularyOptions", trainer=f"{_RUNS}:train_with_report",
            describe=f"{_RUNS}:describe_report", data_help=_DATA, out_help=_OUT),
    ),
))
