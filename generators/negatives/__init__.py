"""The negative-generator registry: a generator is one module of this package (or a plug-in, see
`tnforge.plugins`) that calls `register_generator` once. The pipeline, `tnforge negatives --kinds`, the
adversarial loop and validation's ratio checks all read `registered()`; adding a module is enough.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from tnforge.errors import TnforgeError
from tnforge.schemas.negative_kinds import KINDS

#: An input a generator may need beyond the dataset: a hypotheses file (`--topk-from`).
HYPOTHESES = "hypotheses"
#: Candidate streams the built-in generators hold (ids 0..6, see `input_negatives`); a plug-in's streams follow.
BUILTIN_STREAMS = 7

#: A plug-in's proposals for one positive: (before, reading, class, base) → (wrong reading, subtype), best first;
#: `base` is a stable 64-bit hash of the positive and the kind (derive every choice from it, never `random`).
Propose = Callable[[str, str, str, int], Iterable[tuple[str, str]]]


class GeneratorError(TnforgeError, ValueError):
    """A registration or a choice of kinds that cannot work (one line)."""


@dataclass(frozen=True)
class Generator:
    """One negative generator: its kind (the pairs' `negative_type`), subtypes and what it needs."""

    kind: str
    subtypes: tuple[str, ...]
    needs: frozenset[str] = frozenset()  # inputs beyond the dataset (HYPOTHESES)
    default: bool = False  # generated when no kinds are named
    budgeted: bool = True  # shares the ratio's budget (validation checks it); False: taken as found, up to the cap
    regenerated: bool = True  # the adversarial loop regenerates it each round
    streams: tuple[int, ...] = ()  # a built-in's candidate streams in `input_negatives` (fixed: they order bytes)
    propose: Propose | None = None  # a plug-in's candidates (built-ins are vectorised in `input_negatives`)
    module: str = ""


_GENERATORS: dict[str, Generator] = {}
_discovered = False


def register_generator(kind: str, *, subtypes: Sequence[str], needs: Iterable[str] = (), default: bool = False,
                       budgeted: bool = True, regenerated: bool = True,
                       streams: Sequence[int] = ()) -> Callable[[Propose], Propose]:
    """Register the generator of `kind` (at import); used as a decorator, the function is its `propose`."""
    found = _GENERATORS.get(kind)
    caller = inspect.currentframe().f_back  # the registering module, to tell a re-import from a second kind
    entry = Generator(kind, tuple(subtypes), frozenset(needs), default, budgeted, regenerated, tuple(streams),
                      found.propose if found else None, str(caller.f_globals.get("__name__", "")) if caller else "")
    if found and found.module != entry.module:
        raise GeneratorError(f"negative kind {kind!r} is registered twice ({found.module}, {entry.module})")
    if not kind or "," in kind or kind != kind.strip():
        raise GeneratorError(f"{kind!r}: a negative kind is a non-empty name without commas or spaces")
    _GENERATORS[kind] = entry

    def decorate(propose: Propose) -> Propose:
        _GENERATORS[kind] = replace(entry, propose=propose)
        return propose

    return decorate


def registered() -> dict[str, Generator]:
    """Every generator, kind → Generator: the built-ins (this package's modules) in `KINDS` order, then the
    plug-ins' by name."""
    global _discovered
    if not _discovered:
        _discovered = True
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")
    from tnforge.plugins import load_plugins

    load_plugins()
    order = {kind: i for i, kind in enumerate(KINDS)}
    return {k: _GENERATORS[k] for k in sorted(_GENERATORS, key=lambda k: (order.get(k, len(order)), k))}


def kinds() -> tuple[str, ...]:
    """Every kind `tnforge negatives --kinds` can generate, in order."""
    return tuple(registered())


def default_kinds() -> tuple[str, ...]:
    """The kinds generated when none are named."""
    return tuple(k for k, g in registered().items() if g.default)


def regenerated_kinds() -> tuple[str, ...]:
    """The kinds the adversarial loop regenerates each round."""
    return tuple(k for k, g in registered().items() if g.regenerated)


def budgeted_kinds(selected: Iterable[str]) -> tuple[str, ...]:
    """Of `selected`, the kinds that share the ratio's budget (validation checks their ratio)."""
    generators = registered()
    return tuple(k for k in selected if k in generators and generators[k].budgeted)


def plugin_streams(selected: Iterable[str]) -> list[tuple[int, Generator]]:
    """The selected plug-in generators (those with `propose`) with their stream ids, after the built-ins'."""
    generators = registered()
    chosen = sorted(k for k in set(selected) if k in generators and generators[k].propose is not None)
    return [(BUILTIN_STREAMS + i, generators[k]) for i, k in enumerate(chosen)]


def needing(need: str, selected: Iterable[str]) -> list[str]:
    """Of `selected`, the kinds that need `need`."""
    generators = registered()
    return [k for k in selected if k in generators and need in generators[k].needs]


def check_kinds(selected: Sequence[str], hypotheses: str | None) -> None:
    """The one check of a choice of kinds and the inputs they need: known, not empty, a hypotheses file exactly
    when a chosen kind reads one. GeneratorError in one line."""
    known = kinds()
    unknown = [k for k in selected if k not in known]
    if unknown or not selected:
        raise GeneratorError(f"unknown negative kind(s) {', '.join(unknown) or '(none given)'}; "
                             f"choose from {', '.join(known)}")
    wanting = needing(HYPOTHESES, selected)
    if wanting and not hypotheses:
        raise GeneratorError(f"the {', '.join(repr(k) for k in wanting)} kind needs a hypotheses file (--topk-from)")
    if hypotheses and not wanting:
        raise GeneratorError("a hypotheses file was given but no kind that reads one "
                             f"({', '.join(needing(HYPOTHESES, known))}) is among the kinds")
