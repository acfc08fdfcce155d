"""The questions each lesson notebook asks before its live runs, and the boxes that ask them in the notebook.

Why a module and not cells: the notebooks' test reads the same questions (a question's give-aways must not
appear in the prose before the run that answers it), and papermill's `predictions` parameter names them by
key. One module per notebook holds its LESSON; the notebook calls `LESSON.ask(predictions, **facts)` once
and then `asked.show(key)` before an experiment, `asked.require(key)` as the experiment's first line and
`asked.card(key, measured, evidence)` after it.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ConfigError
from ..predictions import JUDGED_ANSWER, NOT_MEASURED, RIGHT, TIE, TOO_FEW, WRONG, Question, judge_choice, winner
from ..results.intervals import PointRatio, RatioInterval, interval_of
from ..results.intervals import ratio_at_point as ratio_at_one_point

__all__ = ["Asked", "Lesson", "sweep_repeats", "growth_with_nodes", "net_cpu_between", "pattern_settings", "ratio_at_point", "server_cpu_per"]


class _Facts(dict):
    """Facts of a run for a question's text; one not given stays as its {name} (the notebooks' test reads the
    questions without a run)."""

    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


@dataclass(frozen=True)
class Lesson:
    """A notebook's questions, in the order it asks them. Their text and give-aways may name facts of the
    run ({nodes}), filled in when the notebook asks."""

    notebook: str
    questions: tuple[Question, ...]

    def question(self, key: str, **facts: Any) -> Question:
        """The question `key` with its facts filled in; a ConfigError lists the keys there are."""
        known = _Facts(facts)
        for q in self.questions:
            if q.key == key:
                return dataclasses.replace(q, text=q.text.format_map(known), giveaways=tuple(g.format_map(known) for g in q.giveaways))
        raise ConfigError(f"{self.notebook} asks no question {key!r}; its questions: {', '.join(q.key for q in self.questions)}")

    def ask(self, predictions: Any = None, **facts: Any) -> "Asked":
        """One box per question for this run of the notebook (`predictions`: the papermill parameter, or None)."""
        unknown = set(predictions or {}) - {q.key for q in self.questions}
        if unknown:
            raise ConfigError(f"predictions names questions {self.notebook} does not ask: {', '.join(sorted(unknown))}; "
                              f"it asks: {', '.join(q.key for q in self.questions)}")
        from ..widgets.prediction import PredictionBox

        return Asked({q.key: PredictionBox(self.question(q.key, **facts), predictions, notebook=self.notebook) for q in self.questions})


def sweep_repeats(module: str, sweep: str, description: str = "PATTERN") -> Callable[[str], int]:
    """For a lesson module's JUDGED_AT (question key -> the paired repeats its card's interval rests on at a size, for each
    question judged against an interval; tests/unit/test_judged_sizes.py wants 3 at `quick`): the repeats of a described sweep at a size (`module`.`description`.named_sweep(size, sweep)),
    which every point of a closed sweep runs, so the pairs at the point its card judges. The module is imported when asked
    (a lesson's questions load without the pattern's drivers)."""

    def repeats(size: str) -> int:
        return int(getattr(importlib.import_module(module), description).named_sweep(size, sweep).repeats)

    return repeats


class Asked(dict):
    """The notebook's boxes by key, with the three calls a lesson cell makes."""

    def show(self, key: str) -> Any:
        """The question's widget (a cell's last expression displays it)."""
        return self[key].widget

    def require(self, *keys: str) -> None:
        """An experiment's first line: stops with one sentence until the student has predicted (or skipped) every
        question the run answers, then freezes them all for this run. All are checked before any is frozen: a
        student who answered one of two is stopped with both answers kept, not with one used up by a run that
        did not happen."""
        for key in keys:
            self[key].require()
        for key in keys:
            self[key].freeze()

    def card(self, key: str, measured: Any, evidence: str, verdict: str | None = None, judgeable: str | None = None) -> dict[str, Any]:
        """The result card: the prediction beside `measured`, the verdict (judged, unless `verdict` says what
        the run could tell, e.g. too few repeats) and the servers' evidence; kept in the predictions file.
        `judgeable`: what the run could judge whatever was predicted (predictions.COULD_JUDGE), where the card knows
        better than the measurement's form says (a tie)."""
        from ..host.users import current_user
        from ..namespace import ENV
        from ..widgets.prediction import result_card

        return result_card(self[key], measured, evidence, user=current_user(), namespace=os.environ.get(ENV, ""), verdict=verdict,
                           judgeable=judgeable)

    def card_which(self, key: str, compared: PointRatio | None, first: str, second: str, evidence: str, what: str = "per second") -> dict[str, Any]:
        """The card of a "which of two serves more" question, from `compared` (`ratio_at_point`: first over second
        at one condition, which the card names, with the interval of that condition's repeats, and the range over
        the other conditions): a winner only where that interval says so; within noise and too few repeats (one
        repeat per condition, however many conditions) are said as such."""
        if compared is not None and not isinstance(compared, PointRatio):
            raise TypeError("card_which takes ratio_at_point(rows, first, second): an interval only from the repeats of one condition")
        box = self[key]
        prediction = box.ran_with
        if compared is None:
            measured, verdict, judgeable = "not measured (no run of both)", NOT_MEASURED, NOT_MEASURED
        else:
            measured = f"{first} / {second}, {' '.join(filter(None, (what, compared.where())))}: {compared.interval.text()}"
            if not compared.has_interval:
                measured += "; 3 or more repeats at one point give an interval (the panel's repeats)"
            if compared.range_text():
                measured += f"; {compared.range_text()}"
            verdict = judge_choice(box.question, prediction, compared.interval, first, second)
            judgeable = (TOO_FEW if not compared.has_interval else JUDGED_ANSWER if winner(compared.interval, first, second) else TIE)
        return self.card(key, measured, evidence, verdict=verdict, judgeable=judgeable)

    def card_growth(self, key: str, grew: dict[str, RatioInterval | None], low_n: int, high_n: int, evidence: str,
                    unit: str = "tx/s") -> dict[str, Any]:
        """The card of "whose throughput grows with the nodes" (options: both, only <name>'s, neither): `grew`
        holds each approach's throughput at `high_n` nodes over `low_n` (independent clusters, so a Welch
        interval). One grew where its whole interval is above 1; one whose interval holds 1 (or lies below) did not
        show growth, so "neither" can be right; "too few repeats" where an approach has no interval."""
        measured = "; ".join(f"{name} {i.text() if i else 'not run'}" for name, i in grew.items()) + f" ({unit}, {high_n} nodes over {low_n})"
        intervals = [i for i in grew.values() if i is not None and i.has_interval]
        if len(intervals) < len(grew):
            return self.card(key, measured, evidence, verdict=TOO_FEW, judgeable=TOO_FEW)
        up = [name for name, i in grew.items() if i is not None and i.low > 1]
        answer = "both" if len(up) == len(grew) else f"only {up[0]}'s" if len(up) == 1 else "neither"
        box = self[key]
        prediction = box.ran_with
        return self.card(key, f"{answer}: {measured}", evidence, verdict=RIGHT if prediction == answer else WRONG, judgeable=JUDGED_ANSWER)


