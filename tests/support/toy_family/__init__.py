"""A toy model family that lives outside tnforge: one folder and one registration (`family.py`), brought in
with TNFORGE_PLUGINS. It proves the registry's promise: trained by the engine, listed by `tnforge train`,
decoded and evaluated through `--model`, with nothing in tnforge edited."""
