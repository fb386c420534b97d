"""The span tagger's network: each spoken word as its embedding (rare words unknown), a character CNN's features
and the embedding of the tag the train split's lexicon gives it (`tnforge.itn_tags.Lexicon`), a bidirectional LSTM
over the sentence, a tag per word (`reading.inverse_spans`: O, B-CLASS, I-CLASS)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from tnforge.trainers.training.config_dicts import DictConfig
from tnforge.trainers.training.engine_config import option


@dataclass
class SpanTaggerConfig(DictConfig):
    """Sizes of the network (small: it trains in minutes and tags hundreds of sentences a second on one thread)."""

    word_embedding: int = option(64, "Word embedding size.", min=1)
    char_embedding: int = option(24, "Character embedding size.", min=1)
    char_filters: int = option(64, "Character CNN filters (width 3, max-pooled over the word).", min=1)
    lexicon_embedding: int = option(16, "Embedding size of the lexicon's tag of each word.", min=1)
    hidden: int = option(128, "LSTM size per direction.", min=1)
    layers: int = option(1, "LSTM layers.", min=1)
    dropout: float = option(0.25, "Dropout rate.", min=0, max=1, max_open=True)


class SpanTagger(nn.Module):
    """Word ids [B, T], their spellings (`spellings`: the character ids [S, C] of the distinct spellings,
    `spelling`: the spelling of each word [B, T], so each is read once) and the lexicon's tag ids [B, T] →
    tag logits [B, T, tags]."""

    def __init__(self, config: SpanTaggerConfig, words: int, chars: int, tags: int) -> None:
        super().__init__()
        self.config = c = config
        self.words = nn.Embedding(words, c.word_embedding, padding_idx=0)
        self.chars = nn.Embedding(chars, c.char_embedding, padding_idx=0)
        self.conv = nn.Conv1d(c.char_embedding, c.char_filters, 3, padding=1)
        self.lexicon = nn.Embedding(tags, c.lexicon_embedding)
        self.lstm = nn.LSTM(c.word_embedding + c.char_filters + c.lexicon_embedding, c.hidden, c.layers, batch_first=True,
                            bidirectional=True, dropout=c.dropout if c.layers > 1 else 0.0)
        self.drop = nn.Dropout(c.dropout)
        self.out = nn.Linear(2 * c.hidden, tags)

    def forward(self, words: torch.Tensor, spellings: torch.Tensor, spelling: torch.Tensor,
                lexicon: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        shapes = torch.relu(self.conv(self.chars(spellings).transpose(1, 2)))
        shapes = shapes.masked_fill((spellings == 0).unsqueeze(1), 0.0).max(2).values
        features = torch.cat([self.words(words), shapes[spelling], self.lexicon(lexicon)], -1)
        packed = pack_padded_sequence(self.drop(features), lengths.cpu(), batch_first=True, enforce_sorted=False)
        encoded, _ = self.lstm(packed)
        encoded, _ = pad_packed_sequence(encoded, batch_first=True, total_length=words.shape[1])
        return self.out(self.drop(encoded))
