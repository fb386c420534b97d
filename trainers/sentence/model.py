"""The sentence family's networks: the paper's LSTM (a 2-layer bidirectional LSTM encoder, a 2-layer LSTM
decoder with additive attention and input feeding) and a Transformer encoder–decoder of comparable parameter
count. Both embed each source piece and concatenate its feature embeddings (`features`) before encoding;
`encode`/`step` meet the decoding protocol, so the shared beam search decodes both."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from tnforge.trainers.kernel.attention import Encoded, attend, teacher_forced
from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.sentence.features import VALUES
from tnforge.trainers.training.config_dicts import DictConfig
from tnforge.trainers.training.engine_config import option

ARCHITECTURES = ("lstm", "transformer")


@dataclass
class SentenceModelConfig(DictConfig):
    """The network: its architecture, the features it reads and its sizes (CPU-sized defaults)."""

    arch: str = option("lstm", "Network: lstm (the paper's: 2-layer bi-LSTM encoder, 2-layer LSTM decoder with "
                               "attention) or transformer (an encoder-decoder of comparable parameter count).",
                       choices=ARCHITECTURES)
    features: str = option("casing,position,class", "Linguistic features concatenated to each piece embedding: "
                                                      "none, or a comma-separated subset of casing, position, class "
                                                      "(the token's semiotic class: gold in training, the tagger's "
                                                      "at inference). POS is not offered (no offline POS tagger).")
    embedding: int = option(128, "Piece embedding size (source and target share the inventory, not the table).",
                            min=1)
    feature_embedding: int = option(16, "Embedding size of each feature.", min=1)
    hidden: int = option(128, "LSTM: encoder size per direction (the decoder has twice as many units).", min=1)
    layers: int = option(2, "Encoder and decoder layers (each).", min=1)
    attention: int = option(128, "LSTM: attention layer size.", min=1)
    width: int = option(192, "Transformer: model width.", min=8)
    heads: int = option(4, "Transformer: attention heads (must divide --width).", min=1)
    feedforward: int = option(768, "Transformer: feed-forward size.", min=1)
    dropout: float = option(0.2, "Dropout rate.", min=0, max=1, max_open=True)

    def feature_names(self) -> tuple[str, ...]:
        from tnforge.trainers.sentence.features import parse_features

        return parse_features(self.features)


class SourceEmbedding(nn.Module):
    """Piece embedding ⊕ one embedding per feature column of a source [N, S, 1 + F] → [N, S, E + F·f]."""

    def __init__(self, config: SentenceModelConfig, vocab_size: int):
        super().__init__()
        self.pieces = nn.Embedding(vocab_size, config.embedding, padding_idx=PAD)
        self.features = nn.ModuleList(nn.Embedding(len(VALUES[name]) + 1, config.feature_embedding, padding_idx=0)
                                      for name in config.feature_names())
        self.size = config.embedding + len(self.features) * config.feature_embedding

    def forward(self, source: torch.Tensor) -> torch.Tensor:
        parts = [self.pieces(source[..., 0])]
        parts.extend(table(source[..., 1 + i]) for i, table in enumerate(self.features))
        return torch.cat(parts, dim=-1)


def padding_mask(source: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """[N, S] True at padding positions."""
    return torch.arange(source.shape[1], device=source.device)[None, :] >= lengths.to(source.device)[:, None]


@dataclass
class LSTMState:
    """Decoder rows' state: each layer's hidden and cell [L, N, D], and the last attention context [N, M]."""

    hidden: torch.Tensor
    cell: torch.Tensor
    context: torch.Tensor

    def select(self, index: torch.Tensor) -> LSTMState:
        return LSTMState(self.hidden.index_select(1, index), self.cell.index_select(1, index),
                         self.context.index_select(0, index))


class SentenceLSTM(nn.Module):
    """Mansfield et al.'s network: bi-LSTM encoder, LSTM decoder with additive attention."""

    def __init__(self, config: SentenceModelConfig, vocab_size: int):
        super().__init__()
        c = config
        self.config = c
        memory, decoder = 2 * c.hidden, 2 * c.hidden
        self.source_embedding = SourceEmbedding(c, vocab_size)
        self.encoder = nn.LSTM(self.source_embedding.size, c.hidden, num_layers=c.layers, batch_first=True,
                               bidirectional=True, dropout=c.dropout if c.layers > 1 else 0.0)
        self.bridge = nn.Linear(memory, 2 * c.layers * decoder)
        self.target_embedding = nn.Embedding(vocab_size, c.embedding, padding_idx=PAD)
        self.decoder = nn.LSTM(c.embedding + memory, decoder, num_layers=c.layers,
                               dropout=c.dropout if c.layers > 1 else 0.0)
        self.key_projection = nn.Linear(memory, c.attention, bias=False)
        self.query_projection = nn.Linear(decoder, c.attention)
        self.attention_vector = nn.Linear(c.attention, 1, bias=False)
        self.combine = nn.Linear(decoder + memory, decoder)
        self.output = nn.Linear(decoder, vocab_size)
        self.dropout = nn.Dropout(c.dropout)
        # every weight uniform in ±0.1, as LSTM translation models start (Luong et al. 2015; OpenNMT): torch's
        # N(0, 1) embeddings learned slower on the shared sample (dev loss 4.12 vs 3.71 per piece at step 214)
        for parameter in self.parameters():
            nn.init.uniform_(parameter, -0.1, 0.1)
        with torch.no_grad():
            self.source_embedding.pieces.weight[PAD].zero_()
            self.target_embedding.weight[PAD].zero_()
            for table in self.source_embedding.features:
                table.weight[0].zero_()

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Encoded, LSTMState]:
        embedded = self.dropout(self.source_embedding(source))
        packed = pack_padded_sequence(embedded, lengths.cpu().clamp(min=1), batch_first=True, enforce_sorted=False)
        output, (hidden, _cell) = self.encoder(packed)
        memory, _ = pad_packed_sequence(output, batch_first=True, total_length=source.shape[1])
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1)
        layers, rows = self.config.layers, source.shape[0]
        start = torch.tanh(self.bridge(final)).view(rows, 2, layers, -1).permute(1, 2, 0, 3).contiguous()
        state = LSTMState(start[0], start[1], torch.zeros_like(final))
        return Encoded(memory, self.key_projection(memory), padding_mask(source, lengths)), state

    def step(self, previous: torch.Tensor, state: LSTMState, encoded: Encoded) -> tuple[torch.Tensor, LSTMState]:
        embedded = self.dropout(self.target_embedding(previous))
        output, (hidden, cell) = self.decoder(torch.cat([embedded, state.context], dim=-1)[None],
                                              (state.hidden.contiguous(), state.cell.contiguous()))
        top = output[0]
        context = attend(encoded, self.query_projection(top), self.attention_vector)
        combined = torch.tanh(self.combine(torch.cat([top, context], dim=-1)))
        return self.output(self.dropout(combined)), LSTMState(hidden, cell, context)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        return teacher_forced(self, source, lengths, target_in)


