"""The notebooks' quoted figures are the committed benchmark results, and stay so.

`notebooks/claims.toml` ties every quoted ratio ("1.9x", "0.43") to the rows of `benchmarks/results/` it
comes from: the sentence as the notebook says it, then each figure in the order it appears, with the
file, the rows (`where`), the column and how the rows reduce to it (one value, median, min, max, a range
"a-b", or one reduction divided by another). A figure that no longer matches its rows (a re-run benchmark,
an edited sentence) fails here, and so does an "Nx" figure in a notebook's text that no claim or quote
accounts for. Quotes are figures from elsewhere (the source paper, a threshold, arithmetic), each with why.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "notebooks" / "claims.toml"
RESULTS = ROOT / "benchmarks" / "results"
RATIO = re.compile(r"\d+(?:\.\d+)?\s?[x×](?![a-zA-Z])")
NUMBER = r"\d[\d,]*(?:\.\d+)?"


def load() -> dict:
    return tomllib.loads(CLAIMS.read_text())


@lru_cache(maxsize=None)
def markdown(notebook: str) -> str:
    """The notebook's text cells, joined; whitespace runs made single spaces (claims quote across line breaks)."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", text)


@lru_cache(maxsize=None)
def rows(name: str) -> list[dict[str, str]]:
    with open(RESULTS / name, newline="") as f:
        return list(csv.DictReader(f))


def _equal(have: str, wanted) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        try:
            return float(have) == float(wanted)
        except ValueError:
            return False
    return have == str(wanted)


def _matches(row: dict[str, str], where: dict) -> bool:
    """Every `where` column has the value given (or one of the values, for a list)."""
    for key, wanted in where.items():
        if key not in row:
            raise KeyError(f"no column {key!r}")
        if not any(_equal(row[key], w) for w in (wanted if isinstance(wanted, list) else [wanted])):
            return False
    return True


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def interval(spec: dict, chosen: list[dict[str, str]]):
    """`reduce = "interval"`: the raw rows' `numerator` / `denominator` approach, paired by `repeat` (and by
    the `pair_on` columns, if given), as results.intervals computes it for the notebooks and the report. With
    `between = COLUMN`, numerator and denominator are two values of that column whose runs are independent
    (e.g. nodes 8 over nodes 1: different clusters), compared by a Welch interval on their logs. With
    `numerator_column`/`denominator_column`, each chosen row gives one ratio of two of its columns (a tactic's
    p95 before / after, within one run) and the rows' ratios get their interval."""
    from labkit.results.intervals import columns_interval, interval_of

    if "numerator_column" in spec:  # two columns of one run (e.g. p95 before / after a tactic): one ratio per row
        found = columns_interval(chosen, spec["numerator_column"], spec["denominator_column"])
        assert found is not None, f"{spec['file']} {spec.get('where')}: no rows to divide"
        return found
    keys = spec.get("pair_on", [])
    found = interval_of(chosen, spec["column"], spec["numerator"], spec["denominator"], between=spec.get("between", "approach"),
                        pair_on=keys if isinstance(keys, list) else [keys], paired=spec.get("paired", False))
    assert found is not None, f"{spec['file']} {spec.get('where')}: no runs of {spec['numerator']} and {spec['denominator']} to compare"
    return found


def reduce(spec: dict) -> list[float]:
    """The figure(s) a spec names: one number, two for a range, three for an interval (estimate, low, high)."""
    chosen = [r for r in rows(spec["file"]) if _matches(r, spec.get("where", {}))]
    if not chosen:
        raise AssertionError(f"no row of {spec['file']} has {spec.get('where')}")
    if spec.get("reduce") == "interval":
        found = interval(spec, chosen)
        return [found.estimate, found.low, found.high]
    columns = spec["column"] if isinstance(spec["column"], list) else [spec["column"]]  # several: their values pooled
    values = [_number(r[c]) * spec.get("scale", 1.0) for r in chosen for c in columns]
    if "pair_on" in spec:  # row by row: each chosen row over the `divide_by` row with the same pair_on value
        key, below = spec["pair_on"], spec["divide_by"]
        values = []
        for r in chosen:
            (other,) = [o for o in rows(spec["file"]) if _matches(o, {**below["where"], key: r[key]})]
            values.append(_number(r[spec["column"]]) / _number(other[below["column"]]))
    how = spec.get("reduce", "value")
    if how == "value":
        assert len(values) == 1, f"{spec['file']} {spec.get('where')}: {len(values)} rows, expected one"
        out = [values[0]]
    elif how == "range":
        out = [min(values), max(values)]
    elif how == "each":  # one figure written for several rows ("2.0x at 4 and 8"): each must round to it
        out = values
    else:
        out = [{"median": statistics.median, "min": min, "max": max, "mean": statistics.mean, "sum": sum}[how](values)]
    if "divide_by" in spec and "pair_on" not in spec:
        (below,) = reduce({"file": spec["file"], **spec["divide_by"]})
        out = [v / below for v in out]
    return out


def _agrees(written: str, computed: float) -> bool:
    """`written` is `computed` rounded to the digits it shows (half a unit of its last digit either way)."""
    decimals = len(written.split(".")[1]) if "." in written else 0
    return abs(_number(written) - computed) <= 0.5 * 10 ** -decimals + 1e-9


CLAIM_LIST = load()["claim"]


