"""Client processes on other hosts, through Dask distributed: one task per client process, a start barrier
that spans every host, outcomes merged as the local processes' are.

One Python process keeps only a few thousand requests per second in flight, so a cluster bigger than a
laptop is client-bound from one host. Rather than a launcher of our own, the lab runs its client processes
as tasks on an existing Dask cluster (`dask scheduler` / `dask worker`, dask-ssh, dask-kubernetes,
dask-jobqueue) or on a LocalCluster of worker processes here. Each task runs runner.pool.run_pool exactly
as a spawned local process does; the barriers are Dask's own coordination primitives (a Queue each task
reports "warmed" on, an Event the caller sets once every task has and the measured window is open).

"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ..errors import ConfigError, LabkitError
from .measurements import Measurements
from .workload import Workload, hooks
from .pool import TICK_SECONDS, PoolOutcome, PoolSpec, apply_client_settings, run_pool

LOCAL_PREFIX = "local:"
DASK_PREFIX = "dask://"
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class ClientHosts:
    """Where a run's client processes go: `local:N` (a Dask LocalCluster of N worker processes here) or
    `dask://HOST:PORT` (an existing scheduler and its workers)."""

    text: str
    local_workers: int | None = None
    address: str | None = None

    @property
    def is_local(self) -> bool:
        return self.local_workers is not None


def parse_clients(text: str) -> ClientHosts:
    """'local:2' or 'dask://10.0.0.5:8786', else a ConfigError that shows both forms."""
    value = (text or "").strip()
    if value.startswith(LOCAL_PREFIX):
        count = value[len(LOCAL_PREFIX):]
        if not count.isdigit() or int(count) < 1:
            raise ConfigError(f"--clients {text!r}: after 'local:' comes the number of worker processes, at least 1 (e.g. local:2)")
        return ClientHosts(value, local_workers=int(count))
    if value.startswith(DASK_PREFIX):
        host_port = value[len(DASK_PREFIX):]
        host, _, port = host_port.rpartition(":")
        if not host or not port.isdigit():
            raise ConfigError(f"--clients {text!r}: a Dask scheduler is named dask://HOST:PORT (its default port is 8786)")
        return ClientHosts(value, address=f"tcp://{host}:{port}")
    raise ConfigError(f"--clients {text!r} is neither local:N (N worker processes on this machine) nor dask://HOST:PORT "
                      "(an existing Dask scheduler); leave it out to run the client here, as before")


@contextlib.contextmanager
def connected(hosts: ClientHosts) -> Iterator[Any]:
    """A distributed.Client on the hosts, closed (and a LocalCluster stopped) on exit. An unreachable
    scheduler is a ConfigError before anything else starts."""
    from distributed import Client, LocalCluster

    if hosts.is_local:
        cluster = LocalCluster(n_workers=hosts.local_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    try:
        client = Client(hosts.address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise ConfigError(f"cannot reach the Dask scheduler at {hosts.text} within {CONNECT_TIMEOUT_S} s ({type(exc).__name__}: {exc}); "
                          "start one with `dask scheduler` and at least one `dask worker tcp://HOST:8786`, or check the address "
                          "and that its port is open from here") from None
    try:
        yield client
    finally:
        client.close()


def versions_here() -> dict[str, str]:
    """What a worker must match: labkit's and the drivers' versions, and Python's."""
    import platform

    import labkit

    found = {"labkit": labkit.__version__, "python": platform.python_version()}
    for module, name in (("cassandra", "cassandra-driver"), ("pymongo", "pymongo"), ("couchbase", "couchbase")):
        try:
            found[name] = __import__(module).__version__
        except Exception:  # a driver missing here is missing for the workload too; the run says so itself
            found[name] = "missing"
    return found


def version_mismatches(mine: dict[str, str], workers: dict[str, dict[str, str]]) -> list[str]:
    """One line per worker whose versions differ from the caller's: 'tcp://10.0.0.7:4032: labkit 0.1.0 here, 0.0.9 there'."""
    lines = []
    for address, theirs in sorted(workers.items()):
        diffs = [f"{k} {mine.get(k)} here, {theirs.get(k)} there" for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]
        if diffs:
            lines.append(f"{address}: " + "; ".join(diffs))
    return lines


def check_workers(client: Any) -> dict[str, str]:
    """Refuse workers whose labkit, drivers or Python differ from ours (listing both); return each
    worker's address -> host name."""
    mine = versions_here()
    theirs = client.run(versions_here)
    bad = version_mismatches(mine, theirs)
    if bad:
        raise ConfigError("these Dask workers run other versions than this client, so a pickled workload may not mean the same there; "
                          "install the same versions on them (pip install -e . from the same commit):\n" + "\n".join(bad))
    return client.run(socket.gethostname)


def loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("localhost", "::1")


def check_reachable(contact_points: list[str], worker_hosts: dict[str, str]) -> None:
    """A cluster on 127.0.0.x (the local provider) is reachable from this machine's workers only."""
    here = socket.gethostname()
    remote = sorted({h for a, h in worker_hosts.items() if h != here and not loopback(a.split("://")[-1].split(":")[0])})
    if remote and all(loopback(c) for c in contact_points):
        raise ConfigError(f"the cluster listens on loopback addresses ({', '.join(contact_points)}), which workers on {', '.join(remote)} "
                          "cannot reach: use --clients local:N with a local cluster, or a cluster the workers can reach "
                          "(--provider external with its contact points)")


# ---- inside a worker ---------------------------------------------------------------------------------

def _remote_main(index: int, workload: Workload, spec: PoolSpec, run_id: str) -> dict[str, Any]:
    """One client process's pool, run as a task on a worker: open the workload's connections, warm up,
    report on the run's Queue, wait for the start Event, run; return the outcome with the host's name,
    its release on the wall clock, and the process's CPU time over the measured window."""
    from distributed import Event, Queue

    apply_client_settings(spec)
    warmed, start, cancelled = Queue(f"labkit-warmed-{run_id}"), Event(f"labkit-start-{run_id}"), Event(f"labkit-cancel-{run_id}")
    cancel = threading.Event()

    def watch() -> None:  # the distributed Event is a network call: poll it on a thread, not per transaction
        while not cancel.is_set():
            try:
                if cancelled.is_set():
                    cancel.set()
            except Exception:  # the worker lost its scheduler (closing, or gone): nobody can release us any more
                cancel.set()
            time.sleep(TICK_SECONDS * 5)

    watcher = threading.Thread(target=watch, name="labkit-cancel-watch", daemon=True)
    watcher.start()
    from .cpu import cores_available

    host, wall_release, cores = socket.gethostname(), {}, cores_available()
    warmed_at: dict[str, float] = {}
    try:
        hooks(workload).open_process()

        def gate() -> None:
            warmed_at["at"] = time.time()
            warmed.put(index)
            while not start.wait(timeout=TICK_SECONDS * 10):
                if cancel.is_set():
                    return
            wall_release["at"] = time.time()

        outcome = run_pool(workload, spec, cancel, release_gate=gate)
        return {"index": index, "host": host, "cores": cores, "warmed_at": warmed_at.get("at"), "wall_release": wall_release.get("at"),
                "outcome": outcome.to_wire()}
    except BaseException:
        failed = PoolOutcome(Measurements(), None, None, 0.0, 0, crash=f"on {host}: " + traceback.format_exc(limit=8))
        return {"index": index, "host": host, "cores": cores, "warmed_at": None, "wall_release": None, "outcome": failed.to_wire()}
    finally:
        cancel.set()
        with contextlib.suppress(Exception):
            hooks(workload).close_process()


# ---- in the caller -----------------------------------------------------------------------------------

@dataclass
class RemoteRun:
    """What came back: one outcome per client process, its host, and what went wrong where."""

    outcomes: list[PoolOutcome]
    hosts: list[str]
    lost: list[str] = field(default_factory=list)  # "client 1 on host2: worker lost"
    cores: dict[str, int] = field(default_factory=dict)  # host -> cores a client process there may run on
    wall_releases: list[float | None] = field(default_factory=list)  # each process's release on its host's wall clock
    warmed_at: list[float | None] = field(default_factory=list)  # when each process had warmed up and reached the barrier (wall clock)

    @property
    def barrier_slack_s(self) -> float | None:
        """The first release minus the last arrival at the barrier, on the hosts' wall clocks: at least 0 when no
        process started before every one was ready (clocks of different hosts agree only as well as NTP keeps them)."""
        releases = [t for t in self.wall_releases if t is not None]
        arrivals = [t for t in self.warmed_at if t is not None]
        if not releases or len(releases) < len(self.wall_releases) or len(arrivals) < len(self.warmed_at):
            return None
        return min(releases) - max(arrivals)


@dataclass(frozen=True)
class HostUse:
    """One client host over a run's measured window: its processes, the cores they used, the cores they could."""

    host: str
    processes: int
    cores_used: float
    cores_available: int

    @property
    def saturated(self) -> bool:
        from .cpu import SATURATION_THRESHOLD

        return self.cores_used >= SATURATION_THRESHOLD * self.cores_available


