"""What a pattern *is*, in one object: its phases, approaches, engines, settings and sizes.

The control panel, `labkit run`, `run_pattern_sweep` and the benchmarks all read a pattern from its
`Pattern` description instead of from module conventions, so a pattern's facts live in one place.
Engine bindings live next to the pattern's core as `<pattern package>.<engine>` modules; each has
`workload(approach, phase, cluster, operations, **settings)` and may have `sweep_resources(phase,
settings)`, a context manager yielding what a sweep's workloads need besides the cluster (a toxiproxy),
`cluster_options(phase, settings)` (what the sweep's cluster must be started with) and
`check_sweep(phase, approaches)` (refuses what the binding cannot run, before any server starts).
Adding an engine is one new module plus its name in `engines`.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import ConfigError, NotAvailableError

SIZES = ("smoke", "quick", "classroom")
"""The sweep sizes every pattern describes (a student's YAML data design is a "profile": labkit.profiles). smoke: the smallest sizes at which every cell of a lesson runs (make test executes each lesson once at them;
they show that the lesson works, not how large an effect is); quick: minutes, what `make run` and make test-full's
nbval use; classroom: the source's shapes scaled to a 2-core laptop."""
CLASSROOM_REPEATS = 3
"""Each point of a classroom sweep runs at least this often (interleaved), so its ratios carry a 95% interval
(results.intervals); quick sweeps keep their own count and say "too few repeats for an interval"."""


if TYPE_CHECKING:
    from ..clusters.contract import Cluster
    from ..sweeps.plan import SweepPlan
    from ..runner.workload import Workload
    from .binding import EngineBinding


@dataclass(frozen=True)
class Setting:
    """One knob of a pattern's workload: a whole number in a range (a data size, a link latency, a
    replication factor), or one of a few named choices (a consistency level) when `choices` is given."""

    name: str
    default: int | str
    low: int
    high: int
    help: str
    step: int = 1
    phases: tuple[str, ...] = ()
    """The phases whose workload reads it; empty: every phase."""
    choices: tuple[str, ...] = ()

    def applies_to(self, phase: str) -> bool:
        return not self.phases or phase in self.phases

    def describe(self) -> str:
        """The values it takes, for help texts and errors."""
        return "one of " + ", ".join(self.choices) if self.choices else f"a whole number from {self.low} to {self.high}"

    def check(self, value: Any) -> int | str:
        """The value if it is one this setting takes, or an error that says which it takes."""
        if self.choices:
            if value not in self.choices:
                raise ConfigError(f"setting {self.name} takes {self.describe()} ({self.help}); got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"setting {self.name} takes {self.describe()}; got {value!r}")
        if not self.low <= value <= self.high:
            raise ConfigError(f"setting {self.name} must be from {self.low} to {self.high} ({self.help}); got {value}")
        return value

    def parse(self, text: str) -> int | str:
        """A value given as text (`labkit run --set NAME=VALUE`), checked."""
        text = text.strip()
        if self.choices:
            return self.check(text)
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"setting {self.name} takes {self.describe()}; got {text!r}") from None
        return self.check(value)


@dataclass(frozen=True)
class NamedSweep:
    """One sweep of a size: a phase on these cluster sizes and client threads, with these settings."""

    phase: str
    nodes: tuple[int, ...]
    threads: tuple[int, ...]
    """Client threads in all, one point each."""
    operations: int
    settings: Mapping[str, int] = field(default_factory=dict)
    warmup: int = 0
    node_cpu: float | None = None
    """CPU budget of each node in cores, for a budgeted sweep (None: nodes share the machine)."""
    repeats: int = 1
    """Runs of each point, one per block, the approaches alternating within the blocks (the volume test: runs
    that keep what the last one wrote); a classroom sweep has at least CLASSROOM_REPEATS."""
    targets: tuple[float, ...] = ()
    """Offered loads in transactions/s, one paced run each (an offered-load sweep); empty: closed loop."""
    target_seconds: float | None = None
    """How long each offered load is held: its run has target x seconds transactions (None: `operations`)."""
    past_knee: int | None = None
    """Skip a curve's higher offered loads after this many overloaded ones in a row (None: run them all)."""
    approaches: tuple[str, ...] = ()
    """The approaches this sweep compares by default; empty: every approach of its phase."""
    warmup_block: bool | None = None
    """SweepPlan.warmup_block: None lets the sweep decide; a `smoke` sweep has none (named_sweep), as its
    numbers show only that the cells run, not how fast anything is."""

    @property
    def thread_range(self) -> tuple[int, int, int]:
        """(low, high, step) for the panel's range slider (see `thread_range`)."""
        return thread_range(self.threads)


def thread_range(threads: Any) -> tuple[int, int, int]:
    """(low, high, step) of a range slider over these client thread counts: the smallest gap between points is the step."""
    counts = sorted(threads)
    gaps = [b - a for a, b in zip(counts, counts[1:])]
    return counts[0], counts[-1], min(gaps) if gaps else 1