@pytest.mark.parametrize("claim", CLAIM_LIST, ids=[f"{c['notebook'][:2]}: {c['says'][:50]}" for c in CLAIM_LIST])
def test_each_quoted_figure_is_the_committed_result(claim):
    text = markdown(claim["notebook"])
    says = re.sub(r"\s+", " ", claim["says"])
    assert says in text, f"{claim['notebook']} no longer says {says!r}: update the claim with the sentence"
    position = 0
    for figure in claim["figure"]:
        written = figure["value"]
        found = re.compile(r"(?<![\d.])" + re.escape(written) + r"(?![\d])").search(says, position)
        assert found, f"{written!r} is not in {says!r} after position {position}"
        position = found.end()
        numbers = re.findall(NUMBER, written)
        computed = reduce(figure)
        if figure.get("reduce") == "interval":  # an effect whose interval holds 1 must be called what it is
            found = interval(figure, [r for r in rows(figure["file"]) if _matches(r, figure.get("where", {}))])
            assert found.verdict == "effect" or found.verdict in says, (
                f"{claim['notebook']} quotes {written!r}, whose interval is {found.text()}: the sentence must say {found.verdict!r}")
        if figure.get("reduce") == "each":
            numbers = numbers * len(computed)
        assert len(numbers) == len(computed), f"{written!r}: {len(numbers)} numbers written, {len(computed)} computed"
        for shown, value in zip(numbers, computed):
            assert _agrees(shown, value), (
                f"{claim['notebook']} says {written!r} in {says!r}, but {figure['file']} gives {value:.4g} "
                f"({figure.get('reduce', 'value')} of {figure.get('column') or figure.get('numerator_column')} where {figure.get('where', {})})"
            )


def test_every_ratio_in_the_notebooks_is_claimed_or_quoted():
    data = load()
    covered: dict[str, list[str]] = {}
    for entry in data["claim"] + data.get("quote", []):
        covered.setdefault(entry["notebook"], []).append(re.sub(r"\s+", " ", entry["says"]))
    loose = []
    for notebook in sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")):
        text = markdown(notebook)
        spans = [(m.start(), m.end()) for says in covered.get(notebook, []) for m in re.finditer(re.escape(says), text)]
        for m in RATIO.finditer(text):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                loose.append(f"{notebook}: ...{text[max(0, m.start() - 60):m.end() + 20]}...")
    assert not loose, "figures no claim or quote in notebooks/claims.toml accounts for:\n" + "\n".join(loose)


def test_quotes_say_why_they_are_not_our_results():
    for quote in load().get("quote", []):
        assert quote.get("why"), f"quote {quote['says']!r} needs a why"
        assert re.sub(r"\s+", " ", quote["says"]) in markdown(quote["notebook"]), f"{quote['notebook']} no longer says {quote['says']!r}"


def test_an_interval_claim_is_recomputed_from_paired_raw_rows(monkeypatch, tmp_path):
    """`reduce = "interval"` pairs the raw rows of each repeat and gives estimate, low and high (this test's own guard)."""
    from labkit.results.intervals import ratio_interval

    raw = [{"approach": a, "repeat": str(i), "nodes": "3", "throughput": str(v)}
           for i, (n, p) in enumerate(((100, 260), (120, 290), (90, 250))) for a, v in (("naive", n), ("pattern", p))]
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    spec = {"file": "x.csv", "where": {"nodes": 3}, "column": "throughput", "reduce": "interval", "numerator": "pattern", "denominator": "naive"}
    expected = ratio_interval([2.6, 290 / 120, 250 / 90])
    assert reduce(spec) == [expected.estimate, expected.low, expected.high]
    numbers = re.findall(NUMBER, expected.text().split(" (")[0] + " " + expected.text().split("(")[1])
    assert all(_agrees(shown, value) for shown, value in zip(numbers, reduce(spec)))


def test_an_interval_between_two_values_of_a_column_compares_independent_runs(monkeypatch):
    """`between = "nodes"`: runs at 8 nodes over runs at 1 node, a Welch interval (this test's own guard)."""
    from labkit.results.intervals import unpaired_ratio_interval

    raw = [{"approach": "pattern", "repeat": str(i), "nodes": str(n), "complete": "True", "control_copy": str(copy), "cpu": str(v)}
           for n, values in ((1, (0.5, 0.55, 0.6)), (8, (2.0, 2.4, 2.2))) for i, v in enumerate(values) for copy in (False,)]
    raw.append({"approach": "pattern", "repeat": "0", "nodes": "8", "complete": "True", "control_copy": "True", "cpu": "9.0"})  # left out
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    spec = {"file": "x.csv", "where": {"approach": "pattern"}, "column": "cpu", "reduce": "interval", "between": "nodes",
            "numerator": 8, "denominator": 1}
    expected = unpaired_ratio_interval([2.0, 2.4, 2.2], [0.5, 0.55, 0.6])
    assert reduce(spec) == [expected.estimate, expected.low, expected.high]


def test_an_interval_of_two_columns_divides_each_run_by_itself(monkeypatch):
    """`numerator_column`/`denominator_column`: one ratio per row (a tactic's p95 before / after), then their interval."""
    from labkit.results.intervals import ratio_interval

    raw = [{"run": "x", "repeat": str(i), "before": str(b), "after": str(a)} for i, (b, a) in enumerate(((17, 4.8), (20, 5.0), (15, 4.0)))]
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    spec = {"file": "x.csv", "where": {"run": "x"}, "reduce": "interval", "numerator_column": "before", "denominator_column": "after"}
    expected = ratio_interval([17 / 4.8, 20 / 5.0, 15 / 4.0])
    assert reduce(spec) == [expected.estimate, expected.low, expected.high]


def test_the_checker_catches_a_drifted_figure():
    """A claim whose figure is off by more than its rounding fails (this test's own guard)."""
    claim = CLAIM_LIST[0]
    figure = dict(claim["figure"][0])
    (value,) = reduce(figure)[:1]
    assert not _agrees(f"{value * 1.2 + 0.05:.2f}", value)
