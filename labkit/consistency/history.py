"""A history of register operations as clients saw them: each operation's invocation and completion on one
monotonic clock, with its outcome, as JSON lines (the form labkit.consistency.checker reads).

Why a recorder of its own: a linearizability check judges what clients observed, including the operations whose
outcome they never learned. A timeout is not a failure: the write may have been applied, so it is recorded as
`unknown` (the checker lets it take effect at any time after its call, or never), while `fail` is kept for an
operation the database refused before doing anything (Cassandra's Unavailable). The clock is CLOCK_MONOTONIC
(time.monotonic_ns), one clock for every thread of the process.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OK, FAIL, UNKNOWN = "ok", "fail", "unknown"
OUTCOMES = (OK, FAIL, UNKNOWN)


@dataclass
class Pending:
    """One operation invoked and not yet completed: `done(outcome, result)` records it with its completion time."""

    recorder: "HistoryRecorder"
    line: dict[str, Any]

    def done(self, outcome: str, result: Any = None, error: str = "") -> dict[str, Any]:
        now = time.monotonic_ns()
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)} (got {outcome!r})")
        line = {**self.line, "outcome": outcome, "result": result if outcome == OK else None,
                "return": now if outcome != UNKNOWN else None, **({"error": error} if error else {})}
        self.recorder._write(line)
        return line


class HistoryRecorder:
    """Appends each completed operation to `path` (JSON lines), thread-safe; `lines` counts them."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._out = self.path.open("a", encoding="utf-8")
        self.lines = 0

    def invoke(self, process: int, key: str, op: str, *, value: int | None = None, expected: int | None = None,
               new: int | None = None) -> Pending:
        """Note the invocation now (before the request is sent): `op` read, write (`value`) or cas (`expected`,
        None: only when absent; `new`)."""
        line: dict[str, Any] = {"process": process, "key": key, "op": op, "call": time.monotonic_ns()}
        if op == "write":
            line["value"] = value
        elif op == "cas":
            line.update(expected=expected, new=new)
        return Pending(self, line)

    def _write(self, line: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(json.dumps(line) + "\n")
            self._out.flush()
            self.lines += 1

    def close(self) -> None:
        with self._lock:
            self._out.close()

    def __enter__(self) -> "HistoryRecorder":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()


def read_history(path: Path) -> list[dict[str, Any]]:
    """The operations of a recorded history, in the order they completed."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
