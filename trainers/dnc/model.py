"""The sequence-to-sequence differentiable neural computer of Pramanik & Hussain (2018): a DNC reads the
window's characters into its external memory, and a DNC that carries on with the same memory writes the
reading's words, with additive (Bahdanau) attention over what the reader produced at each character.

Each DNC is an LSTM controller (its input: the step's input and the last step's read vectors) driving the
memory of `trainers.dnc.memory`; its output at a step is the controller's hidden state and the new read
vectors. The reader and the writer have their own controllers and interfaces, but one memory: the
writer starts from the reader's final state (controller, memory, usage, links, read heads). `encode` and
`step` meet the decoding protocol, so beam search, constraints, evaluate and normalize work unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from tnforge.trainers.dnc.memory import Memory, MemoryState
from tnforge.trainers.kernel.attention import Encoded, attend, teacher_forced
from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.training.config_dicts import DictConfig
from tnforge.trainers.training.engine_config import option


@dataclass
class DNCConfig(DictConfig):
    """Sizes of the network (defaults: the laptop preset; `PRESETS["paper"]` is the paper's)."""

    input_embedding: int = option(32, "Input unit embedding size.", min=1)
    output_embedding: int = option(64, "Output unit embedding size.", min=1)
    controller_hidden: int = option(192, "LSTM controller size (reader and writer).", min=1)
    memory_slots: int = option(32, "Memory slots N.", min=2)
    memory_width: int = option(32, "Memory slot width W.", min=1)
    read_heads: int = option(2, "Read heads R (one write head).", min=1)
    attention: int = option(96, "Attention layer size.", min=1)
    dropout: float = option(0.2, "Dropout rate.", min=0, max=1, max_open=True)


#: Named sizes (`--preset`): what each changes from DNCConfig's defaults. "paper": Pramanik & Hussain's
#: configuration (memory 256×64, 5 read heads, 1024 hidden units, embeddings 32; the attention size is not
#: given in the paper: 256 here).
PRESETS: dict[str, dict[str, int]] = {
    "laptop": {},
    "paper": {"input_embedding": 32, "output_embedding": 32, "controller_hidden": 1024, "memory_slots": 256,
              "memory_width": 64, "read_heads": 5, "attention": 256},
}


@dataclass
class DNCState:
    """One DNC's recurrent state for a set of rows: controller hidden/cell and its memory."""

    hidden: torch.Tensor  # [B, H]
    cell: torch.Tensor  # [B, H]
    memory: MemoryState

    def select(self, index: torch.Tensor) -> DNCState:
        return DNCState(self.hidden.index_select(0, index), self.cell.index_select(0, index),
                        self.memory.select(index))

    def where(self, keep: torch.Tensor, other: DNCState) -> DNCState:
        """This state where `keep` [B] is true, `other` elsewhere."""
        column = keep[:, None]
        return DNCState(torch.where(column, self.hidden, other.hidden), torch.where(column, self.cell, other.cell),
                        self.memory.where(keep, other.memory))


@dataclass
class WriterState:
    """The writer's state between output units: its DNC and the previous attention context."""

    dnc: DNCState
    context: torch.Tensor  # [B, H + R·W]

    def select(self, index: torch.Tensor) -> WriterState:
        return WriterState(self.dnc.select(index), self.context.index_select(0, index))


class DNCCell(nn.Module):
    """One step of a DNC: controller LSTM on [input, last reads], then one memory write and read."""

    def __init__(self, input_size: int, config: DNCConfig):
        super().__init__()
        c = config
        self.controller = nn.LSTMCell(input_size + c.read_heads * c.memory_width, c.controller_hidden)
        self.memory = Memory(c.controller_hidden, c.memory_slots, c.memory_width, c.read_heads)
        self.output_size = c.controller_hidden + c.read_heads * c.memory_width

    def initial(self, rows: int, like: torch.Tensor) -> DNCState:
        """A zero controller state and an empty memory."""
        zeros = like.new_zeros(rows, self.controller.hidden_size)
        return DNCState(zeros, zeros, self.memory.initial(rows, like))

    def forward(self, inputs: torch.Tensor, state: DNCState) -> tuple[torch.Tensor, DNCState]:
        """inputs [B, I] → (output [B, H + R·W], new state)."""
        reads = state.memory.reads.flatten(1)
        hidden, cell = self.controller(torch.cat([inputs, reads], dim=-1), (state.hidden, state.cell))
        memory = self.memory(hidden, state.memory)
        return torch.cat([hidden, memory.reads.flatten(1)], dim=-1), DNCState(hidden, cell, memory)


class DNCSeq2Seq(nn.Module):
    """Reader DNC over characters + writer DNC over words with additive attention (one shared memory)."""

    def __init__(self, config: DNCConfig, input_size: int, output_size: int):
        super().__init__()
        self.config = c = config
        self.source_embedding = nn.Embedding(input_size, c.input_embedding, padding_idx=PAD)
        self.reader = DNCCell(c.input_embedding, c)
        features = self.reader.output_size
        self.target_embedding = nn.Embedding(output_size, c.output_embedding, padding_idx=PAD)
        self.writer = DNCCell(c.output_embedding + features, c)
        self.key_projection = nn.Linear(features, c.attention, bias=False)
        self.query_projection = nn.Linear(c.controller_hidden, c.attention)
        self.attention_vector = nn.Linear(c.attention, 1, bias=False)
        self.combine = nn.Linear(self.writer.output_size + features, c.controller_hidden)
        self.output = nn.Linear(c.controller_hidden, output_size)
        self.dropout = nn.Dropout(c.dropout)

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Encoded, WriterState]:
        """Read padded source ids [B, S] one unit at a time (rows past their length keep their state);
        returns the reader's outputs for attention and the writer's start (the reader's final state)."""
        embedded = self.dropout(self.source_embedding(source))
        rows, steps = source.shape
        lengths = lengths.to(source.device)
        state = self.reader.initial(rows, embedded)
        outputs = []
        for t in range(steps):
            output, moved = self.reader(embedded[:, t], state)
            state = moved.where(t < lengths, state)
            outputs.append(output)
        memory = torch.stack(outputs, dim=1)
        mask = torch.arange(steps, device=source.device)[None, :] >= lengths[:, None]
        start = WriterState(state, memory.new_zeros(rows, memory.shape[-1]))
        return Encoded(memory, self.key_projection(memory), mask), start

    def step(self, previous: torch.Tensor, state: WriterState, encoded: Encoded) -> tuple[torch.Tensor,
                                                                                            WriterState]:
        """Advance rows by one output unit: previous ids [B] → logits [B, V] and the new state."""
        embedded = self.dropout(self.target_embedding(previous))
        output, dnc = self.writer(torch.cat([embedded, state.context], dim=-1), state.dnc)
        context = attend(encoded, self.query_projection(dnc.hidden), self.attention_vector)
        combined = torch.tanh(self.combine(torch.cat([output, context], dim=-1)))
        return self.output(self.dropout(combined)), WriterState(dnc, context)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits [B, T, V] for decoder inputs target_in [B, T]."""
        return teacher_forced(self, source, lengths, target_in)
