"""A short, bounded check that Cloud Storage can be reached at all, made once per process before the first
gs:// operation: an unreachable endpoint is one line within seconds, not minutes of the storage client's
retries and tracebacks. It opens a TCP connection to the endpoint (the emulator's, when STORAGE_EMULATOR_HOST
names one) and nothing more: access rights are still the storage client's to report."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

#: Seconds allowed to connect (name lookup included).
TIMEOUT = 5.0
#: Cloud Storage's JSON API endpoint.
GCS_ENDPOINT = ("storage.googleapis.com", 443)
_checked: dict[tuple[str, int], str | None] = {}  # endpoint → None (reached) or why not


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    return parts.hostname or "localhost", parts.port or (443 if parts.scheme == "https" else 80)


def gcs_endpoint() -> tuple[str, int]:
    """(host, port) that gs:// requests first connect to: the emulator named by STORAGE_EMULATOR_HOST, else the
    HTTPS proxy the environment names (requests go through it), else Google's endpoint."""
    emulator = os.environ.get("STORAGE_EMULATOR_HOST", "").strip()
    if emulator:
        return _host_port(emulator)
    proxy = next((os.environ[name].strip() for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
                  if os.environ.get(name, "").strip()), "")
    bypass = os.environ.get("NO_PROXY", os.environ.get("no_proxy", ""))
    if proxy and not any(host.strip() and GCS_ENDPOINT[0].endswith(host.strip().lstrip("*"))
                         for host in bypass.split(",")):
        return _host_port(proxy)
    return GCS_ENDPOINT


def unreachable(path: str) -> str | None:
    """Why the storage endpoint of `path` cannot be reached ("cannot connect to HOST:PORT: …"), or None when it
    can (or `path` is not a gs:// path). Each endpoint is tried once per process."""
    if not str(path).startswith("gs://"):
        return None
    endpoint = gcs_endpoint()
    if endpoint not in _checked:
        try:
            socket.create_connection(endpoint, timeout=TIMEOUT).close()
            _checked[endpoint] = None
        except OSError as error:
            why = "timed out" if isinstance(error, TimeoutError) else (error.strerror or str(error) or type(error).__name__)
            _checked[endpoint] = f"cannot connect to {endpoint[0]}:{endpoint[1]}: {why}"
    return _checked[endpoint]
