"""How sure a ratio is: pattern / naive from paired repeats, with a 95% interval, or the spread and a plain
"too few repeats" when there are not enough pairs for one.

Two runs of one workload on a shared 2-core machine land far apart: in the A/A control of
`benchmarks/results/noise_floor.csv` (YCSB A on one unbudgeted node at 16 threads; the run and its copy in 5
blocks) a run's copy over the run ranged 0.90x-1.29x, so a ratio measured once between about 0.77x and 1.29x
says nothing (and the budgeted Index Table login ratio ranged 1.6x-3.3x over four runs of one setting). A sweep therefore measures each point several times,
every approach once per block, and pairs the two approaches' runs of the same block (they ran minutes apart on
the same warm cluster, so what drifts between blocks cancels). The interval is a t-interval on the logs
of those paired ratios (ratios are multiplicative: 2x and 0.5x are equally far from 1), from 10 pairs up a
bootstrap of the same mean; the estimate is their geometric mean. Both come from scipy.stats.

An interval comes from the repeats of one condition (one thread count, node count, CPU budget and setting):
pairs at different conditions are not replicates, so across conditions `ratio_at_point` gives the range of
the per-condition estimates, never an interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import pandas as pd

CONFIDENCE = 0.95
MIN_PAIRS = 3
"""Fewer pairs than this give the spread (min-max) and the words "too few repeats for an interval"."""
BOOTSTRAP_FROM = 10
"""From this many pairs up the interval is a bootstrap of the mean log ratio (scipy.stats.bootstrap)."""
TOO_FEW = "too few repeats for an interval"
WITHIN_NOISE = "within noise"


@dataclass(frozen=True)
class RatioInterval:
    """A ratio with how sure it is: `estimate` (geometric mean of the pairs), `low`-`high` (a 95% interval,
    or the pairs' min-max when `method` is 'spread'), `pairs` it rests on."""

    estimate: float
    low: float
    high: float
    pairs: int
    method: str  # "t", "bootstrap", "welch" (two independent groups) or "spread"

    @property
    def has_interval(self) -> bool:
        return self.method != "spread"

    @property
    def within_noise(self) -> bool:
        """The interval holds 1 (no effect can be told from noise); a spread is never called an effect either."""
        return self.low <= 1.0 <= self.high

    @property
    def verdict(self) -> str:
        """'effect', 'within noise' or 'too few repeats for an interval': what a sentence may say about it."""
        if not self.has_interval:
            return TOO_FEW
        return WITHIN_NOISE if self.within_noise else "effect"

    def text(self) -> str:
        """'2.6x (2.3-3.1)'; '1.05x (0.92-1.2, within noise)'; '2.6x (spread 2.3-3.1, too few repeats for an interval)'."""
        head, low, high = (ratio_text(v) for v in (self.estimate, self.low, self.high))
        if not self.has_interval:
            span = f"spread {low}-{high}, " if self.pairs > 1 else "one pair, "
            return f"{head}x ({span}{TOO_FEW})"
        return f"{head}x ({low}-{high}{', ' + WITHIN_NOISE if self.within_noise else ''})"

    def __str__(self) -> str:
        return self.text()


NEAR_ONE = 1.1
"""Below this a ratio keeps two decimals: between 0.9 and 1.1 one decimal would print 0.97 and 1.05 both as "1.0",
and whether an interval's bound lies below or above 1 is what its verdict turns on."""


def ratio_text(value: float) -> str:
    """A ratio as the lab writes it: two decimals below 1.1 (0.43, 0.97, 1.05), one up to 10 (2.6), none above (14)."""
    return f"{value:.2f}" if round(value, 2) < NEAR_ONE else f"{value:.1f}" if round(value, 1) < 10 else f"{value:.0f}"


def ratio_interval(ratios: Iterable[float], confidence: float = CONFIDENCE, seed: int = 0) -> RatioInterval | None:
    """The interval of paired ratios (each > 0); None when there is no usable pair."""
    import numpy as np
    from scipy import stats

    # sorted: the bootstrap's resamples (fixed seed) then do not depend on the order the rows came in
    values = sorted(float(r) for r in ratios if r is not None and not (isinstance(r, float) and math.isnan(r)) and r > 0)
    if not values:
        return None
    logs = np.log(values)
    estimate = float(np.exp(logs.mean()))
    if len(values) < MIN_PAIRS:
        return RatioInterval(estimate, min(values), max(values), len(values), "spread")
    if np.ptp(logs) == 0:  # identical pairs: no spread to estimate from (t would divide by zero)
        return RatioInterval(estimate, estimate, estimate, len(values), "t")
    if len(values) >= BOOTSTRAP_FROM:
        found = stats.bootstrap((logs,), np.mean, confidence_level=confidence, method="percentile", rng=np.random.default_rng(seed))
        low, high = found.confidence_interval
        method = "bootstrap"
    else:
        low, high = stats.t.interval(confidence, len(logs) - 1, loc=logs.mean(), scale=stats.sem(logs))
        method = "t"
    return RatioInterval(estimate, float(np.exp(low)), float(np.exp(high)), len(values), method)


# ---- pairing the rows of a sweep -------------------------------------------------------------------

POINT_KEYS = ("engine", "provider", "pattern", "phase", "nodes", "node_cpu", "threads", "target_rate")
"""What makes two rows the same point (besides the pattern's own settings, which `point_keys` adds)."""


def flag(column: pd.Series) -> pd.Series:
    """A yes/no column as booleans, whether it holds bools, 1/0 or the strings a CSV gives back ("True")."""
    return column.map(lambda v: v is True or str(v) == "True" or v == 1)


def complete_runs(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of runs that ran to the end (all of them when the rows do not say)."""
    return rows[flag(rows["complete"])] if "complete" in rows else rows


def usable(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows a ratio may use: complete runs that are not the A/A control's second copy."""
    df = complete_runs(rows)
    if "control_copy" in df:
        df = df[~flag(df["control_copy"])]
    return df


def divided(numerator: pd.Series, denominator: pd.Series) -> pd.DataFrame:
    """Two series on one index joined where both have a value and the denominator is positive, with
    `ratio` = numerator / denominator; the index becomes columns."""
    joined = pd.concat({"num": numerator, "den": denominator}, axis=1).dropna()
    joined = joined[joined["den"] > 0]
    out = joined.reset_index()
    out["ratio"] = out["num"] / out["den"]
    return out


def point_keys(rows: pd.DataFrame, settings: Sequence[str] = ()) -> list[str]:
    """The columns that name a point in these rows (those present, and the settings that vary)."""
    return [k for k in (*POINT_KEYS, *settings) if k in rows]


def paired_ratios(rows: pd.DataFrame, numerator: str, denominator: str, *, metric: str = "throughput",
                  keys: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (point, repeat) where both approaches ran: the point's keys, `repeat` and `ratio`
    (numerator's metric / denominator's, e.g. pattern / naive throughput in the same block)."""
    df = usable(rows)
    if "repeat" not in df:
        df = df.assign(repeat=0)  # rows from before repeats were recorded: one run per point
    keys = list(keys) if keys is not None else point_keys(df)
    by = [*keys, "repeat"]
    side = {}
    for name in (numerator, denominator):
        part = df[df["approach"] == name][[*by, metric]]
        side[name] = part.groupby(by, dropna=False)[metric].mean()  # one run per approach and block; mean guards duplicates
    return divided(side[numerator], side[denominator])[[*by, "ratio"]]


def control_ratios(rows: pd.DataFrame, *, metric: str = "throughput", keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The A/A control's pairs: per (point, approach, repeat), the copy's metric over the first run's. Their
    interval is the noise floor: how far apart two runs of one approach land on this machine."""
    if "control_copy" not in rows:
        return pd.DataFrame(columns=["approach", "repeat", "ratio"])
    df = complete_runs(rows)
    copy = flag(df["control_copy"])
    keys = list(keys) if keys is not None else point_keys(df)
    by = [*keys, "approach", "repeat"]
    second = df[copy].groupby(by, dropna=False)[metric].mean()
    first = df[~copy & df["approach"].isin(df.loc[copy, "approach"].unique())].groupby(by, dropna=False)[metric].mean()
    return divided(second, first)[[*by, "ratio"]]


def noise_floor(rows: pd.DataFrame, *, metric: str = "throughput") -> RatioInterval | None:
    """The A/A control's interval over all its pairs (None when the rows have no control)."""
    pairs = control_ratios(rows, metric=metric)
    return ratio_interval(pairs["ratio"]) if len(pairs) else None


def ratio_table(rows: pd.DataFrame, *, metric: str = "throughput", keys: Sequence[str] | None = None,
                pattern_approach: str = "pattern", against: Sequence[str] | None = None) -> pd.DataFrame:
    """Per point and naive approach: the pattern / naive interval as numbers and as text, and its verdict.
    `against` names the denominators instead of every `naive*` approach (one design over another)."""
    df = usable(rows)
    if df.empty or "approach" not in df or pattern_approach not in set(df["approach"]):
        return pd.DataFrame()
    keys = list(keys) if keys is not None else point_keys(df)
    out: list[dict[str, Any]] = []
    baselines = list(against) if against is not None else sorted(a for a in df["approach"].unique() if str(a).startswith("naive"))
    for naive in baselines:
        pairs = paired_ratios(df, pattern_approach, naive, metric=metric, keys=keys)
        for point, group in pairs.groupby(keys, dropna=False, sort=True) if keys else [((), pairs)]:
            found = ratio_interval(group["ratio"])
            if found is None:
                continue
            row = dict(zip(keys, point if isinstance(point, tuple) else (point,)))
            row.update({"naive": naive, "ratio": found.estimate, "low": found.low, "high": found.high, "pairs": found.pairs,
                        "method": found.method, "verdict": found.verdict, "text": found.text()})
            out.append(row)
    return pd.DataFrame(out)


def comparisons(rows: Any, *, metric: str = "throughput") -> pd.DataFrame:
    """What a sweep compares, with `numerator` and `denominator` columns: the pattern over each naive
    approach, or, for a profile's designs (`design/<name>`), every later design over the first one run."""
    df = pd.DataFrame(rows)
    if df.empty or "approach" not in df:
        return pd.DataFrame()
    order = list(dict.fromkeys(df["approach"]))
    designs = [a for a in order if str(a).startswith("design/")]
    if designs and len(designs) == len(order):
        parts = [ratio_table(df, metric=metric, pattern_approach=d, against=designs[:1]).assign(numerator=d) for d in designs[1:]]
        parts = [p for p in parts if not p.empty]
        table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    else:
        table = ratio_table(df, metric=metric).assign(numerator="pattern")
    return table.rename(columns={"naive": "denominator"}) if not table.empty else table


def ratio_between(rows: Any, column: str, numerator: Any, denominator: Any, *, metric: str = "throughput") -> RatioInterval | None:
    """Two values of one column compared (e.g. nodes 3 over nodes 1), their runs paired by `repeat`: what a
    notebook prints after a sweep over that column, with how sure it is."""
    df = usable(pd.DataFrame(rows))
    if "repeat" not in df:
        df = df.assign(repeat=0)
    side = {v: df[df[column] == v].groupby("repeat")[metric].mean() for v in (numerator, denominator)}
    return ratio_interval(divided(side[numerator], side[denominator])["ratio"])


CONDITION_KEYS = (*POINT_KEYS, "operations", "profile", "profile_hash", "replication")
"""The columns that name one condition of a sweep's rows, besides the pattern's own settings (`condition_keys`
adds those): runs that differ in any of them are not repeats of each other."""


def _plain(value: Any) -> Any:
    """A cell as a plain Python value (NaN and None alike as None; a whole float as an int, so a column pandas read
    as floats says "40 threads", not "40.0 threads"), so that equal conditions compare equal."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    value = value.item() if hasattr(value, "item") else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def condition_keys(rows: pd.DataFrame, first: str | None = None, second: str | None = None,
                   settings: Sequence[str] | None = None) -> list[str]:
    """The columns of `rows` that name a condition: CONDITION_KEYS and `settings`, the pattern's own (e.g.
    Distorted Replicas' `groups`; `labkit.lessons.ratio_at_point` finds them in the pattern's description). A
    column that only tells `first` from `second` apart (each side one value, the two different: consistency
    levels compared as two approaches) is the comparison itself, not a condition, and is left out."""
    keys = [k for k in dict.fromkeys([*CONDITION_KEYS, *(settings or ())]) if k in rows]
    if first is not None and second is not None and "approach" in rows:
        compared = []
        for k in keys:
            values = [set(rows.loc[rows["approach"] == side, k].map(_plain)) for side in (first, second)]
            if all(len(v) == 1 for v in values) and values[0] != values[1]:
                compared.append(k)
        keys = [k for k in keys if k not in compared]
    return keys


def mixed_conditions(rows: Any, *, between: str = "approach", settings: Sequence[str] | None = None) -> dict[str, list[Any]]:
    """The condition columns (CONDITION_KEYS and `settings`, the pattern's own, e.g. Distorted Replicas' `groups`)
    in which `rows` differ, with their values, leaving out `between` (the column whose two values a ratio
    compares, e.g. nodes 8 over 1): empty when the rows are the repeats of one condition, as the rows of any
    interval must be. The caller passes `settings` (`labkit.lessons.pattern_settings` finds them in the pattern's
    description; this module does not read the catalogue): without them rows of one group count and another
    look like one condition."""
    df = usable(pd.DataFrame(rows))
    found = {}
    for key in dict.fromkeys([*CONDITION_KEYS, *(settings or ())]):
        if key in df and key != between:
            values = list(dict.fromkeys(_plain(v) for v in df[key]))
            if len(values) > 1:
                found[key] = values
    return found


def _cores(most: Any) -> str:
    """'core' up to one core (0.15 core, 1 core), 'cores' above (2 cores, 1.5 cores)."""
    return "cores" if float(most) > 1 else "core"


def _unit(key: str, value: Any) -> str:
    """One condition value in words: '40 threads', '1 node', '0.15 core per node', '2 cores per node', 'groups 2'."""
    if key == "threads":
        return f"{value} thread{'s' if value != 1 else ''}"
    if key == "nodes":
        return f"{value} node{'s' if value != 1 else ''}"
    if key == "node_cpu":
        return "unbudgeted nodes" if value is None else f"{value:g} {_cores(value)} per node"
    if key == "target_rate":
        return f"{value:g}/s offered"
    return f"{key.replace('_', ' ')} {value}"


def _span(key: str, values: Sequence[Any]) -> str:
    """The values one condition column took, in words: '10-100 threads', '1-4 nodes', 'groups 1-3'."""
    known = sorted((v for v in values if v is not None), key=lambda v: (not isinstance(v, (int, float)), v))
    numeric = all(isinstance(v, (int, float)) for v in known)
    if key == "node_cpu" and None in values:
        return f"unbudgeted and {', '.join(f'{v:g}' for v in known)} {_cores(max(known))} per node" if known else "unbudgeted nodes"
    if numeric and len(known) > 1:
        low, high = known[0], known[-1]
        text = {"threads": f"{low}-{high} threads", "nodes": f"{low}-{high} nodes", "node_cpu": f"{low:g}-{high:g} {_cores(high)} per node",
                "target_rate": f"{low:g}-{high:g}/s offered"}
        return text.get(key, f"{key.replace('_', ' ')} {low}-{high}")
    return f"{key.replace('_', ' ')} " + ", ".join(map(str, known))


@dataclass(frozen=True)
class PointRatio:
    """`first` / `second` at one condition, with the interval from that condition's repeats (`interval`), the
    condition (`at`: its threads and nodes, its CPU budget when budgeted, and every other key that differs
    between the conditions measured) and, across all `points` measured with both approaches, the range of their
    estimates (`lowest`-`highest`, over `spans`: each key that differs, with its values). A range, not an
    interval: pairs at different conditions are not repeats of one another."""

    interval: RatioInterval
    at: tuple[tuple[str, Any], ...]
    points: int
    lowest: float
    highest: float
    spans: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @property
    def has_interval(self) -> bool:
        return self.interval.has_interval

    @property
    def verdict(self) -> str:
        return self.interval.verdict

    def where(self) -> str:
        """'at 40 threads, 1 node' (and '0.15 core per node', 'groups 2' where those name the condition); '' for
        rows that name no condition."""
        return "at " + ", ".join(_unit(k, v) for k, v in self.at) if self.at else ""

    def range_text(self) -> str:
        """'4 points, 1.7x-7.3x over 10-100 threads (a range: no interval across conditions)'; '2 points, 4.1x at each
        over 2-8 threads (...)' when they print alike; '' for one point."""
        if self.points < 2:
            return ""
        over = ", ".join(_span(k, v) for k, v in self.spans)
        low, high = ratio_text(self.lowest), ratio_text(self.highest)
        span = f"{low}x at each" if low == high else f"{low}x-{high}x"  # not "4.1x-4.1x"
        return f"{self.points} points, {span}" + (f" over {over}" if over else "") + " (a range: no interval across conditions)"

    def text(self) -> str:
        """'2.6x (2.3-3.1) at 40 threads, 1 node; 4 points, 1.7x-7.3x over 10-100 threads (a range: ...)'."""
        spread = self.range_text()
        return " ".join(filter(None, (self.interval.text(), self.where()))) + (f"; {spread}" if spread else "")

    def __str__(self) -> str:
        return self.text()


def ratio_at_point(rows: Any, first: str, second: str, *, metric: str = "throughput",
                   settings: Sequence[str] | None = None) -> PointRatio | None:
    """`first` over `second` approach as a card may state it: an interval only from the repeats of ONE
    condition (`condition_keys`: threads, nodes, CPU budget, phase, ..., and the pattern's `settings`), each
    pair two runs of one block. The decisive condition is the one with the most pairs (the most repeats give the surest
    interval); a tie goes to the most client threads, then the most nodes (the heaviest load, where a
    difference in cost per transaction shows most, and the point the panels' own summary quotes), then the
    condition measured last. With one repeat per condition that is a single pair, "too few repeats for an
    interval", however many conditions were swept. The other conditions give only the range of their
    estimates. None when no block ran both approaches."""
    df = usable(pd.DataFrame(rows))
    if df.empty or "approach" not in df or not {first, second} <= set(df["approach"]):
        return None
    if "repeat" not in df:
        df = df.assign(repeat=0)  # rows from before repeats were recorded: one run per point
    keys = condition_keys(df, first, second, settings)
    df = df.reset_index(drop=True)
    df["_point"] = [tuple(_plain(v) for v in values) for values in df[keys].itertuples(index=False, name=None)] if keys else [()] * len(df)
    last = {point: position for position, point in enumerate(df["_point"])}  # the position of each condition's latest row
    pairs = paired_ratios(df, first, second, metric=metric, keys=["_point"])
    found = {point: interval for point, group in pairs.groupby("_point", sort=False) if (interval := ratio_interval(group["ratio"])) is not None}
    if not found:
        return None
    named = dict.fromkeys(keys)

    def rank(point: tuple) -> tuple:
        values = dict(zip(named, point))
        return (found[point].pairs, values.get("threads") or 0, values.get("nodes") or 0, last[point])

    chosen = max(found, key=rank)
    varying = [k for i, k in enumerate(keys) if len({p[i] for p in found}) > 1]
    values = dict(zip(named, chosen))
    shown: list[str] = [k for k in ("threads", "nodes") if k in values]
    shown += [k for k in ("target_rate",) if values.get(k) is not None]  # a paced run's offered load is its condition too
    shown += [k for k in keys if k not in shown and (k in varying or (k == "node_cpu" and values[k] is not None))]
    estimates = [interval.estimate for interval in found.values()]
    spans = tuple((k, tuple({p[keys.index(k)]: None for p in found})) for k in varying)  # _span orders them
    return PointRatio(found[chosen], tuple((k, values[k]) for k in shown), len(found), min(estimates), max(estimates), spans)


def unpaired_ratio_interval(numerator: Iterable[float], denominator: Iterable[float],
                            confidence: float = CONFIDENCE) -> RatioInterval | None:
    """The ratio of two independent groups of runs (e.g. throughput at 8 nodes over 1 node: different
    clusters, so no block pairs them): geometric mean over geometric mean, with a Welch t-interval on the
    difference of their mean logs; `pairs` is the smaller group's size. Below MIN_PAIRS in either group, the
    spread of every cross ratio and "too few repeats"."""
    import numpy as np
    from scipy import stats

    def clean(values: Iterable[float]) -> list[float]:
        return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v)) and v > 0]

    top, bottom = clean(numerator), clean(denominator)
    if not top or not bottom:
        return None
    log_top, log_bottom = np.log(top), np.log(bottom)
    estimate = float(np.exp(log_top.mean() - log_bottom.mean()))
    smaller = min(len(top), len(bottom))
    if smaller < MIN_PAIRS:
        cross = [t / b for t in top for b in bottom]
        return RatioInterval(estimate, min(cross), max(cross), smaller, "spread")
    if np.ptp(log_top) == 0 and np.ptp(log_bottom) == 0:
        return RatioInterval(estimate, estimate, estimate, smaller, "welch")
    found = stats.ttest_ind(log_top, log_bottom, equal_var=False).confidence_interval(confidence)
    return RatioInterval(estimate, float(np.exp(found.low)), float(np.exp(found.high)), smaller, "welch")


