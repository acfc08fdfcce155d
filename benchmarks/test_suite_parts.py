"""Where `make test`'s time goes: seconds per part of the suite, from the JUnit report it writes.

Why: the README's table of the test suite's parts (make test within 25 minutes, make test-full within 75) comes from here, not
from a reading of a log by eye.

    make test                                   # writes build/junit-unit.xml and build/junit.xml, prints this table
    make test-full                              # writes build/junit-full.xml and prints this table
    .venv/bin/python benchmarks/test_suite_parts.py build/junit-unit.xml build/junit.xml [--modules]

A part's seconds are the sum of its tests' times (set-up and teardown included). make test runs the unit tests on two
workers (pytest-xdist), so their sum is more than the minutes they took: the last lines give each pytest run's own wall
clock, which is what a run waits for.
"""

from __future__ import annotations

import argparse
import collections
import sys
import xml.etree.ElementTree as ET

PARTS = (  # (path prefix, part), the first that matches
    ("tests/integration/", "integration tests (real clusters)"),
    ("tests/lessons/", "lessons, each once at the smoke sizes"),
    ("notebooks/", "lessons under nbval (quick, make test-full)"),
    ("tests/soak/", "soak (up/run/down cycles)"),
    ("tests/unit/", "unit tests"),
    ("tests/notebooks/", "exercises and solutions, nbgrader course"),
    ("tests/browser/", "browser (JupyterLab in Chromium)"),
    ("tests/compose/", "compose files (docker compose config)"),
)


def part_of(path: str) -> str:
    return next((part for prefix, part in PARTS if path.startswith(prefix)), "other")


def module_of(case: ET.Element) -> str:
    """The test's file: nbval's cases name the notebook in `file`, pytest's in `classname` (dotted)."""
    file = case.get("file")
    if file:
        return file
    dotted = case.get("classname", "")
    if dotted.startswith("notebooks."):
        return dotted.replace(".", "/", 1)
    parts = dotted.split(".")
    while parts and parts[-1][:1].isupper():  # a test class
        parts.pop()
    return "/".join(parts) + ".py"


def seconds_by(reports: list[str], key) -> collections.Counter:
    totals: collections.Counter = collections.Counter()
    for report in reports:
        for case in ET.parse(report).getroot().iter("testcase"):
            totals[key(module_of(case))] += float(case.get("time") or 0)
    return totals


def wall_clock(report: str) -> float:
    """The pytest run's own duration (JUnit's testsuite time): with workers in parallel, less than its tests' sum."""
    root = ET.parse(report).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    return float(suite.get("time") or 0) if suite is not None else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", metavar="report",
                        help="the JUnit XML files pytest wrote (make test: build/junit-unit.xml build/junit.xml)")
    parser.add_argument("--modules", action="store_true", help="also list each test file's seconds")
    args = parser.parse_args(argv)
    try:
        parts = seconds_by(args.reports, part_of)
        walls = {report: wall_clock(report) for report in args.reports}
    except (OSError, ET.ParseError) as exc:
        print(f"cannot read {' '.join(args.reports)}: {exc}; run `make test` first (it writes build/junit-unit.xml and build/junit.xml)",
              file=sys.stderr)
        return 1
    for part, secs in parts.most_common():
        print(f"{secs:8.0f} s  {part}")
    print(f"{sum(parts.values()):8.0f} s  all tests, summed (pytest's own start and collection not included)")
    for report, secs in walls.items():
        print(f"{secs:8.0f} s  wall clock of the pytest run that wrote {report}")
    if args.modules:
        print()
        for module, secs in seconds_by(args.reports, lambda m: m).most_common():
            print(f"{secs:8.0f} s  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
