"""Predictions before a live run: judged exactly for counted evidence and against the interval for a ratio,
never blocking a batch run, locked when the run starts, and kept (the widget is exercised without a kernel)."""

from __future__ import annotations

import json

import pytest

from labkit.errors import ConfigError
from labkit.predictions import ABSENT, NOISE, RIGHT, TIE, TOO_FEW, WRONG, Question, given, in_batch, judge, judge_choice, record, winner
from labkit.results.intervals import RatioInterval

NODES = Question("login-nodes", "How many nodes will one login touch at 4 nodes?", "count", low=1, high=4, giveaways=("2",))
FASTER = Question("faster", "Which approach serves more logins at 8 nodes?", "choice", options=("naive", "pattern", TIE))
ROWS = Question("rows", "How many rows will the scan read?", "count", low=0, high=10_000, tolerance=1)
RATIO = Question("gain", "By how much?", "ratio", low=0.1, high=100)


def interval(estimate, low, high, pairs=3, method="t"):
    return RatioInterval(estimate, low, high, pairs, method)


def test_counted_evidence_is_judged_exactly_and_a_ratio_against_its_interval():
    assert judge(NODES, 2, 2) == RIGHT and judge(NODES, 3, 2) == WRONG
    assert judge(RATIO, 2.5, interval(2.6, 2.3, 3.1)) == RIGHT
    assert judge(RATIO, 5.0, interval(2.6, 2.3, 3.1)) == WRONG
    assert judge(RATIO, 3.0, interval(0.87, 0.43, 1.7)) == WRONG  # outside the interval is wrong, though the interval holds 1
    assert judge(RATIO, 1.0, interval(0.87, 0.43, 1.7)) == RIGHT
    assert judge(ROWS, 999, 1000) == RIGHT and judge(ROWS, 1001, 1000) == RIGHT and judge(ROWS, 998, 1000) == WRONG  # the stated tolerance
    assert judge(RATIO, 2.6, interval(2.6, 2.3, 3.1, pairs=1, method="spread")) == TOO_FEW
    assert judge(NODES, None, 2) == ABSENT


def test_which_approach_won_is_told_only_when_the_interval_excludes_1_and_a_tie_can_be_right():
    assert winner(interval(2.6, 2.3, 3.1), "pattern", "naive") == "pattern"
    assert winner(interval(0.4, 0.3, 0.5), "pattern", "naive") == "naive"
    assert winner(interval(1.1, 0.9, 1.3), "pattern", "naive") is None
    assert judge(FASTER, "pattern", winner(interval(1.1, 0.9, 1.3), "pattern", "naive")) == NOISE
    assert judge_choice(FASTER, "pattern", interval(2.6, 2.3, 3.1), "pattern", "naive") == RIGHT
    assert judge_choice(FASTER, "naive", interval(2.6, 2.3, 3.1), "pattern", "naive") == WRONG
    assert judge_choice(FASTER, "naive", interval(1.1, 0.9, 1.3), "pattern", "naive") == WRONG  # the run cannot tell them apart
    assert judge_choice(FASTER, TIE, interval(1.1, 0.9, 1.3), "pattern", "naive") == RIGHT  # and a tie is an answer
    assert judge_choice(FASTER, TIE, interval(2.6, 2.3, 3.1), "pattern", "naive") == WRONG
    assert judge_choice(FASTER, TIE, interval(1.1, 1.1, 1.1, pairs=1, method="spread"), "pattern", "naive") == TOO_FEW
    assert judge_choice(FASTER, "naive", interval(2.6, 2.3, 3.1, pairs=1, method="spread"), "pattern", "naive") == TOO_FEW
    assert judge_choice(FASTER, None, None, "pattern", "naive") == ABSENT


def test_an_answer_out_of_the_questions_terms_says_what_would_do():
    with pytest.raises(ConfigError, match="answer one of 'naive', 'pattern'"):
        FASTER.checked("index")
    with pytest.raises(ConfigError, match="answer between 1 and 4"):
        NODES.checked(7)
    with pytest.raises(ConfigError, match="a whole number"):
        NODES.checked(2.5)
    with pytest.raises(ConfigError, match="a choice needs at least two options"):
        Question("q", "?", "choice", options=("one",))


