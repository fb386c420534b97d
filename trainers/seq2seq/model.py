"""The attention seq2seq normalizer of Sproat & Jaitly (2016): characters of the window in, words out.

A bidirectional LSTM encodes the input units; an LSTM decoder with additive (Bahdanau) attention and input
feeding predicts the reading one output unit at a time. `encode` runs once per input; `step` advances
any number of decoder rows (beam hypotheses) by one output unit, which is what beam search needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from tnforge.trainers.kernel.attention import Encoded, attend, teacher_forced
from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.training.config_dicts import DictConfig
from tnforge.trainers.training.engine_config import option


@dataclass
class Seq2SeqConfig(DictConfig):
    """Sizes of the network (defaults: the CPU-sized model; `GPU_MODEL` changes them for a GPU)."""

    input_embedding: int = option(48, "Input unit embedding size.", min=1)
    output_embedding: int = option(96, "Output unit embedding size.", min=1)
    encoder_hidden: int = option(128, "Encoder LSTM size per direction.", min=1)
    encoder_layers: int = option(1, "Encoder LSTM layers.", min=1)
    decoder_hidden: int = option(192, "Decoder LSTM size.", min=1)
    attention: int = option(96, "Attention layer size.", min=1)
    dropout: float = option(0.2, "Dropout rate.", min=0, max=1, max_open=True)


#: The GPU-sized network (`--size large`, and `auto` on a GPU): what changes from Seq2SeqConfig's defaults.
GPU_MODEL: dict[str, int] = {"input_embedding": 64, "output_embedding": 128, "encoder_hidden": 256,
                             "encoder_layers": 2, "decoder_hidden": 384, "attention": 128}


@dataclass
class DecoderState:
    """Recurrent state of decoder rows: LSTM hidden/cell and the previous attention context."""

    hidden: torch.Tensor  # [N, D]
    cell: torch.Tensor  # [N, D]
    context: torch.Tensor  # [N, 2H]

    def select(self, index: torch.Tensor) -> DecoderState:
        return DecoderState(self.hidden.index_select(0, index), self.cell.index_select(0, index),
                            self.context.index_select(0, index))


class Seq2Seq(nn.Module):
    """BiLSTM encoder + LSTM decoder with additive attention over encoder states."""

    def __init__(self, config: Seq2SeqConfig, input_size: int, output_size: int):
        super().__init__()
        self.config = config
        c = config
        memory = 2 * c.encoder_hidden
        self.source_embedding = nn.Embedding(input_size, c.input_embedding, padding_idx=PAD)
        self.encoder = nn.LSTM(c.input_embedding, c.encoder_hidden, num_layers=c.encoder_layers,
                               batch_first=True, bidirectional=True,
                               dropout=c.dropout if c.encoder_layers > 1 else 0.0)
        self.bridge_hidden = nn.Linear(memory, c.decoder_hidden)
        self.bridge_cell = nn.Linear(memory, c.decoder_hidden)
        self.target_embedding = nn.Embedding(output_size, c.output_embedding, padding_idx=PAD)
        self.decoder = nn.LSTMCell(c.output_embedding + memory, c.decoder_hidden)
        self.key_projection = nn.Linear(memory, c.attention, bias=False)
        self.query_projection = nn.Linear(c.decoder_hidden, c.attention)
        self.attention_vector = nn.Linear(c.attention, 1, bias=False)
        self.combine = nn.Linear(c.decoder_hidden + memory, c.decoder_hidden)
        self.output = nn.Linear(c.decoder_hidden, output_size)
        self.dropout = nn.Dropout(c.dropout)

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Encoded, DecoderState]:
        """Encode padded source ids [N, S] with their lengths; returns the memory and the decoder's start."""
        embedded = self.dropout(self.source_embedding(source))
        packed = pack_padded_sequence(embedded, lengths.cpu().clamp(min=1), batch_first=True, enforce_sorted=False)
        output, (hidden, _cell) = self.encoder(packed)
        memory, _ = pad_packed_sequence(output, batch_first=True, total_length=source.shape[1])
        mask = torch.arange(source.shape[1], device=source.device)[None, :] >= lengths.to(source.device)[:, None]
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1)  # last layer, both directions
        state = DecoderState(torch.tanh(self.bridge_hidden(final)), torch.tanh(self.bridge_cell(final)),
                             torch.zeros_like(final))
        return Encoded(memory, self.key_projection(memory), mask), state

    def step(self, previous: torch.Tensor, state: DecoderState, encoded: Encoded) -> tuple[torch.Tensor,
                                                                                           DecoderState]:
        """Advance rows by one unit: previous output ids [N] → logits [N, V] and the new state."""
        embedded = self.dropout(self.target_embedding(previous))
        hidden, cell = self.decoder(torch.cat([embedded, state.context], dim=-1), (state.hidden, state.cell))
        context = attend(encoded, self.query_projection(hidden), self.attention_vector)
        combined = torch.tanh(self.combine(torch.cat([hidden, context], dim=-1)))
        logits = self.output(self.dropout(combined))
        return logits, DecoderState(hidden, cell, context)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits [N, T, V] for decoder inputs target_in [N, T]."""
        return teacher_forced(self, source, lengths, target_in)
