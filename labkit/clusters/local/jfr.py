"""Where a local JVM server spends its CPU during a run: the JDK Flight Recorder's execution samples, taken with
`jcmd` from outside (no restart, no agent), read back with `jfr print`.

Every millisecond the recorder samples threads that are running Java code (JDK 17 takes up to five such threads per
period, so shares are of the sampled Java work, not absolute CPU time; threads parked, blocked on a lock or in
a system call are not sampled). labkit.results.cpu_samples reads the samples; an engine's module says which part of
the server a stack belongs to."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from ...errors import ConfigError, LabkitError
from ...results.cpu_samples import Sample, parse

SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="labkit-cpu" description="Java execution samples only: what a run's CPU profile needs">
  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">1 ms</setting></event>
</configuration>
"""
STACK_DEPTH = 96
"""Frames kept per sample, leaf first: deep enough to reach a Cassandra request's stage below its B-tree work."""
RECORDING = "labkit-cpu"


def tool(name: str, java: str | None = None) -> str:
    """`jcmd` or `jfr` from the JDK that runs the servers (beside its `java`), else from PATH."""
    if java:
        beside = Path(java).resolve().parent / name
        if beside.exists():
            return str(beside)
    found = shutil.which(name)
    if not found:
        raise ConfigError(f"`{name}` was not found: the CPU profile needs a full JDK 17 (not a JRE); install openjdk-17-jdk-headless")
    return found


def _jcmd(jcmd: str, pid: int, *args: str) -> str:
    done = subprocess.run([jcmd, str(pid), *args], capture_output=True, text=True, timeout=60)
    said = done.stdout + done.stderr
    if done.returncode != 0 or any(word in said for word in ("Exception", "Could not", "not found")):  # jcmd exits 0 on some refusals
        raise LabkitError(f"jcmd {pid} {' '.join(args)} failed: {said.strip()[-400:]}")
    return done.stdout


@contextlib.contextmanager
def recording(pids: dict[str, int], java: str | None = None) -> Iterator[dict[str, list[Sample]]]:
    """Record execution samples on every named process while the block runs; on exit the dict it yielded holds each
    process's samples (name -> samples). Recordings are stopped even when the block fails."""
    jcmd, jfr = tool("jcmd", java), tool("jfr", java)
    samples: dict[str, list[Sample]] = {}
    with tempfile.TemporaryDirectory(prefix="labkit-jfr-") as directory:
        settings = Path(directory) / "cpu.jfc"
        settings.write_text(SETTINGS)
        started: list[str] = []
        try:
            for name, pid in pids.items():
                _jcmd(jcmd, pid, "JFR.start", f"name={RECORDING}", f"settings={settings}")
                started.append(name)
            yield samples
        finally:
            files = {}
            for name in started:
                target = Path(directory) / f"{name}.jfr"
                _jcmd(jcmd, pids[name], "JFR.stop", f"name={RECORDING}", f"filename={target}")
                files[name] = target
        for name, target in files.items():
            samples[name] = read_samples(target, jfr)


def read_samples(path: Path, jfr: str = "jfr") -> list[Sample]:
    """The execution samples of one recording file."""
    done = subprocess.run([jfr, "print", "--json", "--stack-depth", str(STACK_DEPTH), "--events", "jdk.ExecutionSample", str(path)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise LabkitError(f"jfr print {path.name} failed: {done.stderr.strip()[-400:]}")
    return parse(done.stdout)


class Profiled:
    """A server meter that also records each node's execution samples over the measured window: recordings start
    just before the inner meter (the workers are not released yet) and stop just after it, so setup, warm-up and
    verify stay out of the profile. `samples` holds name -> samples once the window closed."""

    def __init__(self, inner, pids: dict[str, int], java: str | None = None):
        self.inner = inner
        self.pids = pids
        self.java = java
        self.samples: dict[str, list[Sample]] = {}
        self._recording: contextlib.ExitStack | None = None

    def start(self) -> None:
        self._recording = contextlib.ExitStack()
        self.samples = self._recording.enter_context(recording(self.pids, self.java))
        self.inner.start()

    def stop(self):
        cpu = self.inner.stop()
        if self._recording is not None:
            self._recording.close()  # stops every recording and reads its samples into self.samples
            self._recording = None
        return cpu

    def unbudgeted(self, settle: bool = True):
        return self.inner.unbudgeted(settle)