def test_the_committed_answer_is_judged_as_a_card_would_and_must_be_one_the_question_takes():
    assert Question("n", "How many?", "count", low=1, high=8, expected=3).is_expected(3)
    assert not Question("n", "How many?", "count", low=1, high=8, expected=3).is_expected(4)
    assert Question("rows", "How many rows?", "count", low=0, high=10_000, tolerance=1, expected=999).is_expected(1000)  # the tolerance
    assert Question("w", "Which?", "choice", options=("naive", "pattern", TIE), expected=TIE).is_expected(TIE)
    assert not Question("w", "Which?", "choice", options=("naive", "pattern", TIE), expected=TIE).is_expected("naive")
    gain = Question("gain", "By how much?", "ratio", low=0.1, high=100, expected=(1.6, 2.1))
    assert gain.is_expected(2.0) and not gain.is_expected(3.0)
    with pytest.raises(ConfigError, match="answer between 0.1 and 100"):
        gain.is_expected(500)
    with pytest.raises(ValueError, match="declares no expected answer"):
        RATIO.is_expected(2.0)
    with pytest.raises(ConfigError, match="answer one of 'naive', 'pattern'"):
        Question("w", "Which?", "choice", options=("naive", "pattern"), expected="index")
    with pytest.raises(ConfigError, match=r"a \(low, high\) interval"):
        Question("gain", "By how much?", "ratio", low=0.1, high=100, expected=1.8)


def test_a_batch_run_takes_its_prediction_from_the_parameter_or_records_none(monkeypatch):
    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    assert not in_batch(None) and in_batch({}) and in_batch({"login-nodes": 2})
    monkeypatch.setenv("LABKIT_BATCH", "1")
    assert in_batch(None)
    assert given(NODES, {"login-nodes": "2"}) == 2 and given(NODES, {}) is None and given(NODES, None) is None


def test_predictions_are_kept_as_json_lines(tmp_path):
    path = tmp_path / "predictions.jsonl"
    record(path, notebook="02", question=RATIO, prediction=2.0, measured=interval(2.6, 2.3, 3.1), verdict=WRONG, user="ann", namespace="ann")
    record(path, notebook="02", question=NODES, prediction=None, measured=2, verdict=ABSENT, user="bob", namespace="bob")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["question"], r["prediction"], r["measured"], r["verdict"], r["user"]) for r in lines] == [
        ("gain", 2.0, "2.6x (2.3-3.1)", WRONG, "ann"), ("login-nodes", None, 2, ABSENT, "bob")]


def test_the_box_refuses_a_run_until_answered_or_skipped_and_asks_again_after_each_run(monkeypatch):
    from labkit.widgets.prediction import ASK, PredictFirst, PredictionBox

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    box = PredictionBox(NODES, notebook="02")
    states = []
    box.on_change(states.append)
    assert not box.ready()
    with pytest.raises(PredictFirst) as asked:
        box.require()
    assert asked.value._render_traceback_() == [ASK]  # what the notebook shows: one sentence, no traceback
    box.input.value = 3
    box.lock()
    assert box.ready() and states[-1] is True
    assert box.freeze() == 3 and box.frozen == [3] and states[-1] is False  # the next run asks again
    assert not box.ready()
    box.skip()
    assert box.ready() and box.freeze() is None and box.frozen == [3, None]


def test_in_a_batch_run_the_box_never_asks(monkeypatch, capsys):
    from labkit.widgets.prediction import PredictionBox

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    box = PredictionBox(FASTER, predictions={"faster": "pattern"})
    assert box.ready() and box.freeze() == "pattern" and box.ready() and box.freeze() == "pattern"
    assert PredictionBox(FASTER, predictions={}).ready() and capsys.readouterr().out == ""


