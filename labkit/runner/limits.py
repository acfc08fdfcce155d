"""What limited a run: the client, a server node, the machine, or nothing the lab can see.

A figure that does not say what limited each point invites the wrong lesson (a flat curve read as "the
pattern does not scale" when the Python client or the shared laptop was the ceiling). The rules, in order:
- `client`: the client processes used at least 90% of the cores they can use, or a process's threads
  queued for the interpreter lock long enough to matter: a probe thread waited on average at least
  GIL_WAIT_MS for the lock (its waits for a free core taken out), and that wait is at least GIL_SHARE of
  the mean transaction latency (a transaction takes the lock at least once after each reply). Measured
  here: one process with 16 threads against an unbudgeted node used 0.67 cores and its probe waited
  3.4 ms on transactions of about 8 ms (it reached 0.44 of what the driver's own loop does), while
  clients of budgeted nodes waited 0.4-2 ms on transactions of 60-300 ms;
- `client` too: with greenlet workers, one worker's turn kept the others of its process waiting (a turn of
  5 ms or more: a database call outside `tx.call`, which greenlets cannot overlap, or long Python work)
  for at least HUB_HELD of the run;
- `server nodeN`: a budgeted node used at least 90% of its budget (the busiest one is named, with its threads'
  wake-ups per second). Budgeted Cassandra nodes start with 1 ms of timer slack (host.timer_slack): with
  Linux's 50 us their workers' wait-spin used most of a budget at any load (0.39-0.44 of a 0.5-core node's at
  100-400 reads/s; the committed 0.15-core rows sat at their budgets), so this label appeared at any load too
  (on 7-84% of the rows of the committed budgeted files). With it, one node of 0.5 core used 0.10 core at 100 reads/s and 0.21 at 400
  (benchmarks/results/cpu_per_request_summary.md), so the label needs load; the wake-ups say how much of the
  budget still went on the spin (about 21 us each here);
- `machine`: at least 90% of all the machine's cores were busy (client and servers share them: with
  budgets this happens when the budgets and the client together need more cores than there are;
  measured here, 8 nodes x 0.15 core plus a client of 0.8 cores on 2 cores, the busiest node then used
  only 73-83% of its budget);
- `client-inflight`: a paced run (an offered load) fell short of its target while every request the client
  could keep in flight was out all the time: `threads` in flight at the run's mean latency allow at most
  threads / latency transactions/s (Little's law), and the run made about that. Neither a node nor the
  machine was at its limit, so the client asked too little, not the cluster served too little: raise the
  threads. (Measured here: YCSB A offered 3,200/s with 64 in flight at about 20 ms made about 3,200/s
  and `limit` said none.)
- `none`: none of these; the latency is the database's own.
"""

from __future__ import annotations

from .server_cpu import ServerCpu

BUSY = 0.9
GIL_WAIT_MS = 1.0
GIL_SHARE = 0.1


HUB_HELD = 0.25
SHORT_OF_TARGET = 0.9
"""A paced run made less than this share of its offered load."""
INFLIGHT_BOUND = 0.9
"""... and at least this share of what its requests in flight allow (threads / mean latency)."""


def limit_of(
    *,
    client_saturated: bool,
    hub_held: float | None = None,
    gil_wait_ms: float | None,
    transaction_ms: float | None,
    server: ServerCpu | None,
    machine_busy: float | None,
    threads: int | None = None,
    throughput: float | None = None,
    target_rate: float | None = None,
) -> tuple[str, str]:
    """(limit, one sentence of evidence) for one run; `transaction_ms` is the mean transaction latency."""
    if client_saturated:
        return "client", "the client processes used their cores"
    if hub_held is not None and hub_held >= HUB_HELD:
        return "client", (
            f"for {hub_held:.0%} of the run one greenlet worker kept the others of its process waiting (a database call "
            "made outside tx.call, or long Python work): route every database call through tx.call, or run with workers='threads'"
        )
    if gil_wait_ms is not None and gil_wait_ms >= GIL_WAIT_MS and transaction_ms and gil_wait_ms >= GIL_SHARE * transaction_ms:
        return "client", (
            f"client threads queued for Python's interpreter lock (a probe waited {gil_wait_ms:.1f} ms on average to run "
            f"again, on transactions of {transaction_ms:.1f} ms): add client processes"
        )
    busiest = server.busiest() if server is not None else None
    if server is not None and busiest is not None and busiest[1] >= BUSY:
        name, used = busiest
        woken = server.nodes[name].wakeups
        spin = f" (its threads woke {woken / server.wall_s:,.0f} times/s, each wake-up costing CPU whether it found work or not)" if woken and server.wall_s > 0 else ""
        return f"server {name}", f"{name} used {used:.0%} of its CPU budget{spin}"
    if machine_busy is not None and machine_busy >= BUSY:
        return "machine", f"{machine_busy:.0%} of all the machine's cores were busy (client and servers share them)"
    if target_rate and threads and throughput is not None and transaction_ms and throughput < SHORT_OF_TARGET * target_rate:
        allowed = threads / (transaction_ms / 1000.0)
        if throughput >= INFLIGHT_BOUND * allowed:
            return "client-inflight", (
                f"{threads} requests in flight at {transaction_ms:.1f} ms each allow at most {allowed:,.0f} transactions/s, short of the "
                f"{target_rate:,.0f}/s offered, and the run made {throughput:,.0f}/s: the client kept too few requests in flight; raise the threads"
            )
    return "none", ""
