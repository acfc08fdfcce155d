"""The instructor's report of a batch run (`make run` -> build/index.html): per notebook its headline
results (from the rows its sweeps measured), its first figure, runtime, environment and, if it failed,
the cell and the error; and each executed notebook as HTML that shares one copy of plotly.js instead of
carrying it once per figure widget (a notebook page stays a few MB instead of 20-36)."""

from __future__ import annotations

import html
import json
import platform
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

PLOTLY_FILE = "plotly.min.js"
_PLOTLY_BANNER = "* plotly.js v"
_WIDGET_STATE = '<script type="application/vnd.jupyter.widget-state+json">'
_STUB_ESM = ("export default { render({ el }) { el.innerHTML = '<p style=\"color:#666\"><i>Live control-panel figure: it runs in "
             "JupyterLab. This page shows the notebook\\'s tables and static figures.</i></p>'; } };")


# ---- executed notebook HTML ----------------------------------------------------------------------

def _scripts(body: str):
    """(start, end, opening tag, content) of every <script> element, found without a regex over megabytes."""
    at = 0
    while True:
        start = body.find("<script", at)
        if start < 0:
            return
        open_end = body.find(">", start) + 1
        close = body.find("</script>", open_end)
        if open_end <= 0 or close < 0:
            return
        yield start, close + len("</script>"), body[start:open_end], body[open_end:close]
        at = close + len("</script>")


def slim_html(body: str) -> tuple[str, str | None]:
    """The page with every inline copy of plotly.js replaced by one reference to PLOTLY_FILE (loaded at the
    same place, so the figures after it find `Plotly` as before), and each figure widget's 5 MB module
    (the panel's live FigureWidget, which cannot run outside a kernel) replaced by a one-line note.
    Returns (page, the plotly.js source it removed, or None)."""
    pieces, last, plotly_js = [], 0, None
    for start, end, tag, content in _scripts(body):
        if _PLOTLY_BANNER in content[:300]:
            plotly_js = plotly_js or content
            pieces += [body[last:start], f'<script src="{PLOTLY_FILE}"></script>']
            last = end
        elif tag.startswith(_WIDGET_STATE[:-1]) and len(content) > 100_000:
            pieces += [body[last:start], tag + _slim_widget_state(content) + "</script>"]
            last = end
    pieces.append(body[last:])
    return "".join(pieces), plotly_js


def _slim_widget_state(text: str) -> str:
    try:
        state = json.loads(text)
    except ValueError:
        return text
    for model in state.get("state", {}).values():
        inner = model.get("state", {})
        if isinstance(inner.get("_esm"), str) and len(inner["_esm"]) > 50_000:
            inner["_esm"] = _STUB_ESM
    return json.dumps(state)


def export_html(executed: Path, out_dir: Path) -> Path:
    """The executed notebook as slim HTML next to it; writes the shared plotly.js once per folder."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_filename(str(executed))
    page, plotly_js = slim_html(body)
    if plotly_js is not None and not (out_dir / PLOTLY_FILE).exists():
        (out_dir / PLOTLY_FILE).write_text(plotly_js, encoding="utf-8")
    target = executed.with_suffix(".html")
    target.write_text(page, encoding="utf-8")
    return target


def ensure_plotly(out_dir: Path) -> None:
    """The report page's own figures need plotly.js even when no notebook page carried a copy."""
    if not (out_dir / PLOTLY_FILE).exists():
        from plotly.offline import get_plotlyjs

        (out_dir / PLOTLY_FILE).write_text(get_plotlyjs(), encoding="utf-8")


# ---- what a notebook measured -------------------------------------------------------------------

def headline(rows: pd.DataFrame) -> pd.DataFrame:
    """Per pattern, phase, node count and budget: each approach's throughput at the highest thread count
    measured (the median of its repeats), the pattern / naive ratio with how sure it is ("2.6x (2.3-3.1)",
    "within noise", or "too few repeats for an interval"), how many runs verified, and what limited the points."""
    from .results.intervals import paired_ratios, ratio_interval, usable

    if rows.empty or "approach" not in rows or "throughput" not in rows:
        return pd.DataFrame()
    df = rows.copy()
    df["budget"] = df["node_cpu"].map(lambda v: "none" if pd.isna(v) else f"{float(v):g} core") if "node_cpu" in df else "none"
    keys = [k for k in ("pattern", "phase", *_varying_settings(df), "nodes", "budget") if k in df]
    out = []
    for point, group in df.groupby(keys, dropna=False, sort=True):
        top = group[group["threads"] == group["threads"].max()]
        by = usable(top).groupby("approach")
        row: dict[str, Any] = dict(zip(keys, point if isinstance(point, tuple) else (point,)))
        row["threads"] = int(group["threads"].max())
        tput = by["throughput"].median()
        for approach, value in tput.items():
            row[f"{approach} tx/s"] = round(float(value), 1)
        for naive in [a for a in tput.index if str(a).startswith("naive")]:
            found = ratio_interval(paired_ratios(top, "pattern", naive, keys=["threads"])["ratio"]) if "pattern" in tput.index else None
            if found is not None:
                row[f"pattern/{naive}"] = found.text()
        designs = [a for a in dict.fromkeys(top["approach"]) if str(a).startswith("design/") and a in tput.index]
        for design in designs[1:]:  # a profile's designs: each over the first one run
            found = ratio_interval(paired_ratios(top, design, designs[0], keys=["threads"])["ratio"])
            if found is not None:
                row[f"{design}/{designs[0]}"] = found.text()
        if "repeat" in top:
            row["repeats"] = int(usable(top).groupby("approach")["repeat"].nunique().min())
        ok = group["verify_ok"].map(lambda v: v is True or str(v) == "True").sum() if "verify_ok" in group else 0
        checked = group["verify_ok"].map(lambda v: str(v) in ("True", "False")).sum() if "verify_ok" in group else 0
        row["verified"] = f"{ok}/{len(group)}" if checked else "not run (no verify)"
        if "limit" in top:
            row["limited by"] = "; ".join(f"{a}: {', '.join(sorted(set(map(str, g['limit']))))}" for a, g in by)
        out.append(row)
    table = pd.DataFrame(out)
    order = [*keys, "threads", *sorted(c for c in table if c.endswith(" tx/s")), *sorted(c for c in table if c.startswith(("pattern/", "design/")) and not c.endswith(" tx/s")), "repeats", "verified", "limited by"]
    return table[[c for c in order if c in table]]


def _varying_settings(df: pd.DataFrame) -> list[str]:
    """The patterns' settings that differ between rows (e.g. Distorted Replicas' groups): each value is its own headline row."""
    from .errors import ConfigError
    from .catalogue import describe

    names: list[str] = []
    for pattern in df["pattern"].dropna().unique() if "pattern" in df else []:
        try:
            settings = describe(str(pattern)).settings
        except ConfigError:
            continue
        names += [s.name for s in settings if s.name in df and s.name not in names and df.loc[df["pattern"] == pattern, s.name].nunique() > 1]
    return names


def environment(rows: pd.DataFrame) -> str:
    """Engines and versions, providers, node budgets and the machine, in one line."""
    from .results.figures import describe_budgets, describe_servers

    machine = f"{os.cpu_count()} cores · {platform.system()} {platform.release()} · Python {platform.python_version()}"
    if rows.empty or "engine" not in rows:
        return f"no sweep rows recorded · machine: {machine}"
    return f"{describe_servers(rows)} · {describe_budgets(rows)} · machine: {machine}"


def first_figure(nb: Any) -> dict | None:
    """A plotly figure of the executed notebook: a cell tagged `main-figure`, else the first figure shown."""
    cells = [c for c in nb.cells if c.cell_type == "code"]
    tagged = [c for c in cells if "main-figure" in c.metadata.get("tags", [])]
    for cell in tagged + cells:
        for output in cell.get("outputs", []):
            figure = output.get("data", {}).get("application/vnd.plotly.v1+json")
            if figure:
                return dict(figure)
    return None


def cards(nb: Any) -> list[dict]:
    """The result cards the executed notebook showed, in order: question, prediction (None: none given),
    what was measured, verdict. How the report says which runs had a prediction."""
    from .predictions import CARD_MIME

    return [dict(output["data"][CARD_MIME]) for cell in nb.cells if cell.cell_type == "code"
            for output in cell.get("outputs", []) if CARD_MIME in output.get("data", {})]


def judged_counts(shown: list[dict]) -> dict[str, int]:
    """What one notebook's cards could judge and did: `questions`; `could judge` (an answer a prediction is right or
    wrong against), `tie` (of those, no difference the run could show), `too few` (too few repeats to judge), `not
    measured`; and the verdicts: `right`, `wrong`, `no prediction`. A batch run predicts nothing, so what it could
    judge is what its sizes can teach; a card made before cards said (could_judge missing) counts as not measured."""
    from .predictions import ABSENT, JUDGED_ANSWER, RIGHT, TIE, TOO_FEW, WRONG

    could = [c.get("could_judge") for c in shown]
    verdicts = [c.get("verdict") for c in shown]
    return {"questions": len(shown), "could judge": sum(c in (JUDGED_ANSWER, TIE) for c in could), "tie": could.count(TIE),
            "too few": could.count(TOO_FEW), "not measured": sum(c not in (JUDGED_ANSWER, TIE, TOO_FEW) for c in could),
            "right": verdicts.count(RIGHT), "wrong": verdicts.count(WRONG), "no prediction": verdicts.count(ABSENT)}


def judged_sentence(counts: dict[str, int]) -> str:
    """'This run could judge 4 of 6 questions (1 a tie: no difference the run could show); 2 too few repeats to judge.
    Verdicts: 0 right, 0 wrong, 6 no prediction.'"""
    return (f"This run could judge {counts['could judge']} of {counts['questions']} questions"
            + (f" ({counts['tie']} a tie: no difference the run could show)" if counts["tie"] else "")
            + "".join(f"; {counts[k]} {k.replace('too few', 'too few repeats to judge')}" for k in ("too few", "not measured") if counts[k])
            + f". Verdicts: {counts['right']} right, {counts['wrong']} wrong, {counts['no prediction']} no prediction.")


def failure(nb: Any) -> str:
    """'cell N (its first line): Error: message' for the first cell that raised, else ''."""
    for index, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                first = next((line for line in cell.source.splitlines() if line.strip()), "")
                return f"code cell {index + 1} ({first[:80]}): {output.get('ename')}: {output.get('evalue')}"
    return ""


# ---- the page -----------------------------------------------------------------------------------

def _section(run: Any, out_dir: Path, index: int) -> str:
    import nbformat

    executed = out_dir / f"{run.name}.ipynb"
    rows_file = out_dir / f"{run.name}.rows.csv"
    rows = pd.read_csv(rows_file) if rows_file.exists() else pd.DataFrame()
    nb = nbformat.read(executed, as_version=4) if executed.exists() else None
    where = failure(nb) if nb is not None and not run.ok else ""
    status = "ok" if run.ok else "FAILED"
    parts = [f"<section><h2><a href='{html.escape(run.name)}.html'>{html.escape(run.name)}</a> "
             f"<span class='{'ok' if run.ok else 'fail'}'>{status}</span> <small>{run.seconds:.0f} s</small></h2>",
             f"<p class='env'>{html.escape(environment(rows))}</p>"]
    if not run.ok:
        parts.append(f"<p class='fail'>{html.escape(where or run.error)}</p>")
    table = headline(rows)
    if not table.empty:
        parts.append(table.to_html(index=False, classes="headline", na_rep="", border=0))
    else:
        parts.append("<p><i>No pattern sweep in this notebook: its own tables are in the notebook page.</i></p>")
    shown = cards(nb) if nb is not None else []
    if shown:
        answered = sum(c.get("prediction") is not None for c in shown)
        parts.append(f"<p>Predictions: {answered} of {len(shown)} questions answered before their runs"
                     f"{' (a batch run records the others as none)' if answered < len(shown) else ''}. "
                     f"{html.escape(judged_sentence(judged_counts(shown)))}</p>")
        parts.append(pd.DataFrame(shown).reindex(columns=["question", "prediction", "measured", "verdict", "could_judge"]).fillna("none")
                     .to_html(index=False, classes="headline", border=0))
    figure = first_figure(nb) if nb is not None else None
    if figure is not None:
        layout = {**figure.get("layout", {}), "height": 420}
        parts.append(f"<div id='fig{index}' class='figure'></div><script>Plotly.newPlot('fig{index}', {json.dumps(figure.get('data', []))}, "
                     f"{json.dumps(layout)}, {{responsive: true}});</script>")
    parts.append("</section>")
    return "\n".join(parts)


def judged_table(runs: list[Any], out_dir: Path) -> pd.DataFrame:
    """One row per executed notebook with cards: judged_counts of its cards, and a total row."""
    import nbformat

    rows = []
    for run in runs:
        executed = out_dir / f"{run.name}.ipynb"
        shown = cards(nbformat.read(executed, as_version=4)) if executed.exists() else []
        if shown:
            rows.append({"notebook": run.name, **judged_counts(shown)})
    table = pd.DataFrame(rows)
    if not table.empty:
        table = pd.concat([table, pd.DataFrame([{"notebook": "all", **table.drop(columns="notebook").sum().to_dict()}])], ignore_index=True)
    return table


def write_report(runs: list[Any], out_dir: Path, profile: str) -> Path:
    """build/index.html: one section per notebook, failures first in the summary line."""
    ensure_plotly(out_dir)
    failed = [r.name for r in runs if not r.ok]
    summary = f"{len(runs) - len(failed)} of {len(runs)} notebooks ran" + (f"; failed: {', '.join(failed)}" if failed else "")
    sections = "\n".join(_section(r, out_dir, i) for i, r in enumerate(runs))
    judged = judged_table(runs, out_dir)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>labkit report ({html.escape(profile)})</title>
<script src="{PLOTLY_FILE}"></script>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}td,th{{padding:.25em .8em;text-align:left;font-size:90%}}
table.headline{{border-collapse:collapse;margin:.5em 0}}table.headline tr:nth-child(even){{background:#f4f4f4}}
.ok{{color:green}}.fail{{color:#b00;font-weight:bold}}.env{{color:#555;font-size:90%}}section{{border-top:1px solid #ccc;margin-top:1.5em}}</style>
</head><body><h1>labkit notebook report</h1>
<p>Profile <b>{html.escape(profile)}</b>, executed {time.strftime('%Y-%m-%d %H:%M:%S %Z')}. {html.escape(summary)}.
Each headline row is one pattern phase on one cluster size: every approach's throughput at the highest thread count measured,
the pattern / naive ratio with a 95% interval from paired repeats (or the spread and "too few repeats for an interval";
"within noise" when the interval holds 1), how many runs passed verification and what limited the points (client, server nodeN, machine, none).
The notebook pages (links) hold every table and figure.</p>
<h2>What this run could judge</h2>
<p>Per notebook, its questions' cards: how many the run's measurements could judge (an answer a prediction is right or wrong
against; a tie is one), how many had too few repeats for an interval or nothing measured, and the verdicts on the predictions given.</p>
{judged.to_html(index=False, classes="headline", border=0) if not judged.empty else "<p><i>No result cards.</i></p>"}
{sections}
</body></html>
"""
    report = out_dir / "index.html"
    report.write_text(page, encoding="utf-8")
    (out_dir / "report.json").write_text(json.dumps([r.__dict__ for r in runs], indent=2))
    return report