def test_the_card_shows_the_prediction_beside_the_measurement_and_keeps_it(monkeypatch, tmp_path):
    from labkit.widgets import prediction as widget

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: shown.append(obj))
    box = widget.PredictionBox(NODES, predictions={"login-nodes": 3}, notebook="02")
    box.freeze()
    line = widget.result_card(box, 2, "The trace lists the coordinator and the replica that owns the lookup row.", user="ann")
    assert line["verdict"] == WRONG and line["prediction"] == 3 and line["measured"] == 2
    assert "you predicted: 3" in shown[0]["text/plain"] and shown[0][widget.MIME]["verdict"] == WRONG
    box.freeze()  # a batch box keeps its answer: a second run with the same prediction
    widget.result_card(box, 3, "Again.", keep=False)
    assert "before that: 3" in shown[1]["text/plain"] and "before that" in shown[1]["text/html"]
    assert json.loads((tmp_path / "predictions.jsonl").read_text())["user"] == "ann"


def test_a_panel_asked_to_wait_for_a_prediction_keeps_run_disabled_until_then_and_freezes_it_at_the_start(monkeypatch):
    """No cluster: the sweep itself is replaced, since what is tested is the lock before it."""
    from pathlib import Path

    from labkit.clusters.slot import ClusterSlot
    from labkit.catalogue import describe
    from labkit.sweeps import request_for
    from labkit.widgets import ControlPanel
    from labkit.widgets.prediction import PredictFirst, PredictionBox

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    chat = str(Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml")
    panel = ControlPanel(request_for(describe(chat), describe(chat).named_sweep("quick", "mix")), slot=ClusterSlot.for_engine("cassandra", "local"))
    assert not panel.run_button.disabled
    box = PredictionBox(Question("faster", "Which design serves more operations?", "choice", options=("by_index", "by_query")))
    panel.ask_first(box)
    assert panel.run_button.disabled
    started = []
    monkeypatch.setattr(panel, "_sweep", lambda chosen: started.append(chosen))
    with pytest.raises(PredictFirst):
        panel.run(wait=True)
    assert started == [] and not panel.running  # Run All stops here instead of hanging, and nothing ran
    box.lock("by_query")
    assert not panel.run_button.disabled
    panel.run(wait=True)
    assert len(started) == 1 and box.frozen == ["by_query"] and panel.run_button.disabled  # running, and the next run asks again
    assert panel._predicted == "faster: by_query"  # what this sweep's rows carry in their `prediction` column


def test_a_lesson_fills_in_its_facts_asks_by_key_and_cards_say_what_the_run_could_tell(monkeypatch, tmp_path):
    from labkit.errors import ConfigError
    from labkit.lessons import Lesson
    from labkit.predictions import ABSENT, TOO_FEW
    from labkit.widgets import prediction as widget

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: shown.append(obj))
    lesson = Lesson("02_index_table", (
        Question("touched", "How many of the {nodes} nodes does one login touch?", "count", low=1, high=8, giveaways=("all {nodes} nodes",)),
        Question("winner", "Which logs in more users per second?", "choice", options=("index", "lookup table")),
    ))
    assert lesson.question("touched", nodes=3).text == "How many of the 3 nodes does one login touch?"
    assert lesson.question("touched", nodes=3).giveaways == ("all 3 nodes",)
    with pytest.raises(ConfigError, match="its questions: touched, winner"):
        lesson.question("nodes")
    with pytest.raises(ConfigError, match="does not ask: toched"):
        lesson.ask({"toched": 3}, nodes=3)

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    asked = lesson.ask(nodes=3)
    with pytest.raises(widget.PredictFirst):
        asked.require("touched")
    asked["touched"].lock(3)
    asked.require("touched")
    assert asked["touched"].frozen == [3] and not asked["touched"].ready()  # frozen for this run; the next asks again
    assert asked.card("touched", 3, "The trace names every node.")["verdict"] == "right"
    asked["winner"].lock("index")
    asked.require("winner")
    assert asked.card("winner", None, "One pair per point.", verdict=TOO_FEW)["verdict"] == TOO_FEW

    batch = lesson.ask({"winner": "lookup table"}, nodes=3)  # papermill's parameter: nothing waits
    batch.require("touched"); batch.require("winner")
    assert batch.card("touched", 3, "x", verdict=TOO_FEW)["verdict"] == ABSENT  # no prediction stays no prediction
    lines = [json.loads(line) for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert [(l["question"], l["prediction"], l["verdict"]) for l in lines] == [
        ("touched", 3, "right"), ("winner", "index", TOO_FEW), ("touched", None, ABSENT)]
    assert all(l["notebook"] == "02_index_table" and l["user"] for l in lines)


def test_a_growth_card_names_whose_throughput_grew_only_where_every_interval_can_say(monkeypatch, tmp_path):
    from labkit.lessons import Lesson
    from labkit.predictions import RIGHT, TOO_FEW, WRONG
    from labkit.results.intervals import RatioInterval

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: None)
    options = ("both", "only the lookup table's", "only the secondary index's", "neither")
    lesson = Lesson("02", (Question("grow", "Whose logins grow?", "choice", options=options),))
    up, flat, noisy = RatioInterval(2.0, 1.5, 2.6, 3, "welch"), RatioInterval(0.8, 0.7, 0.9, 3, "welch"), RatioInterval(1.1, 0.9, 1.3, 3, "welch")
    one = RatioInterval(2.0, 2.0, 2.0, 1, "spread")

    def card(prediction, lookup, index):
        asked = lesson.ask({"grow": prediction})
        asked.require("grow")
        return asked.card_growth("grow", {"the lookup table": lookup, "the secondary index": index}, 1, 3, "CPU per login.", unit="logins/s")

    right = card("only the lookup table's", up, flat)
    assert right["verdict"] == RIGHT and right["measured"].startswith("only the lookup table's: the lookup table 2.0x (1.5-2.6)")
    assert card("both", up, flat)["verdict"] == WRONG
    assert card("both", up, up)["verdict"] == RIGHT and card("neither", flat, flat)["verdict"] == RIGHT
    assert card("neither", noisy, noisy)["verdict"] == RIGHT  # an interval holding 1 showed no growth
    assert card("both", up, noisy)["verdict"] == WRONG and card("only the lookup table's", up, noisy)["verdict"] == RIGHT
    assert card("both", one, up)["verdict"] == TOO_FEW


