"""README.md stays short and keeps what a newcomer looks for in it: the two set-up commands,
the tour, and links into the docs that lead somewhere."""

from __future__ import annotations

import re

from tests.docs.pages import ROOT

README = ROOT / "README.md"
LONGEST = 200



def test_the_readme_is_short():
    lines = README.read_text().count("\n")
    assert lines < LONGEST, f"README.md has {lines} lines; the rest belongs in docs/"


def test_the_readme_gives_the_two_set_up_commands():
    text = README.read_text()
    assert "make demo   # main job" in text and "make test   # test suite" in text


def test_every_link_of_the_readme_leads_to_a_file():
    text = README.read_text()
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)
               if not re.match(r"^[a-z]+:", t)]
    assert "docs/tutorial.md" in targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing
