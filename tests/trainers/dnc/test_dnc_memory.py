"""The DNC's memory addressing against values computed by hand on tiny memories: content weights, usage
and retention, allocation, writing, the temporal link matrix and precedence, and the three read modes."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from tnforge.trainers.dnc import memory as dnc  # noqa: E402


def same(actual: torch.Tensor, expected) -> bool:
    """`actual` equals the hand-computed `expected` (nested lists) to 1e-5."""
    torch.testing.assert_close(actual, torch.tensor(expected, dtype=actual.dtype), atol=1e-5, rtol=0)
    return True


def t(*rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


def test_content_weights_are_a_sharpened_softmax_of_cosine_similarity():
    memory = t([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])  # cosines with [1, 0]: 1, 0, 1/√2
    weights = dnc.content_weights(memory, t([[2.0, 0.0]]), t([2.0]))
    scores = [math.exp(2 * 1), math.exp(0), math.exp(2 / math.sqrt(2))]
    assert same(weights[0, 0], [s / sum(scores) for s in scores])
    flat = dnc.content_weights(memory, t([[2.0, 0.0]]), t([0.0]))  # strength 0: no preference
    assert same(flat[0, 0], [1 / 3] * 3)


def test_usage_grows_with_writes_and_read_heads_free_what_they_read():
    free_gates, read_weights = t([1.0, 0.5]), t([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    retained = dnc.retention(free_gates, read_weights)
    assert same(retained[0], [0.0, 0.5, 1.0])
    used = dnc.usage(t([0.5, 0.2, 0.0]), t([0.5, 0.5, 0.5]), retained)
    assert same(used[0], [0.0, (0.2 + 0.5 - 0.1) * 0.5, 0.5])


def test_allocation_gives_the_least_used_slot_the_weight():
    # sorted by usage: slot 1 (0.1), slot 0 (0.4), slot 2 (0.9)
    assert same(dnc.allocation_weights(t([0.4, 0.1, 0.9]))[0], [0.6 * 0.1, 0.9, 0.1 * 0.1 * 0.4])
    assert same(dnc.allocation_weights(t([1.0, 1.0, 0.0]))[0], [0.0, 0.0, 1.0])
    assert same(dnc.allocation_weights(t([0.5, 0.5]))[0], [0.5, 0.25])  # ties: slot order


def test_write_weights_mix_allocation_and_content_under_the_gates():
    content, allocation = t([0.2, 0.8]), t([1.0, 0.0])
    assert same(dnc.write_weights(content, allocation, t(0.25), t(0.5))[0],
        [0.5 * (0.25 * 1.0 + 0.75 * 0.2), 0.5 * (0.75 * 0.8)])


def test_writing_erases_then_adds_in_proportion_to_the_weights():
    memory = t([[1.0, 2.0], [3.0, 4.0]])
    written = dnc.write_memory(memory, t([1.0, 0.5]), t([1.0, 0.5]), t([9.0, 8.0]))
    assert written[0].tolist() == [[9.0, 2.0 * 0.5 + 8.0], [3.0 * 0.5 + 4.5, 4.0 * 0.75 + 4.0]]


def _write_in_order(slots: list[int], n: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    link, precedence = torch.zeros(1, n, n, dtype=torch.float64), torch.zeros(1, n, dtype=torch.float64)
    for slot in slots:
        weights = torch.zeros(1, n, dtype=torch.float64)
        weights[0, slot] = 1.0
        link = dnc.link_matrix(link, precedence, weights)
        precedence = dnc.precedence(precedence, weights)
    return link, precedence


def test_the_link_matrix_records_the_order_of_writes():
    link, precedence = _write_in_order([0, 2, 1])
    assert link[0].tolist() == [[0, 0, 0], [0, 0, 1], [1, 0, 0]]  # 2 after 0, 1 after 2
    assert precedence[0].tolist() == [0, 1, 0]
    link, _ = _write_in_order([0, 2, 1, 0])  # rewriting slot 0 drops "2 after 0", adds "0 after 1"
    assert link[0].tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    half = dnc.link_matrix(torch.zeros(1, 2, 2, dtype=torch.float64), t([0.6, 0.0]), t([0.0, 0.5]))
    assert same(half[0], [[0.0, 0.0], [0.5 * 0.6, 0.0]])
    assert same(dnc.precedence(t([0.6, 0.4]), t([0.0, 0.5]))[0], [0.3, 0.2 + 0.5])


def test_read_modes_move_forward_and_backward_along_the_links():
    link, _ = _write_in_order([0, 2, 1])
    forward, backward = dnc.temporal_weights(link, t([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
    assert forward[0].tolist() == [[0, 0, 1], [0, 1, 0]]  # after 0 came 2; after 2 came 1
    assert backward[0].tolist() == [[0, 0, 0], [1, 0, 0]]  # before 2 came 0
    content = t([[0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3]])
    modes = t([[0.0, 0.0, 1.0], [0.2, 0.5, 0.3]])  # backward, content, forward
    mixed = dnc.read_weights(content, forward, backward, modes)
    assert same(mixed[0], [[0, 0, 1], [0.2 + 0.5 / 3, 0.5 / 3 + 0.3, 0.5 / 3]])


def _command(width: int, heads: int, **parts) -> dnc.Interface:
    """An interface with saturated gates: write by allocation, free nothing, read by content."""
    rows = 1
    values = dict(read_keys=torch.zeros(rows, heads, width), read_strengths=torch.ones(rows, heads),
                  write_key=torch.zeros(rows, 1, width), write_strength=torch.ones(rows, 1),
                  erase=torch.ones(rows, width), write_vector=torch.zeros(rows, width),
                  free_gates=torch.zeros(rows, heads), allocation_gate=torch.ones(rows),
                  write_gate=torch.ones(rows), read_modes=torch.tensor([[[0.0, 1.0, 0.0]]]).repeat(rows, heads, 1))
    values.update(parts)
    return dnc.Interface(**values)


def test_a_memory_step_stores_a_sequence_and_reads_it_back_by_content_then_in_order():
    width, slots = 4, 4
    module = dnc.Memory(controller=1, slots=slots, width=width, heads=1)
    state = module.initial(1, torch.zeros(1))
    vectors = torch.eye(width)[:3] * 5  # three orthogonal words, written in order
    slots_written = []
    for vector in vectors:
        state = dnc.memory_step(state, _command(width, 1, write_vector=vector[None]))
        slots_written.append(int(state.write_weights.argmax()))
        assert float(state.write_weights.max()) == pytest.approx(1.0, abs=1e-4)
    assert len(set(slots_written)) == 3  # allocation never overwrites a used slot while a free one is left
    assert [torch.allclose(state.memory[0, slot], vector, atol=1e-3)
            for slot, vector in zip(slots_written, vectors, strict=True)] == [True] * 3
    # a sharp content read of the first word, then two forward reads: the words in the order written
    state = dnc.memory_step(state, _command(width, 1, write_gate=torch.zeros(1), read_keys=vectors[None, :1],
                                            read_strengths=torch.full((1, 1), 50.0)))
    assert torch.allclose(state.reads[0, 0], vectors[0], atol=1e-3)
    forward = torch.tensor([[[0.0, 0.0, 1.0]]])
    for expected in vectors[1:]:
        state = dnc.memory_step(state, _command(width, 1, write_gate=torch.zeros(1), read_modes=forward))
        assert torch.allclose(state.reads[0, 0], expected, atol=1e-3)


def test_the_interface_vector_is_split_into_squashed_parts():
    width, heads = 3, 2
    vector = torch.linspace(-2, 2, dnc.interface_size(width, heads))[None]
    parts = dnc.split_interface(vector, width, heads)
    assert parts.read_keys.shape == (1, heads, width) and parts.write_key.shape == (1, 1, width)
    assert bool((parts.read_strengths >= 1).all()) and bool((parts.write_strength >= 1).all())
    assert bool(((parts.erase > 0) & (parts.erase < 1)).all()) and parts.allocation_gate.shape == (1,)
    assert same(parts.read_modes.sum(-1), [[1.0, 1.0]])
    assert vector[0, -1] == pytest.approx(2.0) and parts.read_keys[0, 0, 0] == pytest.approx(-2.0)


def test_memory_states_select_and_keep_rows():
    module = dnc.Memory(controller=1, slots=3, width=2, heads=2)
    empty = module.initial(2, torch.zeros(1))
    full = dnc.MemoryState(*(torch.ones_like(getattr(empty, name)) * (1 + torch.arange(2).view(-1, *[1] * (
        getattr(empty, name).dim() - 1))) for name in ("memory", "usage", "link", "precedence", "read_weights",
                                                       "write_weights", "reads")))
    picked = full.select(torch.tensor([1, 1, 0]))
    assert picked.memory[:, 0, 0].tolist() == [2, 2, 1] and picked.link.shape == (3, 3, 3)
    kept = full.where(torch.tensor([True, False]), empty)
    assert kept.reads[:, 0, 0].tolist() == [1, 0] and kept.usage[:, 0].tolist() == [1, 0]
