"""The bibliography generator: seeded, streaming, and shaped like the source's DBLP extract."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from labkit.datasets.bibliography import Bibliography, author_name
from labkit.errors import ConfigError


@pytest.fixture(scope="module")
def stats():
    bib = Bibliography(20_000)
    pubs = list(bib.stream())
    return bib.stats.summary(), pubs


def test_shape_matches_the_source(stats):
    summary, _ = stats
    assert abs(summary["authors_per_publication"] - 2.85) < 0.1, summary
    assert abs(summary["publications_per_author"] - 5.46) < 0.3, summary


def test_author_productivity_is_long_tailed(stats):
    summary, _ = stats
    assert summary["max_publications_of_an_author"] >= 20 * summary["publications_per_author"], summary
    assert 0.15 < summary["share_of_authors_with_one_publication"] < 0.6, summary
    assert summary["share_of_authorships_by_top_1pct_authors"] > 0.08, summary  # 1% of authors write well over 1% of the authorships


def test_records_are_well_formed(stats):
    _, pubs = stats
    assert len({p.pub_id for p in pubs}) == len(pubs)
    for p in pubs[:2000]:
        assert p.authors and len(set(p.authors)) == len(p.authors)  # nobody twice on one paper
        assert 1970 <= p.year <= 2016 and p.title and p.venue
    ids = {p.pub_id for p in pubs}
    assert all(c in ids for p in pubs[:2000] for c in p.citations)  # citations point at real (earlier) records


def test_same_seed_same_records_and_prefix_stable():
    small = [p for p in Bibliography(300, seed=5).stream()]
    again = list(itertools.islice(Bibliography(5000, seed=5).stream(), 300))
    assert small == again
    assert small != list(Bibliography(300, seed=6).stream())


def test_streams_without_building_the_whole_set():
    stream = Bibliography(10_000_000).stream()
    first = next(stream)  # would take minutes (and gigabytes) if the generator built the list first
    assert first.pub_id and first.authors


def test_author_names_are_unique():
    names = [author_name(n) for n in range(5000)]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_size_is_refused(bad):
    with pytest.raises(ConfigError, match="whole number of publications"):
        Bibliography(bad)


def test_command_line_writes_json_lines_and_statistics():
    r = subprocess.run([sys.executable, "-m", "labkit.datasets.bibliography", "--publications", "50"], capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    assert len(lines) == 50 and json.loads(lines[0])["authors"]
    assert json.loads(r.stderr)["publications"] == 50
