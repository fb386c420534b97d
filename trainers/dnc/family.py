"""The DNC family's one registration (read without importing torch)."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="dnc", format="tnforge-dnc", kind="decoder",
    loader="tnforge.trainers.dnc.loading:from_payload",
    model_config="tnforge.trainers.dnc.model:DNCConfig",
    commands=(TrainCommand(
        name="dnc", help="The memory-augmented normalizer (a differentiable neural computer).",
        description="""Train the sequence-to-sequence DNC of Pramanik & Hussain (2018): a DNC reads the window's characters
into an external memory, a DNC with the same memory writes the reading's words (with attention).

Same data, dev evaluation and run files as `train seq2seq`; every --model command decodes its runs.

\b
Examples:
  tnforge train dnc --data out/sample --out runs/dnc
  tnforge train dnc --data out/en --out runs/dnc-paper --preset paper --device cuda
""",
        config="tnforge.trainers.dnc.train:DNCTrainConfig",
        model_config="tnforge.trainers.dnc.model:DNCConfig",
        trainer="tnforge.trainers.dnc.train:train",
        describe="tnforge.trainers.kernel.window_task:describe"),),
))
