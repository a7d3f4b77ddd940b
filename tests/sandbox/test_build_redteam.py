"""Red team of the build sandbox as intake uses it (`take_bot`: a build in
`ROOT/builds/<digest>`, its `.ok` marker, the folder made read-only, removed on failure): what
a hostile build leaves in its folder, or tries outside it, must not reach the organizer's
files, another entrant's snapshot or build, or the run itself.

Each attack runs at level sandbox (skipped where the machine gives none) and, as a control
where it needs no privilege, at level none, which does not confine: there the attack works
(the README says so), showing that it is real.

| attack                                          | sandbox  | none (control)          |
|-------------------------------------------------|----------|-------------------------|
| folders nested 2,500 deep (past the recursion limit and PATH_MAX) | built or refused, removed (was a RecursionError, left behind) | same (host side) |
| a setuid/setgid file and folder                 | bits cleared | bits cleared (was kept: setuid root in a 0755 cache) |
| symlinks to the organizer's files               | never followed by read_only / remove_tree | same |
| a FIFO                                          | built, hashing refuses it, removal fine | same |
| a device node                                   | mknod refused | made (root)         |
| hard links to files outside the folder          | refused (EXDEV / not visible) | made          |
| writing another entrant's build, snapshot, marker | refused | done                   |
| a failed build planting its own .ok marker       | not written | written, ignored    |
| a daemon editing the built folder after intake   | killed  | edits it                |
| two processes taking the same digest at once     | one build | one build              |
| the command file replaced by a link out           | refused at the command | same        |
| bot.toml rewritten by the build                   | the manifest is the snapshot's | same |
| a build that did not ask for the network         | no network even if the run allows it | -  |
| naming an organizer's program as the build or bot command | OPEN: its folder is mounted | - |
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.intake import (
    IntakeFailed,
    IntakePolicy,
    IntakeRefused,
    content_hash,
    remove_tree,
    take_bot,
)
from arena.sandbox import BuildLimits, Isolation, jail, run_build
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(300)
LEVELS = [Isolation.SANDBOX, Isolation.NONE]
LIMITS = BuildLimits(wall_seconds=120)
ROOT = Path(__file__).resolve().parents[2]


def make_bot(folder: Path, build: list[str], name: str = "redteam",
             files: dict[str, str] | None = None, extra: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "sh"\ncommand = ["sh", "run.sh"]\n'
        f"build = {json.dumps(build)}\n{extra}")
    (folder / "run.sh").write_text("exit 0\n")
    (folder / "bot.py").write_text("print('the bot')\n")
    for name_, text in (files or {}).items():
        (folder / name_).write_text(textwrap.dedent(text))
    return folder


def policy(tmp_path: Path, level: Isolation, root: str = "cache", **kwargs) -> IntakePolicy:
    if level is Isolation.SANDBOX:
        need_sandbox()
    return IntakePolicy(level, root=tmp_path / root, build=LIMITS, **kwargs)


def builds(tmp_path: Path, root: str = "cache") -> list[str]:
    folder = tmp_path / root / "builds"
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


def attacks(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        if line.startswith("ATTACK "):
            name, _, outcome = line[len("ATTACK "):].partition(": ")
            found[name] = outcome
    return found


def every_entry(folder: Path):
    """(lstat, path) of `folder` and everything under it, through descriptors (any depth)."""
    from arena.sandbox.tree import entries

    yield os.lstat(folder), str(folder)
    for _, name, st in entries(folder):
        yield st, name


# ----- what a build leaves in its folder ------------------------------------------------------

DEEP = 2100
"""Past the recursion limit (1,000) and, as d/d/..., past a path's longest (4,096 bytes)."""
NEST = (f"import os, sys\nfor _ in range({DEEP}):\n    os.mkdir('d')\n    os.chdir('d')\n"
        "open('f', 'w').write('bottom')\nos.chmod('.', 0o777)\n")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("fails", [False, True], ids=["built", "failed"])
