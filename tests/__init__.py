"""The tests, one folder per package: `tests/<package>/` tests `arena/<package>/`, and
`tests/protocol/` tests `protocol/`. Each folder is a Python package (`tests.<package>`), so
two folders may hold test modules of the same name, and a file's name does not repeat its
folder's (`tests/referee/test_faults.py`, not `test_referee_faults.py`).

A test sits in the folder of the package whose behaviour it checks, also when it reaches that
package through the `arena` command line: `arena report` is tested in `tests/presentation/`,
`arena standings` in `tests/tournament/`, `check-bot` in `tests/botkit/`. `tests/cli/` tests
what `arena/cli/` does itself; the `arena bench` group is the one home of the benchmarks, so
every benchmark's test is there, whichever package holds the code it measures.

Four places test no package, and `tests/test_module_map.py`, which holds every other
folder to a package, knows them by name:

- `tests/bots/`: the bundled bots of `bots/` (their own tests, check-bot, full games);
- `tests/soak/`: the whole arena under SIGKILL at random moments;
- `tests/docs/`: README.md and the site of `docs/` (a strict build, the tutorial's commands
  run, the references held to the code, short sentences);
- the top level: what every test shares (`conftest.py`; `processes.py`, the bot processes a
  test started; `pace.py`, how fast honest bots start and reply on this machine now, and the
  time limits derived from it; `requirements.py`, the one way a test skips: a missing part
  fails under CI)
  and the checks of the tree as a whole (layers, lint, the module map, skips, the vocabulary
  shared across packages).

A folder's helpers are in its `conftest.py` or in a module of its own (`tests/rules/helpers.py`,
`tests/presentation/payloads.py`); a test of another folder imports them by module
(`from tests.sandbox.conftest import need_sandbox`). Bots written for the tests sit in
`tests/<package>/bots/`, beside the tests that start them.
"""
