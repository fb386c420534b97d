"""Files and pipes through a `tnforge.Normalizer`: raw sentences in (a file or standard input, one a line), spoken
sentences out (one a line, in order, an empty line for an empty one), read in chunks of many sentences. Input must be UTF-8: a line that is not stops the run with one message naming the
file and line; a file output is written under a temporary name and renamed, so it is never half written.
Standard input may be a live stream: whenever no further line is waiting, the lines read so far are decoded
and written at once, so a slow producer gets each answer without waiting for a full batch."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Protocol

#: Sentences read together by `Normalizer.normalize_batch` / `normalize_stream` and by the functions here (their
#: tokens are decoded `batch_size` at a time): bounds the memory of one call.
CHUNK = 512


class Reader(Protocol):
    """What these functions need of a `tnforge.Normalizer` (so this module does not import it)."""

    guarded: bool

    def read_batch(self, texts: list[str]) -> list[Any]: ...

    def unlicensed(self, readings: list[Any]) -> list[tuple[int, str, str | None, str]]: ...

STDIO = "-"
#: Marks a pause in a live input stream: no further line is waiting, so decode what has been read.
PAUSE = None


def text_lines(raw_lines: Iterable[bytes | None], name: str) -> Iterator[str | None]:
    """Lines (bytes, with or without their line end) as text without their line ends (LF or CRLF; a BOM is
    dropped); `PAUSE` markers pass through. A line that is not UTF-8 raises ValueError naming `name`, the line
    and the offending byte."""
    number = 0
    for raw in raw_lines:
        if raw is PAUSE:
            yield PAUSE
            continue
        number += 1
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{name}, line {number}: not UTF-8 text (byte 0x{raw[error.start]:02x} at column "
                             f"{error.start + 1})") from None
        yield text.rstrip("\n").rstrip("\r")


def stream_lines(fd: int, block: int = 1 << 16) -> Iterator[bytes | None]:
    """The lines of a pipe or terminal (file descriptor `fd`), with `PAUSE` whenever no complete line is
    waiting, so a caller can answer what it has before blocking for more (POSIX `select`)."""
    import select

    buffer = b""
    while True:
        *complete, buffer = buffer.split(b"\n")
        yield from (line + b"\n" for line in complete)
        if not select.select([fd], [], [], 0)[0]:
            yield PAUSE
        data = os.read(fd, block)
        if not data:
            if buffer:
                yield buffer
            return
        buffer += data


def input_lines(handle: IO[bytes]) -> Iterable[bytes | None]:
    """Standard input's lines: with pauses when it is a pipe or terminal on POSIX, else as a file's."""
    import stat

    try:
        fd = handle.fileno()
        live = os.name == "posix" and not stat.S_ISREG(os.fstat(fd).st_mode)
    except (OSError, ValueError, AttributeError):  # a replaced sys.stdin (tests, notebooks)
        live = False
    return stream_lines(fd) if live else handle


def chunks(lines: Iterable[str | None], size: int = CHUNK) -> Iterator[list[str]]:
    """Lists of up to `size` lines; a `PAUSE` ends a list early."""
    chunk: list[str] = []
    for line in lines:
        if line is PAUSE:
            if chunk:
                yield chunk
                chunk = []
            continue
        chunk.append(line)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def count_lines(path: str) -> int | None:
    """Lines of a local file (for the progress bar); None for standard input."""
    if path == STDIO:
        return None
    with open(path, "rb") as handle:
        count = sum(1 for _ in handle)
    return count


@dataclass(frozen=True)
class Normalized:
    """What `normalize_file` did: sentences in (= lines out), tokens, tokens decoded by the seq2seq, seconds."""

    sentences: int
    tokens: int
    decoded: int
    seconds: float
    unlicensed: tuple[tuple[int, str, str | None, str], ...] = ()  # (line, token, class read in, reading)
    unchecked: bool = True  # no grammar judged the readings

    def describe(self, out: str) -> str:
        rate = self.sentences / max(self.seconds, 1e-9)
        where = "standard output" if out == STDIO else out
        return (f"normalized {self.sentences:,} sentences ({self.tokens:,} tokens, {self.decoded:,} decoded by the "
                f"seq2seq) → {where} in {self.seconds:.1f} s ({rate:,.1f} sentences/s)\n" + self.guard())

    def guard(self) -> str:
        """What the grammar said of the readings: none unlicensed, or how many per class, with their lines."""
        if self.unchecked:
            return "readings not checked: no covering grammar (nothing guards their meaning)"
        if not self.unlicensed:
            return "0 readings the covering grammar licenses for none of their token's likely classes"
        by_class: dict[str, list[str]] = {}
        for line, token, cls, text in self.unlicensed:
            by_class.setdefault(str(cls), []).append(f"line {line}: {token} → {text or '<self>'}")
        return (f"{len(self.unlicensed)} reading(s) the covering grammar licenses for none of their token's likely "
                "classes (possible meaning errors): " + "; ".join(f"{cls} {len(rows)} ({', '.join(rows[:5])})"
                                                                for cls, rows in sorted(by_class.items())))


def normalize_lines(normalizer: Reader, lines: Iterable[str | None], write: Callable[[str], None],
                    on_sentences: Callable[[int], None] | None = None, chunk: int = CHUNK) -> Normalized:
    """Normalize lines chunk by chunk, writing each spoken sentence (with its line end) through `write`."""
    import time

    started = time.monotonic()
    sentences = tokens = decoded = 0
    unlicensed: list[tuple[int, str, str | None, str]] = []
    for texts in chunks(lines, chunk):
        readings = normalizer.read_batch(texts)
        write("".join(normalizer.spoken(reading) + "\n" for reading in readings))
        unlicensed += [(sentences + s + 1, *rest) for s, *rest in normalizer.unlicensed(readings)]
        sentences += len(readings)
        tokens += sum(len(r.tokens) for r in readings)
        decoded += sum(sum(r.decoded) for r in readings)
        if on_sentences:
            on_sentences(len(readings))
    return Normalized(sentences, tokens, decoded, time.monotonic() - started, tuple(unlicensed),
                      not normalizer.guarded)


def check_paths(source: str, out: str) -> None:
    """A missing or folder input, or a folder output, as one clear error before any work."""
    if source != STDIO and not os.path.isfile(source):
        raise FileNotFoundError(f"{source}: " + ("a folder, not a text file" if os.path.isdir(source) else "no such file"))
    if out != STDIO and os.path.isdir(out):
        raise ValueError(f"{out}: a folder; --out takes the path of the text file to write")


def normalize_file(normalizer: Reader, source: str, out: str, progress: Callable[[int | None], Any] | None = None,
                   chunk: int = CHUNK) -> Normalized:
    """Normalize the file `source` (`-`: standard input) into `out` (`-`: standard output), one sentence a
    line; `progress(total lines or None)` gives a bar with `.update(sentences)`."""
    from contextlib import ExitStack, nullcontext

    from tnforge.filesystems import write_atomically

    check_paths(source, out)
    with ExitStack() as stack:
        if source == STDIO:
            lines = text_lines(input_lines(sys.stdin.buffer), "standard input")
        else:
            lines = text_lines(stack.enter_context(open(source, "rb")), source)
        bar = stack.enter_context(progress(count_lines(source)) if progress else nullcontext())
        on_sentences = bar.update if bar is not None else None
        if out == STDIO:
            def write(text: str) -> None:
                sys.stdout.write(text)
                sys.stdout.flush()

            return normalize_lines(normalizer, lines, write, on_sentences, chunk)
        target = stack.enter_context(write_atomically(out))
        return normalize_lines(normalizer, lines, lambda text: target.write(text.encode("utf-8")), on_sentences,
                               chunk)


def write_raw_hypotheses(normalizer: Reader, source: str, out: str) -> Any:
    """`tnforge decode --raw`: the top-k hypotheses (`normalizer.top_k`) of every token of a text file's
    sentences (one a line) as `hypotheses` rows in one Parquet file (`out`, or a new hypotheses folder, as
    `decode` writes one, when it does not end in .parquet). key: stable hash of (file name, line, token index); class: the class the
    token was read with; gold: none; a token read as written has that one reading, at score 0."""
    import time

    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import write_shard
    from tnforge.hashing import stable_hash64
    from tnforge.trainers.decoding.outputs import HypothesesWritten
    from tnforge.windows import window_input

    check_paths(source, STDIO)
    if not out.endswith(".parquet"):
        from tnforge.hypotheses import refuse_existing

        refuse_existing(out)
    started = time.monotonic()
    rows: dict[str, list] = {name: [] for name in schemas.HYPOTHESES.names}
    name, line, tokens = os.path.basename(source), 0, 0
    with open(source, "rb") as handle:
        for texts in chunks(text_lines(handle, source)):
            for reading in normalizer.read_batch(texts):
                line += 1
                for index, (token, cls) in enumerate(zip(reading.tokens, reading.classes, strict=True)):
                    tokens += 1
                    for rank, (text, score) in enumerate(reading.hypotheses[index]):
                        for column, value in (("key", stable_hash64(name, line, index)), ("class", cls),
                                              ("before", token), ("input", window_input(reading.tokens, index)),
                                              ("gold", None), ("rank", rank), ("hypothesis", text),
                                              ("score", float(score))):
                            rows[column].append(value)
    if out.endswith(".parquet"):
        write_shard(pa.Table.from_pydict(rows, schema=schemas.HYPOTHESES), out, schemas.HYPOTHESES)
    else:  # a hypotheses folder as `decode` writes it: one shard, committed by its _hypotheses.json last
        from tnforge import hypotheses
        from tnforge.datasets import write_sharded

        write_sharded(pa.Table.from_pydict(rows, schema=schemas.HYPOTHESES), out, schemas.HYPOTHESES)
        hypotheses.write_marker(out, hypotheses.settings(None, normalizer.beam, normalizer.top_k, False, tokens))
    return HypothesesWritten(tokens, len(rows["key"]), 1, time.monotonic() - started)


@dataclass(frozen=True)
class Denormalized:
    """What `denormalize_file` did: sentences in (= lines out), written tokens out, seconds."""

    sentences: int
    tokens: int
    seconds: float

    def describe(self, out: str) -> str:
        rate = self.sentences / max(self.seconds, 1e-9)
        where = "standard output" if out == STDIO else out
        return (f"denormalized {self.sentences:,} sentences ({self.tokens:,} written tokens) → {where} in "
                f"{self.seconds:.1f} s ({rate:,.1f} sentences/s)")


def denormalize_file(inverse: Any, source: str, out: str) -> Denormalized:
    """Spoken sentences of the file `source` (`-`: standard input), one a line, → written sentences in `out`
    (`-`: standard output) with a `tnforge.InverseNormalizer`; a line that is not UTF-8 raises ValueError
    naming the file and line."""
    import time
    from contextlib import ExitStack

    from tnforge.filesystems import write_atomically

    check_paths(source, out)
    started = time.monotonic()
    sentences = tokens = 0
    with ExitStack() as stack:
        if source == STDIO:
            lines = text_lines(input_lines(sys.stdin.buffer), "standard input")
        else:
            lines = text_lines(stack.enter_context(open(source, "rb")), source)
        if out == STDIO:
            def write(text: str) -> None:
                sys.stdout.write(text)
                sys.stdout.flush()
        else:
            target = stack.enter_context(write_atomically(out))

            def write(text: str) -> None:
                target.write(text.encode("utf-8"))
        for texts in chunks(lines):
            read = inverse.read_texts(texts)
            write("".join(" ".join(t.written for t in written) + "\n" for written in read))
            sentences += len(read)
            tokens += sum(len(written) for written in read)
    return Denormalized(sentences, tokens, time.monotonic() - started)
