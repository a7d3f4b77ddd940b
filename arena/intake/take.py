"""Intake of one bot: its folder or archive made into a runnable, built bot, or why not.

`take_bot(source, policy)` is the one function every way in calls (`arena tournament`,
`submit`, `play`, `check-bot`, a cluster worker, the league): it trusts no byte of the bot.

1. **Snapshot** (`snapshot.take_snapshot`): the folder (or archive) is copied, never
   followed, into `ROOT/snapshots/<digest>`, refused whole if it holds anything a bot folder
   may not (see `snapshot`); everything after works on that copy, never on the author's
   folder, so an author who edits the folder while a run goes on changes nothing of it.
2. **Manifest**: the copy's `bot.toml`, read and checked (`load_manifest`). An archive's
   mistakes name paths inside it, never where it lies (a league keeps it in its own folders);
   one without bot.toml at its root is told how to make one that has it.
3. **Build** (`arena.sandbox.run_build`), if the manifest has one: in a copy of the snapshot
   at `ROOT/builds/<digest>`, the only place the build may write, at the run's isolation
   level (the sandbox of play, with the network only where the bot asks for it and the run
   allows it), within the run's build limits. A successful build is noted by a marker
   beside the folder (`<digest>.ok`, out of the build's reach, naming the level it ran at)
   and is never run again for that digest (a build made at level none serves only runs at
   level none); the built folder is then made read-only. A failed build leaves nothing.
4. **Command**: the bot's command, and its build's program, must be a program on PATH named
   by its name, or an executable file of the folder, of the system's folders or the arena's
   own Python named by its path.

`ROOT` is trusted (a snapshot by its name, a build by its marker), so it must be private:
intake makes it 0755 and refuses one that another user may write, or that lies in a folder
another user may write (`snapshot.private_folder`). Every walk of a build's folder (copying
the snapshot in, making it read-only, removing it) goes through directory descriptors and
never follows a link, at any depth or path length; setuid and setgid bits are dropped.

The version of a bot is its snapshot's digest (`Snapshot.version`): a function of the
bytes its author wrote (a build writes only into its own copy). Failures are `Unbuildable`:
which stage failed, one line saying why, and the tail of the build's output.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import fcntl
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError, ConfigError
from arena.intake.pyenv import (
    ENVIRONMENT,
    REQUIREMENTS,
    environment_argv,
    wants_environment,
    with_environment,
)
from arena.intake.snapshot import (
    DEFAULT_INTAKE_LIMITS,
    IntakeLimits,
    IntakeRefused,
    Snapshot,
    copy_snapshot,
    private_folder,
    take_snapshot,
)
from arena.referee.manifest import MANIFEST, BotManifest, load_manifest, shown
from arena.sandbox import (
                           DEFAULT_BUILD_LIMITS,
                           BuildLimits,
                           BuildResult,
                           Isolation,
                           find_toolchains,
                           jail,
                           run_build,
)
from arena.sandbox.tree import read_only, remove_tree
from protocol.schema import clip

CACHE_VAR = "ARENA_CACHE"  # where intake keeps snapshots and builds (see `default_root`)
OUTPUT_LINES = 12  # of a failed build's output, shown in one failure's details
OUTPUT_CHARS = 300  # of each of those lines, and of the build command

_INSTALL = {
    "c": "install a C compiler, make and the libzmq and msgpack-c headers (Debian: apt-get "
         "install gcc make libzmq3-dev libmsgpack-dev)",
    "cpp": "install a C++ compiler, make and the cppzmq and msgpack-cxx headers (Debian: "
           "apt-get install g++ make cppzmq-dev libmsgpack-cxx-dev)",
    "java": "install a JDK and the JeroMQ and msgpack-java jars (Debian: apt-get install "
            "default-jdk-headless libjeromq-java libmsgpack-java)",
    "node": "install Node.js and npm (Debian: apt-get install nodejs npm)",
    "python": "install what its README asks for",
    "rust": "install cargo and the sources of the crates it uses (Debian: apt-get install "
            "cargo librust-zmq-dev librust-rmp-serde-dev librust-serde+serde-derive-dev)",
}


def default_root() -> Path:
    """Where intake keeps snapshots and builds: $ARENA_CACHE, else
    $XDG_CACHE_HOME/tichu-arena (default ~/.cache/tichu-arena)."""
    if os.environ.get(CACHE_VAR):
        return Path(os.environ[CACHE_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tichu-arena"


@dataclass(frozen=True)
class IntakePolicy:
    """What a run allows a bot at intake: its size, its build's limits and network, where."""

    isolation: Isolation
    """The level its build runs at: the level of the run's games."""
    limits: IntakeLimits = DEFAULT_INTAKE_LIMITS
    build: BuildLimits = DEFAULT_BUILD_LIMITS
    build_network: bool = False
    """Whether a bot that asks for the network at build time (`build_network = true`) gets it."""
    root: Path = field(default_factory=default_root)


