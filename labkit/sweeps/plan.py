"""What a sweep measures, frozen: every (nodes, approach, threads, offered load, repeat), checked once when made."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from ..errors import ConfigError
from ..runner import RunOptions, validate
from ..runner.cpu import AUTO, auto_processes, cores_available, per_process_capacity

APPROACH_KINDS = ("naive", "pattern", "baseline", "design")  # baseline: a workload outside any pattern; design: one of a profile's designs
SWEEP_WORKERS = "greenlets"
"""Sweeps (panels, `labkit run`, benchmarks) run the library's pattern code, which makes every database
call through `tx.call`, so they keep each process's transactions in flight as greenlets unless
run_options says otherwise (benchmarks/runner_vs_driver.py measures both against the driver's best loop)."""


def check_approach(name: str) -> None:
    """Approaches are 'naive' or 'pattern', optionally with a variant: 'naive/sai'."""
    kind = name.split("/", 1)[0]
    if kind not in APPROACH_KINDS or name.endswith("/"):
        raise ConfigError(
            f"approach {name!r} must be 'naive' or 'pattern' (or 'baseline' outside a pattern, 'design/NAME' of a profile), optionally with a variant like 'naive/sai'"
        )


def parse_range(text: str) -> list[int]:
    """'10:100:10' -> [10, 20, ..., 100]; '1,2,4' -> [1, 2, 4]; '8' -> [8]."""
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1
            if step < 1 or stop < start:
                raise ValueError
            return list(range(start, stop + 1, step))
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise ConfigError(
            f"cannot read {text!r} as a list of counts: write START:STOP:STEP (e.g. 10:100:10) or a comma list (e.g. 1,2,4)"
        ) from None


SELF_WARMING_RUN = 1500
"""Unbudgeted warm-up transactions inside each run from which a sweep needs no warm-up block: with 1,500 the
first measured block landed 0-3% from the later ones without the block (benchmarks/warmup_block.py)."""


@dataclass(frozen=True)
class SweepPlan:
    """What to measure: every combination of nodes x approaches x threads, `repeats` times each.

    Frozen and checked when made (a plan that cannot run is refused with what to pass instead, before anything
    starts): nothing downstream changes it; a sweep that knows more (the Dask workers' count) makes a new one
    with `dataclasses.replace`, which checks again.

    `threads` are client threads in all (transactions in flight across the client processes), the x axis
    of every figure. `processes="auto"` spreads each point over as many client processes as help
    (runner.cpu.auto_processes: up to 64 greenlets or 16 threads each, at most one per core, one where
    the workload keeps its checks in one process); a number fixes it, and each thread count must then
    divide evenly. Every row records the processes used and `threads_per_process`."""

    pattern: str
    approaches: Sequence[str]
    threads: Sequence[int]
    operations: int
    nodes: Sequence[int] = (1,)
    processes: int | str = AUTO
    repeats: int = 1
    run_options: Mapping[str, Any] = field(default_factory=dict)
    """What each run passes to the runner (runner.RunOptions' names; `options(target)` makes them one object)."""
    labels: Mapping[str, Any] = field(default_factory=dict)
    """Extra columns for every row, e.g. {"phase": "login"} when a pattern's test has phases."""
    targets: Sequence[float | None] = (None,)
    """Offered loads (transactions/s for the whole client), one paced run each at every thread count;
    None: a closed-loop run (as fast as the workers go). An offered-load sweep keeps threads fixed and
    raises the target until the cluster cannot keep up."""
    target_seconds: float | None = None
    """With targets: each paced run lasts about this long (target x seconds transactions, so every
    offered load is held equally long); None: every run has `operations` transactions."""

    past_knee: int | None = None
    """With targets: after this many overloaded offered loads in a row (results.offered_load.keeps_up),
    skip the higher ones of that curve; the knee is already found and each further load only takes longer.
    With repeats, an offered load counts as overloaded when most of its repeats did not keep up."""
    warmup_block: bool | None = None
    """Before the first measured run on a cluster the sweep started (or found cold), run every approach once
    at the highest thread count and the first offered load, unmeasured: the first runs on a fresh cluster
    (cold caches, JIT, a budget's first periods) land far from the later ones, and would otherwise fall on
    whichever approach runs first. None (the default): a block unless every run warms up by itself with at
    least SELF_WARMING_RUN transactions, where the block was measured to change nothing beyond noise
    (benchmarks/README.md, the warm-up block); True or False: always or never."""
    control: str | None = None
    """An A/A control: this approach runs twice in every block, the second time recorded with
    control_copy=True; the spread of copy / first is the noise floor of the sweep (results.intervals)."""

    def wants_warmup_block(self) -> bool:
        """Whether a cold cluster gets the warm-up block (see `warmup_block`)."""
        if self.warmup_block is not None:
            return bool(self.warmup_block)
        return int(self.run_options.get("warmup") or 0) < SELF_WARMING_RUN

    def operations_at(self, target: float | None) -> int:
        """Transactions of one run at an offered load."""
        if target is None or self.target_seconds is None:
            return self.operations
        return max(1, round(target * self.target_seconds))

    def __post_init__(self) -> None:
        for name in ("approaches", "threads", "nodes", "targets"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in ("run_options", "labels"):  # read-only copies: the caller's dict stays the caller's, and nothing writes to a plan
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        self._check()

    def labelled(self, labels: Mapping[str, Any]) -> "SweepPlan":
        """The same plan with `labels` added to every row's columns (a sweep's phase and settings). The check does not
        read labels, so the plan is not checked again."""
        labelled = copy.copy(self)
        object.__setattr__(labelled, "labels", MappingProxyType({**self.labels, **labels}))
        return labelled

    def options(self, target: float | None = None) -> RunOptions:
        """The runner's options for one run at offered load `target` (None: closed loop): the plan's, sweeps'
        worker kind by default, its processes."""
        return RunOptions.of({"workers": SWEEP_WORKERS, **self.run_options}, processes=self.processes,
                             **({"target_rate": target} if target is not None else {}))

    def _check(self) -> None:
        RunOptions.of(self.run_options)  # an option the runner does not know, named before anything runs
        if not self.approaches or not self.threads or not self.nodes:
            raise ConfigError("a sweep needs at least one approach, one thread count and one node count")
        for a in self.approaches:
            check_approach(a)
        if not self.targets:
            raise ConfigError("targets must hold at least one offered load (or None for a closed loop)")
        if self.target_seconds is not None and not self.target_seconds > 0:
            raise ConfigError(f"target_seconds must be a positive number of seconds to hold each offered load; got {self.target_seconds!r}")
        for t in self.threads:
            for target in self.targets:
                validate(t, self.operations, self.processes, target if target is not None else self.run_options.get("target_rate"),
                         self.run_options.get("warmup", 0), self.run_options.get("workers", SWEEP_WORKERS))
            if isinstance(self.processes, int) and t % self.processes:
                raise ConfigError(f"{t} client threads do not divide evenly over {self.processes} processes: use a multiple of "
                                  f"{self.processes}, or processes='auto'")
        for n in self.nodes:
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ConfigError(f"node counts must be whole numbers of at least 1; got {n!r}")
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise ConfigError(f"repeats must be a whole number of at least 1; got {self.repeats!r}")
        if self.control is not None and self.control not in self.approaches:
            raise ConfigError(f"the A/A control runs one of the sweep's approaches twice per block: {self.control!r} is not among "
                              f"{', '.join(self.approaches)}")

    def client_advice(self) -> str | None:
        """Before anything runs: a sentence when some point asks one process for more threads than it
        serves well, saying how many processes would do, or that this machine has no cores to add."""
        kind = self.run_options.get("workers", SWEEP_WORKERS)
        per_process = per_process_capacity(kind)
        cores = cores_available()
        most = max(self.threads)
        processes = self.processes if isinstance(self.processes, int) else auto_processes(most, kind)
        busiest = -(-most // processes)
        if busiest <= per_process:
            return None
        head = (f"{most} client {kind} over {processes} process(es) is {busiest} per process, more than one Python "
                f"process drives well (about {per_process}); ")
        if processes < cores:
            suggested = auto_processes(most, kind)
            return head + (f"points with more {kind} may measure the client, not the database. Try processes={suggested} "
                           f"(or 'auto'). The `limit` column will say which points the client held back.")
        return head + (f"this machine has {cores} cores for the client and the servers together, so more processes would not help: "
                       "the `limit` column will say which points the client held back.")

    def block(self, repeat: int) -> list[tuple[str, bool]]:
        """The approaches of one block in the order they run, as (approach, control copy): the given order in
        even repeats and reversed in odd ones (A B, B A, A B: ABBA), so neither approach always runs first."""
        order = [(a, False) for a in self.approaches] + ([(self.control, True)] if self.control else [])
        return order if repeat % 2 == 0 else order[::-1]

    @property
    def runs(self) -> int:
        """Measured runs (the warm-up blocks are not counted)."""
        per_block = len(self.approaches) + (1 if self.control else 0)
        return len(self.nodes) * per_block * len(self.threads) * len(self.targets) * self.repeats
