"""Bot manifests: the `bot.toml` of each bot folder, read and checked.

```toml
name = "random"              # entrant name (see NAME)
version = "1.0.0"            # the author's version string (free text, see below)
language = "python"          # free text: what the bot is written in (any value, see below)
description = "..."          # optional free text
command = ["python", "bot.py"]   # run in the bot folder: an argument list, no shell
build = ["make"]             # optional: an argument list, no shell; run once per version, in
                             # the sandbox, in intake's copy of the folder, before the bot starts
build_network = false        # optional; true: the build needs the network (npm install, pip
                             # install...), which the run may allow or refuse

[limits]                     # optional: lower the limits of its processes (never raise them)
memory_mb = 1024             # memory (see arena.sandbox.ResourceLimits for each limit)
cpu_seconds = 600            # CPU time over the process's life
processes = 64               # processes and threads at once
open_files = 256             # per process
disk_mb = 64                 # its private scratch space (/tmp in the sandbox)
```

The name is 1-64 characters of ASCII letters, digits, '.', '-' and '_', the first a letter or
a digit (`NAME`): it becomes part of file names (records, the report's pages), so it holds no
'/', cannot be '.' or '..' or start with a dot, and no character of it needs escaping
anywhere. `version` and `language` (at most 64 characters each) and `description` (at most
256) are free text: they reach standings, records and the web report, which escape them for
their output, and they may hold no control character (C0, DEL, C1: so no ANSI escape), line
or paragraph separator, or bidi control. A refused value is shown escaped (as a repr), so
that the error cannot act on the terminal that shows it.

`language` is for people, and any value is accepted: it is stored with the entrant, shown on
its page of the web report, and picks intake's hint of what to install when a build fails
(`arena.intake.take`: python, node, c, cpp, java and rust have one; any other value gets
the general hint).

`command` and `build` are argument lists, run without a shell. Either may be one string: it
is split into words as a POSIX shell splits a line (`shlex.split`: quotes group, a backslash
escapes), but no shell runs it. So a string that holds what only a shell acts on (`|`, `&`,
`;`, `<`, `>`, parentheses, `$` or a backquote outside single quotes, a glob `*`, `?` or `[`,
a `#` comment or a `~` at the start of a word, a leading `NAME=value`: `shell_syntax`) is
refused, naming the key and what it holds, since it would not do what it says (a command
that needs a shell says `["sh", "-c", "..."]`); a list is taken as it is. The keys given as a
string are kept (`BotManifest.split_keys`), for check-bot to warn. Intake (`arena.intake`)
runs the build once per version, in the sandbox of play, in its copy of the folder (the only
place it may write); the bot then runs from the built copy, read-only
(docs/reference/manifest.md).

A manifest's limits only lower the ceiling the run sets (a tournament's [limits], else
`DEFAULT_LIMITS`); a limit it omits, or sets to 0, is the ceiling's.

A command whose first word is ``python`` or ``python3`` runs with the Python that runs the
arena, so Python bots need no environment of their own (a bot with a requirements.txt gets
one at intake: `arena.intake.pyenv`).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import re
import reprlib
import shlex
import stat
import sys
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from arena.errors import ConfigError
from arena.sandbox import DEFAULT_LIMITS, LIMIT_NAMES, NO_LIMITS, ResourceLimits

T = TypeVar("T")

MANIFEST = "bot.toml"
MANIFEST_BYTES = 64 * 1024  # a bot.toml larger than this is refused unread
CONFIG_BYTES = 1024 * 1024  # a tournament config, likewise
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""What an entrant name is (the whole name: use `valid_name`)."""
NAME_RULE = "1-64 letters, digits, '.', '-' or '_', starting with a letter or digit"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
"""What free text may not hold: C0 and C1 controls, DEL (so no ANSI escape), line and
paragraph separators, bidi marks, embeddings, overrides and isolates."""
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 80
_HASH_SKIP = {"__pycache__", "node_modules", ".git", "build", "target"}


@dataclass(frozen=True)
class BotManifest:
    """A bot folder's manifest. `command` and `build` are argument lists (build may be empty)."""

    folder: Path
    name: str
    version: str
    language: str
    command: tuple[str, ...]
    build: tuple[str, ...] = ()
    limits: ResourceLimits = DEFAULT_LIMITS
    """The limits its processes run under: what it asks for, under the run's ceiling."""
    requested: ResourceLimits = NO_LIMITS
    """What its own [limits] asks for (None: nothing, the ceiling's limit applies)."""
    build_network: bool = False
    """Whether its build asks for the network (the run decides whether it gets it)."""
    split_keys: tuple[str, ...] = ()
    """Which of 'command' and 'build' bot.toml gave as one string, split into words like a
    shell line (no shell runs them): a list says what it runs, and check-bot warns."""

    def with_ceiling(self, ceiling: ResourceLimits) -> BotManifest:
        """This manifest with its limits under `ceiling` instead of the default one."""
        return dataclasses.replace(self, limits=self.requested.capped(ceiling))

    def argv(self) -> list[str]:
        """The command to start the bot, with ``python`` meaning the arena's own Python."""
        return _with_python(self.command)

    def build_argv(self) -> list[str]:
        return _with_python(self.build)


