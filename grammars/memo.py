"""Memoization on the grammar object: derived tables and sub-lattices live (and die) with their grammar."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
#: A memo with more entries than this is emptied (keeps odd inputs, e.g. unusual unit strings, from growing
#: it without bound in a long-running worker).
MAX_ENTRIES = 100_000


def per_grammar(function: Callable[..., T]) -> Callable[..., T]:
    """Memoize `function(g, *args)` in a dict held by the grammar `g` (`g.memos`), so a fresh grammar starts
    empty and a dropped one frees its entries (a module-level lru_cache would keep every grammar alive)."""
    name = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def wrapper(g, *args):
        memo = g.memos.get(name)
        if memo is None:
            memo = g.memos[name] = {}
        found = memo.get(args, memo)
        if found is memo:
            if len(memo) >= MAX_ENTRIES:
                memo.clear()
            found = memo[args] = function(g, *args)
        return found

    return wrapper
