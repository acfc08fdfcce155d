"""The fake pattern's binding: counting workloads that record what they were made with."""

from fakes import CountingWorkload

from . import MADE

BEHAVIOUR = {"sleep_s": 0.0, "fail_at": None}
"""Set by a test: each workload's sleep per transaction, and which workload (1-based) to refuse."""


def workload(approach, phase, cluster, operations, **settings):
    MADE.append((approach, phase, len(cluster.nodes), operations, settings))
    if BEHAVIOUR["fail_at"] == len(MADE):
        from labkit.errors import ConfigError

        raise ConfigError("the cluster went away")
    w = CountingWorkload(BEHAVIOUR["sleep_s"])
    w.name = f"{approach}/{phase}/{settings}"
    return w
