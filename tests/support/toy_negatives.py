"""A toy negative generator, a plug-in from outside tnforge: named in TNFORGE_PLUGINS it joins the registry
(tests/generators/test_negatives_plugin.py); nothing imports it otherwise."""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.generators.negatives import register_generator


@register_generator("doubled", subtypes=("doubled", "reversed"), regenerated=False)
def propose(before: str, reading: str, semiotic_class: str, base: int) -> Iterator[tuple[str, str]]:
    """Its words reversed (two words or more), the reading said twice, then a hashed number appended."""
    words = reading.split()
    if len(words) > 1 and words[::-1] != words:
        yield " ".join(words[::-1]), "reversed"
    yield f"{reading} {reading}", "doubled"
    yield f"{reading} {base % 1000}", "doubled"
