"""The external memory of a differentiable neural computer (Graves et al. 2016, "Hybrid computing using a
neural network with dynamic external memory"), batch-first throughout.

An N×W memory is written by one write head and read by R read heads. Writing mixes content lookup with
usage-based allocation (the least used slots first; slots a read head has read may be freed by its free
gate); reading mixes content lookup with moving forward or backward along the temporal link matrix, which
records the order slots were written in. The functions below are the paper's equations one by one (each
named after its quantity), so tests can check them against hand-computed values; `Memory` chains them from
the controller's interface vector.

Shapes: B rows, N slots, W slot width, R read heads.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch
from torch import nn

#: Keeps allocation's usage products away from exact zeros (as DeepMind's implementation does).
EPSILON = 1e-6
#: Read modes, in the order of the last axis of `read_modes`.
MODES = ("backward", "content", "forward")


def content_weights(memory: torch.Tensor, keys: torch.Tensor, strengths: torch.Tensor) -> torch.Tensor:
    """C(M, k, β): per head, softmax over slots of β · cosine(M[i], k). memory [B, N, W], keys [B, H, W],
    strengths [B, H] → [B, H, N]."""
    similarity = torch.einsum("bhw,bnw->bhn", nn.functional.normalize(keys, dim=-1, eps=EPSILON),
                              nn.functional.normalize(memory, dim=-1, eps=EPSILON))
    return torch.softmax(strengths[..., None] * similarity, dim=-1)


def retention(free_gates: torch.Tensor, read_weights: torch.Tensor) -> torch.Tensor:
    """ψ = Π_r (1 − f_r · w_r): how much of each slot the read heads leave in use. [B, R], [B, R, N] → [B, N]."""
    return torch.prod(1 - free_gates[..., None] * read_weights, dim=1)


def usage(previous: torch.Tensor, write_weights: torch.Tensor, retained: torch.Tensor) -> torch.Tensor:
    """u = (u' + w' − u' ∘ w') ∘ ψ with the previous usage u' and write weights w'. All [B, N]."""
    return (previous + write_weights - previous * write_weights) * retained


def allocation_weights(used: torch.Tensor) -> torch.Tensor:
    """a[φ_j] = (1 − u[φ_j]) Π_{i<j} u[φ_i] where φ sorts slots by usage, least used first (ties by slot
    order): the freest slot gets the weight. [B, N] → [B, N]."""
    used = EPSILON + (1 - EPSILON) * used
    ordered, order = torch.sort(used, dim=-1, stable=True)
    before = torch.cumprod(torch.cat([torch.ones_like(ordered[:, :1]), ordered[:, :-1]], dim=-1), dim=-1)
    return torch.zeros_like(used).scatter(-1, order, (1 - ordered) * before)


def write_weights(content: torch.Tensor, allocation: torch.Tensor, allocation_gate: torch.Tensor,
                  write_gate: torch.Tensor) -> torch.Tensor:
    """w = g_w (g_a a + (1 − g_a) c): content [B, N], allocation [B, N], gates [B] → [B, N]."""
    gate = allocation_gate[:, None]
    return write_gate[:, None] * (gate * allocation + (1 - gate) * content)


def write_memory(memory: torch.Tensor, weights: torch.Tensor, erase: torch.Tensor,
                 values: torch.Tensor) -> torch.Tensor:
    """M ∘ (1 − w eᵀ) + w vᵀ: memory [B, N, W], weights [B, N], erase and write vectors [B, W]."""
    return memory * (1 - weights[:, :, None] * erase[:, None, :]) + weights[:, :, None] * values[:, None, :]


def link_matrix(previous: torch.Tensor, precedence: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """L[i, j] = (1 − w[i] − w[j]) L'[i, j] + w[i] p'[j], zero diagonal: how much slot i was written right
    after slot j. previous [B, N, N], the previous precedence [B, N], write weights [B, N] → [B, N, N]."""
    row, column = weights[:, :, None], weights[:, None, :]
    link = (1 - row - column) * previous + row * precedence[:, None, :]
    return link * (1 - torch.eye(link.shape[-1], dtype=link.dtype, device=link.device))


def precedence(previous: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """p = (1 − Σ_i w[i]) p' + w: how much each slot was the last one written. [B, N] → [B, N]."""
    return (1 - weights.sum(dim=-1, keepdim=True)) * previous + weights


