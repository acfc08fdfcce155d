"""Several reads of one prepared statement in flight at once, as one `tx.call`: fan-out on read's page asks
every followed user's partition together and waits for the last reply, as an application would.

`tx.call(op, AllInFlight(session, statement), [params, ...])` returns one `(rows, micros)` per parameter
tuple, in order: the result set and how long that read took from the moment the first was sent. The same
code serves both kinds of runner worker: each read is started through the asynchronous form the runner
knows for `session.execute` (runner.tasks.async_form: cassandra-driver's `execute_async`, or the native
path on greenlet workers), so a greenlet worker parks once for all of them and a thread worker waits once.
A session with no asynchronous form (a test's stand-in) is read one statement after another.
"""

from __future__ import annotations

import threading
from time import perf_counter_ns
from typing import Any, Callable, Sequence

from ...runner.tasks import async_form, register_async_form

Reply = tuple[Any, int]
"""(rows as session.execute returns them, microseconds from the first read's start to this one's reply)"""


class AllInFlight:
    """One statement, several parameter tuples, all sent before any reply is awaited."""

    def __init__(self, session: Any, statement: Any):
        self.session = session
        self.statement = statement

    def __call__(self, each: Sequence[tuple]) -> list[Reply]:
        """The blocking form (thread workers, checks outside a run): start all, wait for the last reply."""
        single = async_form(self.session.execute)
        if single is None:
            began = perf_counter_ns()
            return [(self.session.execute(self.statement, params), (perf_counter_ns() - began) // 1000) for params in each]
        done = threading.Event()
        outcome: dict[str, Any] = {}

        def finished(key: str, value: Any) -> None:
            outcome[key] = value
            done.set()

        self.start(single, (each,), {}, lambda replies: finished("replies", replies), lambda error: finished("error", error))
        done.wait()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["replies"]

    def start(self, single: Callable[..., Any], args: tuple, kwargs: dict,
              on_result: Callable[[Any], None], on_error: Callable[[BaseException], None]) -> str | None:
        """The asynchronous form (runner.tasks.AsyncStarter): start every read through `single` and call exactly
        one of on_result (every reply, in order) and on_error (the first failure; later replies are dropped)."""
        (each,) = args
        replies: list[Reply | None] = [None] * len(each)
        lock = threading.Lock()  # replies may arrive on the driver's IO thread and the hub's loop alike
        state = {"left": len(each), "over": False}
        began = perf_counter_ns()
        if not each:
            on_result([])
            return None

        def reply(i: int, rows: Any, error: BaseException | None) -> None:
            with lock:
                if state["over"]:
                    return
                if error is None:
                    replies[i] = (rows, (perf_counter_ns() - began) // 1000)
                    state["left"] -= 1
                    if state["left"]:
                        return
                state["over"] = True
            if error is not None:  # outside the lock: handing over may resume the worker right here
                on_error(error)
            else:
                on_result(replies)

        path = None
        for i, params in enumerate(each):
            try:
                path = single((self.statement, params), {}, lambda rows, i=i: reply(i, rows, None),
                              lambda error, i=i: reply(i, None, error)) or path
            except Exception as exc:  # refused before it was sent: the whole call fails, once
                reply(i, None, exc)
                break
        return path


def _all_in_flight_form(fn: Any) -> Callable[..., Any] | None:
    """runner.tasks finder: AllInFlight's asynchronous form, where its session's execute has one."""
    if not isinstance(fn, AllInFlight):
        return None
    single = async_form(fn.session.execute)
    if single is None:
        return None  # the hub runs the blocking form on a helper thread
    return lambda args, kwargs, on_result, on_error: fn.start(single, args, kwargs, on_result, on_error)


register_async_form(_all_in_flight_form)