def columns_interval(rows: Any, numerator_column: str, denominator_column: str) -> RatioInterval | None:
    """One ratio per row of two of its columns (a tactic's p95 before / after, both from one run), and the
    interval of those ratios: what the claims test and benchmarks/remeasured.py quote for such a figure."""
    df = pd.DataFrame(rows)
    values = [pd.to_numeric(df[c].astype(str).str.replace(",", ""), errors="coerce") for c in (numerator_column, denominator_column)]
    return ratio_interval((values[0] / values[1]).dropna())


def interval_of(rows: Any, column: str, numerator: Any, denominator: Any, *, between: str = "approach",
                pair_on: Sequence[str] = (), paired: bool = False) -> RatioInterval | None:
    """A quoted ratio recomputed from raw rows: `numerator` over `denominator`, two values of the `between`
    column. Approaches (the default) ran in the same blocks, so their runs pair by `repeat` (and `pair_on`);
    any other column (e.g. nodes 8 over 1) compares independent runs with a Welch interval, unless `paired`
    says its values too ran within one block (e.g. the first and the last run of one growing series)."""
    df = pd.DataFrame(rows).copy()
    df[column] = pd.to_numeric(df[column].astype(str).str.replace(",", ""), errors="coerce")
    if between != "approach" and paired:
        df["approach"] = df[between].astype(str)
        between, numerator, denominator = "approach", str(numerator), str(denominator)
    if between == "approach":
        return ratio_interval(paired_ratios(df, str(numerator), str(denominator), metric=column, keys=list(pair_on))["ratio"])
    kept = usable(df)
    side = [kept[kept[between].astype(str) == str(value)][column] for value in (numerator, denominator)]
    return unpaired_ratio_interval(*side)
