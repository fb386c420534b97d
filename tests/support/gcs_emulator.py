"""A real GCS JSON API on a loopback port (gcp-storage-emulator), for tests of gs:// paths.

`GcsEmulator` starts `gcp-storage-emulator` in memory, points `STORAGE_EMULATOR_HOST` at it (for this
process and for subprocesses it starts), and stops it on exit. Beam's gs:// filesystem and
`google.cloud.storage` both talk to it; no request leaves the machine.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def connect_anonymously() -> None:
    """Make Beam skip its search for Google credentials (four retries, ~30 s offline) and use an
    anonymous client, as it would after that search failed; the emulator needs no credentials."""
    from apache_beam.internal.gcp import auth

    with auth._Credentials._credentials_lock:
        auth._Credentials._credentials = None
        auth._Credentials._credentials_init = True


class GcsEmulator:
    """A running emulator: `host` (http://127.0.0.1:PORT), `client()`, `bucket(name)`, `names(bucket)`."""

    def __init__(self) -> None:
        self.port = free_port()
        self.host = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen | None = None
        self._previous: str | None = None

    def start(self) -> GcsEmulator:
        binary = Path(sys.executable).parent / "gcp-storage-emulator"
        self._process = subprocess.Popen(
            [str(binary), "start", "--host", "127.0.0.1", "--port", str(self.port), "--in-memory"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gcp-storage-emulator did not start on port {self.port}") from None
                time.sleep(0.1)
        self._previous = os.environ.get("STORAGE_EMULATOR_HOST")
        os.environ["STORAGE_EMULATOR_HOST"] = self.host
        connect_anonymously()
        return self

    def stop(self) -> None:
        if self._previous is None:
            os.environ.pop("STORAGE_EMULATOR_HOST", None)
        else:
            os.environ["STORAGE_EMULATOR_HOST"] = self._previous
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None

    def __enter__(self) -> GcsEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client(self):
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        return storage.Client(project="tnforge-test", credentials=AnonymousCredentials())

    def bucket(self, name: str) -> str:
        """Create bucket `name` (if new); its gs:// URI."""
        client = self.client()
        if client.lookup_bucket(name) is None:
            client.create_bucket(name)
        return f"gs://{name}"

    def names(self, bucket: str, prefix: str = "") -> list[str]:
        """The object names in `bucket` under `prefix`, sorted."""
        return sorted(blob.name for blob in self.client().list_blobs(bucket, prefix=prefix or None))

    def upload(self, local: str | os.PathLike, uri: str) -> str:
        bucket, _, name = uri.removeprefix("gs://").partition("/")
        self.client().bucket(bucket).blob(name).upload_from_filename(str(local))
        return uri

    def read(self, uri: str) -> bytes:
        bucket, _, name = uri.removeprefix("gs://").partition("/")
        return self.client().bucket(bucket).blob(name).download_as_bytes()


def local_or_gs_root(request, tmp_path: Path, bucket: str, leaf: str) -> str:
    """A fresh root for a test parametrized over "local" and "gs": `tmp_path/leaf`, or a folder named after
    the test in emulated bucket `bucket` (the session's `gcs` fixture)."""
    if request.param == "local":
        return str(tmp_path / leaf)
    gcs = request.getfixturevalue("gcs")
    return f"{gcs.bucket(bucket)}/{request.node.name.replace('[', '-').rstrip(']')}/{leaf}"
