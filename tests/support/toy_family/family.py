"""The toy family's one registration."""

from tnforge.trainers.families import Family, TrainCommand, register_family

register_family(Family(
    name="toy", format="tnforge-toy", kind="decoder",
    loader="toy_family.model:from_payload", model_config="toy_family.model:ToyConfig",
    commands=(TrainCommand(
        name="toy", help="A toy GRU encoder-decoder without attention (a plug-in family).",
        description="Train the toy family: a GRU reads the window's characters, a GRU writes the reading.",
        config="toy_family.model:ToyTrainConfig", model_config="toy_family.model:ToyConfig",
        trainer="toy_family.model:train", describe="tnforge.trainers.kernel.window_task:describe"),),
))
