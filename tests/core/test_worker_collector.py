"""Memory housekeeping of worker processes: arenas capped for the processes a pipeline starts, freed memory
handed back."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.collector import few_malloc_arenas, release_memory, trimming


def test_few_malloc_arenas_reach_child_processes_and_are_restored(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    child = [sys.executable, "-c", "import os; print(os.environ.get('MALLOC_ARENA_MAX'))"]
    with few_malloc_arenas(3):
        seen = subprocess.run(child, capture_output=True, text=True, check=True).stdout.strip()
    assert seen == "3"
    assert "MALLOC_ARENA_MAX" not in os.environ
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    with few_malloc_arenas():
        assert os.environ["MALLOC_ARENA_MAX"] == "2"
    assert os.environ["MALLOC_ARENA_MAX"] == "8"


def _resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def test_release_memory_hands_arrow_memory_back():
    if not sys.platform.startswith("linux"):
        return
    release_memory()
    before = _resident_mb()
    # 400 MB of Arrow buffers in 200 kB pieces (like a chunk's columns), made by Arrow's pool and dropped:
    # the pool keeps them resident until they are released.
    base = pa.array(np.arange(25_000, dtype=np.int64))
    parts = [pc.add(base, i) for i in range(2000)]
    assert sum(p.nbytes for p in parts) == 400_000_000
    del parts
    release_memory()
    assert _resident_mb() - before < 150


def test_trimming_runs_its_thread_only_inside_the_block():
    with trimming(0.01):
        names = [t.name for t in threading.enumerate()]
        time.sleep(0.05)  # a few trims run meanwhile
    assert "tnforge-trim" in names
    assert "tnforge-trim" not in [t.name for t in threading.enumerate()]
