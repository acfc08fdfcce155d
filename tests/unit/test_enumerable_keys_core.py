"""The engine-neutral part of Enumerable Keys (phases, paging walk, verify) over an in-memory store:
a unit test of the checks themselves, so that a broken engine module cannot pass them."""

from __future__ import annotations

import threading

import pytest

from labkit.errors import ConfigError
from labkit.patterns import enumerable_keys as ek
from labkit.patterns.enumerable_keys import core
from labkit.runner import run


class MemoryComments(ek.CommentStore):
    """Numbered comments in a dict, paged like the pattern (fills gaps with further keys)."""

    engine = "memory"

    def __init__(self, *args, lose_every: int = 0, **kw):
        super().__init__(*args, **kw)
        self.rows: dict[int, str] = {}
        self.counter = 0
        self.lock = threading.Lock()
        self.lose_every = lose_every

    def reset(self):
        self.rows.clear()
        self.counter = 0

    def add(self, tx, text):
        with self.lock:
            self.counter += 1
            if not (self.lose_every and self.counter % self.lose_every == 0):
                self.rows[self.counter] = text

    def delete(self, text):
        del self.rows[next(n for n, t in self.rows.items() if t == text)]

    def stored(self):
        return sorted(self.rows.items(), reverse=True)

    def read_page(self, tx, cursor):
        return core.page_of_numbers(self.counter if cursor is None else cursor, lambda numbers: [(n, self.rows[n]) for n in numbers if n in self.rows])

    def post_size(self):
        return 8


def test_every_written_comment_is_counted_once():
    result = run(MemoryComments("pattern", "write"), threads=4, operations=120)
    assert result.verification.ok, str(result.verification)
    assert result.verification.checks == {"comments": 120, "new": 120, "deleted": 0, "pages_checked": 12}


def test_lost_comments_and_unexplained_gaps_fail_verify():
    result = run(MemoryComments("pattern", "write", lose_every=10), threads=4, operations=100)
    problems = result.verification.problems
    assert not result.verification.ok
    assert any("10 of 100 new comments are missing" in p for p in problems)
    assert any("9 key numbers are unused but no comment with them was deleted" in p for p in problems)  # 10..90; 100 is beyond the last stored


def test_deleted_comments_are_explained_gaps_and_readers_never_see_them():
    workload = MemoryComments("pattern", "paginate", comments=55, delete_every=5)
    result = run(workload, threads=3, operations=90)
    assert result.verification.ok, str(result.verification)
    assert result.verification.checks == {"comments": 44, "new": 0, "deleted": 11, "pages_checked": 5}


class CountingComments(MemoryComments):
    """Shares one dict between instances (one post in one store) and counts the comments added."""

    shared: dict[int, str] = {}
    added = 0

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.rows = CountingComments.shared

    def add(self, tx, text):
        CountingComments.added += 1
        self.counter = max(self.rows, default=0)
        super().add(tx, text)

    def read_page(self, tx, cursor):
        top = max(self.rows, default=0) if cursor is None else cursor
        return core.page_of_numbers(top, lambda numbers: [(n, self.rows[n]) for n in numbers if n in self.rows])


def test_paginate_runs_on_one_post_load_it_once_and_again_when_the_store_changed():
    CountingComments.shared, CountingComments.added = {}, 0
    first = run(CountingComments("pattern", "paginate", comments=55, delete_every=5), threads=2, operations=40)
    second = run(CountingComments("pattern", "paginate", comments=55, delete_every=5), threads=3, operations=40)
    assert CountingComments.added == 55  # the second run read what the first loaded
    for result in (first, second):
        assert result.verification.ok, str(result.verification)
        assert result.verification.checks == {"comments": 44, "new": 0, "deleted": 11, "pages_checked": 5}
    CountingComments.shared.pop(max(CountingComments.shared))  # the store no longer holds what was loaded
    third = run(CountingComments("pattern", "paginate", comments=55, delete_every=5), threads=2, operations=40)
    assert CountingComments.added == 110 and third.verification.ok, str(third.verification)
    other = run(CountingComments("pattern", "paginate", comments=60, delete_every=5), threads=2, operations=40)  # other settings: its own load
    assert CountingComments.added == 170 and other.verification.checks["comments"] == 48


def test_volume_runs_keep_what_earlier_runs_wrote():
    store = MemoryComments("naive", "volume")
    run(store, threads=1, operations=30)
    second = MemoryComments("naive", "volume")
    second.rows, second.counter = store.rows, store.counter
    result = run(second, threads=1, operations=30)
    assert result.verification.ok and result.verification.checks["comments"] == 60 and result.verification.checks["new"] == 30


def test_bad_phases_and_sizes_are_refused():
    with pytest.raises(ConfigError, match="unknown phase"):
        MemoryComments("pattern", "delete")
    with pytest.raises(ConfigError, match="at least 10 comments"):
        MemoryComments("pattern", "paginate", comments=3)
    with pytest.raises(ConfigError, match="enumerable-keys has no workload for redis"):
        ek.store_class("redis")


def test_a_sweep_it_cannot_run_is_refused_before_any_cluster_starts():
    from labkit.sweeps import SweepPlan, SweepRequest, resolve

    def plan(processes=1):
        return SweepPlan(pattern=ek.NAME, approaches=ek.APPROACHES, threads=[2], nodes=[1], operations=10, processes=processes)

    # resolve starts nothing: what it refuses is refused before any cluster starts
    with pytest.raises(ConfigError, match="processes=1"):
        resolve(SweepRequest(ek.PATTERN, plan(processes=2), phase="write"))
    with pytest.raises(ConfigError, match="at least 10 comments"):
        ek.check_plan(SweepPlan(pattern=ek.NAME, approaches=ek.APPROACHES, threads=[2], operations=10, processes=1, labels={"phase": "paginate", "comments": 5}))
    with pytest.raises(ConfigError, match="setting comments must be from 10"):
        resolve(SweepRequest(ek.PATTERN, plan(), phase="paginate", settings={"comments": 5}))
    ek.check_plan(plan())  # the defaults are fine
