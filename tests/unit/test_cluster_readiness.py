"""A local Cassandra start that does not converge says which node lacks what, and probes retry nodes often."""

from __future__ import annotations

from types import SimpleNamespace

from cassandra.policies import ConstantReconnectionPolicy

from labkit.clusters.local.cassandra import _ring_gaps
from labkit.engines import cassandra as cql

EVERY = {"127.9.9.1", "127.9.9.2", "127.9.9.3"}
NAMES = {"127.9.9.1": "node1", "127.9.9.2": "node2", "127.9.9.3": "node3"}


def _peer(address, **missing):
    row = dict(peer=address, data_center="dc1", rack="rack1", host_id="h-" + address, native_address=address, tokens={"1"})
    return SimpleNamespace(**{**row, **missing})


def _gossip(address, status="NORMAL,-1", rpc_ready="true"):
    return SimpleNamespace(address=address, status_with_port=status, rpc_ready=rpc_ready)


def test_a_node_that_knows_every_other_node_has_no_gaps():
    peers = [_peer("127.9.9.2"), _peer("127.9.9.3")]
    gossip = [_gossip(a) for a in sorted(EVERY)]
    assert _ring_gaps("127.9.9.1", EVERY, peers, gossip, NAMES) is None


def test_gaps_name_the_node_with_a_partial_peers_row_and_the_one_not_yet_normal():
    peers = [_peer("127.9.9.2"), _peer("127.9.9.3", host_id=None)]
    gossip = [_gossip("127.9.9.1"), _gossip("127.9.9.2", status="BOOT,123", rpc_ready="false")]
    gaps = _ring_gaps("127.9.9.1", EVERY, peers, gossip, NAMES)
    assert gaps == ("has no complete peers row for node3 and does not see NORMAL with CQL ready: "
                    "node2 (BOOT,123, rpc_ready false); node3 (not in gossip)")


def test_a_readiness_probe_retries_a_refusing_node_every_half_second_not_with_doubling_back_off(monkeypatch):
    built = {}

    class Recorder:
        def __init__(self, **options):
            built.update(options)

        def connect(self, keyspace):
            return "session"

    monkeypatch.setattr(cql, "Cluster", Recorder)
    assert cql.connect(["127.9.9.1"], metadata=False, probe=True) == "session"
    policy = built["reconnection_policy"]
    assert isinstance(policy, ConstantReconnectionPolicy)
    assert list(zip(range(3), policy.new_schedule())) == [(0, 0.5), (1, 0.5), (2, 0.5)]
    built.clear()
    cql.connect(["127.9.9.1"])
    assert "reconnection_policy" not in built  # sessions that run workloads keep the driver's default
