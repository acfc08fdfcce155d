"""The server meter and the node budgets frame exactly the measured window: warm-up runs unbudgeted and
unmetered, the budgets are back on and the meter running before any measured transaction starts."""

import contextlib
import json
import time
from pathlib import Path

import pytest

from labkit.runner import BaseWorkload, RunOptions, Watch, run
from labkit.runner.server_cpu import NodeCpu, ServerCpu


class StampsEveryTransaction(BaseWorkload):
    """Appends (warm-up or measured, start time) of every transaction to a file per client process."""

    name = "stamps"

    def __init__(self, folder: Path):
        self.folder = str(folder)

    def transaction(self, tx):
        kind = "warm" if tx.seq < 0 else "measured"
        with open(Path(self.folder) / f"stamps-{tx.worker}.jsonl", "a") as f:
            f.write(json.dumps([kind, time.monotonic()]) + "\n")
        time.sleep(0.002)


class RecordingMeter:
    """A meter whose budgets can be lifted; it notes when budgets came back and when it started/stopped."""

    def __init__(self):
        self.events: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def unbudgeted(self, settle=True):
        self.events.append(("lifted", time.monotonic()))
        try:
            yield
        finally:
            self.events.append(("budgets back", time.monotonic()))

    def start(self):
        self.events.append(("meter start", time.monotonic()))

    def stop(self):
        self.events.append(("meter stop", time.monotonic()))
        started = dict(self.events)["meter start"]
        return ServerCpu(time.monotonic() - started, {"node1": NodeCpu(0.01, 0.15)})


def stamps(folder: Path) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"warm": [], "measured": []}
    for path in folder.glob("stamps-*.jsonl"):
        for line in path.read_text().splitlines():
            kind, t = json.loads(line)
            out[kind].append(t)
    return out


@pytest.mark.parametrize("processes", [1, 2])
def test_warm_up_is_unbudgeted_and_unmetered_and_the_measured_window_is_metered(tmp_path, processes):
    meter = RecordingMeter()
    r = run(StampsEveryTransaction(tmp_path), threads=2, operations=40,
        options=RunOptions(processes=processes, warmup=20),
        watch=Watch(server_meter=meter))
    assert r.complete
    names = [e for e, _ in meter.events]
    assert names == ["lifted", "budgets back", "meter start", "meter stop", "lifted", "budgets back"], names  # then verify, unbudgeted
    at = dict(meter.events[:4])
    seen = stamps(tmp_path)
    assert len(seen["warm"]) == 20 and len(seen["measured"]) == 40
    assert max(seen["warm"]) < at["budgets back"] <= at["meter start"] < min(seen["measured"])
    assert max(seen["measured"]) < at["meter stop"]
    assert r.server_cpu is not None and r.server_cpu.wall_s <= r.wall_s + 2.0


def test_a_failing_window_opening_releases_no_worker(tmp_path):
    class BrokenMeter(RecordingMeter):
        def start(self):
            raise RuntimeError("could not read the nodes' counters")

    with pytest.raises(Exception, match="counters|crashed"):
        run(StampsEveryTransaction(tmp_path), threads=2, operations=40,
            options=RunOptions(processes=2, warmup=10),
            watch=Watch(server_meter=BrokenMeter()))
    assert stamps(tmp_path)["measured"] == []
