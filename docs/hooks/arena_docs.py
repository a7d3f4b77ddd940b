"""MkDocs hook: writes the generated parts of the reference into their pages at build time.

A page asks for a part with a marker line, `<!-- generated: NAME -->`. The names:

- `openapi`: the league's HTTP API, rendered from `arena.league.openapi.SCHEMA`, the schema
  that the server serves at /openapi.json;
- `tournament-config` and `league-config`: the documented TOML of every key, taken from the
  docstrings of `arena.tournament.config` and `arena.league.config`.

A page includes a whole Markdown file of the repository with `<!-- include: PATH -->`.
Its relative links are pointed at the pages that include their targets (`INCLUDED`).
The snippets extension includes code files; it cannot rewrite a Markdown file's links.

Nothing here is copied by hand, so the pages cannot drift from the code.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)
INCLUDE = re.compile(r"^<!-- include: ([\w./-]+) -->$", re.M)
INCLUDED = {"protocol/PROTOCOL.md": "reference/protocol.md",
            "arena/rules/RULES.md": "reference/rules.md"}
"""The repository's Markdown files that pages include, and the page of each."""
_LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def toml_of(docstring: str) -> str:
    """The first ```toml block of a module docstring, with its fences."""
    found = re.search(r"^```toml\n.*?^```$", docstring, re.M | re.S)
    if found is None:
        raise ValueError("the docstring holds no ```toml block")
    return found.group(0)


def toml_tables(block: str) -> str:
    """A documented TOML block as Markdown tables, one per TOML table: each key, its value in
    the example, and its comment. A `#` before a key marks it optional and unset."""
    sections: list[tuple[str, str, list[list[str]]]] = []
    rows: list[list[str]] = []
    value_lines: list[str] = []
    for line in block.splitlines():
        if line.startswith("```"):
            continue
        if value_lines:  # inside a value of several lines, up to its closing bracket
            value_lines.append(line.split("#")[0].strip())
            if line.strip().startswith("]"):
                rows[-1][1] = "`" + " ".join(value_lines).replace("[ ", "[").replace(
                    ", ]", "]") + "`"
                value_lines = []
            continue
        code, _, comment = line.partition("  #")
        if code.startswith("["):
            rows = []
            sections.append((code.strip(), comment.strip(), rows))
        elif found := re.match(r"^(# )?([a-z_]+) = (.*)$", code.rstrip()):
            unset, key, value = found.groups()
            rows.append([f"`{key}`", f"`{value.strip()}`", comment.strip()])
            if unset:
                rows[-1][1] = f"unset; e.g. `{value.strip()}`"
            if value.strip() == "[":
                value_lines = ["["]
        elif line.strip().startswith("#") and rows:
            rows[-1][2] += " " + line.strip().lstrip("#").strip()
        elif line.strip().startswith("#") and sections:  # the table's own comment, continued
            header, said, table = sections[-1]
            sections[-1] = (header, f"{said} {line.strip().lstrip('#').strip()}", table)
    out: list[str] = []
    for header, comment, table in sections:
        out += [f"### `{header}`", ""]
        if comment:
            out += [comment[0].upper() + comment[1:] + ".", ""]
        out += ["| key | in the example | meaning |", "|---|---|---|"]
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table]
        out.append("")
    return "\n".join(out)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type(schema: dict[str, Any]) -> str:
    """A schema's type in a few words: a model's name, a type, a list of words."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{value!s}`" if value != "" else '`""`'
                                     for value in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type(option) for option in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array" and "prefixItems" in schema:
        return "list of " + ", ".join(_type(item) for item in schema["prefixItems"])
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        return f"map to {_type(schema['additionalProperties'])}"
    return str(kind)


def openapi_markdown(schema: dict[str, Any]) -> str:
    """The answers every operation may give, then each operation with its own, then the
    models, as Markdown."""
    operations = [(path, method, op) for path, methods in schema["paths"].items()
                  for method, op in methods.items()]
    common = set.intersection(*({(status, answer["description"])
                                 for status, answer in op["responses"].items()}
                                for _, _, op in operations))
    lines = ["Any route may also answer with one of these, each with an "
             "[Error](#error) body:", "", "| status | meaning |", "|---|---|"]
    lines += [f"| {status} | {_cell(description)} |" for status, description in sorted(common)]
    lines.append("")
    for path, method, op in operations:
        lines += [f"### {method.upper()} `{path}`", "", op["summary"] + ".", ""]
        if op.get("security"):
            lines += ["Needs a token: `Authorization: Bearer TOKEN`.", ""]
        if op.get("parameters"):
            lines += ["| parameter | in | type | required | meaning |",
                      "|---|---|---|---|---|"]
            lines += [f"| `{p['name']}` | {p['in']} | {_cell(_type(p['schema']))} | "
                      f"{'yes' if p.get('required') else 'no'} | "
                      f"{_cell(p.get('description', ''))} |" for p in op["parameters"]]
            lines.append("")
        if "requestBody" in op:
            for media, body in op["requestBody"]["content"].items():
                lines += [f"Body: `{media}`, {_type(body['schema'])}.", ""]
        lines += ["| status | meaning | body |", "|---|---|---|"]
        for status, answer in op["responses"].items():
            if (status, answer["description"]) in common:
                continue
            body = answer.get("content", {}).get("application/json", {}).get("schema", {})
            lines.append(f"| {status} | {_cell(answer['description'])} | "
                         f"{_cell(_type(body)) if body else ''} |")
        lines.append("")
    lines += ["## Models", ""]
    for name, model in schema["components"]["schemas"].items():
        lines += [f"### {name}", ""]
        if model.get("description"):
            lines += [model["description"], ""]
        required = set(model.get("required", ()))
        properties = model.get("properties", {})
        if properties:
            lines += ["| field | type | always there | meaning |", "|---|---|---|---|"]
            lines += [f"| `{field}` | {_cell(_type(spec))} | "
                      f"{'yes' if field in required else 'no'} | "
                      f"{_cell(spec.get('description', ''))} |"
                      for field, spec in properties.items()]
            lines.append("")
    return "\n".join(lines)


def generated(name: str) -> str:
    """The Markdown of the generated part `name`."""
    if name == "openapi":
        from arena.league.openapi import SCHEMA
        return openapi_markdown(SCHEMA)
    if name in ("tournament-config", "league-config"):
        import arena.league.config
        import arena.tournament.config
        module = arena.tournament.config if name == "tournament-config" else arena.league.config
        block = toml_of(module.__doc__ or "")
        return f"{toml_tables(block)}\n## As a file\n\n{block}\n"
    raise ValueError(f"no generated part named {name!r}")


def included(path: str, page: str) -> str:
    """The file `path` of the repository, its relative links pointed from `page`."""
    text = (ROOT / path).read_text()

    def link(found: re.Match[str]) -> str:
        target, anchor = found.group(1), found.group(2) or ""
        if re.match(r"^[a-z]+:", target):
            return found.group(0)
        file = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if file not in INCLUDED:
            raise ValueError(f"{path} links to {target}, which no page includes: add it to "
                             "INCLUDED in docs/hooks/arena_docs.py")
        where = posixpath.relpath(INCLUDED[file], posixpath.dirname(page))
        return f"]({where}{anchor})"

    return _LINK.sub(link, text)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    markdown = INCLUDE.sub(lambda found: included(found.group(1), page.file.src_uri),
                           markdown)
    return MARKER.sub(lambda found: generated(found.group(1)), markdown)
