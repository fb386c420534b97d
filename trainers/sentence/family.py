"""The whole-sentence family's one registration (read without importing torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="sentence", format="tnforge-sentence", kind="decoder",
    loader="tnforge.trainers.sentence.loading:from_payload",
    model_config="tnforge.trainers.sentence.model:SentenceModelConfig",
    commands=(TrainCommand(
        name="sentence", help="The whole-sentence normalizer (SentencePiece + features; LSTM or Transformer).",
        description="""Train the whole-sentence normalizer of Mansfield et al. (2019): SentencePiece pieces with casing, position
and class features in, each token's reading out (separated by <sep>). Classes: gold in training, the tagger's
(--tagger) on raw text. Every --model command decodes its runs; see docs/guides/sentence-models.md.

\b
Examples:
  tnforge train sentence --data out/en --out runs/sent-tf --arch transformer --features none
""",
        config="tnforge.trainers.sentence.train:SentenceTrainConfig",
        model_config="tnforge.trainers.sentence.model:SentenceModelConfig",
        trainer="tnforge.trainers.sentence.train:train",
        describe="tnforge.trainers.sentence.train:describe",
        data_help="Dataset directory (sentences/train and sentences/dev are used)."),),
))
