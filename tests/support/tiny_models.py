"""Tiny models and data the trainer tests share: hand-made sentences (as examples and as a sentences dataset)
and a seq2seq trained on them in seconds; number-word pairs for the dual encoders, and a small dual-encoder
size."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from tnforge import schemas
from tnforge.datasets import dataset_path, write_sharded
from tnforge.hashing import stable_hash64
from tnforge.manifest import mark_complete, write_manifest
from tnforge.windows import window_input

#: Hand-made sentences: (class, before, after).
TINY_SENTENCES: list[list[tuple[str, str, str]]] = [
    [("PLAIN", "Train", "<self>"), ("CARDINAL", "540", "five hundred forty"), ("PLAIN", "leaves", "<self>"),
     ("PLAIN", "at", "<self>"), ("TIME", "4:45", "four forty five"), ("PUNCT", ".", "sil")],
    [("PLAIN", "It", "<self>"), ("PLAIN", "costs", "<self>"), ("MONEY", "$3", "three dollars"),
     ("PUNCT", ",", "sil"), ("PLAIN", "not", "<self>"), ("MONEY", "$5", "five dollars"), ("PUNCT", ".", "sil")],
    [("PLAIN", "The", "<self>"), ("LETTERS", "BBC", "b b c"), ("PLAIN", "aired", "<self>"),
     ("PLAIN", "it", "<self>"), ("PLAIN", "in", "<self>"), ("DATE", "1984", "nineteen eighty four"),
     ("PUNCT", ".", "sil")],
    [("PLAIN", "Chapter", "<self>"), ("CARDINAL", "12", "twelve"), ("PLAIN", "has", "<self>"),
     ("CARDINAL", "3", "three"), ("PLAIN", "parts", "<self>"), ("PUNCT", ".", "sil")],
]


def examples_table(sentences: list[list[tuple[str, str, str]]], split: str, source: str = "tiny.tsv",
                   copies: int = 0) -> pa.Table:
    """EXAMPLES rows for hand-made sentences (windows from the build's own function)."""
    rows: dict[str, list] = {name: [] for name in schemas.EXAMPLES.names}
    line = 1
    for sentence_id, sentence in enumerate(sentences):
        befores = [before for _, before, _ in sentence]
        for index, (cls, before, after) in enumerate(sentence):
            trivial = after in schemas.TRIVIAL_TARGETS
            for copy in range(1 + (copies if not trivial else 0)):
                rows["key"].append(stable_hash64(source, sentence_id, index, copy))
                rows["split"].append(split)
                rows["source"].append(source)
                rows["line"].append(line)
                rows["sentence_id"].append(sentence_id)
                rows["token_index"].append(index)
                rows["copy"].append(copy)
                rows["class"].append(cls)
                rows["before"].append(before)
                rows["after"].append(after)
                rows["trivial"].append(trivial)
                rows["input"].append(window_input(befores, index))
            line += 1
        line += 1  # the <eos> line
    return pa.Table.from_pydict(rows, schema=schemas.EXAMPLES)


def write_tiny_dataset(root: Path, copies: int = 0) -> Path:
    """A (complete) dataset directory whose train and dev splits both hold the tiny sentences."""
    for split in ("train", "dev"):
        write_sharded(examples_table(TINY_SENTENCES, split, copies=copies if split == "train" else 0),
                      dataset_path(root, "examples", split), schemas.EXAMPLES)
    write_manifest(root, mark_complete({}))
    return root


def _reading(before: str, after: str) -> str:
    return before if after == schemas.SELF else "" if after == schemas.SIL else after


def sentences_table(sentences: list[list[tuple[str, str, str]]], split: str) -> pa.Table:
    """SENTENCES rows of hand-made sentences, as the build writes them."""
    rows: dict[str, list] = {name: [] for name in schemas.SENTENCES.names}
    for sentence_id, sentence in enumerate(sentences):
        tokens = [b for _, b, _ in sentence]
        readings = [_reading(b, a) for _, b, a in sentence]
        for name, value in (("key", stable_hash64("tiny.tsv", sentence_id)), ("split", split),
                            ("source", "tiny.tsv"), ("sentence_id", sentence_id), ("line", 1),
                            ("n_tokens", len(tokens)), ("text_hash", stable_hash64(" ".join(tokens))),
                            ("written", " ".join(tokens)), ("spoken", " ".join(r for r in readings if r)),
                            ("tokens", tokens), ("classes", [c for c, _, _ in sentence]), ("readings", readings)):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.SENTENCES)


