"""What every provider's cluster shares besides its contract's answers: the with-statement (start on enter, stop
on exit) and one way to wait for readiness. Why one wait type: each provider waited by hand under its own name
(ports, peers, a primary, a gateway, healthy containers), each timing out with its own kind of message; a `Ready`
names what is awaited, how long and how often, and what to show when it does not come (a log's end)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Self

from ..errors import LabkitError
from ..host import processes
from .contract import ContractOnly


class NotReady(LabkitError, TimeoutError):
    """A server that did not become ready in time: a TimeoutError to code that waits, a sentence to the student."""


@dataclass(frozen=True)
class Ready:
    """A readiness wait: poll `condition` every `interval` seconds until it holds, for at most `timeout` seconds.
    On time-out NotReady naming `what`, with what `explain` says (the end of a server's log, what was last seen)."""

    what: str
    condition: Callable[[], bool]
    timeout: float
    interval: float = 0.25
    explain: Callable[[], str] | None = None

    def wait(self) -> None:
        try:
            processes.wait_until(self.condition, self.timeout, interval=self.interval, what=self.what)
        except TimeoutError as exc:
            raise NotReady(f"{exc}; {self.explain()}" if self.explain is not None else str(exc)) from None


class ProviderCluster(ContractOnly):
    """The base of every provider's cluster class: the contract's capability answers (ContractOnly) and its
    lifecycle; a provider writes `start()` (returning itself once ready) and `stop()`."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
