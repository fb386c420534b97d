"""The semiotic-class tagger's one registration (read without importing xgboost): its runs are folders with
tagger.json, not torch checkpoints, so the registry knows them by that file."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="tagger", format="tnforge-tagger", kind="tagger", marker="tagger.json",
    folder_loader="tnforge.trainers.tagger.model:load_tagger_run",
    commands=(TrainCommand(
        name="tagger", help="The semiotic-class tagger (xgboost over context features).",
        description="""Train the semiotic-class tagger on every token of the train split; report per-class figures on dev.

\b
Example:
  tnforge train tagger --data out/sample --out runs/tagger
""",
        config="tnforge.trainers.tagger.train:TaggerConfig",
        trainer="tnforge.trainers.tagger.train:train_tagger",
        describe="tnforge.trainers.tagger.train:describe",
        data_help="Dataset directory (sentences/train; examples/dev and examples/test for the figures).",
        out_help="Run directory: model.json (xgboost), tagger.json (what the model is, its calibration), dev.md, "
                 "reliability.png.",
        resumable=False),),
))
