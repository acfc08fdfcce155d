"""Enumerable Keys on real Cassandra and on the MongoDB and Couchbase stand-ins (mechanics only): no
comment lost under concurrent writers, pages newest first, deleted comments leave explained gaps that
the pattern's pages fill, and the list-based post grows with every comment while the pattern's does not."""

from __future__ import annotations

import pytest

from labkit.clusters.standin.couchbase import StandinCouchbase
from labkit.clusters.standin.mongodb import StandinMongo
from labkit.patterns import enumerable_keys as ek
from labkit.patterns.enumerable_keys import core
from labkit.runner import run

SERVERS = {"cassandra": None, "mongodb": StandinMongo, "couchbase": StandinCouchbase}  # Cassandra: the shared node
SHARED_CLUSTERS = ("one_node",)


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request, shared_clusters):
    if request.param == "cassandra":
        yield shared_clusters.get("one_node", __name__)
        return
    with SERVERS[request.param]() as cluster:
        yield cluster


@pytest.mark.full  # full tier: lesson 03 at smoke writes concurrent comments on every engine with both approaches and asserts every run verified
@pytest.mark.parametrize("approach", ek.APPROACHES)
def test_concurrent_comments_on_one_post_are_all_kept(server, approach):
    workload = ek.PATTERN.workload(approach, server, 400, phase="write")
    try:
        result = run(workload, threads=20, operations=400)
    finally:
        workload.close_process()
    assert result.complete and result.errors == 0, result.error_samples
    assert result.verification.ok, str(result.verification)
    assert result.verification.checks["comments"] == result.verification.checks["new"] == 400


@pytest.mark.full  # full tier: lesson 03 at smoke pages with every 7th comment deleted, and its verify checks the gaps and the order
@pytest.mark.parametrize("approach", ek.APPROACHES)
def test_pages_come_newest_first_and_fill_the_gaps_of_deleted_comments(server, approach):
    workload = ek.PATTERN.workload(approach, server, 200, phase="paginate", comments=95, delete_every=4)
    try:
        result = run(workload, threads=4, operations=200)
        assert result.complete and result.errors == 0, result.error_samples
        assert result.verification.ok, str(result.verification)
        checks = result.verification.checks
        assert checks["deleted"] == 24 and checks["comments"] == 95 - 24 and checks["pages_checked"] == 8
        from labkit.patterns.exercise import a_transaction

        first, cursor = workload.read_page(a_transaction(), None)
        newest = [text for _n, text in workload.stored()][:10]
        assert first == newest and len(first) == 10 and cursor is not None
    finally:
        workload.close_process()


def test_volume_runs_keep_earlier_comments_and_only_the_list_grows_the_post(server):
    """Through `volume_runs`, the lesson's own path: the post emptied (and its tables made) once, then runs that keep it."""
    sizes = {}
    for approach in ek.APPROACHES:
        grew = []
        for _n, result, workload in ek.volume_runs(server, approach, runs=2, per_run=100):
            assert result.verification.ok, str(result.verification)
            grew.append((result.verification.checks["comments"], workload.post_size()))
        sizes[approach] = grew
    # volume runs do not empty the post: the second run counts the first one's comments too
    assert [c for c, _s in sizes["naive"]][-1] >= 200 and [c for c, _s in sizes["pattern"]][-1] >= 200
    assert sizes["naive"][1][1] > sizes["naive"][0][1] > 100 * 50  # the list is inside the post: it grows per comment
    assert sizes["pattern"][1][1] == sizes["pattern"][0][1] < 1000  # the pattern's post holds a counter only


@pytest.mark.full  # full tier: the unit tests feed verify lost comments; every lesson 03 verify reads the engines' stored comments
def test_a_lost_update_is_caught_by_verify(server):
    class ForgetsEveryTenth(ek.store_class(server.info().engine)):
        def add(self, tx, text):
            if int(core.tag_of(text).rsplit("-", 1)[1]) % 10:
                super().add(tx, text)

    workload = ForgetsEveryTenth.for_cluster(server, "pattern", "write")
    try:
        result = run(workload, threads=4, operations=100)
    finally:
        workload.close_process()
    assert not result.verification.ok and "10 of 100 new comments are missing" in str(result.verification)
