"""The README is what a newcomer reads first: at most 150 lines, and every page it (or a page under docs/) links
to exists, so moving a section into docs/ cannot leave a dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_fits_a_newcomers_first_read():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail into docs/"


def test_every_relative_link_in_the_readme_and_docs_resolves():
    pages = [ROOT / "README.md", ROOT / "INSTRUCTORS.md", *sorted((ROOT / "docs").glob("*.md"))]
    dead = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if not re.match(r"[a-z]+://", target) and not (page.parent / target).exists():
                dead.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not dead, dead
