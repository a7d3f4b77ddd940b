"""Plain sentences (issue 49): in README.md, every page of docs/ and the two pages the site
includes from outside docs/ (the protocol and the rule book), no sentence runs past 40 words
and the mean is 20 or fewer. The first tests show that the measure can fail."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from tests.docs.sentences import LONGEST, MEAN, sentences, words

ROOT = Path(__file__).resolve().parents[2]
_INCLUDE = re.compile(r"^<!-- include: ([\w./-]+) -->$", re.M)


def included(pages: list[Path]) -> list[Path]:
    """The files these pages include whole (`<!-- include: PATH -->`, docs/hooks/arena_docs.py):
    the site shows each as a page, so each is measured as one."""
    return sorted({ROOT / path for page in pages for path in _INCLUDE.findall(page.read_text())})


DOCS = sorted((ROOT / "docs").rglob("*.md"))
INCLUDED = included(DOCS)
PAGES = [ROOT / "README.md", *DOCS, *INCLUDED]


def test_a_long_sentence_is_found_and_split_from_its_neighbours():
    long = " ".join(["word"] * 41) + "."
    found = sentences(f"Short one here. {long} And a third!\n")
    assert [words(s) for s in found] == [3, 41, 3]


def test_code_tables_headings_comments_and_front_matter_are_not_prose():
    page = ("---\ntitle: a b c d\n---\n# A heading of many words here\n\n"
            "```sh\narena play a b. more code. here\n```\n\n| a table. | cell. |\n|---|---|\n"
            "<!-- generated: openapi -->\n--8<-- \"a/file.md\"\n\n"
            "::: mkdocs-click\n    :module: arena.cli.main\n\nThe one sentence.\n")
    assert sentences(page) == ["The one sentence."]


def test_each_list_item_is_a_sentence_and_a_link_counts_its_text():
    page = "Before the list:\n\n- one [two words](https://example.org/a/b c)\n- three\n"
    assert sentences(page) == ["Before the list:", "one two words", "three"]


def test_a_paragraph_over_several_lines_is_one_text():
    assert sentences("One sentence\nover two lines. Then\nanother.\n") == [
        "One sentence over two lines.", "Then another."]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_sentence_runs_past_the_longest(page: Path):
    long = [s for s in sentences(page.read_text()) if words(s) > LONGEST]
    assert not long, f"{len(long)} sentences over {LONGEST} words, the first: {long[0]!r}"


def test_the_pages_the_site_includes_are_measured_too():
    assert {p.relative_to(ROOT).as_posix() for p in INCLUDED} >= {
        "protocol/PROTOCOL.md", "arena/rules/RULES.md"}


def test_the_mean_sentence_is_short():
    lengths = [words(s) for page in PAGES for s in sentences(page.read_text())]
    assert statistics.mean(lengths) <= MEAN, f"mean {statistics.mean(lengths):.1f} words"
