"""#70 item 2: every question a card judges against an interval gets the repeats to judge it at the size students run
(`quick`, what `make run` and a student's first Run use): at least 3 ABBA pairs at its decisive point. Below 3 the card can
only say "too few repeats to judge", whatever the student predicted.

The interval-judged questions are found, not listed: each `card_which` and `card_growth` in the notebooks' code and every
question of kind "ratio". Each lesson module says in JUDGED_AT how its sizes give each one its pairs."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from labkit.lessons import sweep_repeats

ROOT = Path(__file__).resolve().parents[2]
INTERVAL_CARDS = re.compile(r"""card_(?:which|growth)\(\s*["'](\w+)["']""")
MIN_PAIRS = 3


def lesson_modules() -> dict[str, str]:
    from tests.unit.test_notebook_predictions import CONVERTED

    return CONVERTED


def interval_judged(notebook: str, module) -> set[str]:
    code = "\n".join(c["source"] for c in json.loads((ROOT / "notebooks" / notebook).read_text())["cells"] if c["cell_type"] == "code")
    return set(INTERVAL_CARDS.findall(code)) | {q.key for q in module.LESSON.questions if q.kind == "ratio"}


def too_few(keys: set[str], judged_at: dict, size: str = "quick") -> list[str]:
    """One sentence per interval-judged question without 3 pairs at `size` (or without a JUDGED_AT entry)."""
    problems = []
    for key in sorted(keys):
        if key not in judged_at:
            problems.append(f"{key}: no JUDGED_AT entry says how its sizes give it pairs")
        elif (pairs := judged_at[key](size)) < MIN_PAIRS:
            problems.append(f"{key}: {pairs} pair(s) at {size}, at least {MIN_PAIRS} needed for an interval")
    return problems


@pytest.mark.parametrize("notebook", sorted(lesson_modules()))
def test_every_interval_judged_question_has_three_pairs_at_the_quick_size(notebook):
    module = importlib.import_module(lesson_modules()[notebook])
    keys = interval_judged(notebook, module)
    problems = too_few(keys, getattr(module, "JUDGED_AT", {}))
    assert not problems, f"{notebook}:\n" + "\n".join(problems)
    assert set(getattr(module, "JUDGED_AT", {})) <= {q.key for q in module.LESSON.questions}


def test_the_check_finds_a_question_with_one_pair_and_one_without_a_declaration():
    """The check is not vacuous: a sweep of one repeat (the smoke size) and a question nobody declared both fail."""
    assert too_few({"login_winner", "page_winner"}, {"login_winner": sweep_repeats("labkit.patterns.index_table", "login")}, "smoke") == [
        "login_winner: 1 pair(s) at smoke, at least 3 needed for an interval", "page_winner: no JUDGED_AT entry says how its sizes give it pairs"]