def temporal_weights(link: torch.Tensor, read_weights: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(forward f = L w, backward b = Lᵀ w) of each head's previous read weights. link [B, N, N],
    read_weights [B, R, N] → two [B, R, N]."""
    return (torch.einsum("bij,brj->bri", link, read_weights),
            torch.einsum("bji,brj->bri", link, read_weights))


def read_weights(content: torch.Tensor, forward: torch.Tensor, backward: torch.Tensor,
                 modes: torch.Tensor) -> torch.Tensor:
    """w_r = π[backward] b + π[content] c + π[forward] f; modes [B, R, 3] in `MODES` order; others [B, R, N]."""
    return modes[..., 0:1] * backward + modes[..., 1:2] * content + modes[..., 2:3] * forward


@dataclass
class MemoryState:
    """The memory of a set of rows and what its addressing remembers between steps."""

    memory: torch.Tensor  # [B, N, W]
    usage: torch.Tensor  # [B, N]
    link: torch.Tensor  # [B, N, N]
    precedence: torch.Tensor  # [B, N]
    read_weights: torch.Tensor  # [B, R, N]
    write_weights: torch.Tensor  # [B, N]
    reads: torch.Tensor  # [B, R, W] the read vectors

    def select(self, index: torch.Tensor) -> MemoryState:
        """Keep or repeat rows by index (beam search)."""
        return MemoryState(*(getattr(self, f.name).index_select(0, index) for f in fields(self)))

    def where(self, keep: torch.Tensor, other: MemoryState) -> MemoryState:
        """This state for rows where `keep` [B] is true, `other`'s elsewhere (padded input positions)."""
        def pick(mine: torch.Tensor, theirs: torch.Tensor) -> torch.Tensor:
            return torch.where(keep.view(-1, *([1] * (mine.dim() - 1))), mine, theirs)

        return MemoryState(*(pick(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)))


@dataclass
class Interface:
    """The controller's commands to the memory for one step, squashed into their ranges."""

    read_keys: torch.Tensor  # [B, R, W]
    read_strengths: torch.Tensor  # [B, R] ≥ 1
    write_key: torch.Tensor  # [B, 1, W]
    write_strength: torch.Tensor  # [B, 1] ≥ 1
    erase: torch.Tensor  # [B, W] in (0, 1)
    write_vector: torch.Tensor  # [B, W]
    free_gates: torch.Tensor  # [B, R] in (0, 1)
    allocation_gate: torch.Tensor  # [B] in (0, 1)
    write_gate: torch.Tensor  # [B] in (0, 1)
    read_modes: torch.Tensor  # [B, R, 3] softmax over MODES


def oneplus(x: torch.Tensor) -> torch.Tensor:
    """1 + softplus(x): key strengths of at least 1."""
    return 1 + nn.functional.softplus(x)


def interface_size(width: int, heads: int) -> int:
    """Length of the interface vector: R keys and strengths, the write key and strength, erase and write
    vectors, R free gates, the allocation and write gates, 3 read modes per head."""
    return heads * width + heads + width + 1 + 2 * width + heads + 2 + 3 * heads


def split_interface(vector: torch.Tensor, width: int, heads: int) -> Interface:
    """The interface vector [B, interface_size] → its parts."""
    sizes = [heads * width, heads, width, 1, width, width, heads, 1, 1, 3 * heads]
    keys, strengths, wkey, wstrength, erase, values, free, alloc, gate, modes = vector.split(sizes, dim=-1)
    rows = vector.shape[0]
    return Interface(keys.view(rows, heads, width), oneplus(strengths), wkey.view(rows, 1, width),
                     oneplus(wstrength), torch.sigmoid(erase), values, torch.sigmoid(free),
                     torch.sigmoid(alloc).squeeze(-1), torch.sigmoid(gate).squeeze(-1),
                     torch.softmax(modes.view(rows, heads, 3), dim=-1))


def memory_step(state: MemoryState, command: Interface) -> MemoryState:
    """One write then R reads, in the paper's order: usage (from the last step's writes and reads),
    allocation, write weights, write, link and precedence, then the read weights and vectors."""
    used = usage(state.usage, state.write_weights, retention(command.free_gates, state.read_weights))
    lookup = content_weights(state.memory, command.write_key, command.write_strength).squeeze(1)
    written = write_weights(lookup, allocation_weights(used), command.allocation_gate, command.write_gate)
    memory = write_memory(state.memory, written, command.erase, command.write_vector)
    link = link_matrix(state.link, state.precedence, written)
    forward, backward = temporal_weights(link, state.read_weights)
    content = content_weights(memory, command.read_keys, command.read_strengths)
    reading = read_weights(content, forward, backward, command.read_modes)
    return MemoryState(memory, used, link, precedence(state.precedence, written), reading, written,
                       torch.bmm(reading, memory))


class Memory(nn.Module):
    """The memory's learned part: the controller output → interface vector projection."""

    def __init__(self, controller: int, slots: int, width: int, heads: int):
        super().__init__()
        self.slots, self.width, self.heads = slots, width, heads
        self.interface = nn.Linear(controller, interface_size(width, heads))

    def initial(self, rows: int, like: torch.Tensor) -> MemoryState:
        """The empty memory of `rows` rows (zeros; dtype and device of `like`)."""
        n, w, r = self.slots, self.width, self.heads

        def zeros(*shape: int) -> torch.Tensor:
            return like.new_zeros(rows, *shape)

        return MemoryState(zeros(n, w), zeros(n), zeros(n, n), zeros(n), zeros(r, n), zeros(n), zeros(r, w))

    def forward(self, controller_output: torch.Tensor, state: MemoryState) -> MemoryState:
        return memory_step(state, split_interface(self.interface(controller_output), self.width, self.heads))