def test_the_cards_evidence_lines_come_from_the_rows():
    from labkit.lessons import growth_with_nodes, net_cpu_between, server_cpu_per

    rows = [{"approach": a, "nodes": n, "repeat": r, "throughput": t, "server_cpu_ms_per_tx": c, "server_cpu_ms_per_tx_net": c / 2}
            for a, n, r, t, c in (("naive", 1, 0, 100, 0.4), ("naive", 1, 1, 110, 0.6), ("naive", 3, 0, 100, 1.0), ("naive", 3, 1, 104, 1.2),
                                  ("pattern", 1, 0, 100, 0.2), ("pattern", 1, 1, 100, 0.2), ("pattern", 3, 0, 290, 0.3), ("pattern", 3, 1, 310, 0.3))]
    assert server_cpu_per(rows, "login", scope="all nodes, ") == "Server CPU per login (all nodes, median of the runs): naive 0.80 ms, pattern 0.25 ms"
    assert server_cpu_per([{"approach": "naive", "throughput": 1}], "page", lead="Cassandra's server CPU").endswith("per page (median of the runs): not measured")
    assert net_cpu_between(rows, ["naive", "pattern"], 1, 3) == "naive 0.25 → 0.55 ms, pattern 0.10 → 0.15 ms"
    grew = growth_with_nodes(rows, {"the pattern": "pattern", "the naive design": "naive"}, 1, 3)
    assert list(grew) == ["the pattern", "the naive design"] and grew["the pattern"].estimate == pytest.approx(3.0, rel=0.01)
    assert grew["the naive design"].estimate == pytest.approx(102 / 105, rel=0.01)


