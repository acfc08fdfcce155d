"""The notebooks' quoted figures are the committed benchmark results, and stay so.

`notebooks/claims.toml` ties every quoted ratio ("1.9x", "0.43") to the rows of `benchmarks/results/` it
comes from: the sentence as the notebook says it, then each figure in the order it appears, with the
file, the rows (`where`), the column and how the rows reduce to it (one value, median, min, max, a range
"a-b", or one reduction divided by another). A figure that no longer matches its rows (a re-run benchmark,
an edited sentence) fails here, and so does an "Nx" figure in a notebook's text that no claim or quote
accounts for. Quotes are figures from elsewhere (the source paper, a threshold, arithmetic), each with why;
a figure from a source document names the document and the passage, which must say it. Statements of how
often a point ran ("3 blocks", "run twice") are figures too: a claim or quote must account for each, and a
claim's `reduce = "blocks"` counts the committed rows' distinct `repeat` values.
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
COUNT_WORDS = {"once": 1, "twice": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
REPEATS = re.compile(r"\b(?:run|ran|measured|repeated)\s+(?:once|twice|three times|\d+ times)\b"
                     r"|\b(?:\d+|two|three|four|five|six|ten)\s+(?:interleaved\s+|paired\s+)?(?:blocks|repeats|rounds|pairs|series)\b", re.I)
"""How often a point ran, as a notebook says it: each such statement is a figure a claim or quote accounts for."""
SOURCE_FIGURE = re.compile(r"\d+(?:\.\d+)?\s?(?:%|percent\b|times\b|[x×](?![a-zA-Z]))")
SEEDS = ROOT.parent / "shared" / "seeds"
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
    the `pair_on` columns, if given), as results.intervals computes it for the notebooks and the report. The
    rows must be the repeats of one condition (one thread count, node count, CPU budget, phase, and where the rows
    carry a pattern and phase, each of its settings): an interval never pools conditions. With `between = COLUMN`, numerator and denominator are two values of that column
    whose runs are independent (e.g. nodes 8 over nodes 1: different clusters), compared by a Welch interval on
    their logs. With
    `numerator_column`/`denominator_column`, each chosen row gives one ratio of two of its columns (a tactic's
    p95 before / after, within one run) and the rows' ratios get their interval."""
    from labkit.lessons import pattern_settings
    from labkit.results.intervals import columns_interval, interval_of, mixed_conditions

    mixed = mixed_conditions(chosen, between=spec.get("between", "approach"), settings=pattern_settings(chosen))
    assert not mixed, (f"{spec['file']} {spec.get('where')}: an interval from rows of several conditions {mixed}; pairs at different "
                       "conditions are not repeats: quote each condition's interval, or the range of their ratios (reduce = \"range\")")
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
    if spec.get("reduce") == "blocks":  # blocks (distinct repeats; with `across`, distinct (across..., repeat)) per point of `per`: the least
        per, across = spec.get("per", []), spec.get("across", [])
        blocks: dict[tuple, set[tuple]] = {}
        for r in chosen:
            blocks.setdefault(tuple(r[c] for c in per), set()).add(tuple(r[c] for c in across) + (r["repeat"],))
        return [min(len(b) for b in blocks.values())]
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
        numbers = re.findall(NUMBER, written) or [str(COUNT_WORDS[w]) for w in re.findall(r"[a-z]+", written.lower()) if w in COUNT_WORDS][:1]
        computed = reduce(figure)
        if figure.get("reduce") == "interval":  # an effect whose interval holds 1 must be called what it is
            found = interval(figure, [r for r in rows(figure["file"]) if _matches(r, figure.get("where", {}))])
            assert found.verdict == "effect" or found.verdict in says, (
                f"{claim['notebook']} quotes {written!r}, whose interval is {found.text()}: the sentence must say {found.verdict!r}")
            assert written == found.text(), (  # the printed form: head and bounds by ratio_text (two decimals below 1.1)
                f"{claim['notebook']} writes {written!r}, but the recomputed interval prints {found.text()!r} "
                "(labkit.results.intervals.RatioInterval.text): write it as printed")
        if figure.get("reduce") == "each":
            numbers = numbers * len(computed)
        assert len(numbers) == len(computed), f"{written!r}: {len(numbers)} numbers written, {len(computed)} computed"
        for shown, value in zip(numbers, computed):
            assert _agrees(shown, value), (
                f"{claim['notebook']} says {written!r} in {says!r}, but {figure['file']} gives {value:.4g} "
                f"({figure.get('reduce', 'value')} of {figure.get('column') or figure.get('numerator_column')} where {figure.get('where', {})})"
            )


