"""How sure a ratio is: pattern / naive from paired repeats, with a 95% interval, or the spread and a plain
"too few repeats" when there are not enough pairs for one.

One run on a shared 2-core machine carries about +-15% of noise, so a ratio measured once can land almost
anywhere in 1.6x-3.3x for the same setting. A sweep therefore measures each point several times, every
approach once per block, and pairs the two approaches' runs of the same block (they ran minutes apart on
the same warm cluster, so what drifts between blocks cancels). The interval is a t-interval on the logs
of those paired ratios (ratios are multiplicative: 2x and 0.5x are equally far from 1), from 10 pairs up a
bootstrap of the same mean; the estimate is their geometric mean. Both come from scipy.stats.
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
        """'2.6x (2.3-3.1)'; '1.1x (0.92-1.3, within noise)'; '2.6x (spread 2.3-3.1, too few repeats for an interval)'."""
        head, low, high = (ratio_text(v) for v in (self.estimate, self.low, self.high))
        if not self.has_interval:
            span = f"spread {low}-{high}, " if self.pairs > 1 else "one pair, "
            return f"{head}x ({span}{TOO_FEW})"
        return f"{head}x ({low}-{high}{', ' + WITHIN_NOISE if self.within_noise else ''})"

    def __str__(self) -> str:
        return self.text()


def ratio_text(value: float) -> str:
    """A ratio as the lab writes it: two decimals below 1 (0.43), one up to 10 (2.6), none above (14)."""
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"


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


def unpaired_ratio_interval(numerator: Iterable[float], denominator: Iterable[float],
                            confidence: float = CONFIDENCE) -> RatioInterval | None:
    """The ratio of two independent groups of runs (e.g. CPU per transaction at 8 nodes over 1 node: different
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
