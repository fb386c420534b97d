"""The span tagger's data: ITN sentences (`tnforge.itn_sentences`) as spoken words, the lexicon's tags of them
(`tnforge.itn_tags.Lexicon`) and their gold tags (`tnforge.itn_tags.span_tags`), the vocabularies of words, characters and tags (plain lists, saved in each
checkpoint), and padded batches."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from tnforge.itn_tags import OUTSIDE

PAD, UNK = 0, 1
#: Characters of a word the character CNN reads at most.
MAX_CHARS = 24


@dataclass(frozen=True)
class Vocabularies:
    """Words (seen `min_count` times in train), characters and tags; ids 0 and 1 of words and characters are
    padding and unknown, tag 0 is O."""

    words: tuple[str, ...]
    chars: tuple[str, ...]
    tags: tuple[str, ...]

    @classmethod
    def counted(cls, words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]], min_count: int) -> Vocabularies:
        counts = Counter(w for sentence in words for w in sentence)
        chars = Counter(c for w in counts for c in w)
        kept = sorted((w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w))
        found = sorted({t for sentence in tags for t in sentence} - {OUTSIDE})
        return cls(("<pad>", "<unk>", *kept), ("<pad>", "<unk>", *sorted(chars)), (OUTSIDE, *found))

    def to_dict(self) -> dict[str, list[str]]:
        return {"words": list(self.words), "chars": list(self.chars), "tags": list(self.tags)}

    @classmethod
    def from_dict(cls, data: dict[str, list[str]]) -> Vocabularies:
        return cls(tuple(data["words"]), tuple(data["chars"]), tuple(data["tags"]))


@dataclass
class TagBatch:
    """Padded sentences: word ids [B, T], the distinct spellings' character ids [S, C] and each word's spelling
    [B, T] (padding: spelling 0, the empty one), the lexicon's tag ids [B, T], lengths [B], gold tag ids [B, T]
    (-100: padding)."""

    words: torch.Tensor
    spellings: torch.Tensor
    spelling: torch.Tensor
    lexicon: torch.Tensor
    lengths: torch.Tensor
    tags: torch.Tensor | None

    def __len__(self) -> int:
        return int(self.words.shape[0])

    def inputs(self) -> tuple[torch.Tensor, ...]:
        """The network's arguments."""
        return self.words, self.spellings, self.spelling, self.lexicon, self.lengths

    def to(self, device: torch.device) -> TagBatch:
        return TagBatch(self.words.to(device), self.spellings.to(device), self.spelling.to(device),
                        self.lexicon.to(device), self.lengths.to(device), None if self.tags is None else self.tags.to(device))


def make_batch(vocab: Vocabularies, sentences: Sequence[Sequence[str]], lexicon: Sequence[Sequence[str]],
               tags: Sequence[Sequence[str]] | None = None,
               unknown: Sequence[Sequence[bool]] | None = None) -> TagBatch:
    """A batch of word sentences (each at least one word) and their lexicon's tags (a tag the vocabulary lacks: O), with their gold tags when given; `unknown[i][j]`: word j of sentence i is read as unknown (word
    dropout in training)."""
    word_ids = {w: i for i, w in enumerate(vocab.words)}
    char_ids = {c: i for i, c in enumerate(vocab.chars)}
    tag_ids = {t: i for i, t in enumerate(vocab.tags)}
    distinct = {"": 0}
    for sentence in sentences:
        for word in sentence:
            distinct.setdefault(word[:MAX_CHARS], len(distinct))
    width = max(len(w) for w in distinct)
    spellings = torch.zeros(len(distinct), width, dtype=torch.long)
    for word, row in distinct.items():
        spellings[row, :len(word)] = torch.tensor([char_ids.get(c, UNK) for c in word], dtype=torch.long)
    steps = max(len(s) for s in sentences)
    words = torch.zeros(len(sentences), steps, dtype=torch.long)
    spelling = torch.zeros(len(sentences), steps, dtype=torch.long)
    hints = torch.zeros(len(sentences), steps, dtype=torch.long)
    gold = torch.full((len(sentences), steps), -100, dtype=torch.long) if tags is not None else None
    for i, sentence in enumerate(sentences):
        words[i, :len(sentence)] = torch.tensor([UNK if unknown and unknown[i][j] else word_ids.get(w, UNK)
                                                 for j, w in enumerate(sentence)])
        spelling[i, :len(sentence)] = torch.tensor([distinct[w[:MAX_CHARS]] for w in sentence])
        hints[i, :len(sentence)] = torch.tensor([tag_ids.get(t, 0) for t in lexicon[i]])
        if gold is not None and tags is not None:
            gold[i, :len(sentence)] = torch.tensor([tag_ids.get(t, 0) for t in tags[i]])
    return TagBatch(words, spellings, spelling, hints, torch.tensor([len(s) for s in sentences]), gold)