def test_a_tactic_panel_asked_to_wait_for_a_prediction_runs_only_after_one_and_shows_its_card(monkeypatch):
    """No cluster: the runner is replaced, since what is tested is the lock and the card after the run."""
    from types import SimpleNamespace

    from labkit.tactics.scenarios import scenarios
    from labkit.widgets import TacticPanel
    from labkit.widgets.prediction import PredictFirst, PredictionBox

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    monkeypatch.setattr("labkit.widgets.tactics.tactic_figure", lambda *a, **k: SimpleNamespace(show=lambda: None))
    done = SimpleNamespace(took_s=2.0, error="", timeline_rows=lambda: [], row=lambda: {"p95_after_vs_before": 0.5})
    ran, answered = [], []
    runner = SimpleNamespace(run=lambda plan, **kw: ran.append(plan.key) or done)
    panel = TacticPanel(runner, scenarios("quick"))
    box = PredictionBox(Question("effect", "What will it do to p95?", "choice", options=("better", "same")))
    panel.ask_first(box, answer=lambda run: answered.append(run.row()["p95_after_vs_before"]))
    assert panel.button.disabled
    with pytest.raises(PredictFirst):
        panel.run()
    assert ran == []
    box.lock("better")
    assert not panel.button.disabled
    assert panel.run() is done and len(ran) == 1 and answered == [0.5]
    assert box.frozen == ["better"] and panel.button.disabled  # the next run asks again


def test_a_count_over_a_wide_range_is_typed_and_a_narrow_one_is_a_slider():
    import ipywidgets as w

    from labkit.widgets.prediction import PredictionBox

    narrow = PredictionBox(Question("nodes", "How many nodes?", "count", low=1, high=8))
    wide = PredictionBox(Question("lost", "How many users lost?", "count", low=0, high=100000))
    assert isinstance(narrow.input, w.IntSlider) and isinstance(wide.input, w.BoundedIntText)
    assert wide.lock(50) == 50 and wide.input.max == 100000


def test_the_student_explains_each_card_and_the_explanation_is_kept_on_it_in_the_file_and_in_the_collected_rows(monkeypatch, tmp_path):
    """#70 item 4: under a card a student's run gets, a box asks why; Keep puts the sentences on the card (its saved
    record, so the class collects them), and beside the prediction in the predictions file."""
    import nbformat

    from labkit.predictions import collected
    from labkit.widgets import prediction as widget

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    shown, updated = [], []

    class Handle:
        def update(self, obj, raw=False):
            updated.append(obj)

    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, display_id=None: shown.append(obj) or (Handle() if display_id else None))
    box = widget.PredictionBox(NODES, notebook="02")
    box.lock(3)
    box.freeze()
    line = widget.result_card(box, 2, "The trace lists the coordinator and one replica.", user="ann")
    assert shown[0][widget.MIME]["verdict"] == WRONG and "explanation" not in shown[0][widget.MIME]
    explain = box.explained[-1]
    assert shown[1] is explain.widget  # the box comes right under its card
    assert explain.explain("   ")["question"] == "login-nodes" and not updated  # nothing written: nothing kept
    kept = explain.explain("The lookup row's replica\nanswers; the coordinator is the second.")
    assert kept["explanation"] == "The lookup row's replica answers; the coordinator is the second."
    card = updated[-1]
    assert card[widget.MIME]["explanation"] == kept["explanation"] and card[widget.MIME]["prediction"] == 3
    assert "your explanation: The lookup row" in card["text/plain"] and "labkit-explanation" in card["text/html"]
    assert card["text/html"].index("one replica.") < card["text/html"].index("your explanation")  # beside the run's evidence
    lines = [json.loads(l) for l in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert [(l.get("kind"), l["prediction"], l.get("explanation")) for l in lines] == [
        (None, 3, None), ("explanation", 3, kept["explanation"])]
    assert lines[1]["explained"] == line["time"]  # the card it explains

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("asked.card(...)", outputs=[nbformat.v4.new_output("display_data", data=card)])]
    nbformat.write(nb, tmp_path / "02.ipynb")
    assert [r["explanation"] for r in collected([tmp_path / "02.ipynb"])] == [kept["explanation"]]

    shown.clear()
    batch = widget.PredictionBox(NODES, predictions={"login-nodes": 2}, notebook="02")
    batch.freeze()
    widget.result_card(batch, 2, "x", keep=False)
    assert len(shown) == 1 and batch.explained == []  # a batch run has no one to ask


