"""Beam pipelines and transforms."""

from tnforge.worker_console import quiet_worker_tracebacks

quiet_worker_tracebacks()  # in Beam's worker processes only: the driver reports failures, once