class IntakeStage(enum.StrEnum):
    """Which step refused a bot (`Unbuildable.stage`, and a league upload's stage)."""

    SNAPSHOT = "snapshot"
    """The folder or archive: its files, links, names and size."""
    MANIFEST = "manifest"
    """bot.toml: missing, unreadable or wrong."""
    BUILD = "build"
    """The build in the sandbox, or what it needs to start."""
    COMMAND = "command"
    """The command that starts the bot: not a program of the folder or the system."""
    CHECK = "check-bot"
    """A league's upload only: `arena check-bot` failed on the built bot."""
    ARENA = "arena"
    """A league's upload only: the league itself failed to take it in (not the bot)."""

    @property
    def in_folder(self) -> bool:
        """Whether the bot folder itself must change (not what the machine has)."""
        return self in (IntakeStage.SNAPSHOT, IntakeStage.MANIFEST)


@dataclass(frozen=True)
class Unbuildable:
    """A bot that cannot take part: where it came from, which stage refused it and why."""

    source: Path
    """The author's folder or archive."""
    name: str
    """Its name from bot.toml, or the source's file name if no manifest could be read."""
    stage: IntakeStage
    """The step that refused it."""
    reason: str
    """One line: what failed and how."""
    output: str = ""
    """The tail of the build's output (stdout and stderr), as text."""
    language: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "stage", IntakeStage(self.stage))

    @property
    def hint(self) -> str:
        """What would let it in: what to install (by its language), or what to fix."""
        if self.stage.in_folder:
            return "fix the bot folder"
        return _INSTALL.get(self.language.lower(), "install what its build needs (see its "
                                                   "README)")

    def line(self) -> str:
        """Why it is left out and what to do, in one line."""
        return f"{self.name} left out: {self.reason}; to include it, {self.hint}"

    def details(self) -> str:
        """The failure with the end of the build's output (its last lines, each cut),
        indented, for an error message (the CLI escapes it for the terminal)."""
        text = f"{self.name} ({self.source}): {self.reason}"
        lines = self.output.strip().splitlines()[-OUTPUT_LINES:]
        if lines:
            text += "\n" + "\n".join(f"      {clip(line, OUTPUT_CHARS)}" for line in lines)
        return f"{text}\n    to include it, {self.hint}"


class IntakeFailed(ArenaError):
    """A bot was refused at intake (`failure` says at which stage and why)."""

    def __init__(self, failure: Unbuildable) -> None:
        super().__init__(failure.details())
        self.failure = failure


@dataclass(frozen=True)
class ReadyBot:
    """A bot made runnable by intake: its manifest (whose folder is the built, read-only
    copy it runs from), its snapshot and where it came from."""

    manifest: BotManifest
    snapshot: Snapshot
    source: Path
    build: BuildResult | None = None
    """The build run by this intake; None if the bot has no build or was built before."""

    @property
    def version(self) -> str:
        return self.snapshot.version


Note = Callable[[str], None]