def test_a_panel_run_from_its_button_gets_its_own_card_from_that_runs_rows(monkeypatch, tmp_path):
    """A panel's re-run asks again and gets its own card, shown in the panel (the run ends in a background thread),
    judged on that run's rows only; the notebook's own run keeps its card in the next cell."""
    import contextlib
    from pathlib import Path

    from labkit.catalogue import describe
    from labkit.clusters.slot import ClusterSlot
    from labkit.sweeps import request_for
    from labkit.widgets import ControlPanel, panel as panel_module
    from labkit.widgets.prediction import MIME, PredictionBox, result_card

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    chat = str(Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml")
    panel = ControlPanel(request_for(describe(chat), describe(chat).named_sweep("quick", "mix")), slot=ClusterSlot.for_engine("cassandra", "local"))
    question = Question("faster", "Which design serves more operations?", "choice", options=("by_index", "by_query"))
    box = PredictionBox(question)
    panel.ask_first(box)
    runs = iter([[("by_index", 100.0), ("by_query", 300.0)], [("by_index", 500.0), ("by_query", 200.0)]])
    monkeypatch.setattr(panel_module, "Bench", lambda *a, **k: contextlib.nullcontext(None))
    monkeypatch.setattr(panel_module, "measure", lambda bench, store=None, watch=None: (
        {"approach": a, "threads": 2, "nodes": 1, "processes": 1, "throughput": t, "p95_us": 1000, "complete": True} for a, t in next(runs)))
    monkeypatch.setattr(panel, "_draw", lambda row: None)
    seen = []

    def card(rows):  # a notebook's card function: judged on the rows it is given
        seen.append(rows)
        return result_card(box, rows.sort_values("throughput").approach.iloc[-1], f"{len(rows)} runs", keep=False)

    from labkit.errors import ConfigError

    unasked = ControlPanel(request_for(describe(chat), describe(chat).named_sweep("quick", "mix")), slot=ClusterSlot.for_engine("cassandra", "local"))
    with pytest.raises(ConfigError, match="ask_first"):
        unasked.card_each_run(card)  # no prediction frozen per run: nothing to judge
    panel.card_each_run(card)
    box.lock("by_query")
    panel.run(wait=True)  # the notebook's run: its card is the next cell's
    assert panel.error is None and seen == [] and panel.cards.outputs == ()
    box.lock("by_query")
    panel.run(wait=False).wait(30)  # the Run button's
    assert panel.error is None and len(seen) == 1 and list(seen[0].throughput) == [500.0, 200.0]  # that run's rows only
    card_out, explain_out = panel.cards.outputs
    assert card_out["data"][MIME]["verdict"] == WRONG and card_out["data"][MIME]["prediction"] == "by_query"
    assert "widget-view" in next(iter(explain_out["data"]))
    box.explained[-1].explain("The index read fewer partitions at this size.")
    assert panel.cards.outputs[0]["data"][MIME]["explanation"] == "The index read fewer partitions at this size."


def test_a_card_says_what_its_run_could_judge_whatever_was_predicted_and_the_report_counts_it(monkeypatch, tmp_path):
    """#70 item 2: a batch run predicts nothing, so its verdicts are all "no prediction"; each card also says what the run
    could judge (an answer, a tie, too few repeats, nothing measured), and the report counts that per notebook."""
    from labkit.lessons import Lesson
    from labkit.predictions import JUDGED_ANSWER, NOT_MEASURED
    from labkit.report import judged_counts, judged_sentence
    from labkit.results.intervals import PointRatio

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: None)
    lesson = Lesson("02", (Question("winner", "Which serves more?", "choice", options=("a", "b", TIE)),
                           Question("factor", "How many times more?", "ratio", low=0.1, high=10),
                           Question("nodes", "How many nodes?", "count", low=1, high=8)))
    at = (("threads", 8),)
    clear, tie, few = (PointRatio(RatioInterval(e, lo, hi, n, m), at, 1, e, e) for e, lo, hi, n, m in
                       ((2.0, 1.6, 2.5, 3, "t"), (1.1, 0.8, 1.4, 3, "t"), (2.0, 2.0, 2.0, 1, "spread")))
    batch = lesson.ask({}, nodes=3)
    for key in ("winner", "factor", "nodes"):
        batch.require(key)
    shown = [batch.card_which("winner", clear, "a", "b", "x"), batch.card_which("winner", tie, "a", "b", "x"),
             batch.card_which("winner", few, "a", "b", "x"), batch.card_which("winner", None, "a", "b", "x"),
             batch.card("factor", clear.interval, "x"), batch.card("factor", few.interval, "x"),
             batch.card("nodes", 3, "x"), batch.card("nodes", "not measured (no trace)", "x")]
    assert [c["could_judge"] for c in shown] == [JUDGED_ANSWER, TIE, TOO_FEW, NOT_MEASURED, JUDGED_ANSWER, TOO_FEW, JUDGED_ANSWER, NOT_MEASURED]
    assert {c["verdict"] for c in shown} == {ABSENT}
    counts = judged_counts(shown)
    assert (counts["questions"], counts["could judge"], counts["tie"], counts["too few"], counts["not measured"]) == (8, 4, 1, 2, 2)
    assert judged_sentence(counts).startswith("This run could judge 4 of 8 questions (1 a tie")

    asked = lesson.ask({"winner": TIE, "nodes": 2}, nodes=3)
    asked.require("winner"); asked.require("nodes")
    judged = judged_counts([asked.card_which("winner", tie, "a", "b", "x"), asked.card("nodes", 3, "x")])
    assert (judged["right"], judged["wrong"], judged["no prediction"]) == (1, 1, 0)


