"""Third-party log lines that tell a tnforge user nothing to act on, dropped where they are logged: each one
named exactly by its logger and the start of its message, so any other warning still shows."""

from __future__ import annotations

import logging

#: (logger name, message start) of each dropped line, with why it is noise for tnforge.
DROPPED: tuple[tuple[str, str], ...] = (
    # `import apache_beam` without the `gcp` extra's apitools: Beam's BigQuery client, which tnforge never uses.
    ("root", "apitools not found, and bigquery client libraries are not available"),
)


def _keep(record: logging.LogRecord) -> bool:
    message = str(record.msg)
    return not any(record.name == name and message.startswith(start) for name, start in DROPPED)


def install() -> None:
    """Drop the DROPPED lines from here on (idempotent); call it before the libraries are imported."""
    for name in {name for name, _ in DROPPED}:
        logger = logging.getLogger(None if name == "root" else name)
        if _keep not in logger.filters:
            logger.addFilter(_keep)