def load_manifest(folder: str | Path) -> BotManifest:
    """Read `folder/bot.toml`; ConfigError naming the file, key and problem if it is wrong."""
    folder = Path(folder).resolve()
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ConfigError(f"{folder}: not a bot folder (no such directory)")
    if not os.path.lexists(path):
        raise ConfigError(f"{path}: missing; every bot folder needs a {MANIFEST}")
    data = read_toml(path, MANIFEST_BYTES)
    problems: list[str] = []

    def checked(read: Callable[[], T], default: T) -> T:
        """`read()`, or `default` with its problem noted: every problem is told at once."""
        try:
            return read()
        except ConfigError as exc:
            problems.append(str(exc).removeprefix(f"{path}: "))
            return default

    def check_name() -> str:
        name = _string(path, data, "name")
        if not valid_name(name):
            raise ConfigError(f"{path}: key 'name': {shown(name)} is not a bot name: use "
                              f"{NAME_RULE}")
        return name

    def check_network() -> bool:
        build_network = data.get("build_network", False)
        if not isinstance(build_network, bool):
            raise ConfigError(f"{path}: key 'build_network' must be true or false, not "
                              f"{reprlib.repr(build_network)}")
        return build_network

    name = checked(check_name, "")
    command: tuple[str, ...] = checked(lambda: _argv(path, data, "command", required=True), ())
    build: tuple[str, ...] = checked(lambda: _argv(path, data, "build", required=False), ())
    split_keys = tuple(key for key in ("command", "build") if isinstance(data.get(key), str))
    unknown = sorted(set(data) - {"name", "version", "language", "command", "build",
                                  "build_network", "description", "limits"})
    if unknown:
        problems.append(f"unknown key {unknown[0]!r} (known: name, version, language, "
                        "command, build, build_network, description, limits)")
    build_network = checked(check_network, False)
    requested = checked(lambda: limits_from(path, data.get("limits", {}), "limits", NO_LIMITS),
                        NO_LIMITS)
    if data.get("description", "") != "":  # optional; empty is as good as none
        checked(lambda: _text(path, data, "description", 256), "")
    version = checked(lambda: _text(path, data, "version"), "")
    language = checked(lambda: _text(path, data, "language"), "")
    if len(problems) == 1:
        raise ConfigError(f"{path}: {problems[0]}")
    if problems:
        raise ConfigError(f"{path}: {len(problems)} problems:\n"
                          + "\n".join(f"  - {problem}" for problem in problems))
    return BotManifest(folder, name, version, language, command, build,
                       requested.capped(DEFAULT_LIMITS), requested, build_network, split_keys)


def valid_name(name: object) -> bool:
    """True if `name` is an entrant name (`NAME`, the whole of it)."""
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def shown(value: object) -> str:
    """A value for an error message: its repr (control characters and ANSI escapes written
    as escapes), cut to about 80 characters."""
    return _SHOWN.repr(value)


