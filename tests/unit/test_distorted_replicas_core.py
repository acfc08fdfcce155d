"""Distorted Replicas' data plans: which groups a transaction touches, what an update writes, the publish
schedule, and shard placement with filters kept in step through moves and deletions."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.catalogue import describe
from labkit.patterns.distorted_replicas.core import GROUP_NAMES, Corpus, Placement, group_state, groups_for, revised, values


def test_groups_rotate_so_each_is_touched_equally():
    touched = [g for n in range(300) for g in groups_for(n, 2)]
    assert {g: touched.count(g) for g in GROUP_NAMES} == {g: 200 for g in GROUP_NAMES}
    with pytest.raises(ConfigError):
        groups_for(0, 4)


def test_an_update_changes_one_field_in_place_and_is_recognised():
    pub = Corpus(50).loaded[10]
    for g in GROUP_NAMES:
        new = {**values(pub, g), **revised(pub, g)}
        assert len(revised(pub, g)) == 1 and set(new) == set(values(pub, g))
        assert {**new, **revised(pub, g)} == new  # applying it twice changes nothing
        assert "revised" in group_state(pub, g, new)
        assert "original" in group_state(pub, g, values(pub, g))
        assert not group_state(pub, g, {**values(pub, g), **{f: None for f in values(pub, g)}})


def test_publish_schedule_three_in_one_out():
    c = Corpus(100, extra=75)
    ops = c.publish_ops(100)
    assert [k for k, _ in ops[:8]] == ["insert"] * 3 + ["delete"] + ["insert"] * 3 + ["delete"]
    after = c.after_publishing(100)
    assert len(after) == 100 - 25 + 75 and len({p.pub_id for p in after}) == len(after)
    with pytest.raises(ConfigError, match="fewer operations"):
        c.publish_ops(200)


def test_placement_filters_have_no_false_negatives_after_moves_and_deletions():
    p = Placement(Corpus(1500), moved=0.1, deleted=0.1)
    assert sum(1 for h in p.history if h[0] == "move") == 150 and sum(1 for h in p.history if h[0] == "delete") == 150
    filters = p.build_filters()
    final = p.final()
    assert sum(len(v) for v in final.values()) == 1350  # moved ones stay, withdrawn ones go
    for shard, pubs in final.items():
        assert all(filters[shard].might_contain(a) for pub in pubs for a in pub.authors)
    author = p.authors()[3]
    assert p.expected(author) == sorted(pub.pub_id for pubs in final.values() for pub in pubs if author in pub.authors)


def test_a_withdrawn_authors_filter_bucket_empties():
    p = Placement(Corpus(800), moved=0.0, deleted=0.5)
    filters = p.build_filters()
    left = set(p.authors())
    gone = {a for pub in p.corpus.loaded for a in pub.authors} - left
    assert gone
    still_maybe = sum(1 for a in gone if any(f.might_contain(a) for f in filters))
    assert still_maybe / len(gone) < 0.1  # removed again, bar the odd false positive


def test_description_and_refusals():
    pattern = describe("distorted-replicas")
    assert pattern.phases == ("read", "update", "by-author", "publish", "route")
    assert pattern.resolve("read", {"groups": 3})["groups"] == 3
    with pytest.raises(ConfigError, match="groups must be from 1 to 3"):
        pattern.resolve("read", {"groups": 4})
    with pytest.raises(ConfigError, match="is for phase read, update"):
        pattern.resolve("route", {"groups": 2})
    from labkit.patterns.distorted_replicas.cassandra import DistortedReplicas, cluster_options

    assert cluster_options("route", {}) == {"dcs": 2} and cluster_options("read", {}) == {}
    with pytest.raises(ConfigError, match="operation count"):
        DistortedReplicas(["127.0.0.1"], "pattern", "update", 100)
    with pytest.raises(ConfigError, match="groups must be from 1 to 3"):
        DistortedReplicas(["127.0.0.1"], "pattern", "read", 100, groups=0)
    assert DistortedReplicas(["127.0.0.1"], "naive", "publish", 100, operations=40).corpus.publish_ops(40)[3][0] == "delete"
    from labkit.patterns.distorted_replicas.cassandra_routing import ShardRouting

    with pytest.raises(ConfigError, match="datacenters dc1 and dc2"):
        ShardRouting({"dc1": ["127.0.0.1"]}, "pattern", 100)
