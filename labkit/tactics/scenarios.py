"""The lab's tactic runs, sized per profile (quick: the notebook under CI; classroom: the benchmark):
which tactic, under which workload kind, on which cluster, at which offered load, and for how long.
One list serves the notebook and the benchmark, so the committed timelines are the notebook's at
classroom size."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from ..clusters.slot import ClusterSlot
from ..errors import ConfigError
from . import cassandra as tactics
from .base import Tactic
from .under_load import TacticRun, run_under_load
from .workloads import check_kind, workload_for

if TYPE_CHECKING:
    from ..clusters.contract import Cluster


@dataclass(frozen=True)
class TacticScenario:
    key: str  # names the run in tables and file names
    kind: str  # workload kind (tactics.workloads.KINDS)
    make: Callable[[], Tactic]
    nodes: int  # the cluster the tactic starts from
    node_cpu: float | None
    rate: float
    records: int = 2000
    replication: int = 1
    tags: int = 100
    threads: int = 32
    before_s: float = 8
    expect_s: float = 20
    after_s: float = 12
    warmup: int = 200
    restore: Callable[[Any], None] | None = field(default=None, compare=False)  # puts the cluster back for the next plan

    def __post_init__(self) -> None:
        check_kind(self.kind)


def _budget_back(cores: float) -> Callable[[Any], None]:
    def restore(cluster: "Cluster") -> None:
        budgets = cluster.budgets()
        if budgets is None:
            raise ConfigError("putting a node budget back needs nodes labkit budgets itself (provider local)")
        budgets.set_node_cpu(cores)

    return restore


def _index(kind: str, records: int, rate: float, before: float, expect: float, after: float) -> TacticScenario:
    return TacticScenario(f"create-index-{kind}", "query-by-tag", lambda: tactics.CreateIndex(kind), 1, 0.5, rate, records=records, tags=100,
                      threads=16, before_s=before, expect_s=expect, after_s=after, warmup=10)


QUICK = [  # 4 s before and after each tactic: a short look, as the notebook under CI and `make run` can afford
    _index("sai", 5000, 30, 4, 8, 4),  # built in 6.9 s here
    TacticScenario("consistency-quorum", "read-heavy", lambda: tactics.ChangeConsistency("QUORUM"), 3, 0.25, 300, replication=3,
               before_s=4, expect_s=2, after_s=4),
    TacticScenario("node-cpu-0.5", "read-heavy", lambda: tactics.SetNodeCpu(0.5), 3, 0.25, 600, before_s=4, expect_s=2, after_s=4,
               restore=_budget_back(0.25)),
    # expect_s: the quick run's measured time to effect (19.5 s and 22.7 s on 2 cores, 2026-11-26) plus about a fifth;
    # a slower machine only shortens the "after" window (the run waits for the tactic and says so)
    TacticScenario("raise-replication-3", "write-heavy", lambda: tactics.RaiseReplication(3), 3, 0.25, 200, before_s=4, expect_s=24, after_s=4),
    TacticScenario("add-node", "update-heavy", tactics.AddNode, 3, 0.25, 400, records=3000, before_s=4, expect_s=27, after_s=4),
]

CLASSROOM = [
    _index("sai", 20000, 30, 8, 30, 12),
    _index("2i", 20000, 30, 8, 30, 12),
    TacticScenario("consistency-quorum", "read-heavy", lambda: tactics.ChangeConsistency("QUORUM"), 3, 0.25, 400, records=5000, replication=3,
               after_s=12, expect_s=2),
    TacticScenario("raise-replication-3", "write-heavy", lambda: tactics.RaiseReplication(3), 3, 0.25, 400, records=5000, expect_s=50),
]
for _kind, _rate in (("read-heavy", 800), ("write-heavy", 800), ("scan", 200)):
    CLASSROOM += [
        TacticScenario(f"node-cpu-0.5-{_kind}", _kind, lambda: tactics.SetNodeCpu(0.5), 3, 0.25, _rate, records=5000, expect_s=2,
                   restore=_budget_back(0.25)),
        TacticScenario(f"add-node-{_kind}", _kind, tactics.AddNode, 3, 0.25, _rate, records=5000, expect_s=50, after_s=15),
        TacticScenario(f"decommission-{_kind}", _kind, tactics.Decommission, 4, 0.25, _rate, records=5000, expect_s=60, after_s=15),
    ]

_SMOKE_CHANGES: dict[str, dict[str, Any]] = {  # what the smoke run changes in each quick plan; the tactics, loads and rates stay quick's
    "create-index-sai": {"records": 2000, "nodes": 3, "expect_s": 1},  # on the 3 nodes the others use: no 1-node cluster to start and stop
    # expect_s 1: the repair and the bootstrap take longer than any smoke load, and the run waits for them after the load (no "after" window)
    "raise-replication-3": {"expect_s": 1},
    "add-node": {"expect_s": 1},
}
SMOKE = [replace(plan, before_s=2, after_s=2, **{"records": 1000, "warmup": min(plan.warmup, 50), **_SMOKE_CHANGES.get(plan.key, {})})
         for plan in QUICK]
"""Every section of notebook 06 runs (make test), none reads well: quick's plans with 2 s before and after each tactic,
1,000 records (the index 2,000), a warm-up of at most 50 transactions, all on one 3-node cluster."""

SCENARIOS = {"smoke": SMOKE, "quick": QUICK, "classroom": CLASSROOM}


SECTION_LOAD = "read-heavy"
"""At classroom size each scaling tactic runs under three loads (keys `<tactic>-<load>`); notebook 06's sections show this one."""