def read_toml(path: Path, max_bytes: int = CONFIG_BYTES) -> dict:
    """The table of a TOML file; ConfigError naming the file if it is not valid TOML, is not a
    regular file (a link is not followed: a bot's bot.toml may not name another file), is
    larger than `max_bytes` (not read past that) or nests deeper than the parser can go."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        problem = ("a symbolic link; it must be a file of its own" if exc.errno == errno.ELOOP
                   else f"cannot be read ({exc.strerror})")
        raise ConfigError(f"{path}: {problem}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ConfigError(f"{path}: not a regular file")
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ConfigError(f"{path}: larger than {max_bytes} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None


def limits_from(path: Path, table: object, key: str,
                base: ResourceLimits = DEFAULT_LIMITS) -> ResourceLimits:
    """Resource limits from a TOML table (any field omitted keeps `base`'s); ConfigError if bad."""
    return dataclasses.replace(base, **limit_overrides(path, table, key))


def limit_overrides(path: Path, table: object, key: str) -> dict[str, int | None]:
    """The limits a TOML table sets, by field name (0 means no limit: None); ConfigError if bad."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: key {key!r} must be a table")
    fields = set(LIMIT_NAMES)
    values = {}
    for name, value in table.items():
        if name not in fields:
            raise ConfigError(f"{path}: unknown key '{key}.{name}' (known: "
                              f"{', '.join(sorted(fields))})")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{path}: key '{key}.{name}' must be a whole number >= 0 "
                              f"(0: no limit), not {value!r}")
        values[name] = value or None
    return values


def folder_hash(folder: str | Path, exclude: Collection[str] = ()) -> str:
    """A content hash of a bot folder (file paths and bytes), the version an entrant is stored as.

    Build outputs and dependency folders (see _HASH_SKIP) are left out, so building a bot does
    not change its version; so are the files named in `exclude` (paths relative to the folder,
    such as files a build was seen to write).
    """
    root = Path(folder).resolve()
    digest = hashlib.sha256()
    for rel in version_files(root):
        if rel in exclude:
            continue
        digest.update(rel.encode() + b"\0")
        digest.update(hashlib.sha256((root / rel).read_bytes()).digest())
    return digest.hexdigest()[:16]


def version_files(folder: str | Path) -> list[str]:
    """The files of a bot folder its version hash covers (relative POSIX paths, sorted)."""
    root = Path(folder).resolve()
    files = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in _HASH_SKIP for part in rel.parts) or not path.is_file():
            continue
        files.append(rel.as_posix())
    return files


def _string(path: Path, data: dict, key: str, max_len: int = 64) -> str:
    """A non-empty string of at most `max_len` characters (it reaches records and the
    tournament's store, so a bot's author may not make it unbounded)."""
    if key not in data:
        raise ConfigError(f"{path}: missing key {key!r}")
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: key {key!r} must be a non-empty string, not "
                          f"{shown(value)}")
    if len(value.strip()) > max_len:
        raise ConfigError(f"{path}: key {key!r} must be at most {max_len} characters, not "
                          f"{len(value.strip())}")
    return value.strip()


def _text(path: Path, data: dict, key: str, max_len: int = 64) -> str:
    """Free text (`_string`) holding no control character, ANSI escape, line separator or bidi
    control (`_CONTROL`); the error names the first one and shows the value escaped."""
    value = _string(path, data, key, max_len)
    bad = _CONTROL.search(value)
    if bad:
        raise ConfigError(f"{path}: key {key!r} must not hold control characters or ANSI "
                          f"escapes: {shown(bad.group())} at position {bad.start()} of "
                          f"{shown(value)}")
    return value


def _argv(path: Path, data: dict, key: str, required: bool) -> tuple[str, ...]:
    if key not in data:
        if required:
            raise ConfigError(f"{path}: missing key {key!r} (the command that runs the bot)")
        return ()
    value = data[key]
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as exc:
            raise ConfigError(f"{path}: key {key!r}: cannot split {shown(data[key])}: "
                              f"{exc}") from None
        syntax = shell_syntax(data[key])
        if syntax:
            raise ConfigError(
                f"{path}: key {key!r}: {shown(data[key])} holds shell syntax ("
                f"{', '.join(syntax)}), but no shell runs it: the string would only be split "
                f"into the words {toml_list(value)}, each passed to the program as it is. "
                f"Write the {key} as a list ({key} = [\"sh\", \"-c\", \"...\"] if it needs "
                "a shell)")
    if not (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)):
        raise ConfigError(f"{path}: key {key!r} must be a non-empty string or list of strings")
    return tuple(value)


_OPERATORS = {"|": "a pipe '|'", "&": "'&' ('&&' or a background job)",
              ";": "a command separator ';'", "<": "a redirection '<'", ">": "a redirection '>'",
              "(": "parentheses '( )'", ")": "parentheses '( )'",
              "$": "an expansion '$' ($VAR, $(...))", "`": "a command substitution '`'",
              "*": "a glob '*'", "?": "a glob '?'", "[": "a glob '['",
              "\n": "a line break (a second command)"}
"""What a shell acts on anywhere outside quotes ('$' and '`' inside double quotes too)."""
_WORD_START = {"#": "a comment '#'", "~": "a home folder '~'"}
"""What a shell acts on at the start of a word, outside quotes."""
_ASSIGNMENT = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*=")


def shell_syntax(line: str) -> list[str]:
    """What in `line` only a shell would act on, in words, each once, in the order met: an
    operator, an expansion or a glob where a POSIX shell reads it as such (quoted or escaped
    as a shell would take it literally, it is not named), or a leading NAME=value assignment.
    Empty: `shlex.split(line)` means what a shell would run."""
    found = ["a variable assignment 'NAME=value'"] if _ASSIGNMENT.match(line) else []
    quote, escaped, word_start = "", False, True
    for ch in line:
        met, separator = None, False
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote == '"':
            quote = "" if ch == '"' else quote
            met = _OPERATORS.get(ch) if ch in "$`" else None
        elif ch in "'\"":
            quote = ch
        else:
            met = _OPERATORS.get(ch) or (_WORD_START.get(ch) if word_start else None)
            separator = ch.isspace()
        if met and met not in found:
            found.append(met)
        word_start = separator
    return found


def toml_list(words: list[str] | tuple[str, ...]) -> str:
    """Words as a TOML list of strings (JSON's strings are TOML's basic strings)."""
    return "[" + ", ".join(json.dumps(word, ensure_ascii=False) for word in words) + "]"


def _with_python(argv: tuple[str, ...]) -> list[str]:
    if argv and argv[0] in ("python", "python3"):
        return [sys.executable, *argv[1:]]
    return list(argv)