def host_use(outcomes: list[PoolOutcome], hosts: list[str], cores: dict[str, int], wall_s: float) -> list[HostUse]:
    """Per client host (in order of first appearance): processes, CPU cores used over `wall_s`, and the cores
    they may use (one per process, as a Python process runs one core of Python at a time, up to the host's)."""
    out = []
    for host in dict.fromkeys(hosts):
        mine = [o for o, h in zip(outcomes, hosts) if h == host]
        used = sum(o.cpu_seconds for o in mine) / wall_s if wall_s > 0 else 0.0
        out.append(HostUse(host, len(mine), used, max(1, min(len(mine), cores.get(host, len(mine))))))
    return out


def host_saturation(uses: list[HostUse]) -> tuple[bool, str, str]:
    """(saturated?, the `limit` naming the busiest saturated host, its explanation): the row says which client
    host held the point back, as it names a node."""
    full = sorted((u for u in uses if u.saturated), key=lambda u: u.cores_used / u.cores_available, reverse=True)
    if not full:
        return False, "", ""
    u = full[0]
    note = (f"client host {u.host}: its {u.processes} process(es) used {u.cores_used:.2f} of the {u.cores_available} core(s) they can use; "
            "the curve shows that host's limit, not the database's. Add workers on more hosts, or more processes where cores are free.")
    return True, f"client {u.host}", note


def run_remote(client: Any, workload: Workload, specs: list[PoolSpec], user_cancel: threading.Event,
               on_warmed: Callable[[], None] | None = None, workers: list[str] | None = None) -> RemoteRun:
    """One task per spec, spread round-robin over the workers (each task is one client process); the start
    barrier holds until every task has warmed up and `on_warmed` has opened the measured window. A worker
    lost mid-run leaves its process's outcome partial, naming the host, and stops the others."""
    from distributed import Event, Queue

    run_id = uuid.uuid4().hex[:12]
    warmed, start, cancelled = Queue(f"labkit-warmed-{run_id}"), Event(f"labkit-start-{run_id}"), Event(f"labkit-cancel-{run_id}")
    addresses = workers or sorted(client.scheduler_info()["workers"])
    if not addresses:
        raise ConfigError("the Dask scheduler has no workers: start at least one with `dask worker tcp://HOST:8786`")
    hosts = client.run(socket.gethostname)
    cores: dict[str, int] = {}
    releases: dict[int, float | None] = {}
    arrived: dict[int, float | None] = {}
    placed = [addresses[i % len(addresses)] for i in range(len(specs))]
    futures = [client.submit(_remote_main, i, workload, spec, run_id, workers=[placed[i]], allow_other_workers=False, pure=False, retries=0)
               for i, spec in enumerate(specs)]
    ready: set[int] = set()
    released = False
    lost: list[str] = []
    try:
        while not released and len(ready) < len(specs):
            if user_cancel.is_set() or any(f.status == "error" for f in futures):
                cancelled.set()
                break
            if warmed.qsize() > 0:  # a get() that times out makes the scheduler log an ERROR: ask only when one is there
                ready.add(warmed.get())
            else:
                time.sleep(TICK_SECONDS)
        if len(ready) == len(specs) and not cancelled.is_set():
            if on_warmed is not None:
                on_warmed()
            start.set()
            released = True
        outcomes: dict[int, PoolOutcome] = {}
        while len(outcomes) < len(futures):
            alive = set(client.scheduler_info()["workers"])  # one call per round, not one per task
            for i, f in enumerate(futures):
                if i in outcomes:
                    continue
                if f.status == "finished":
                    done = f.result()
                    outcomes[i] = PoolOutcome.from_wire(done["outcome"])
                    cores[done["host"]] = done["cores"]
                    releases[i] = done["wall_release"]
                    arrived[i] = done["warmed_at"]
                elif f.status in ("error", "cancelled") or placed[i] not in alive:
                    where = hosts.get(placed[i], placed[i])
                    lost.append(f"client process {i} on {where}: its Dask worker was lost ({f.status})")
                    f.cancel()
                    cancelled.set()
                    outcomes[i] = PoolOutcome(Measurements(), None, None, 0.0, 0, interrupted=True)
            if user_cancel.is_set():
                cancelled.set()
            time.sleep(TICK_SECONDS)
    finally:
        cancelled.set()
        start.set()  # a task still waiting at the gate sees the cancel and returns
    return RemoteRun([outcomes[i] for i in range(len(futures))], [hosts.get(a, a) for a in placed], lost, cores,
                     [releases.get(i) for i in range(len(futures))], [arrived.get(i) for i in range(len(futures))])


def require_remote_ok(run: RemoteRun) -> None:
    crashes = [o.crash for o in run.outcomes if o.crash]
    if crashes:
        raise LabkitError("a client process on a Dask worker crashed, so the run was abandoned:\n" + "\n".join(crashes))
