"""The language detector's feature DFA, stored as the Aho-Corasick automaton it is.

py3langid's model walks the sample's bytes through a full DFA: 104,583 states, each with a
row of 256 next states (38,346 distinct rows, 39 MB of uint32). That DFA is an Aho-Corasick
automaton over the model's byte n-grams: a state's row equals the row of its failure state
(the state of its string without the first byte) except at its few children. Stored that
way (each state's failure state and its exceptions; the 788 shallow states with more than
``DENSE`` exceptions keep their full row), the automaton takes 2.9 MB: it fits the core's
cache and a few hundred pages, where the full table missed the TLB on nearly every byte of
a sample read on a cold cache (docs/extract.md, Known gaps 0).

:func:`compact` builds it from the full table; ``_dfa.c`` walks it. The walk gives the
same next state as the full table for every state and byte (tests/unit/test_extract_lang.py
checks all 26.8 million of them).
"""

from __future__ import annotations

from typing import Any, NamedTuple

#: Columns of :attr:`Automaton.states`.
FEATURE, FAIL, BLOCK, COUNT = range(4)
#: States with more exceptions than this keep their full row (the start state always).
DENSE = 16


class Automaton(NamedTuple):
    """The compact automaton. States are numbered breadth-first (the start state is 0), so a
    state's failure state always has a smaller number (the walk checks it: it cannot loop).

    - ``states``: int32 rows ``(feature, fail, block, count)``: the feature the state emits
      (-1: none), its failure state, and where its ``count`` exceptions start in ``blocks``;
      ``count`` -1: its full row of 256 next states starts there (the start state, and the
      states with more than ``DENSE`` exceptions).
    - ``blocks``: the full rows (native-endian int32s), then per other state its ``count``
      exception bytes (ascending) and their next states as ``count`` native-endian int32s.
    - ``depth``: the longest n-gram (the largest breadth-first distance from the start): the
      state after any text depends only on its last ``depth`` bytes.
    """

    states: Any
    blocks: Any
    depth: int


def compact(nextmove: Any, row: Any, feature_of: Any) -> Automaton:
    """The automaton of py3langid's full DFA (``nextmove[row[state] * 256 + byte]``, the
    feature ``feature_of[state]``). ValueError when the table is not an Aho-Corasick
    automaton rooted at state 0 (a state deeper than its failure state, a row that does not
    fit)."""
    import numpy as np  # (imported when the automaton is built: once per model cache)

    table = np.asarray(nextmove, dtype=np.int64).reshape(-1, 256)
    rows = np.asarray(row, dtype=np.int64)
    feature_of = np.asarray(feature_of, dtype=np.int64)
    n = len(rows)
    if n == 0 or len(feature_of) != n or rows.min() < 0 or rows.max() >= len(table):
        raise ValueError("the DFA tables do not fit together")
    if table.min() < 0 or table.max() >= n:
        raise ValueError("a next state outside the DFA")

    # Breadth first from the start: each state's distance, and the (parent, byte) that first
    # reaches it (its trie edge).
    dist = np.full(n, -1, dtype=np.int64)
    parent = np.zeros(n, dtype=np.int64)
    via = np.zeros(n, dtype=np.int64)
    dist[0] = 0
    frontier, level = np.array([0]), 0
    while frontier.size:
        reached = table[rows[frontier]]
        at, byte = np.nonzero(dist[reached] < 0)
        new, first = np.unique(reached[at, byte], return_index=True)
        level += 1
        dist[new], parent[new], via[new] = level, frontier[at[first]], byte[first]
        frontier = new
    reachable = np.flatnonzero(dist >= 0)

    # Failure states, level by level: fail(s) = next(fail(parent(s)), byte(s)); the start
    # state's children fail to the start.
    fail = np.zeros(n, dtype=np.int64)
    for depth in range(2, level):
        s = np.flatnonzero(dist == depth)
        fail[s] = table[rows[fail[parent[s]]], via[s]]
    if (dist[fail[reachable[1:]]] >= dist[reachable[1:]]).any():
        raise ValueError("the DFA is not an Aho-Corasick automaton (a failure state as deep as its state)")

    # Numbered breadth first, then each state's exceptions against its failure state's row.
    order = reachable[np.argsort(dist[reachable], kind="stable")]
    number = np.full(n, -1, dtype=np.int64)
    number[order] = np.arange(len(order))
    owners: list[Any] = []
    on: list[Any] = []
    for chunk in range(1, len(order), 8192):
        s = order[chunk:chunk + 8192]
        at, b = np.nonzero(table[rows[s]] != table[rows[fail[s]]])
        owners.append(number[s][at])
        on.append(b)
    owner_all, byte_all = np.concatenate(owners), np.concatenate(on)
    count = np.bincount(owner_all, minlength=len(order))
    # The start state and the states with many exceptions (the shallow ones, met on nearly
    # every byte) keep their full row: one read, no failure state to descend to.
    dense = np.flatnonzero((count > DENSE) | (np.arange(len(order)) == 0))
    rows_dense = number[table[rows[order[dense]]]].astype(np.int32)
    sparse = np.ones(len(order), dtype=bool)
    sparse[dense] = False
    keep = sparse[owner_all]
    owner_all, byte_all = owner_all[keep], byte_all[keep]
    target = number[table[rows[order[owner_all]], byte_all]]
    count[dense] = 0
    size = count * 5
    block = rows_dense.nbytes + np.concatenate(([0], np.cumsum(size)[:-1]))
    first_of = np.concatenate(([0], np.cumsum(count)[:-1]))
    rank = np.arange(len(owner_all)) - first_of[owner_all]  # (sorted by owner, then byte)
    blocks = np.zeros(rows_dense.nbytes + int(size.sum()), dtype=np.uint8)
    blocks[:rows_dense.nbytes] = rows_dense.reshape(-1).view(np.uint8)
    blocks[block[owner_all] + rank] = byte_all
    at = block[owner_all] + count[owner_all] + 4 * rank
    words = target.astype(np.int32).view(np.uint8).reshape(-1, 4)
    for k in range(4):
        blocks[at + k] = words[:, k]
    block[dense] = np.arange(len(dense)) * rows_dense[0].nbytes
    count[dense] = -1

    states = np.stack([feature_of[order], number[fail[order]], block, count], axis=1)
    if states.max() > np.iinfo(np.int32).max or states.min() < -1:
        raise ValueError("the DFA is too large for the compact automaton")
    return Automaton(np.ascontiguousarray(states, dtype=np.int32), blocks, int(dist.max()))
