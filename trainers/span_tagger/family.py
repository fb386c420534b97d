"""The span tagger family's one registration (read without importing torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="span tagger", format="tnforge-span-tagger", kind="spans",
    loader="tnforge.trainers.span_tagger.loading:from_payload",
    model_config="tnforge.trainers.span_tagger.model:SpanTaggerConfig",
    commands=(TrainCommand(
        name="span-tagger", help="The span tagger of spoken words (which spans are written otherwise, of which class).",
        description="""Train the inverse normalizer's span tagger: per spoken word (as ASR writes it) a tag, O (written as spoken)
or B-/I-CLASS (a token of CLASS written otherwise than its words), from word embeddings and character features
through a bidirectional LSTM. `tnforge denormalizer learn --tagger RUN` puts it into an inverse normalizer,
where it decides the spans and their classes and the covering grammar licenses their written forms.

The tagged sentences are --data's sentences turned around (train; dev for early stopping).

\b
Examples:
  tnforge train span-tagger --data out/sample --out runs/span-tagger
  tnforge train span-tagger --data out/sample --out runs/span-tagger --max-minutes 4 --threads 1
""",
        config="tnforge.trainers.span_tagger.train:SpanTaggerTrainConfig",
        model_config="tnforge.trainers.span_tagger.model:SpanTaggerConfig",
        trainer="tnforge.trainers.span_tagger.train:train",
        describe="tnforge.trainers.span_tagger.train:describe",
        data_help="Dataset directory (`tnforge build`): its sentences (train, dev) turned into tagged spoken words."),),
))
