"""Fan-out on read and fan-out on write answer the same question on a real node: for several readers, the first
three pages gathered from the followed users' partitions are the pages read from the reader's feed partition
(the same activities, in the same order), and both are the network's feed. Once with the lab's network (each
author's times distinct) and once with every author posting at the same instants, so that every page breaks
between activities of equal time (the feed's clustering orders them by author, descending)."""

from __future__ import annotations

import pytest

from labkit.patterns.exercise import a_transaction
from labkit.patterns.fan_out.cassandra import FanOut
from labkit.patterns.fan_out.core import EPOCH_MS, Network

SHARED_CLUSTERS = ("one_node",)


class SameInstants(Network):
    """The lab's network, but every user's k-th activity at the same instant: ties across authors everywhere."""

    @staticmethod
    def created_at(user: int, k: int) -> int:
        return EPOCH_MS + k * 1000


@pytest.fixture(scope="module")
def node(shared_clusters):
    return shared_clusters.get("one_node", __name__)


@pytest.mark.parametrize("network", [Network(users=30, follows=12, posts=5), SameInstants(users=30, follows=12, posts=5)],
                         ids=["distinct times", "equal times across authors"])
def test_fan_out_on_read_shows_the_pages_fan_out_on_write_shows(node, network):
    """12 followed users, 5 activities each: a feed of 60, more followed users than a page holds (the source's
    shortcut, one activity from each of 10 followed users, showed other pages here from the first on)."""
    on_write = FanOut(node.addresses, "pattern", "paginate", network)
    on_read = FanOut(node.addresses, "naive", "paginate", network)
    try:
        on_write.setup()
        on_write.load()  # every activity, and its copy in each follower's feed: this load serves both approaches
        on_read.setup()
        on_read.load()
        tx = a_transaction()
        for reader in (0, 7, 14, 21, 28):
            feed = network.expected_feed(reader)
            for page in range(3):
                gathered, stored = on_read.paginate(tx, reader), on_write.paginate(tx, reader)
                assert gathered == stored == feed[page * 10:(page + 1) * 10], (reader, page, gathered, stored)
                assert len(gathered) == 10
        assert on_read.read_whole_feed(tx, 3) == on_write.read_whole_feed(tx, 3) == network.expected_feed(3)
    finally:
        on_write.close_process()
        on_read.close_process()