def test_folders_nested_past_the_recursion_limit_are_made_read_only_or_removed(
        tmp_path, level, fails):
    """2,100 folders deep (4,200-character paths): os.walk and shutil.rmtree recursed into
    a RecursionError, out of take_bot (the whole run), and the tree was left in the cache,
    so every later run crashed the same way."""
    bot = make_bot(tmp_path / "bot", ["python", "-c", NEST + ("sys.exit(1)" if fails else "")])
    taken = policy(tmp_path, level)
    if fails:
        with pytest.raises(IntakeFailed) as caught:
            take_bot(bot, taken)
        assert caught.value.failure.stage == "build"
        assert builds(tmp_path) == []
        return
    ready = take_bot(bot, taken)
    folder = ready.manifest.folder
    deepest = [st for st, _ in every_entry(folder)]
    assert len(deepest) > DEEP
    assert all(not st.st_mode & 0o222 for st in deepest)
    with pytest.raises(OSError, match="too long"):  # the control: out of a path's reach
        os.lstat(os.path.join(folder, *["d"] * DEEP, "f"))
    assert take_bot(bot, taken).build is None  # built once; and removed once forgotten:
    (folder.parent / f"{folder.name}.ok").unlink()
    assert take_bot(bot, taken).build is not None
    remove_tree(tmp_path / "cache")  # pytest's own clean-up of tmp_path recurses


SETID = ("cp /bin/true tool && chmod 4755 tool && cp /bin/true gtool && chmod 2755 gtool "
         "&& chmod g+s . && stat -c 'MODE %a' tool gtool")


@pytest.mark.parametrize("level", LEVELS)
def test_a_setuid_file_made_by_a_build_loses_its_bit(tmp_path, level):
    """At level none the build runs as the organizer (root here): a setuid-root program
    left in the 0755 cache would be a root shell for any local user."""
    bot = make_bot(tmp_path / "bot", ["sh", "-c", SETID])
    ready = take_bot(bot, policy(tmp_path, level))
    assert "MODE 4755" in ready.build.output and "MODE 2755" in ready.build.output
    for st, path in every_entry(ready.manifest.folder):
        assert not st.st_mode & (stat.S_ISUID | stat.S_ISGID), (path, oct(st.st_mode))


def _victims(tmp_path: Path) -> tuple[Path, Path]:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "file").write_text("the organizer's\n")
    (victim / "file").chmod(0o666)
    (victim / "sub").mkdir()
    victim.chmod(0o777)
    return victim, victim / "file"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("fails", [False, True], ids=["built", "failed"])
def test_symlinks_left_by_a_build_are_never_followed_by_read_only_or_removal(
        tmp_path, level, fails):
    victim, file = _victims(tmp_path)
    script = (f"ln -s {victim} vdir && ln -s {file} vfile && ln -s / root && "
              f"mkdir sub && ln -s {victim}/sub sub/vsub" + ("; exit 1" if fails else ""))
    bot = make_bot(tmp_path / "bot", ["sh", "-c", script])
    try:
        ready = take_bot(bot, policy(tmp_path, level))
        assert os.path.realpath(ready.manifest.folder / "vfile") == str(file)  # the control
    except IntakeFailed:
        assert fails
    assert stat.S_IMODE(file.stat().st_mode) == 0o666
    assert stat.S_IMODE(victim.stat().st_mode) == 0o777
    assert file.read_text() == "the organizer's\n" and (victim / "sub").is_dir()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("fails", [False, True], ids=["built", "failed"])