def write_sentence_dataset(root: Path) -> Path:
    """A complete dataset directory whose train, dev and test splits hold the tiny sentences (examples too,
    for `evaluate --raw`)."""
    for split in ("train", "dev", "test"):
        write_sharded(sentences_table(TINY_SENTENCES, split), dataset_path(root, "sentences", split), schemas.SENTENCES)
        write_sharded(examples_table(TINY_SENTENCES, split), dataset_path(root, "examples", split), schemas.EXAMPLES)
    write_manifest(root, mark_complete({}))
    return root


def tiny_config(data: Path, out: Path, **overrides):
    from tnforge.trainers.seq2seq.model import Seq2SeqConfig
    from tnforge.trainers.seq2seq.train import Seq2SeqTrainConfig

    model = Seq2SeqConfig(input_embedding=16, output_embedding=16, encoder_hidden=32, decoder_hidden=48,
                        attention=24, dropout=0.0)
    values = dict(data=str(data), out=str(out), device="cpu", epochs=60, batch_size=8, learning_rate=1e-2,
                  patience=100, seed=7, progress=False, threads=1, model=model)
    values.update(overrides)
    return Seq2SeqTrainConfig(**values)


def train_tiny(tmp: Path, **overrides):
    """Train the tiny model on the tiny dataset; returns (result, data dir)."""
    from tnforge.trainers.seq2seq.train import train

    data = write_tiny_dataset(tmp / "data")
    return train(tiny_config(data, tmp / "run", **overrides)), data


# --- dual encoders ----------------------------------------------------------------------------------

ONES = "zero one two three four five six seven eight nine".split()
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty"}
TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()


def words(number: int) -> str:
    if number < 10:
        return ONES[number]
    if number < 20:
        return TEENS[number - 10]
    tens, ones = divmod(number, 10)
    return TENS[tens] + ("" if not ones else " " + ONES[ones])


def pairs_rows(split: str, numbers: list[int]) -> tuple[dict, dict]:
    pairs = {name: [] for name in schemas.PAIRS.names}
    vocab = {name: [] for name in schemas.VOCAB_PAIRS.names}

    def add_pair(before: str, reading: str, label: int, kind: str) -> None:
        pairs["key"].append(stable_hash64(split, before, reading, kind))
        for name, value in (("split", split), ("class", "CARDINAL"), ("before", before), ("reading", reading),
                            ("label", label), ("negative_type", kind), ("negative_subtype", kind),
                            ("licensed", None), ("generator_version", "test"), ("source_key", 0)):
            pairs[name].append(value)

    def add_word(before: str, word: str, label: int, kind: str) -> None:
        vocab["key"].append(stable_hash64(split, before, word, kind))
        for name, value in (("split", split), ("class", "CARDINAL"), ("before", before), ("word", word),
                            ("label", label), ("negative_type", kind), ("generator_version", "test")):
            vocab[name].append(value)

    for number in numbers:
        before, reading = str(number), words(number)
        add_pair(before, reading, 1, "")
        for offset, kind in ((1, "synthetic"), (17, "random"), (31, "random")):
            wrong = words((number + offset) % 60)
            if wrong != reading:
                add_pair(before, wrong, 0, kind)
        for word in reading.split():
            add_word(before, word, 1, "")
        for word in {"seven", "fifty", "three", "twelve", "forty"} - set(reading.split()):
            add_word(before, word, 0, "global")
    return pairs, vocab


def write_pair_dataset(root: Path) -> str:
    """A dataset of number-word pairs and vocabulary pairs (train: 0–59, dev: every third) for the DEs."""
    for split, numbers in (("train", list(range(60))), ("dev", list(range(0, 60, 3)))):
        pairs, vocab = pairs_rows(split, numbers)
        write_sharded(pa.Table.from_pydict(pairs, schema=schemas.PAIRS), dataset_path(root, "pairs", split),
                      schemas.PAIRS)
        write_sharded(pa.Table.from_pydict(vocab, schema=schemas.VOCAB_PAIRS),
                      dataset_path(root, "vocab_pairs", split), schemas.VOCAB_PAIRS)
    return str(root)


#: A dual encoder small enough to train in seconds.
SMALL = dict(input_buckets=4096, output_buckets=4096, embedding=32, hidden=64, dim=32, head_hidden=32, dropout=0.0)
