"""Beam pipelines and transforms."""

from tnforge.worker_console import fast_worker_exit, quiet_worker_tracebacks

quiet_worker_tracebacks()  # in Beam's worker processes only: the driver reports failures, once
fast_worker_exit()  # in Beam's worker processes only: no object-by-object tear-down after a normal exit
