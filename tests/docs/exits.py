"""The exit statuses of each `arena` command, found in its code.

Every command exits 0 on success, 1 on a failure and 2 on a usage error: click and
`arena.cli.output.ArenaCommand` see to that. This module finds the others a command can
exit with: it reads the command's function and the functions of its module that it calls,
and collects the statuses they name (`sys.exit(N)`, `SystemExit(N)`, `harness_failure`,
`NOT_NORMAL`, `HARNESS_FAILURE`, and module constants such as `_INTERRUPTED`).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import click

from arena.cli import output
from arena.cli.main import main

EVERY = (0, 1, 2)
"""The statuses of every command."""
NAMED = {"NOT_NORMAL": output.NOT_NORMAL, "HARNESS_FAILURE": output.HARNESS_FAILURE}


def commands(group: click.Group = main, prefix: str = "arena") -> dict[str, click.Command]:
    """Every command under `group`, by its full name (`arena league serve`)."""
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        full = f"{prefix} {name}"
        if isinstance(command, click.Group):
            found.update(commands(command, full))
        else:
            found[full] = command
    return found


def _statuses(node: ast.AST, constants: dict[str, int]) -> set[int]:
    found: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in NAMED:
            found.add(NAMED[sub.id])
        if isinstance(sub, ast.Call):
            name = ast.unparse(sub.func)
            if name == "harness_failure":
                found.add(output.HARNESS_FAILURE)
            if name in ("sys.exit", "SystemExit", "ctx.exit") and sub.args:
                for part in ast.walk(sub.args[0]):
                    if isinstance(part, ast.Constant) and isinstance(part.value, int):
                        found.add(part.value)
                    if isinstance(part, ast.Name) and part.id in constants:
                        found.add(constants[part.id])
    return found


def statuses(command: click.Command) -> set[int]:
    """The statuses `command` may exit with beyond `EVERY`."""
    assert command.callback is not None
    function = inspect.unwrap(command.callback)
    tree = ast.parse(Path(inspect.getsourcefile(function) or "").read_text())
    functions = {node.name: node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    constants = {target.id: node.value.value for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, int)
                 for target in node.targets if isinstance(target, ast.Name)}
    seen: set[str] = set()
    todo = [function.__name__]
    found: set[int] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        found |= _statuses(functions[name], constants)
        todo += [sub.id for sub in ast.walk(functions[name]) if isinstance(sub, ast.Name)]
    return found - set(EVERY)
