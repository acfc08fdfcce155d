"""The history recorder (#72 item 1) against registers whose behaviour is known: concurrent workers on a register
that applies each operation atomically must leave a linearizable history, and one that answers some reads from a
stale copy must not. No servers; the checker is the real one (Porcupine, built with Go)."""

from __future__ import annotations

import random
import shutil
import threading
import time

import pytest

from labkit.consistency import check_history
from labkit.consistency.history import FAIL, OK, UNKNOWN, HistoryRecorder, read_history

NO_GO = pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: make test installs it (labkit/system-deps.sh)")


class Register:
    """A register per key behind one lock (atomic, so linearizable); `stale`: each read answers from a copy taken
    before the last few writes, some of the time."""

    def __init__(self, stale: bool = False):
        self.values: dict[str, int] = {}
        self.old: dict[str, int | None] = {}
        self.lock = threading.Lock()
        self.stale = stale

    def read(self, key: str, rng: random.Random) -> int | None:
        with self.lock:
            if self.stale and rng.random() < 0.3:
                return self.old.get(key)
            return self.values.get(key)

    def write(self, key: str, value: int) -> None:
        with self.lock:
            self.old[key] = self.values.get(key)
            self.values[key] = value

    def cas(self, key: str, expected: int | None, new: int) -> bool:
        with self.lock:
            if self.values.get(key) != expected:
                return False
            self.old[key] = self.values.get(key)
            self.values[key] = new
            return True


def workers(register: Register, recorder: HistoryRecorder, threads: int = 4, ops: int = 60) -> None:
    def work(worker: int) -> None:
        rng = random.Random(worker)
        seen: dict[str, int | None] = {}
        for n in range(ops):
            key = f"k{rng.randrange(2)}"
            pick = rng.random()
            if pick < 0.5:
                pending = recorder.invoke(worker, key, "read")
                time.sleep(rng.random() / 2000)
                seen[key] = register.read(key, rng)
                pending.done(OK, seen[key])
            elif pick < 0.75:
                value = worker * 1000 + n
                pending = recorder.invoke(worker, key, "write", value=value)
                register.write(key, value)
                pending.done(OK)
            else:
                value = worker * 1000 + n
                pending = recorder.invoke(worker, key, "cas", expected=seen.get(key), new=value)
                pending.done(OK, register.cas(key, seen.get(key), value))

    pool = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()


@NO_GO
def test_concurrent_workers_on_an_atomic_register_leave_a_linearizable_history(tmp_path):
    with HistoryRecorder(tmp_path / "history.jsonl") as recorder:
        workers(Register(), recorder)
    ops = read_history(tmp_path / "history.jsonl")
    assert len(ops) == 4 * 60 and all(op["call"] <= op["return"] for op in ops)  # every operation, its call before its return
    verdict = check_history(tmp_path / "history.jsonl")
    assert verdict.linearizable, verdict.text()


@NO_GO
def test_a_register_that_answers_reads_from_a_stale_copy_leaves_a_history_the_checker_refuses(tmp_path):
    with HistoryRecorder(tmp_path / "history.jsonl") as recorder:
        workers(Register(stale=True), recorder)
    verdict = check_history(tmp_path / "history.jsonl")
    assert not verdict.linearizable and verdict.failing_key in ("k0", "k1"), verdict.text()


def test_an_unknown_outcome_has_no_return_and_a_failed_one_no_result(tmp_path):
    with HistoryRecorder(tmp_path / "h.jsonl") as recorder:
        recorder.invoke(0, "k", "write", value=1).done(UNKNOWN, error="WriteTimeout")
        recorder.invoke(0, "k", "cas", expected=1, new=2).done(FAIL, True, error="Unavailable")
        with pytest.raises(ValueError, match="outcome must be one of"):
            recorder.invoke(0, "k", "read").done("maybe")
    unknown, failed = read_history(tmp_path / "h.jsonl")
    assert unknown["return"] is None and unknown["error"] == "WriteTimeout" and unknown["value"] == 1
    assert failed["result"] is None and failed["return"] >= failed["call"] and (failed["expected"], failed["new"]) == (1, 2)
