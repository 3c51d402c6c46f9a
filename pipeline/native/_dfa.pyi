"""Typed interface of ``pipeline/extract/_dfa.c`` (imported through :mod:`pipeline.native`
only). ``states`` and ``blocks`` are the compact automaton's buffers
(:class:`pipeline.extract.lang_automaton.Automaton`)."""

from _typeshed import ReadableBuffer

def visit_counts(
    states: ReadableBuffer, blocks: ReadableBuffer, text: ReadableBuffer, depth: int = -1, /
) -> dict[int, int] | None:
    """The features the walk over ``text`` reaches, with their counts (None: none)."""

def classify(
    states: ReadableBuffer, blocks: ReadableBuffer, text: ReadableBuffer, depth: int,
    table: ReadableBuffer, width: int, pc: ReadableBuffer,
    aliases: tuple[tuple[int, int], ...], /,
) -> tuple[int, float]:
    """(index of the most probable class, its normalised probability)."""

def probabilities(
    states: ReadableBuffer, blocks: ReadableBuffer, text: ReadableBuffer, depth: int,
    table: ReadableBuffer, width: int, pc: ReadableBuffer,
    aliases: tuple[tuple[int, int], ...], /,
) -> list[float]:
    """The normalised probability of every class."""

def next_states(
    states: ReadableBuffer, blocks: ReadableBuffer, from_states: ReadableBuffer,
    on: ReadableBuffer, /,
) -> bytes:
    """The next state (int32) of each (state, byte) pair."""

def added(halves: ReadableBuffer, f16c: bool, /) -> list[float]:
    """``0.0 + 1.0 * h`` for each float16 ``h`` (the row sum's rounding, checked by tests)."""

def set_f16c(on: object, /) -> bool:
    """Use the F16C instructions for float16 rows (when the CPU has them); whether they are
    used."""
