"""The GCS emulator harness itself: Beam's gs:// filesystem and the storage client see the same bucket."""

from __future__ import annotations

from tnforge.filesystems import expand, open_binary, write_atomically


def test_beam_filesystem_and_client_share_the_emulated_bucket(gcs) -> None:
    root = gcs.bucket("harness")
    with write_atomically(f"{root}/a/b.txt") as handle:
        handle.write(b"written through Beam")
    assert gcs.names("harness") == ["a/b.txt"]  # no temporary object left behind
    assert gcs.read(f"{root}/a/b.txt") == b"written through Beam"
    assert [path for path, _ in expand(f"{root}/a/*.txt")] == [f"{root}/a/b.txt"]
    with open_binary(f"{root}/a/b.txt") as handle:
        assert handle.read() == b"written through Beam"