def pattern_settings(rows: Any) -> list[str]:
    """The settings of the rows' pattern and phase, from its description (e.g. Distorted Replicas' `groups`,
    Index Table's `users`): each is part of a condition, as the thread and node counts are. None for a profile's
    own pattern or a pattern this version does not describe (their rows carry the profile and its hash)."""
    import pandas as pd

    from ..catalogue import describe

    df = pd.DataFrame(rows)
    if df.empty or not {"pattern", "phase"} <= set(df):
        return []
    found: list[str] = []
    for pattern, phase in df[["pattern", "phase"]].drop_duplicates().itertuples(index=False):
        try:
            found += [s.name for s in describe(str(pattern)).settings_for(str(phase))]
        except (ConfigError, KeyError, ValueError):
            continue
    return list(dict.fromkeys(found))


def ratio_at_point(rows: Any, first: str, second: str, *, metric: str = "throughput") -> PointRatio | None:
    """What `Asked.card_which` takes: `first` over `second` with an interval only from the repeats of one
    condition, the pattern's settings among the condition's columns (results.intervals.ratio_at_point says
    which condition it picks: the most repeats, then the most threads, then the most nodes)."""
    return ratio_at_one_point(rows, first, second, metric=metric, settings=pattern_settings(rows))


def server_cpu_per(rows: Any, what: str, *, lead: str = "Server CPU", scope: str = "") -> str:
    """The evidence line most cards end with: each approach's server CPU per transaction, the median of its
    runs ("Server CPU per login (all nodes, median of the runs): naive 0.31 ms, pattern 0.12 ms"), or "not
    measured" where the provider cannot see the servers. `scope` is said before "median" ("all nodes, ")."""
    import pandas as pd

    df = pd.DataFrame(rows)
    head = f"{lead} per {what} ({scope}median of the runs): "
    if df.empty or "server_cpu_ms_per_tx" not in df or "approach" not in df:
        return head + "not measured"
    cpu = df.groupby("approach")["server_cpu_ms_per_tx"].median()
    return head + ", ".join(f"{a} {v:.2f} ms" for a, v in cpu.items())


def growth_with_nodes(rows: Any, approaches: dict[str, str], low_n: int, high_n: int) -> dict[str, RatioInterval | None]:
    """For `Asked.card_growth`: each named approach's throughput on `high_n` nodes over `low_n` (separate
    clusters, so a Welch interval), from a budgeted sweep's rows. `approaches` maps the card's name to the
    rows' approach. Each side is the runs of one condition: a sweep of several thread counts is compared at its
    most threads (the budgeted sweeps run one), never pooled over them."""
    import pandas as pd

    df = pd.DataFrame(rows)
    if "threads" in df and df["threads"].nunique() > 1:
        df = df[df["threads"] == df["threads"].max()]
    return {name: interval_of(df[df.approach == approach], "throughput", high_n, low_n, between="nodes") for name, approach in approaches.items()}


def net_cpu_between(rows: Any, approaches: list[str], low_n: int, high_n: int) -> str:
    """Each approach's server CPU per transaction above the idle background (median of the runs) on `low_n`
    and on `high_n` nodes: "naive 0.21 → 0.35 ms, pattern 0.10 → 0.11 ms"; nan where not measured."""
    import pandas as pd

    df = pd.DataFrame(rows)
    net = (df.groupby(["approach", "nodes"])["server_cpu_ms_per_tx_net"].median() if "server_cpu_ms_per_tx_net" in df
           else pd.Series(dtype=float))
    return ", ".join(f"{a} {net.get((a, low_n), float('nan')):.2f} → {net.get((a, high_n), float('nan')):.2f} ms" for a in approaches)
