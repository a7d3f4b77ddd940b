"""How long the docs' sentences are: the measure of issue 49, in one small function.

A sentence is counted in the prose of a Markdown page only. Left out: front matter, fenced
code blocks, tables, headings, HTML comments, include lines of the snippets extension, and
directive blocks (`::: name` and their indented options). Each list item is a sentence of
its own, or several. A link counts its text, not its address.
"""

from __future__ import annotations

import re

LONGEST = 40
"""No sentence may have more words than this."""
MEAN = 20.0
"""The mean of a page set's sentence lengths may not be above this."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_END = re.compile(r"(?<=[.!?])[)\"'`*]*\s+(?=\S)")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")


def _prose_blocks(markdown: str) -> list[str]:
    """The page's prose, one string per paragraph or list item."""
    lines = markdown.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    blocks: list[list[str]] = [[]]
    fence = None
    directive = comment = False
    for line in lines:
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        found = _FENCE.match(line)
        if found:
            fence = found.group(1)
            blocks.append([])
            continue
        if comment or stripped.startswith("<!--"):
            comment = "-->" not in stripped
            blocks.append([])
            continue
        if directive and (line.startswith((" ", "\t")) or not stripped):
            continue
        directive = stripped.startswith(":::")
        if (directive or not stripped or stripped.startswith(("#", "|", "--8<--"))
                or _ITEM.match(line)):
            blocks.append([])
        if directive or not stripped or stripped.startswith(("#", "|", "--8<--")):
            continue
        blocks[-1].append(_ITEM.sub("", line).strip())
    return [" ".join(block) for block in blocks if block]


def sentences(markdown: str) -> list[str]:
    """Every sentence of a Markdown page's prose, as the measure counts them."""
    found = []
    for block in _prose_blocks(markdown):
        text = _LINK.sub(r"\1", block)
        found += [part.strip() for part in _END.split(text) if part.strip()]
    return found


def words(sentence: str) -> int:
    """The words of a sentence: its runs of characters between spaces."""
    return len(sentence.split())
