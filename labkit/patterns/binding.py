"""An engine's binding of a pattern, as a sweep uses it: the workload factory and the optional hooks, each
with its default.

Why: a binding is a module found by name (`<pattern package>.<engine>`), or an object a profile makes, and
most bindings need no hooks. This is the one place that looks the optional ones up by name, so the sweep,
the slot and the notebooks call every hook without probing (YCSB's DB gives every hook a no-op default).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Mapping

if TYPE_CHECKING:
    from ..runner.workload import Workload


def _refuses_nothing(phase: str, approaches: list[str]) -> None:
    return None


def _needs_no_options(phase: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class EngineBinding:
    """`workload(approach, phase, cluster, operations, **settings)`, and the hooks:
    `check_sweep(phase, approaches)` refuses what the binding cannot run, before any server starts (default:
    nothing refused); `cluster_options(phase, settings)` says what the sweep's cluster must be started with
    (default: nothing); `sweep_resources(phase, settings)`, a context manager yielding what the sweep's
    workloads need besides the cluster, e.g. a toxiproxy (default: none, `has_resources` False)."""

    source: Any
    workload: Callable[..., "Workload"]
    check_sweep: Callable[[str, list[str]], None]
    cluster_options: Callable[[str, Mapping[str, Any]], dict[str, Any]]
    _sweep_resources: Callable[[str, Mapping[str, Any]], ContextManager[Mapping[str, Any]]] | None

    @classmethod
    def of(cls, source: Any) -> "EngineBinding":
        """The binding of a module or object with a `workload` function and any of the hooks."""
        def hook(name: str) -> Callable[..., Any] | None:
            found = getattr(source, name, None)
            return found if callable(found) else None

        return cls(source, getattr(source, "workload"), hook("check_sweep") or _refuses_nothing,
                   hook("cluster_options") or _needs_no_options, hook("sweep_resources"))

    @property
    def has_check_sweep(self) -> bool:
        return self.check_sweep is not _refuses_nothing

    @property
    def has_resources(self) -> bool:
        return self._sweep_resources is not None

    def sweep_resources(self, phase: str, settings: Mapping[str, Any]) -> ContextManager[Mapping[str, Any]]:
        """What the sweep's workloads need besides the cluster, as a context manager yielding {name: resource}."""
        if self._sweep_resources is None:
            return contextlib.nullcontext({})
        return self._sweep_resources(phase, settings)