def section_plan(plans: dict[str, TacticScenario], key: str) -> TacticScenario | None:
    """The plan a notebook section named by its quick key (`node-cpu-0.5`, `add-node`) runs in this profile's
    `plans` (key -> plan): the plan of that key, or at classroom size its read-heavy run; None when neither is
    chosen. Without it a classroom run skipped those sections, whose quick keys the classroom list does not have."""
    return plans.get(key) or plans.get(f"{key}-{SECTION_LOAD}")


def scenarios(profile: str, only: list[str] | None = None) -> list[TacticScenario]:
    if profile not in SCENARIOS:
        raise ConfigError(f"unknown profile {profile!r}; use one of: {', '.join(SCENARIOS)}")
    chosen = SCENARIOS[profile]
    if only:
        unknown = set(only) - {p.key for p in chosen}
        if unknown:
            raise ConfigError(f"no tactic run named {', '.join(sorted(unknown))} in profile {profile}; there are: {', '.join(p.key for p in chosen)}")
        chosen = [p for p in chosen if p.key in only]
    return chosen


class ScenarioRunner:
    """Runs scenarios one after another on one cluster slot (clusters.slot: any provider whose clusters it can
    resize; local Cassandra by default): the slot starts a fresh cluster whenever a plan starts from another
    size than the running one has (an added node stays for a following decommission), a plan's budget is
    set in place, and `stop()` or leaving a `with` block stops the cluster."""

    def __init__(self, progress: Callable[[str], None] | None = None, slot: ClusterSlot | None = None):
        self.say = progress or (lambda message: None)
        self.slot = slot or ClusterSlot.for_engine("cassandra", "local", on_change=self.say)

    @property
    def cluster(self) -> Any:
        return self.slot.cluster

    def cluster_for(self, nodes: int, node_cpu: float | None) -> Any:
        """The slot's cluster at `nodes` nodes, each held to `node_cpu` (a budget a tactic left changed is put back)."""
        self.slot.node_cpu = node_cpu
        cluster = self.slot.ensure(nodes)
        budgets = cluster.budgets()
        if cluster.info().node_cpu != node_cpu and budgets is not None:
            budgets.set_node_cpu(node_cpu)
        return cluster

    def run(self, plan: TacticScenario, **changes: Any) -> TacticRun:
        """One plan (with `changes` to its fields, e.g. rate=, threads=, nodes=) under load; the cluster stays up."""
        if changes:
            unknown = set(changes) - set(TacticScenario.__dataclass_fields__)
            if unknown:
                raise ConfigError(f"a tactic plan has no {', '.join(sorted(unknown))}; it has {', '.join(TacticScenario.__dataclass_fields__)}")
            plan = replace(plan, **changes)
        cluster = self.cluster_for(plan.nodes, plan.node_cpu)
        workload = workload_for(plan.kind, cluster, records=plan.records, replication=plan.replication, tags=plan.tags)
        self.say(f"[{plan.key}]")
        run = run_under_load(cluster, workload, plan.make(), kind=plan.kind, rate=plan.rate, threads=plan.threads, before_s=plan.before_s,
                             expect_s=plan.expect_s, after_s=plan.after_s, warmup=plan.warmup, progress=self.say)
        run.labels["run"] = plan.key
        if plan.restore is not None:
            plan.restore(cluster)
        return run

    def stop(self) -> None:
        self.slot.stop()

    def __enter__(self) -> "ScenarioRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def run_scenarios(chosen: list[TacticScenario], progress: Callable[[str], None] | None = None, repeats: int = 1) -> list[TacticRun]:
    """Every plan in order (ScenarioRunner), `repeats` rounds of all of them (a round runs each plan once, so
    a drift over the rounds weighs on every tactic alike; each run's labels carry its `repeat`), the cluster
    stopped at the end. The advisor needs 3 or more runs of a tactic to give its gain an interval."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"repeats must be a whole number of at least 1; got {repeats!r}")
    runs = []
    with ScenarioRunner(progress) as runner:
        for repeat in range(repeats):
            for plan in chosen:
                run = runner.run(plan)
                run.labels["repeat"] = repeat
                runs.append(run)
    return runs
