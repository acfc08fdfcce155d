"""The questions each lesson notebook asks before its live runs, and the boxes that ask them in the notebook.

Why a module and not cells: the notebooks' test reads the same questions (a question's give-aways must not
appear in the prose before the run that answers it), and papermill's `predictions` parameter names them by
key. One module per notebook holds its LESSON; the notebook calls `LESSON.ask(predictions, **facts)` once
and then `asked.show(key)` before an experiment, `asked.require(key)` as the experiment's first line and
`asked.card(key, measured, evidence)` after it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..predictions import NOISE, RIGHT, TOO_FEW, WRONG, Question, judge_choice
from ..results.intervals import RatioInterval, interval_of, paired_ratios, ratio_interval


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


class Asked(dict):
    """The notebook's boxes by key, with the three calls a lesson cell makes."""

    def show(self, key: str) -> Any:
        """The question's widget (a cell's last expression displays it)."""
        return self[key].widget

    def require(self, key: str) -> None:
        """An experiment's first line: stops with one sentence until the student has predicted (or skipped),
        then freezes the prediction for this run."""
        self[key].require()
        self[key].freeze()

    def card(self, key: str, measured: Any, evidence: str, verdict: str | None = None) -> dict[str, Any]:
        """The result card: the prediction beside `measured`, the verdict (judged, unless `verdict` says what
        the run could tell, e.g. too few repeats) and the servers' evidence; kept in the predictions file."""
        from ..host.users import current_user
        from ..namespace import ENV
        from ..widgets.prediction import result_card

        return result_card(self[key], measured, evidence, user=current_user(), namespace=os.environ.get(ENV, ""), verdict=verdict)

    def card_which(self, key: str, interval: RatioInterval | None, first: str, second: str, evidence: str, what: str = "per second") -> dict[str, Any]:
        """The card of a "which of two serves more" question, from `interval` (first over second): a winner only
        where the interval says so; within noise and too few repeats are said as such."""
        box = self[key]
        prediction = box.ran_with
        measured = f"{first} / {second}, {what}: {interval.text()}" if interval is not None else "not measured (no run of both)"
        verdict = judge_choice(box.question, prediction, interval, first, second) if interval is not None else TOO_FEW
        return self.card(key, measured, evidence, verdict=verdict)

    def card_growth(self, key: str, grew: dict[str, RatioInterval | None], low_n: int, high_n: int, evidence: str,
                    unit: str = "tx/s") -> dict[str, Any]:
        """The card of "whose throughput grows with the nodes" (options: both, only <name>'s, neither): `grew`
        holds each approach's throughput at `high_n` nodes over `low_n` (independent clusters, so a Welch
        interval). One grew where its whole interval is above 1; "too few repeats" or "within noise" where any
        interval cannot say."""
        measured = "; ".join(f"{name} {i.text() if i else 'not run'}" for name, i in grew.items()) + f" ({unit}, {high_n} nodes over {low_n})"
        intervals = list(grew.values())
        if any(i is None or not i.has_interval for i in intervals):
            return self.card(key, measured, evidence, verdict=TOO_FEW)
        if any(i.within_noise for i in intervals):
            return self.card(key, measured, evidence, verdict=NOISE)
        up = [name for name, i in grew.items() if i.low > 1]
        answer = "both" if len(up) == len(grew) else f"only {up[0]}'s" if len(up) == 1 else "neither"
        box = self[key]
        prediction = box.ran_with
        return self.card(key, f"{answer}: {measured}", evidence, verdict=RIGHT if prediction == answer else WRONG)


def pooled_ratio(rows: Any, first: str, second: str, *, metric: str = "throughput") -> RatioInterval | None:
    """`first` over `second` approach across a sweep's points: each pair from one block at one point (thread
    count, nodes), so a sweep of several thread counts gives several pairs even with one repeat each."""
    import pandas as pd

    df = pd.DataFrame(rows)
    if df.empty or not {first, second} <= set(df.get("approach", ())):
        return None
    keys = [k for k in ("nodes", "node_cpu", "threads") if k in df]
    return ratio_interval(paired_ratios(df, first, second, metric=metric, keys=keys)["ratio"])


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
    rows' approach."""
    import pandas as pd

    df = pd.DataFrame(rows)
    return {name: interval_of(df[df.approach == approach], "throughput", high_n, low_n, between="nodes") for name, approach in approaches.items()}


def net_cpu_between(rows: Any, approaches: list[str], low_n: int, high_n: int) -> str:
    """Each approach's server CPU per transaction above the idle background (median of the runs) on `low_n`
    and on `high_n` nodes: "naive 0.21 → 0.35 ms, pattern 0.10 → 0.11 ms"; nan where not measured."""
    import pandas as pd

    df = pd.DataFrame(rows)
    net = (df.groupby(["approach", "nodes"])["server_cpu_ms_per_tx_net"].median() if "server_cpu_ms_per_tx_net" in df
           else pd.Series(dtype=float))
    return ", ".join(f"{a} {net.get((a, low_n), float('nan')):.2f} → {net.get((a, high_n), float('nan')):.2f} ms" for a in approaches)
