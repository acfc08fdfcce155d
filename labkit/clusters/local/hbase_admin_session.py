"""One long-lived LabkitHBaseAdmin per cluster object, answering command lines over a pipe.

Why: a JVM and an HBase connection per admin call cost about two seconds, and a lesson reads the servers' counts
after every run (twice, to see them settle). The tool exits when its stdin closes, so it cannot outlive the process
that started it; `close` ends it sooner, and a call that does not answer in time kills it (the next call starts
another).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from ...errors import LabkitError


class AdminSession:
    """`command` (the java command line up to and including the ZooKeeper address) run with `serve`."""

    def __init__(self, command: list[str], log: Path):
        self.command, self.log = command, log
        self._process: subprocess.Popen | None = None
        self._pending = b""
        self._lock = threading.Lock()

    def call(self, *args: str, timeout: float = 120) -> dict[str, Any]:
        """The tool's JSON answer to one command; a LabkitError names the command and what went wrong."""
        if any("\t" in a or "\n" in a for a in args):
            raise LabkitError(f"HBase's admin call {' '.join(args)}: names may not hold tabs or line breaks")
        with self._lock:
            process = self._running()
            try:
                stdin, _stdout = _pipes(process)
                stdin.write(("\t".join(args) + "\n").encode())
                stdin.flush()
                line = self._read_line(process, timeout)
            except (BrokenPipeError, OSError):
                line = None
            if line is None:
                self._end(process, kill=True)
                raise LabkitError(f"HBase's admin call {' '.join(args)} got no answer in {timeout:g} s "
                                  f"(the admin tool's log: {self.log}){self._log_tail()}")
        answer = json.loads(line)
        if "error" in answer:
            raise LabkitError(f"HBase's admin call {' '.join(args)} failed: {answer['error']}")
        return answer

    def close(self) -> None:
        with self._lock:
            if self._process is not None:
                self._end(self._process)

    def _running(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log, "ab") as log:
                self._process = subprocess.Popen([*self.command, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0)
        return self._process

    def _read_line(self, process: subprocess.Popen, timeout: float) -> str | None:
        """The next JSON line on the tool's stdout within `timeout`, skipping anything else it prints; None when
        it did not answer or exited. Reads the pipe itself (no buffered reader whose buffer a select cannot see)."""
        deadline = time.monotonic() + timeout
        _stdin, stdout = _pipes(process)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                while b"\n" in self._pending:
                    line, self._pending = self._pending.split(b"\n", 1)
                    text = line.decode(errors="replace").strip()
                    if text.startswith("{"):
                        return text
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(timeout=left):
                    return None
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    return None
                self._pending += chunk

    def _end(self, process: subprocess.Popen, kill: bool = False) -> None:
        """Close its stdin and let it exit (it closes its HBase connection), or kill it (a call it did not answer)."""
        for pipe in _pipes(process):
            try:
                pipe.close()
            except OSError:  # a pipe whose other end is gone
                pass
        if not kill:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill = True
        if kill:
            process.kill()
            process.wait(timeout=10)
        self._process = None
        self._pending = b""

    def _log_tail(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()[-8:]
        except OSError:
            return ""
        return (":\n" + "\n".join(lines)) if lines else ""


def _pipes(process: subprocess.Popen) -> tuple[IO[bytes], IO[bytes]]:
    """The tool's stdin and stdout: `_running` always opens both as pipes."""
    if process.stdin is None or process.stdout is None:
        raise LabkitError("HBase's admin tool was started without its pipes")
    return process.stdin, process.stdout