def test_a_fifo_left_by_a_build_blocks_nothing(tmp_path, level, fails):
    bot = make_bot(tmp_path / "bot", ["sh", "-c", "mkfifo pipe" + ("; exit 1" if fails
                                                                   else "")])
    if fails:
        with pytest.raises(IntakeFailed):
            take_bot(bot, policy(tmp_path, level))
        assert builds(tmp_path) == []
        return
    ready = take_bot(bot, policy(tmp_path, level))
    assert stat.S_ISFIFO((ready.manifest.folder / "pipe").lstat().st_mode)
    with pytest.raises(IntakeRefused, match="FIFO"):  # hashing it refuses, never blocks
        content_hash(ready.manifest.folder)


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_cannot_make_a_device_node(tmp_path, level):
    bot = make_bot(tmp_path / "bot", ["sh", "-c", "mknod null c 1 3; exit 0"])
    ready = take_bot(bot, policy(tmp_path, level))
    made = (ready.manifest.folder / "null").exists()
    if level is Isolation.NONE and os.geteuid() == 0:  # the control
        assert made and stat.S_ISCHR((ready.manifest.folder / "null").lstat().st_mode)
    elif level is Isolation.SANDBOX:
        assert not made, ready.build.output


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_cannot_hard_link_a_file_from_outside_its_folder(tmp_path, level):
    outside = tmp_path / "outside.txt"
    outside.write_text("the organizer's\n")
    outside.chmod(0o644)
    links = {"outside": str(outside)}
    if level is Isolation.SANDBOX:  # visible in the sandbox (at none: the system's files,
        links["env"] = "/usr/bin/env"  # which the control must not link)
        links["python"] = os.path.realpath(sys.executable)
    script = "; ".join(f"ln {path} {name}" for name, path in links.items()) + "; exit 0"
    bot = make_bot(tmp_path / "bot", ["sh", "-c", script])
    before = {name: os.stat(path).st_nlink for name, path in links.items()}
    ready = take_bot(bot, policy(tmp_path, level))
    folder = ready.manifest.folder
    if level is Isolation.NONE:  # the control; read_only then took the outside file's
        assert (folder / "outside").samefile(outside)      # write bits (it is one inode)
        assert not outside.stat().st_mode & 0o222
        return
    for name, path in links.items():
        assert not (folder / name).exists(), ready.build.output
        assert os.stat(path).st_nlink == before[name]


# ----- what a build tries outside its folder --------------------------------------------------

TOUCH = """
import os, sys
victim = sys.argv[1]
def attempt(name, path):
    try:
        with open(path, "a") as file:
            file.write("written by another entrant's build\\n")
    except OSError as exc:
        print(f"ATTACK {name}: HELD {exc.strerror}", flush=True)
    else:
        print(f"ATTACK {name}: BROKEN", flush=True)
attempt("victim_build", f"../{victim}/bot.py")
attempt("victim_marker", f"../{victim}.ok")
attempt("victim_snapshot", f"../../snapshots/{victim}/bot.py")
attempt("any_marker", f"../{'0' * 64}.ok")
"""


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_cannot_touch_another_entrants_build_snapshot_or_marker(tmp_path, level):
    taken = policy(tmp_path, level)
    victim = take_bot(make_bot(tmp_path / "victim", ["true"], name="victim"), taken)
    digest = victim.snapshot.digest
    bot = make_bot(tmp_path / "bot", ["python", "touch.py", digest], files={"touch.py": TOUCH})
    found = attacks(take_bot(bot, taken).build.output)
    assert found.keys() == {"victim_build", "victim_marker", "victim_snapshot", "any_marker"}
    if level is Isolation.NONE:  # the control
        assert all(outcome == "BROKEN" for outcome in found.values()), found
        return
    assert all(outcome.startswith("HELD") for outcome in found.values()), found
    assert content_hash(victim.snapshot.folder) == digest
    assert (victim.manifest.folder / "bot.py").read_text() == "print('the bot')\n"
    assert not (tmp_path / "cache" / "builds" / f"{'0' * 64}.ok").exists()


@pytest.mark.parametrize("level", LEVELS)
def test_a_failed_build_cannot_plant_its_own_marker(tmp_path, level):
    """Its folder is `builds/<digest>`, so `../<digest>.ok` is its marker. Sandboxed it
    cannot write it; unconfined (the control) it does, but the failed build's folder is
    removed, so the marker alone never passes for a build: the next intake builds again."""
    bot = make_bot(tmp_path / "bot", ["sh", "-c", 'echo ok > "../$(basename "$PWD").ok"; '
                                                   "exit 1"])
    taken = policy(tmp_path, level)
    with pytest.raises(IntakeFailed):
        take_bot(bot, taken)
    planted = [name for name in builds(tmp_path) if name.endswith(".ok")]
    assert bool(planted) is (level is Isolation.NONE)
    with pytest.raises(IntakeFailed, match="exit code 1"):  # built again, failed again
        take_bot(bot, taken)