def test_an_estimate_is_judged_against_the_band_its_question_names_and_can_be_wrong(tmp_path):
    """#70 item 1: `estimate` for a number with a unit (seconds until a dead node is marked down): right inside the band
    the question states (3 s or a third either way, whichever is more), wrong outside it; one number without a band
    judges nothing."""
    from labkit.predictions import Band, band, could_judge

    seconds = Question("down_after", "How many seconds until the others mark it down?", "estimate", low=0, high=120, unit="s")
    measured = band(12.0, within=3, share=1 / 3, unit="s")
    assert measured == Band(12.0, 8.0, 16.0, "s") and band(2.0, within=3, share=1 / 3).low == 0.0  # no negative seconds
    assert [judge(seconds, p, measured) for p in (8, 15.9, 7.5, 30)] == [RIGHT, RIGHT, WRONG, WRONG]
    assert judge(seconds, 12, 12.0) == TOO_FEW and could_judge(seconds, 12.0) == TOO_FEW and could_judge(seconds, measured) == "yes"
    line = record(tmp_path / "p.jsonl", notebook="00", question=seconds, prediction=30, measured=measured, verdict=WRONG, user="u", namespace="")
    assert line["measured"] == "12 s (an estimate from 8 to 16 s is right)"


def test_a_run_that_answers_two_questions_uses_neither_answer_until_both_are_given(monkeypatch):
    """One experiment cell that answers two questions checks both before freezing either: a student who answered
    one is stopped with that answer kept, not used up by a run that did not happen."""
    from labkit.lessons import Lesson
    from labkit.widgets.prediction import PredictFirst

    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    lesson = Lesson("02", (Question("a", "A?", "count", low=1, high=8), Question("b", "B?", "count", low=1, high=8)))
    asked = lesson.ask()
    asked["a"].lock(3)
    with pytest.raises(PredictFirst):
        asked.require("a", "b")
    assert asked["a"].answer == 3 and asked["a"].frozen == []  # kept, not frozen
    asked["b"].lock(2)
    asked.require("a", "b")
    assert asked["a"].frozen == [3] and asked["b"].frozen == [2]


def test_a_value_that_was_not_measured_is_never_judged_wrong():
    """A card whose run measured nothing ("not measured (...)") says so, for every kind, instead of calling the prediction
    wrong (a choice) or failing (a ratio, a count)."""
    from labkit.predictions import NOT_MEASURED

    for question, prediction in ((FASTER, "pattern"), (NODES, 2), (Question("f", "F?", "ratio", low=0.1, high=10), 2.0),
                                 (Question("s", "S?", "estimate", low=0, high=120, unit="s"), 20)):
        assert judge(question, prediction, "not measured (no run of both)") == NOT_MEASURED
    assert judge(FASTER, "pattern", None) == NOISE  # None stays what it was: a ratio that decided nothing
