"""Many transactions in flight in one client process, without one OS thread per transaction.

With a thread per in-flight transaction, one Python process spends its time handing the interpreter lock
from thread to thread and reaches well under what the driver itself can do (measured: 16 threads, 0.44
of the driver's own callback loop). Here each worker is a greenlet, a lightweight coroutine that keeps
the workload's code as plain sequential steps: `tx.call(op, session.execute, ...)` starts the request
with the driver's own asynchronous call (where the engine module names one, see `async_forms`), parks the
worker, and a hub running in the pool's thread resumes it when the driver's callback posts the reply.
A call with no asynchronous form runs on a helper thread instead, so any driver keeps working (at the
speed of threads). Sleeps (pacing, retry backoff) are hub timers, never blocking waits.

A driver whose replies arrive on an asyncio event loop (a native-core driver, engines.cassandra_calls) asks
the hub for one (`Hub.event_loop()`): the hub then waits by running that loop in its own thread, so the
driver's completions resume their workers with no thread hand-off.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import queue
import signal
import threading
import time
import types
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, TypeVar

import greenlet

AsyncStarter = Callable[[tuple, dict, Callable[[Any], None], Callable[[BaseException], None]], "str | None"]
"""start(args, kwargs, on_result, on_error): begin the operation and arrange for exactly one callback; it may
return the name of the client path it took (counted in `Hub.calls`)."""

ASYNC_PATH = "driver async"
HELPER_PATH = "helper thread"

HELD_S = 0.005
"""A worker's turn on the hub (from resuming it to its next wait) normally lasts microseconds; one of 5 ms
or more means it blocked the thread, and with it every other worker of the process."""

_CURRENT = threading.local()  # the hub running in this thread, if any

_ASYNC_FORMS: list[Callable[[Callable[..., Any]], AsyncStarter | None]] = []


def register_async_form(finder: Callable[[Callable[..., Any]], AsyncStarter | None], first: bool = False) -> None:
    """Engine modules register a finder: given the blocking callable a workload passes to `tx.call`,
    return how to start the same operation asynchronously, or None when it has no asynchronous form.
    `first`: asked before the finders already registered (a faster path for calls another finder also knows)."""
    if finder not in _ASYNC_FORMS:
        _ASYNC_FORMS.insert(0, finder) if first else _ASYNC_FORMS.append(finder)


def async_form(fn: Callable[..., Any]) -> AsyncStarter | None:
    for finder in _ASYNC_FORMS:
        starter = finder(fn)
        if starter is not None:
            return starter
    return None


Kept = TypeVar("Kept")


class Hub:
    """Runs worker greenlets in the calling thread: resumes each when its reply, timer or turn comes."""

    def __init__(self, cancel: threading.Event, helper_threads: int):
        self._cancel = cancel
        self._posted: queue.SimpleQueue = queue.SimpleQueue()  # (greenlet, value, error), from any thread
        self._timers: list[tuple[float, int, greenlet.greenlet]] = []
        self._order = itertools.count()
        self._helper_threads = max(1, helper_threads)
        self._helpers: ThreadPoolExecutor | None = None
        self._loop: greenlet.greenlet | None = None
        self.offloaded = 0  # calls that had no asynchronous form and ran on a helper thread
        self.held_s = 0.0  # time in turns of at least HELD_S, when one worker kept all the others waiting
        self._turn_began = 0.0
        self._alive = 0  # workers not finished yet (run's loop ends at 0)
        self.calls: Counter[str] = Counter()  # measured calls started, per client path (ASYNC_PATH, HELPER_PATH, or a driver's own)
        self.released = False  # the measured window is open (set with restart_held_clock): calls from here on count in `calls`
        self._aio: asyncio.AbstractEventLoop | None = None  # see event_loop()
        self._wakeup: asyncio.Future | None = None  # set while the hub waits inside its event loop
        self._thread = threading.get_ident()
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._kept: dict[type, Any] = {}  # what engines keep for this hub's run, one object per class (see kept())

    def event_loop(self) -> asyncio.AbstractEventLoop:
        """The asyncio loop of this hub, made on first use (from a worker, in the hub's thread): from then on
        the hub waits by running it, so futures of that loop complete while the workers are parked."""
        if self._aio is None:
            self._aio = asyncio.new_event_loop()
        return self._aio

    def kept(self, kind: type[Kept], make: Callable[[], Kept]) -> Kept:
        """The hub's one `kind` object, made by `make()` on first ask: where an engine keeps what lives as long as
        this run's workers (its sessions' native twins), in a class of its own rather than attributes on the hub."""
        found = self._kept.get(kind)
        if not isinstance(found, kind):
            found = self._kept[kind] = make()
        return found

    def close_when_done(self, close: Callable[[], Awaitable[None]]) -> None:
        """Await `close()` on the hub's event loop once every worker has finished (e.g. a driver's session
        opened for this run)."""
        self._closers.append(close)

    def _post(self, item: tuple) -> None:
        """Hand a reply (or a wake-up) to the hub, from any thread. A reply that arrives in a callback of the
        hub's own event loop resumes its worker right there, as the loop's other callbacks go on: no queue, no
        leaving the loop (the hub's loop greenlet is the one running that callback)."""
        wakeup = self._wakeup
        if wakeup is None:
            self._posted.put(item)
        elif threading.get_ident() != self._thread:
            self._posted.put(item)
            wakeup.get_loop().call_soon_threadsafe(_settle, wakeup)  # the hub's own loop
        elif greenlet.getcurrent() is self._loop:
            self._resume(*item)
            if self._alive <= 0:
                _settle(wakeup)
        else:  # from a worker (a barrier waking the others): the hub resumes it after this worker parks
            self._posted.put(item)
            _settle(wakeup)

    # --- called from worker greenlets -------------------------------------------------------------

    def invoke(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """Run one blocking-style call without blocking the other workers; returns its result or raises."""
        me = greenlet.getcurrent()
        post = self._post
        starter = async_form(fn)
        if starter is None:
            self.offloaded += 1
            if self.released:
                self.calls[HELPER_PATH] += 1
            if self._helpers is None:
                self._helpers = ThreadPoolExecutor(self._helper_threads, thread_name_prefix="labkit-call")
            future = self._helpers.submit(fn, *args, **kwargs)
            future.add_done_callback(lambda f: post((me, None, f.exception())) if f.exception() else post((me, f.result(), None)))
        else:
            path = starter(args, kwargs, lambda value: post((me, value, None)), lambda error: post((me, None, error)))
            if self.released:
                self.calls[path or ASYNC_PATH] += 1
        return self._park()

    def sleep(self, seconds: float) -> bool:
        """Park this worker for `seconds` (cut short by cancellation); False when the run was cancelled."""
        if seconds > 0 and not self._cancel.is_set():
            self._add_timer(seconds)
            self._park()
        return not self._cancel.is_set()

    def nap(self, seconds: float) -> None:
        """Park this worker for about `seconds` even when the run is cancelled (WorkerLock's wait)."""
        self._add_timer(seconds)
        self._park()

    def _add_timer(self, seconds: float) -> None:
        entry = (time.monotonic() + seconds, next(self._order), greenlet.getcurrent())
        heapq.heappush(self._timers, entry)
        if self._wakeup is not None and self._timers[0] is entry:  # earlier than the event loop's wait was told: end that wait
            _settle(self._wakeup)

    def wake(self, worker: greenlet.greenlet) -> None:
        """Let a parked worker go on (e.g. from a barrier): it is resumed on the hub's next turn."""
        self._post((worker, None, None))

    def _park(self) -> Any:
        assert self._loop is not None and greenlet.getcurrent() is not self._loop, "park only from a worker greenlet"
        return self._loop.switch()

    # --- the hub itself ---------------------------------------------------------------------------

    def run(self, workers: list[greenlet.greenlet], on_tick: Callable[[], None] | None = None, tick_s: float = 0.1) -> bool:
        """Start every worker and resume them until all have finished; True when Ctrl-C interrupted the run
        (the run is then cancelled and the workers finish their current call first).

        The loop is the runner's hot path at many calls in flight: one blocking wait per batch of replies,
        then every reply already posted is handed to its worker in the same turn."""
        with self._ctrl_c_cancels() as ctrl_c:
            interrupted = self._run(workers, on_tick, tick_s)
        return interrupted or ctrl_c.pressed

    @contextlib.contextmanager
    def _ctrl_c_cancels(self):
        """While the hub runs in the main thread, the first Ctrl-C cancels the run instead of raising
        KeyboardInterrupt: raised between taking a reply off the queue and handing it to its worker, the
        exception would lose the reply and leave that worker parked for ever (seen: a `labkit run` that
        ignored Ctrl-C). A second Ctrl-C is an ordinary KeyboardInterrupt again."""
        state = types.SimpleNamespace(pressed=False)
        if threading.current_thread() is not threading.main_thread():
            yield state  # signals reach the main thread only
            return
        previous = signal.getsignal(signal.SIGINT)

        def cancel_run(signum: int, frame: Any) -> None:
            state.pressed = True
            self._cancel.set()
            signal.signal(signal.SIGINT, previous)

        signal.signal(signal.SIGINT, cancel_run)
        try:
            yield state
        finally:
            signal.signal(signal.SIGINT, previous)

    def _run(self, workers: list[greenlet.greenlet], on_tick: Callable[[], None] | None, tick_s: float) -> bool:
        self._loop = greenlet.getcurrent()
        self._thread = threading.get_ident()
        _CURRENT.hub = self
        interrupted = False
        clock = time.monotonic
        get_nowait, empty = self._posted.get_nowait, queue.Empty
        queue_get = self._posted.get
        resume, timers, cancel = self._resume, self._timers, self._cancel
        next_tick = clock() + tick_s
        self._alive = len(workers)
        for worker in workers:
            resume(worker, None, None)
        while self._alive > 0:
            try:
                now = clock()
                if timers:
                    if cancel.is_set():  # cancelled: sleepers need not wait out their timers
                        due, timers[:] = sorted(timers), []  # those parked now; new naps wait a turn
                        for _when, _order, worker in due:
                            resume(worker, None, None)
                    while timers and timers[0][0] <= now:
                        resume(heapq.heappop(timers)[2], None, None)
                wait = (min(next_tick, timers[0][0]) if timers else next_tick) - now
                get = queue_get if self._aio is None else self._wait_in_event_loop
                try:
                    item = get(timeout=wait) if wait > 0 else get_nowait()
                except empty:
                    item = None
                while item is not None:  # everything already posted, in one turn
                    resume(*item)
                    try:
                        item = get_nowait()
                    except empty:
                        item = None
                if clock() >= next_tick:
                    next_tick = clock() + tick_s
                    if on_tick is not None:
                        on_tick()
            except KeyboardInterrupt:
                interrupted = True
                cancel.set()
        _CURRENT.hub = None
        if self._helpers is not None:
            self._helpers.shutdown(wait=False, cancel_futures=True)
        if self._aio is not None:
            self._close_event_loop(self._aio)
        return interrupted

    def _wait_in_event_loop(self, timeout: float) -> Any:
        """queue.get(timeout=) for a hub with an event loop: run the loop until something is posted (its
        callbacks post replies in this thread) or `timeout` passes; raises queue.Empty as get() does."""
        try:
            return self._posted.get_nowait()
        except queue.Empty:
            pass
        loop = self.event_loop()  # made already: the hub waits this way only once it has one
        wakeup = self._wakeup = loop.create_future()
        try:
            if self._posted.empty():  # a post from another thread between the two checks has seen no wakeup
                timer = loop.call_later(timeout, _settle, wakeup)
                with _outside_any_running_loop():
                    loop.run_until_complete(wakeup)
                timer.cancel()
        finally:
            self._wakeup = None
        return self._posted.get_nowait()

    def _close_event_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        closers, self._closers = self._closers, []
        try:
            with _outside_any_running_loop():
                if closers:
                    loop.run_until_complete(_close_all(closers))
                loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
            self._aio = None

    def _resume(self, worker: greenlet.greenlet, value: Any, error: BaseException | None) -> None:
        if worker.dead:
            return
        self._turn_began = began = time.perf_counter()
        try:
            if error is not None:
                worker.throw(error)
            else:
                worker.switch(value)
        finally:
            if worker.dead:
                self._alive -= 1
        held = time.perf_counter() - max(began, self._turn_began)
        if held >= HELD_S:  # one worker kept every other one waiting: a driver call outside tx.call, or long Python work
            self.held_s += held

    def restart_held_clock(self) -> None:
        """Count held turns from now on (the measured window opens inside a worker's turn)."""
        self._turn_began = time.perf_counter()
        self.held_s = 0.0
        self.released = True


@contextlib.contextmanager
def _outside_any_running_loop():
    """Run the hub's own loop in a thread where another one is running: a Jupyter kernel runs each cell
    inside its asyncio loop, and asyncio refuses to run a second loop there. The kernel's loop is paused
    anyway while the cell's run() blocks; it is put back afterwards."""
    outer = asyncio.events._get_running_loop()
    if outer is None:
        yield
        return
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(outer)


async def _close_all(closers: list[Callable[[], Awaitable[None]]]) -> None:
    await asyncio.gather(*(close() for close in closers), return_exceptions=True)


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


class GreenletBarrier:
    """threading.Barrier's contract for greenlets of one hub: the last to arrive runs `action` (which
    may block: every other worker is parked), then everyone goes on; `abort()` breaks it for all."""

    def __init__(self, parties: int, hub: Hub, action: Callable[[], None] | None = None):
        self._parties = parties
        self._hub = hub
        self._action = action
        self._waiting: list[greenlet.greenlet] = []
        self.broken = False

    def wait(self) -> None:
        if self.broken:
            raise threading.BrokenBarrierError
        self._waiting.append(greenlet.getcurrent())
        if len(self._waiting) < self._parties:
            self._hub._park()
            if self.broken:
                raise threading.BrokenBarrierError
            return
        waiting, self._waiting = self._waiting, []
        try:
            if self._action is not None:
                self._action()
        except BaseException:
            self.abort(waiting)
            raise
        for worker in waiting[:-1]:
            self._hub.wake(worker)

    def abort(self, waiting: list[greenlet.greenlet] | None = None) -> None:
        self.broken = True
        me = greenlet.getcurrent()
        for worker in (waiting if waiting is not None else self._waiting):
            if worker is not me:
                self._hub.wake(worker)
        self._waiting = []


def current_hub() -> Hub | None:
    """The hub whose worker is running in this thread, or None (thread workers, or outside a run)."""
    hub = getattr(_CURRENT, "hub", None)
    return hub if hub is not None and greenlet.getcurrent() is not hub._loop else None


class WorkerLock:
    """A lock for workload state that workers share, held across database calls (e.g. one reader's page
    cursor). It blocks a thread worker like threading.Lock; a greenlet worker waits by parking instead,
    because a greenlet that blocked its thread would stop every worker of the process, the holder
    included, which is waiting for its reply: a plain threading.Lock held across `tx.call` deadlocks there."""

    NAP_S = 0.0002

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> "WorkerLock":
        if not self._lock.acquire(blocking=False):
            hub = current_hub()
            if hub is None:
                self._lock.acquire()
            else:
                while not self._lock.acquire(blocking=False):
                    hub.nap(self.NAP_S)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._lock.release()