def sinusoids(length: int, width: int, device: torch.device) -> torch.Tensor:
    """Sinusoidal position encodings [length, width]."""
    position = torch.arange(length, device=device, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, width, 2, device=device, dtype=torch.float32) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width, device=device)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)[:, : width // 2]
    return table


@dataclass
class TransformerMemory:
    """Encoder output rows: memory [N, S, D] and its padding mask [N, S]; once decoding starts, each decoder
    layer's cross-attention keys and values of the memory [N, heads, S, D/heads], projected once
    (`SentenceTransformer.step`), not at every step."""

    memory: torch.Tensor
    mask: torch.Tensor
    keys: list[tuple[torch.Tensor, torch.Tensor]] | None = None

    def select(self, index: torch.Tensor) -> TransformerMemory:
        keys = None if self.keys is None else [(k.index_select(0, index), v.index_select(0, index))
                                               for k, v in self.keys]
        return TransformerMemory(self.memory.index_select(0, index), self.mask.index_select(0, index), keys)


@dataclass
class PrefixState:
    """Decoder rows' state: how many pieces were read, and each decoder layer's self-attention keys and values
    at every position read so far [N, heads, t, D/heads] (the new position attends to them)."""

    length: int
    layers: list[tuple[torch.Tensor, torch.Tensor]]

    def select(self, index: torch.Tensor) -> PrefixState:
        return PrefixState(self.length, [(k.index_select(0, index), v.index_select(0, index)) for k, v in self.layers])


def _heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """[N, T, D] → [N, heads, T, D/heads]."""
    return x.unflatten(-1, (heads, x.shape[-1] // heads)).transpose(1, 2)


def _project(attention: nn.MultiheadAttention, x: torch.Tensor, part: int) -> torch.Tensor:
    """One of the query (0), key (1) and value (2) projections of an attention layer, split into heads."""
    width = attention.embed_dim
    weight = attention.in_proj_weight[part * width:(part + 1) * width]
    bias = attention.in_proj_bias[part * width:(part + 1) * width]
    return _heads(nn.functional.linear(x, weight, bias), attention.num_heads)


def _attend(attention: nn.MultiheadAttention, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
            allowed: torch.Tensor | None = None) -> torch.Tensor:
    """Multi-head attention of projected queries over projected keys and values, through the output projection
    ([N, 1, D]); `allowed` [N, 1, 1, S]: the keys each row may read (True)."""
    mixed = nn.functional.scaled_dot_product_attention(query, keys, values, attn_mask=allowed)
    return attention.out_proj(mixed.transpose(1, 2).flatten(2))


class SentenceTransformer(nn.Module):
    """A pre-norm Transformer encoder–decoder on the same source embedding (projected to the model width)."""

    def __init__(self, config: SentenceModelConfig, vocab_size: int):
        super().__init__()
        c = config
        self.config = c
        if c.width % c.heads:
            raise ValueError(f"--width {c.width} must be a multiple of --heads {c.heads}")
        self.source_embedding = SourceEmbedding(c, vocab_size)
        self.source_projection = nn.Linear(self.source_embedding.size, c.width)
        self.target_embedding = nn.Embedding(vocab_size, c.width, padding_idx=PAD)
        # scaled by √width in `decode`: drawn at 1/√width so that the pieces enter at unit scale, beside the
        # position encodings (torch's N(0, 1) would drown them by √width and the decoder would lose its place)
        nn.init.normal_(self.target_embedding.weight, 0.0, c.width ** -0.5)
        with torch.no_grad():
            self.target_embedding.weight[PAD].zero_()
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(c.width, c.heads, c.feedforward, c.dropout, batch_first=True, norm_first=True),
            c.layers, norm=nn.LayerNorm(c.width), enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(c.width, c.heads, c.feedforward, c.dropout, batch_first=True, norm_first=True),
            c.layers, norm=nn.LayerNorm(c.width))
        self.output = nn.Linear(c.width, vocab_size)
        self.dropout = nn.Dropout(c.dropout)

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[TransformerMemory, PrefixState]:
        mask = padding_mask(source, lengths)
        embedded = self.source_projection(self.source_embedding(source))
        embedded = self.dropout(embedded + sinusoids(source.shape[1], self.config.width, source.device))
        memory = self.encoder(embedded, src_key_padding_mask=mask)
        heads = self.config.heads
        empty = memory.new_zeros((source.shape[0], heads, 0, memory.shape[2] // heads))
        return TransformerMemory(memory, mask), PrefixState(0, [(empty, empty) for _ in self.decoder.layers])

    def decode(self, target_in: torch.Tensor, encoded: TransformerMemory) -> torch.Tensor:
        """Logits [N, T, V] of every position of decoder inputs [N, T] (causal)."""
        length = target_in.shape[1]
        embedded = self.target_embedding(target_in) * math.sqrt(self.config.width)
        embedded = self.dropout(embedded + sinusoids(length, self.config.width, target_in.device))
        causal = torch.triu(torch.full((length, length), float("-inf"), device=target_in.device), diagonal=1)
        output = self.decoder(embedded, encoded.memory, tgt_mask=causal,
                                          memory_key_padding_mask=encoded.mask)
        return self.output(output)

    def step(self, previous: torch.Tensor, state: PrefixState, encoded: TransformerMemory) -> tuple[torch.Tensor,
                                                                                                  PrefixState]:
        """The next piece's logits [N, V], reading only the new position: the earlier positions' self-attention
        keys and values are in `state`, the memory's cross-attention keys and values are projected once per
        decoding (kept in `encoded`). The same logits as `decode` of the whole prefix, at a cost that grows
        with its length only through attention. Pre-norm layers, as `nn.TransformerDecoderLayer(norm_first=True)`
        computes them."""
        width = self.config.width
        if encoded.keys is None:
            encoded.keys = [(_project(layer.multihead_attn, encoded.memory, 1),
                             _project(layer.multihead_attn, encoded.memory, 2)) for layer in self.decoder.layers]
        readable = ~encoded.mask[:, None, None, :]
        position = sinusoids(state.length + 1, width, previous.device)[-1]
        x = self.dropout(self.target_embedding(previous[:, None]) * math.sqrt(width) + position)
        caches = []
        for layer, (keys, values), (memory_keys, memory_values) in zip(self.decoder.layers, state.layers,
                                                                       encoded.keys, strict=True):
            attention = layer.self_attn
            normed = layer.norm1(x)
            keys = torch.cat([keys, _project(attention, normed, 1)], dim=2)
            values = torch.cat([values, _project(attention, normed, 2)], dim=2)
            caches.append((keys, values))
            x = x + layer.dropout1(_attend(attention, _project(attention, normed, 0), keys, values))
            cross = layer.multihead_attn
            x = x + layer.dropout2(_attend(cross, _project(cross, layer.norm2(x), 0), memory_keys, memory_values,
                                           readable))
            x = x + layer.dropout3(layer.linear2(layer.dropout(layer.activation(layer.linear1(layer.norm3(x))))))
        logits = self.output(self.decoder.norm(x))[:, 0]
        return logits, PrefixState(state.length + 1, caches)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        encoded, _ = self.encode(source, lengths)
        return self.decode(target_in, encoded)


def build_network(config: SentenceModelConfig, vocab_size: int) -> nn.Module:
    """The network of `config.arch`."""
    if config.arch == "lstm":
        return SentenceLSTM(config, vocab_size)
    if config.arch == "transformer":
        return SentenceTransformer(config, vocab_size)
    raise ValueError(f"unknown --arch {config.arch!r} (use {' or '.join(ARCHITECTURES)})")