def take_bot(source: str | Path, policy: IntakePolicy, build: bool = True,
             note: Note | None = None) -> ReadyBot:
    """Snapshot, check and build the bot at `source` (a folder, or a .tar.gz/.tgz/.tar/.zip
    archive); IntakeFailed saying why not. `build=False` stops after the manifest (the bot
    is then not necessarily runnable: `arena submit` only registers a version). `note` is
    told, in one line, when a build starts (a first build can take a while)."""
    source = Path(source).absolute()
    sweep(policy.root / "snapshots")
    try:
        snapshot = take_snapshot(source, policy.root / "snapshots", policy.limits)
    except IntakeRefused as exc:
        raise _refused(source, exc) from None
    return ready(snapshot, source, policy, build, note)


def _refused(source: Path, exc: IntakeRefused) -> IntakeFailed:
    """A snapshot's refusal as an intake failure. An archive's reason names only paths
    inside it (a league's archive lies in the server's folders); `details()` names it."""
    reason = str(exc)
    if exc.path == str(source) and source.is_file():
        reason = f"the archive: {exc.reason}"
    return IntakeFailed(Unbuildable(source, source.name, IntakeStage.SNAPSHOT, reason))


def forget_build(source: str | Path, policy: IntakePolicy, keep: bool = False) -> bool:
    """Discard the cached build of the bot at `source` (under the build's lock), so that its
    next intake builds it again from its snapshot (an organizer's rebuild); whether there was
    one. `keep`: set it aside instead, for `restore_build` to put back should the new build
    fail (or `restore_build(..., keep=False)` to throw away once it passed). IntakeFailed if
    its snapshot cannot be taken. Nothing may be running from the build: its folder goes."""
    with _build_lock(source, policy) as found:
        if found is None:
            return False
        folder, marker = found
        aside, aside_marker = _aside(folder)
        cached = marker.is_file()
        if keep and cached and folder.is_dir():
            remove_tree(aside)
            aside_marker.write_text(marker.read_text())
            marker.unlink()  # first: a folder without its marker is not a build
            os.rename(folder, aside)
            return True
        marker.unlink(missing_ok=True)
        if folder.exists():
            remove_tree(folder)
        return cached


def restore_build(source: str | Path, policy: IntakePolicy, keep: bool = True) -> bool:
    """The build `forget_build(..., keep=True)` set aside, back as the cached build (whatever
    a newer intake built in its place removed), or with `keep=False` thrown away; whether
    there was one. IntakeFailed if the snapshot cannot be taken."""
    with _build_lock(source, policy) as found:
        if found is None:
            return False
        folder, marker = found
        aside, aside_marker = _aside(folder)
        if not (aside.is_dir() and aside_marker.is_file()):
            return False
        if keep:
            marker.unlink(missing_ok=True)
            remove_tree(folder)
            os.rename(aside, folder)
            marker.write_text(aside_marker.read_text())
        else:
            remove_tree(aside)
        aside_marker.unlink()
        return True


def _aside(folder: Path) -> tuple[Path, Path]:
    """Where `forget_build(..., keep=True)` sets a build aside, and its marker."""
    return folder.with_name(f"{folder.name}.aside"), folder.with_name(f"{folder.name}.aside.ok")


@contextlib.contextmanager
def _build_lock(source: str | Path, policy: IntakePolicy
                ) -> Iterator[tuple[Path, Path] | None]:
    """The build folder of the bot at `source` and its marker, held under the build's lock
    meanwhile (None: nothing was ever built here). IntakeFailed if its snapshot cannot be
    taken."""
    source = Path(source).absolute()
    try:
        snapshot = take_snapshot(source, policy.root / "snapshots", policy.limits)
    except IntakeRefused as exc:
        raise _refused(source, exc) from None
    builds = policy.root / "builds"
    if not builds.is_dir():
        yield None
        return
    private_folder(builds)
    lock = os.open(builds / f"{snapshot.digest}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                   0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield builds / snapshot.digest, builds / f"{snapshot.digest}.ok"
    finally:
        os.close(lock)


def ready(snapshot: Snapshot, source: Path, policy: IntakePolicy, build: bool = True,
          note: Note | None = None) -> ReadyBot:
    """A snapshot made runnable: its manifest read, its build run (once per digest)."""
    manifest = _manifest(snapshot, source)
    if not build:
        return ReadyBot(manifest, snapshot, source)
    result = None
    if manifest.build or wants_environment(manifest):
        manifest, result = _built(manifest, snapshot, source, policy, note)
    problem = _not_runnable(manifest)
    if problem is not None:
        raise IntakeFailed(_failure(manifest, source, IntakeStage.COMMAND, problem))
    return ReadyBot(manifest, snapshot, source, result)


def _manifest(snapshot: Snapshot, source: Path) -> BotManifest:
    """The snapshot's manifest (`load_manifest` reads it safely: not through a link, not past
    `MANIFEST_BYTES`, never a crash on deep nesting); a mistake is named at the author's
    path, or for an archive by its path inside the archive."""
    archive = source.is_file()
    if archive and not os.path.lexists(snapshot.folder / MANIFEST):
        raise IntakeFailed(Unbuildable(source, source.name, IntakeStage.MANIFEST,
                                       _not_at_root(snapshot.folder)))
    try:
        return load_manifest(snapshot.folder)
    except ConfigError as exc:
        text = str(exc)
        if archive:
            text = text.replace(f"{snapshot.folder}{os.sep}", "").replace(
                str(snapshot.folder), "the archive")
        else:
            text = text.replace(str(snapshot.folder), str(source))
        raise IntakeFailed(Unbuildable(source, source.name, IntakeStage.MANIFEST, text)) from None


ROOT_NAMES_SHOWN = 5  # of an archive's root, in the refusal of one without bot.toml there


def _not_at_root(folder: Path) -> str:
    """Why an archive unpacked at `folder` is no bot, and how to make one, in one sentence
    naming what its root holds (paths inside the archive only)."""
    names = sorted(os.listdir(folder))
    shown_names = [shown(f"{name}/" if (folder / name).is_dir() and not (
        folder / name).is_symlink() else name) for name in names[:ROOT_NAMES_SHOWN]]
    if len(names) > ROOT_NAMES_SHOWN:
        shown_names.append(f"and {len(names) - ROOT_NAMES_SHOWN} more")
    holds = f"holds {', '.join(shown_names)}" if names else "is empty"
    return (f"{MANIFEST} must be at the archive's root (or in its one top folder), and its "
            f"root {holds}: make it with `tar czf bot.tar.gz -C my-bot .`")


def _built(manifest: BotManifest, snapshot: Snapshot, source: Path, policy: IntakePolicy,
           note: Note | None) -> tuple[BotManifest, BuildResult | None]:
    """The bot's built copy, building it if no earlier intake did (a lock keeps two
    processes from building one digest at once; the marker says it is built)."""
    if manifest.build:
        problem = _program_problem(manifest.build_argv()[0], snapshot.folder, "program")
        if problem is not None:
            raise IntakeFailed(_failure(manifest, source, IntakeStage.BUILD, f"its build "
                                        f"`{_command(manifest)}` cannot run: {problem}"))
    if manifest.build_network and not policy.build_network:
        raise IntakeFailed(_failure(
            manifest, source, IntakeStage.BUILD, "its build asks for the network (build_network = true "
            "in bot.toml) and this run does not allow it (allow it with network = true under "
            "[build] in the tournament config, or --allow-build-network)"))
    builds = policy.root / "builds"
    if not builds.exists() and not builds.is_symlink():
        with contextlib.suppress(FileExistsError):
            builds.mkdir(mode=0o755)
            builds.chmod(0o755)
    private_folder(builds)  # a marker there says "built": nobody else may write one
    folder = builds / snapshot.digest
    marker = builds / f"{snapshot.digest}.ok"
    built = dataclasses.replace(manifest, folder=folder)
    network = manifest.build_network and policy.build_network
    argv = built.build_argv()
    if wants_environment(manifest):
        built = with_environment(built)
        argv = environment_argv(network, built.build_argv())
    lock = os.open(builds / f"{snapshot.digest}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                   0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if folder.is_dir() and _reusable(marker, policy.isolation):
            return built, None
        marker.unlink(missing_ok=True)
        remove_tree(folder)
        copy_snapshot(snapshot.folder, folder)
        if note is not None:
            note(f"building {manifest.name} ({_command(manifest)}) at isolation "
                 f"{policy.isolation.value} ...")
        try:
            result = run_build(policy.isolation, folder, argv, policy.build, network=network)
        except OSError as exc:  # the machine's fault, not the bot's: a harness failure
            raise ArenaError(f"{manifest.name} ({source}): the sandbox of its build could "
                             f"not be set up: {exc}") from None
        if not result.ok:
            remove_tree(folder)
            raise IntakeFailed(_failure(manifest, source, IntakeStage.BUILD,
                                        f"its build `{_command(manifest)}` failed "
                                        f"({result.reason()})", result.output))
        read_only(folder)
        marker.write_text(f"{snapshot.digest} {policy.isolation.value}\n")
        return built, result
    except BaseException:
        if not marker.is_file():
            remove_tree(folder)
        raise
    finally:
        os.close(lock)  # drops the lock


def _reusable(marker: Path, level: Isolation) -> bool:
    """Whether the build its marker notes may serve a run at `level`: a sandboxed build serves
    every run; one made at level none (the bot's code unconfined, as the organizer) serves
    only runs at level none."""
    try:
        noted = marker.read_text().split()
    except OSError:
        return False
    return len(noted) == 2 and noted[1] in (Isolation.SANDBOX.value, level.value)


def _command(manifest: BotManifest) -> str:
    return clip(build_label(manifest), OUTPUT_CHARS)


def build_label(manifest: BotManifest) -> str:
    """What the bot's build does, for people: its build command, after the install of its
    requirements.txt where it has one (`pyenv`); "" if it has no build."""
    steps = [f"pip install -r {REQUIREMENTS} into {ENVIRONMENT}"] if wants_environment(
        manifest) else []
    if manifest.build:
        steps.append(" ".join(manifest.build))
    return ", then ".join(steps)


def _failure(manifest: BotManifest, source: Path, stage: IntakeStage, reason: str,
             output: str = "") -> Unbuildable:
    return Unbuildable(source, manifest.name, stage, reason, output, manifest.language)


def _not_runnable(manifest: BotManifest) -> str | None:
    """Why the bot's command cannot start (None: it can)."""
    return _program_problem(manifest.argv()[0], manifest.folder, "command")


def _program_problem(program: str, folder: Path, what: str) -> str | None:
    """Why `program` (a bot's command or build program) may not run, or None: a name must be
    a program on PATH; a path must name an executable file of the bot's folder, of the
    system's folders or the arena's own Python (the sandbox shows a program named by its
    path nothing else: a bot may not name the organizer's files)."""
    if os.sep not in program:
        if shutil.which(program) is None:
            return f"its {what} {shown(program)} is not installed (not on PATH)"
        return find_toolchains(folder).problem_of([program])  # (rustup with no toolchain...)
    path = Path(folder, program)
    real = Path(os.path.realpath(path))  # (a link loop never raises here)
    if not (real.is_relative_to(os.path.realpath(folder)) or jail.is_system(real)
            or real == Path(os.path.realpath(sys.executable))):
        return (f"its {what} {shown(program)} is outside its folder and the system's folders: "
                "name a program on PATH by its name, or ship it in the folder")
    if path.is_file() and os.access(path, os.X_OK):
        return None
    return f"its {what} {shown(program)} is not an executable file"


STALE_SECONDS = 24 * 3600  # a scratch folder this old belongs to a take that was killed


def sweep(snapshots: Path) -> None:
    """Remove the scratch folders (`.incoming-*`) that takes killed mid-way left, once they are
    a day old (a take under way is never that old: its limits bound it to minutes)."""
    if not snapshots.is_dir():
        return
    for scratch in snapshots.glob(".incoming-*"):
        with contextlib.suppress(OSError):
            if time.time() - scratch.lstat().st_mtime > STALE_SECONDS:
                remove_tree(scratch)


__all__ = ["CACHE_VAR", "MANIFEST", "IntakeFailed", "IntakePolicy", "ReadyBot", "Unbuildable",
           "build_label", "default_root", "ready", "read_only", "remove_tree", "take_bot"]
