"""What every tactic is: a change with a start, a moment the server confirms it took effect, and the
server's own evidence that it did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import LabkitError

if TYPE_CHECKING:
    from ..clusters.contract import Cluster


class TacticError(LabkitError):
    """A tactic could not be applied, or the server does not confirm it took effect."""


class Tactic:
    """Subclasses set `name` (as in result rows), `title` (for people) and implement `apply` and `evidence`.

    - `check(cluster, workload)`: refuse, before any load starts, what this cluster cannot do (with what to do).
    - `prepare(cluster, workload)`: bring the workload to the state the tactic starts from (before setup).
    - `apply(cluster, workload)`: make the change and return only once it is effective.
    - `evidence(cluster, workload)`: ask the server whether the change holds; a dict of what it said,
      or TacticError when it does not hold. Called after `apply` and again after the run.
    """

    name = "tactic"
    title = "a change"
    client_side = False  # changes the client's own settings: the run stays in one client process
    changes_nodes = 0  # nodes added (+1) or removed (-1)
    evidence_under_budgets = False
    """The after-run evidence reads the node budgets themselves (the budget tactic), so it is taken while they
    are in force; every other tactic's evidence is taken with the budgets lifted, like verify (not measured)."""
    settle_s = 0.0
    """Seconds after the server confirms the tactic that are not yet its steady state (a new node's JIT
    and caches warming, the driver moving requests): reported as the `settling` window, kept out of `after`."""

    def check(self, cluster: Cluster, workload: Any) -> None:
        return None

    def prepare(self, cluster: Cluster, workload: Any) -> None:
        return None

    def apply(self, cluster: Cluster, workload: Any) -> None:
        raise NotImplementedError

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<tactic {self.name}: {self.title}>"