def _no_check(_plan: Any) -> None:
    return None


@dataclass(frozen=True)
class Pattern:
    """A pattern's description: read by the panel, the CLI, sweeps and benchmarks."""

    name: str
    title: str
    package: str
    """The pattern's package; its engine bindings are `<package>.<engine>`."""
    phases: tuple[str, ...]
    approaches: tuple[str, ...]
    engines: tuple[str, ...]
    """Engines that have a binding (the first is the default)."""
    settings: tuple[Setting, ...]
    sizes: Mapping[str, Mapping[str, NamedSweep]]
    """size -> sweep name -> NamedSweep; every phase has a sweep named after it in every size."""
    check_plan: Callable[[Any], None] = _no_check
    """Refuses a SweepPlan the workload cannot run, before any cluster starts."""
    cluster_options: Mapping[str, Any] = field(default_factory=dict)
    """What a sweep's cluster must have, e.g. {"dcs": 2}."""
    thread_multiple: int = 1
    """Thread counts are rounded up to a multiple of this (two regions need even counts)."""
    operations_multiple: int = 1
    main_phase: str | None = None
    """The phase run when none is named (None: the last)."""
    phase_approaches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Phases that compare only some of the approaches (a standard workload's index phases compare
    index kinds, its mix phases compare mixes); a phase not named here compares them all."""
    engine_approaches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Engines whose binding runs only some of the approaches: the naive side is often the engine's own
    mechanism (Cassandra's two index kinds, MongoDB's secondary index, Couchbase's GSI); an engine not
    named here runs them all."""

    # ---- choices ---------------------------------------------------------------------------------

    @property
    def default_phase(self) -> str:
        return self.main_phase or self.phases[-1]

    def check_phase(self, phase: str) -> str:
        if phase not in self.phases:
            raise ConfigError(f"unknown phase {phase!r} for {self.name}: choose one of {', '.join(self.phases)}")
        return phase

    def approaches_for(self, phase: str | None = None, engine: str | None = None) -> tuple[str, ...]:
        """The approaches a phase compares (every phase's when None) on `engine` (None: the default engine)."""
        chosen = tuple(self.phase_approaches.get(self.check_phase(phase), self.approaches)) if phase else self.approaches
        engine = engine or self.engines[0]
        if self.check_engine(engine) in self.engine_approaches:
            runs = self.engine_approaches[engine]
            chosen = tuple(a for a in chosen if a in runs)
        return chosen

    def check_approaches(self, approaches: Any, phase: str | None = None, engine: str | None = None) -> list[str]:
        chosen = list(approaches)
        allowed = self.approaches_for(phase, engine)
        unknown = [a for a in chosen if a not in allowed]
        if unknown or not chosen:
            where = (f" in phase {phase}" if phase else "") + (f" on {engine}" if engine in self.engine_approaches else "")
            other = [e for e in self.engines if unknown and unknown[0] in self.approaches_for(phase, e)]
            elsewhere = f" ({unknown[0]} is {', '.join(other)}'s)" if other and engine not in other else ""
            raise ConfigError(f"unknown approach {unknown[0] if unknown else '(none)'!r} for {self.name}{where}{elsewhere}: choose from {', '.join(allowed)}")
        return chosen

    def check_engine(self, engine: str) -> str:
        if engine not in self.engines:
            raise ConfigError(f"{self.name} has no workload for {engine} in this version: it runs on {', '.join(self.engines)}. "
                              f"Choose --engine {self.engines[0]}.")
        return engine

    # ---- settings --------------------------------------------------------------------------------

    def settings_for(self, phase: str) -> tuple[Setting, ...]:
        """The settings one phase's workload reads."""
        self.check_phase(phase)
        return tuple(s for s in self.settings if s.applies_to(phase))

    def setting(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        have = ", ".join(s.name for s in self.settings) or "none"
        raise ConfigError(f"{self.name} has no setting {name!r}; it takes: {have}")

    def resolve(self, phase: str, given: Mapping[str, Any] | None = None) -> dict[str, int | str]:
        """Every setting of `phase` with its value: the given ones (checked), else the default. A setting
        of another phase is refused, so a typo or a misplaced size never passes silently."""
        given = dict(given or {})
        for name in given:
            s = self.setting(name)
            if not s.applies_to(phase):
                raise ConfigError(f"setting {name} of {self.name} is for phase {', '.join(s.phases)}, not {phase}")
        return {s.name: s.check(given[s.name]) if s.name in given else s.default for s in self.settings_for(phase)}

    # ---- sizes -----------------------------------------------------------------------------------

    def named_sweep(self, size: str, name: str, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> NamedSweep:
        """One named sweep of a size (`smoke`, `quick` or `classroom`). `overrides` {sweep name: {field: value}}
        replaces some of its fields (a notebook's papermill parameter: a tiny sweep for a browser test,
        a larger one for a course); the result is checked like the description's own."""
        if size not in self.sizes:
            raise ConfigError(f"unknown size {size!r}: choose one of {', '.join(self.sizes)}")
        sweeps = self.sizes[size]
        if name not in sweeps:
            raise ConfigError(f"{self.name} has no {size} sweep {name!r}: it has {', '.join(sweeps)}")
        changes = dict((overrides or {}).get(name, {}))
        unknown = set(changes) - {f.name for f in dataclasses.fields(NamedSweep)} - {"phase"}
        if unknown or "phase" in changes:
            raise ConfigError(f"a sweep's overrides take {', '.join(f.name for f in dataclasses.fields(NamedSweep) if f.name != 'phase')}; "
                              f"got {', '.join(sorted(unknown | ({'phase'} & set(changes))))}")
        if "settings" in changes:
            changes["settings"] = {**sweeps[name].settings, **changes["settings"]}
        for key in ("nodes", "threads", "targets", "approaches"):
            if key in changes:
                changes[key] = tuple(changes[key])
        if size == "classroom" and "repeats" not in changes:
            changes["repeats"] = max(sweeps[name].repeats, CLASSROOM_REPEATS)
        if size == "smoke" and "warmup_block" not in changes and sweeps[name].warmup_block is None:
            changes["warmup_block"] = False  # a cold cluster's first runs are slow, which a smoke run does not mind
        chosen = dataclasses.replace(sweeps[name], **changes)
        self.resolve(chosen.phase, chosen.settings)
        return chosen

    def sweep_plan(self, size_name: str, name: str, approaches: Any = None, overrides: Mapping[str, Mapping[str, Any]] | None = None,
             engine: str | None = None, **changes: Any) -> "SweepPlan":
        """The SweepPlan of one named sweep of a size: its nodes, threads, operations, warm-up and
        repeats, labelled with its phase and settings; `changes` replace SweepPlan fields (e.g. processes=2).
        Without `approaches`, the sweep's own, or every one its phase compares on `engine`."""
        return self.plan_of(self.named_sweep(size_name, name, overrides), approaches, engine, **changes)

    def plan_of(self, size: NamedSweep, approaches: Any = None, engine: str | None = None, **changes: Any) -> "SweepPlan":
        """The SweepPlan that runs `size` (a NamedSweep of this description), as `sweep_plan` describes."""
        from ..sweeps.plan import SweepPlan

        default = [a for a in size.approaches if a in self.approaches_for(size.phase, engine)] or self.approaches_for(size.phase, engine)
        fields: dict[str, Any] = dict(
            pattern=self.name, approaches=self.check_approaches(approaches or default, size.phase, engine), threads=list(size.threads),
            nodes=list(size.nodes), operations=size.operations, repeats=size.repeats, targets=list(size.targets) or [None],
            target_seconds=size.target_seconds, past_knee=size.past_knee, warmup_block=size.warmup_block,
            run_options={"warmup": size.warmup} if size.warmup else {}, labels=self.labels(size.phase, size.settings),
        )
        fields.update(changes)
        return SweepPlan(**fields)

    # ---- workloads -------------------------------------------------------------------------------

    def binding(self, engine: str) -> ModuleType:
        """The engine's module of this pattern (imported on first use: a driver loads only when needed)."""
        self.check_engine(engine)
        try:
            return importlib.import_module(f"{self.package}.{engine}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{self.package}.{engine}":
                raise NotAvailableError(f"{self.name} lists engine {engine} but has no module {exc.name}") from exc
            raise

    def engine_binding(self, engine: str) -> "EngineBinding":
        """The engine's binding with its optional hooks defaulted (what sweeps and slots call)."""
        from .binding import EngineBinding

        return EngineBinding.of(self.binding(engine))

    def workload(self, approach: str, cluster: Cluster, operations: int, *, phase: str | None = None, engine: str | None = None,
                 resources: Mapping[str, Any] | None = None, **settings: Any) -> "Workload":
        """The workload of one run of `approach` in `phase` on `cluster`, with the phase's settings
        (defaults for those not given) and `resources` (e.g. a toxiproxy) passed through."""
        phase = self.check_phase(phase or self.default_phase)
        engine = engine or cluster.engine  # every provider's cluster says its engine (clusters.contract)
        self.check_approaches([approach], phase, engine)
        values = self.resolve(phase, settings)
        made: Workload = self.binding(engine).workload(approach, phase, cluster, operations, **values, **dict(resources or {}))
        return made

    def labels(self, phase: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The columns every row of a sweep of `phase` carries: the phase and each of its settings."""
        return {"phase": self.check_phase(phase), **self.resolve(phase, settings)}

    def phase_note(self, phase: str) -> str:
        """A line a panel shows under its approaches about what one transaction of `phase` is ('' for none)."""
        return ""

    def __repr__(self) -> str:
        return f"Pattern({self.name}: phases {', '.join(self.phases)}; approaches {', '.join(self.approaches)}; engines {', '.join(self.engines)})"
