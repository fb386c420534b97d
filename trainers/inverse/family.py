"""The inverse family's one registration (read without importing torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="inverse", format="tnforge-inverse", kind="inverse",
    loader="tnforge.trainers.inverse.loading:from_payload",
    model_config="tnforge.trainers.seq2seq.model:Seq2SeqConfig",
    commands=(TrainCommand(
        name="inverse", help="The inverse (spoken → written) scorer: spoken window characters in, written form out.",
        description="""Train the inverse normalizer's model: each written token's span of spoken words, marked in its
spoken context, in characters → its written form (lower case) in characters. `tnforge denormalizer learn
--model RUN` puts it into an inverse normalizer, where it chooses among the written forms the covering grammar
licenses for each span.

The windows are made from --data's sentences (train; dev for early stopping) and written into --out/windows.

\b
Examples:
  tnforge train inverse --data out/sample --out runs/inverse-model
  tnforge train inverse --data out/sample --out runs/inverse-model --max-minutes 4
""",
        config="tnforge.trainers.inverse.train:InverseTrainConfig",
        model_config="tnforge.trainers.seq2seq.model:Seq2SeqConfig",
        trainer="tnforge.trainers.inverse.train:train",
        describe="tnforge.trainers.kernel.window_task:describe",
        data_help="Dataset directory (`tnforge build`): its sentences (train, dev) are turned into ITN windows."),),
))
