"""What a run lost on the way: attempts at tasks whose work was thrown away, and the
processes (pool workers, Spark executors) that died under them.

An executor (the local pool, Spark) reports each loss as a :class:`Lost` among the stats of
finished tasks; the run keeps every loss in ``_runs/R/_lost.json`` (rewritten whole at each
loss, so a run killed later keeps what it had seen, and a ``--resume`` adds to it), and the
summary and the ``runs`` row count them over the whole run (``attempts_lost``,
``executors_lost``). The file stays with the run's metadata until ``--overwrite`` removes
the run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from typing import Any, Literal

from pipeline.runners.rundir import MetadataError, RunDir

#: What was lost: one attempt at one or more tasks (a Spark task may hold several input
#: files), or a process that ran attempts (a pool worker, a Spark executor).
LostKind = Literal["attempt", "executor"]
#: The longest ``detail`` kept (the end of a Python traceback names the failure).
DETAIL_CHARS = 4000


@dataclass(frozen=True, slots=True)
class Lost:
    """One loss, as the executor that saw it words it."""

    kind: LostKind
    #: the process or executor: ``worker process 4242``, ``executor 1 on 10.0.0.7``
    where: str
    #: why, in one line: the signal that killed a worker, the task's error, Spark's reason
    reason: str
    #: the ranks and input names of the tasks the lost attempt held (attempts only)
    ranks: tuple[int, ...] = ()
    inputs: tuple[str, ...] = ()
    #: the end of the attempt's own error output, when the executor has it (Spark)
    detail: str = ""
    #: when the loss was noticed (UTC, ISO 8601)
    at: str = ""

    @staticmethod
    def now() -> str:
        """The time a loss is noticed, as :attr:`at` holds it."""
        return datetime.now(UTC).isoformat(timespec="seconds")


def read_lost(rundir: RunDir) -> list[Lost]:
    """The losses earlier invocations of the run recorded (none when there is no file);
    :class:`MetadataError` names a corrupt file."""
    if not rundir.storage.is_file(rundir.lost):
        return []
    data: Any = rundir.read_json(rundir.lost)
    names = {f.name for f in fields(Lost)}
    if not isinstance(data, list) or not all(
        isinstance(item, dict) and {"kind", "where", "reason"} <= item.keys() <= names
        and item["kind"] in ("attempt", "executor") for item in data
    ):
        raise MetadataError(f"{rundir.lost}: not a list of lost attempts; remove the run with "
                            "--overwrite")
    return [Lost(**{**item, "ranks": tuple(item.get("ranks", ())),
                    "inputs": tuple(item.get("inputs", ()))}) for item in data]


def write_lost(rundir: RunDir, lost: list[Lost]) -> None:
    """Keep ``lost`` (every loss of the run so far) in the run's metadata."""
    rundir.write_json(rundir.lost, [asdict(item) for item in lost], durable=False)


def count(lost: list[Lost] | tuple[Lost, ...], kind: LostKind) -> int:
    """How many of ``lost`` are of ``kind``."""
    return sum(1 for item in lost if item.kind == kind)