DAEMON = ("(setsid sh -c 'echo > started; sleep 1; chmod u+w bot.py; echo planted >> bot.py' "
          ">/dev/null 2>&1 &); while [ ! -e started ]; do sleep 0.05; done; exit 0")


@pytest.mark.parametrize("level", LEVELS)
def test_a_daemon_of_the_build_cannot_edit_the_built_folder_afterwards(tmp_path, level):
    bot = make_bot(tmp_path / "bot", ["sh", "-c", DAEMON])
    ready = take_bot(bot, policy(tmp_path, level))
    time.sleep(2.5)  # the daemon's second is long past
    edited = "planted" in (ready.manifest.folder / "bot.py").read_text()
    assert edited is (level is Isolation.NONE)  # none: the control (a setsid daemon escapes)


TAKE = """
import sys
from pathlib import Path
from arena.intake import IntakePolicy, take_bot
from arena.sandbox import BuildLimits, Isolation
got = take_bot(sys.argv[1], IntakePolicy(Isolation(sys.argv[3]), root=Path(sys.argv[2]),
                                         build=BuildLimits(wall_seconds=120)))
print("BUILT" if got.build is not None else "REUSED", got.manifest.folder)
"""


@pytest.mark.parametrize("level", LEVELS)
def test_two_processes_taking_the_same_bot_at_once_build_it_once(tmp_path, level):
    if level is Isolation.SANDBOX:
        need_sandbox()
    bot = make_bot(tmp_path / "bot", ["sh", "-c", "sleep 1; echo made > made"])
    runs = [subprocess.Popen([sys.executable, "-c", TAKE, str(bot), str(tmp_path / "cache"),
                              level.value], cwd=ROOT, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = sorted(run.communicate(timeout=240)[0].split() for run in runs)
    assert [run.returncode for run in runs] == [0, 0]
    assert [out[0] for out in outputs] == ["BUILT", "REUSED"]
    assert outputs[0][1] == outputs[1][1]
    assert builds(tmp_path) == sorted([Path(outputs[0][1]).name,
                                       Path(outputs[0][1]).name + ".ok"])


CONNECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("ATTACK network: BROKEN", flush=True)
except OSError as exc:
    print(f"ATTACK network: HELD {exc.strerror}", flush=True)
"""


def test_a_build_gets_the_network_only_if_it_asks_and_the_run_allows(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = str(server.getsockname()[1])
    try:
        quiet = make_bot(tmp_path / "quiet", ["python", "connect.py", port],
                         files={"connect.py": CONNECT})
        ready = take_bot(quiet, policy(tmp_path, Isolation.SANDBOX, build_network=True))
        assert attacks(ready.build.output)["network"].startswith("HELD")
        asking = make_bot(tmp_path / "asking", ["python", "connect.py", port],
                          files={"connect.py": CONNECT}, extra="build_network = true\n")
        with pytest.raises(IntakeFailed, match="asks for the network"):
            take_bot(asking, policy(tmp_path, Isolation.SANDBOX))
        ready = take_bot(asking, policy(tmp_path, Isolation.SANDBOX, build_network=True))
        assert attacks(ready.build.output)["network"] == "BROKEN"  # the control
    finally:
        server.close()


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_that_links_the_command_out_of_its_folder_is_refused(tmp_path, level):
    """The snapshot's `run` is a script of its own; the build replaces it with a link to an
    organizer's program, whose folder the play sandbox would then mount (runtime_paths)."""
    launcher, secret = _organizer(tmp_path)
    bot = make_bot(tmp_path / "bot", ["sh", "-c", f"rm run && ln -s {launcher} run"],
                   files={"run": "#!/bin/sh\nexit 0\n"})
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text().replace(
        'command = ["sh", "run.sh"]', 'command = ["./run", "/bin/sh", "-c", "cat secret"]'))
    (bot / "run").chmod(0o755)
    with pytest.raises(IntakeFailed, match="outside its folder") as caught:
        take_bot(bot, policy(tmp_path, level))
    assert caught.value.failure.stage == "command"
    folder = tmp_path / "cache" / "builds" / take_snapshot_digest(bot, tmp_path)
    assert os.path.realpath(folder / "run") == str(launcher)  # the attack was made; had it
    # run, the sandbox would not have shown the launcher's folder either (a second defence)
    assert not any(secret.is_relative_to(p) for p in jail.runtime_paths("./run", folder))


def take_snapshot_digest(bot: Path, tmp_path: Path) -> str:
    from arena.intake import take_snapshot

    return take_snapshot(bot, tmp_path / "cache" / "snapshots").digest


REWRITE = """
open("bot.toml", "w").write('name = "evil"\\nversion = "6"\\nlanguage = "x"\\n'
                            'command = ["/bin/sh", "-c", "id"]\\nbuild_network = true\\n'
                            '[limits]\\nmemory_mb = 0\\n')
"""


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_that_rewrites_bot_toml_changes_nothing_of_the_manifest(tmp_path, level):
    bot = make_bot(tmp_path / "bot", ["python", "rewrite.py"], files={"rewrite.py": REWRITE},
                   extra="[limits]\nmemory_mb = 512\n")
    taken = policy(tmp_path, level)
    for attempt in range(2):  # built, then taken again from the cache
        ready = take_bot(bot, taken)
        assert "evil" in (ready.manifest.folder / "bot.toml").read_text()  # the control
        got = ready.manifest
        assert (got.name, got.command, got.build_network) == (
            "redteam", ("sh", "run.sh"), False), got
        assert got.requested.memory_mb == 512 and (ready.build is None) is (attempt == 1)


# ----- OPEN: a program named by its path brings its folder into the sandbox -------------------

def _organizer(tmp_path: Path) -> tuple[Path, Path]:
    """An organizer's folder with a program in its bin/ (any program that runs its
    arguments: a launcher, an env, a package manager's runner) and a secret beside it."""
    home = tmp_path / "organizer"
    (home / "bin").mkdir(parents=True)
    launcher = home / "bin" / "launch"
    launcher.write_text('#!/bin/sh\nexec "$@"\n')
    launcher.chmod(0o755)
    (home / "secret.txt").write_text("the organizer's secret\n")
    return launcher, home / "secret.txt"


def test_a_build_naming_an_organizers_program_does_not_see_its_folder(tmp_path):
    need_sandbox()
    launcher, secret = _organizer(tmp_path)
    folder = tmp_path / "bot"
    folder.mkdir()
    plain = run_build(Isolation.SANDBOX, folder, ["/bin/sh", "-c", f"cat {secret}"], LIMITS)
    assert "the organizer's secret" not in plain.output  # the control: no launcher, no secret
    for program in (str(launcher), os.path.relpath(launcher, folder)):
        got = run_build(Isolation.SANDBOX, folder, [program, "/bin/sh", "-c", f"cat {secret}"],
                        LIMITS)
        assert "the organizer's secret" not in got.output, program


def test_a_bot_command_naming_an_organizers_program_does_not_see_its_folder(tmp_path):
    launcher, secret = _organizer(tmp_path)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "redteam"\nversion = "1"\nlanguage = "sh"\n'
        f'command = ["{launcher}", "/bin/sh", "-c", "cat {secret}"]\n')
    with pytest.raises(IntakeFailed, match="outside its folder and the system"):
        take_bot(folder, IntakePolicy(Isolation.NONE, root=tmp_path / "cache"))
    shown = jail.runtime_paths(str(launcher), folder)  # and the sandbox would not show it
    assert not any(secret.is_relative_to(path) for path in shown), shown
