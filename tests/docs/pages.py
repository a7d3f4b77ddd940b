"""Reading the docs' pages: their fenced code blocks, in order."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
"""Every page the sentence and example tests read."""

_BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```$", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, str]]:
    """(language, text) of each fenced code block of `page`, in order."""
    return [(found.group(1), found.group(2)) for found in _BLOCK.finditer(page.read_text())]


def commands(text: str) -> list[str]:
    """The command lines of a shell block: its lines less comments and blank ones."""
    lines = []
    for line in text.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command and not command.startswith("#"):
            lines.append(command)
    return lines