def _covered_spans(notebook: str, entries: list[dict]) -> list[tuple[int, int]]:
    text = markdown(notebook)
    return [(m.start(), m.end()) for e in entries if e["notebook"] == notebook for m in re.finditer(re.escape(re.sub(r"\s+", " ", e["says"])), text)]


def _loose(pattern: re.Pattern, entries: list[dict]) -> list[str]:
    """Matches of `pattern` in the notebooks' text that no entry's sentence contains."""
    loose = []
    for notebook in sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")):
        text, spans = markdown(notebook), _covered_spans(notebook, entries)
        for m in pattern.finditer(text):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                loose.append(f"{notebook}: ...{text[max(0, m.start() - 60):m.end() + 20]}...")
    return loose


def test_every_ratio_in_the_notebooks_is_claimed_or_quoted():
    data = load()
    loose = _loose(RATIO, data["claim"] + data.get("quote", []))
    assert not loose, "figures no claim or quote in notebooks/claims.toml accounts for:\n" + "\n".join(loose)


def test_every_statement_of_how_often_a_point_ran_is_claimed_or_quoted():
    """"each point run twice" beside a 3-block table is what this catches: the count is a figure like any other."""
    data = load()
    loose = _loose(REPEATS, data["claim"] + data.get("quote", []))
    assert not loose, "statements of repeats no claim or quote accounts for (a claim with reduce = \"blocks\" checks the count):\n" + "\n".join(loose)


def source_figures(notebook: str) -> list[str]:
    """Figures the notebook attributes to a source document: every figure in a table column headed "source", and
    every figure in prose that follows, within its sentence and 50 characters, the words "source" or "document 00N"."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    found = []
    for cell in (c for c in cells if c["cell_type"] == "markdown"):
        header = None
        for line in "".join(cell["source"]).split("\n"):
            if not line.startswith("|"):
                header = None
                continue
            parts = [x.strip() for x in line.strip().strip("|").split("|")]
            if header is None:
                header = parts
            elif not set(line) <= set("|-: "):
                found += [cell_text for head, cell_text in zip(header, parts) if "source" in head.lower() and SOURCE_FIGURE.search(cell_text)]
        for paragraph in re.split(r"\n\s*\n", "".join(cell["source"])):
            if paragraph.lstrip().startswith("|"):
                continue  # tables: by column header, above
            text = re.sub(r"\s+", " ", paragraph)
            for m in SOURCE_FIGURE.finditer(text):
                before = text[max(0, m.start() - 50):m.start()]
                if re.search(r"\bsource\b|\bsource's\b|\bdocument 00\d\b", before.split(". ")[-1], re.I):
                    found.append(text[max(0, m.start() - 40):m.end() + 10])
    return found


def test_every_source_figure_is_quoted_with_its_document_and_passage():
    data = load()
    quoted = [q for q in data.get("quote", []) if q.get("document")]
    loose = []
    for notebook in sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")):
        says = [re.sub(r"\s+", " ", q["says"]) for q in quoted if q["notebook"] == notebook]
        for figure in source_figures(notebook):
            core = SOURCE_FIGURE.search(figure).group(0)
            if not any(core in s and (s in figure or figure.strip() in s or _overlaps(s, figure)) for s in says):
                loose.append(f"{notebook}: {figure}")
    assert not loose, "figures attributed to a source document that no quote (with document and passage) accounts for:\n" + "\n".join(loose)


def _overlaps(says: str, figure: str) -> bool:
    """The quote and the detected text share the figure with at least a few words around it."""
    core = SOURCE_FIGURE.search(figure).group(0)
    i = figure.index(core)
    return figure[max(0, i - 8):i + len(core) + 4].strip() in says


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the source documents are not beside the clone ({SEEDS})")
def test_a_source_quote_is_what_its_document_says():
    """Each quote that names a document: its passage is in that document, and each of its figures in the passage."""
    documents = {p.name[:3]: re.sub(r"\s+", " ", p.read_text()) for p in SEEDS.glob("0*.txt")}
    for quote in (q for q in load().get("quote", []) if q.get("document")):
        doc = documents[quote["document"]]
        passages = quote["passage"] if isinstance(quote["passage"], list) else [quote["passage"]]
        passage = " ".join(re.sub(r"\s+", " ", p) for p in passages)
        for part in passages:
            assert re.sub(r"\s+", " ", part) in doc, f"document {quote['document']} does not say {part!r}"
        said = set(re.findall(r"\d+(?:\.\d+)?", passage)) | {str(COUNT_WORDS[w]) for w in re.findall(r"[a-z]+", passage.lower()) if w in COUNT_WORDS}
        derived = quote.get("derived")  # a figure the notebook computed from the passage's numbers ("3854 / 1714")
        if derived:
            assert set(re.findall(r"\d+(?:\.\d+)?", derived)) <= said, f"{derived!r}: its numbers must be in the passage"
        for number in re.findall(r"\d+(?:\.\d+)?", re.sub(r"\s+", " ", quote["says"])):
            if number in said:
                continue
            assert derived and _agrees(number, eval(derived, {"__builtins__": {}})), (  # noqa: S307 (our own file's arithmetic)
                f"{quote['notebook']} quotes {number} from document {quote['document']} in {quote['says']!r}, but the passage does not say it")


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


def test_a_count_of_blocks_is_checked_against_the_rows(monkeypatch):
    """`reduce = "blocks"`: "run twice" beside rows of three repeats fails; "3 blocks" passes (this test's own guard)."""
    raw = [{"approach": a, "repeat": str(i), "threads": str(t)} for a in ("naive", "pattern") for i in range(3) for t in (10, 40)]
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    spec = {"file": "x.csv", "reduce": "blocks", "per": ["approach"]}
    assert reduce(spec) == [3] and reduce({**spec, "across": ["threads"]}) == [6]
    assert REPEATS.search("each point run twice, in ABBA order") and REPEATS.search("3 interleaved blocks")
    words = [str(COUNT_WORDS[w]) for w in re.findall(r"[a-z]+", "run twice") if w in COUNT_WORDS]
    assert not _agrees(words[0], reduce(spec)[0])


def test_an_interval_claim_over_several_conditions_fails(monkeypatch):
    """Pairs at 10 and at 100 threads are not repeats of one point: an interval over both is refused (this test's
    own guard; the write ratio of Enumerable Keys was once quoted so, 3.92 (2.76-5.38) over four thread counts)."""
    raw = [{"approach": a, "repeat": str(i), "nodes": "3", "threads": str(t), "throughput": str(v * (1 if a == "naive" else r))}
           for t, r in ((10, 1.7), (100, 7.3)) for i, v in enumerate((100, 110, 90)) for a in ("naive", "pattern")]
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    spec = {"file": "x.csv", "where": {"nodes": 3}, "column": "throughput", "reduce": "interval", "numerator": "pattern",
            "denominator": "naive", "pair_on": ["threads"]}
    with pytest.raises(AssertionError, match="several conditions"):
        reduce(spec)
    assert reduce({**spec, "where": {"nodes": 3, "threads": 100}})[0] == pytest.approx(7.3)


def test_an_interval_is_written_as_it_prints(monkeypatch):
    """An interval claim's text is RatioInterval.text() of the recomputed interval: a bound of 1.02 written "1.0" (the
    one-decimal form before ratio_text kept two decimals below 1.1) fails, "1.02" passes (this test's own guard)."""
    from labkit.results.intervals import ratio_interval

    raw = [{"approach": a, "repeat": str(i), "nodes": "1", "throughput": str(v)}
           for i, (n, p) in enumerate(((100, 125), (100, 135), (100, 160))) for a, v in (("naive", n), ("pattern", p))]
    printed = ratio_interval([1.25, 1.35, 1.6]).text()
    assert printed == "1.4x (1.02-1.9)"
    monkeypatch.setattr(__import__(__name__), "rows", lambda name: raw)
    figure = {"file": "x.csv", "where": {"nodes": 1}, "column": "throughput", "reduce": "interval", "numerator": "pattern", "denominator": "naive"}
    for written, passes in ((printed, True), ("1.4x (1.0-1.9)", False)):
        monkeypatch.setattr(__import__(__name__), "markdown", lambda notebook, said=f"it served {written} the reads.": said)
        claim = {"notebook": "x.ipynb", "says": f"it served {written} the reads.", "figure": [{**figure, "value": written}]}
        if passes:
            test_each_quoted_figure_is_the_committed_result(claim)
        else:
            with pytest.raises(AssertionError, match="write it as printed"):
                test_each_quoted_figure_is_the_committed_result(claim)
