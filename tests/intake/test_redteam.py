"""Red team of intake: hostile bot folders, archives and manifests against `take_snapshot`,
`take_bot`, the CLI's ways in and the content-addressed cache they share.

Each test builds its attack for real in `tmp_path`, asserts the safe outcome, and, where it
makes sense, shows with a control that the attack is real (it works against a plain reader,
a plain copy, or a cache folder that is not private). The attacks on the build sandbox
(what a build leaves in its folder) are in `tests/sandbox/test_build_redteam.py`.

| attack                                   | outcome                                      |
|------------------------------------------|----------------------------------------------|
| bot.toml nested 3,000 deep               | refused at the manifest (was a RecursionError)|
| bot.toml of 20 MB                        | refused before it is parsed (was read whole)  |
| command that is a symlink loop           | refused at the command (was a RuntimeError)   |
| folder deeper than PATH_MAX, with a build | built (was a shutil.Error from copytree)     |
| zip with a huge central directory        | refused before zipfile reads it              |
| tar with a giant pax / GNU long name     | refused before tarfile reads it              |
| archive whose implied folders overflow   | refused at the file limit                    |
| a cache root others may write, planted   | refused (was: the planted build was run)     |
| a cache root whose builds/ is a symlink  | refused                                      |
| a `.incoming-*` left by a killed take     | never taken for a snapshot                   |
| two trees that could hash alike          | distinct digests                             |
| ANSI escapes in a build command/output   | escaped on the terminal (arena play)         |
| arena play given a hostile archive       | refused, nothing written outside             |
| check-bot --no-build writing its folder  | the shared snapshot is untouched (sandbox)   |
| a worker given another or an escaping bundle | a build failure                          |
| author's bot.toml read before intake     | a config error, never followed out (was a crash) |
| author renaming the bot after config load | never stored under another entrant's name    |
| hard-link count raced during the copy    | refused where another user may write a folder |
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import tracemalloc
import uuid
import zipfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.intake import (
    IntakeFailed,
    IntakeLimits,
    IntakePolicy,
    IntakeRefused,
    content_hash,
    take_bot,
    take_snapshot,
)
from arena.intake import snapshot as snapshot_module
from arena.referee.manifest import load_manifest
from arena.sandbox import BuildLimits, Isolation
from tests.intake import leftovers, refused

pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parents[2]
MB = 1024 * 1024
NOBODY = 65534


def make_bot(folder: Path, name: str = "redteam", build: list[str] | None = None,
             command: list[str] | None = None, extra: str = "") -> Path:
    """A bot folder with a bot.toml (lists written as JSON arrays: valid TOML) and a run.sh."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f'name = "{name}"', 'version = "1"', 'language = "sh"',
             f"command = {json.dumps(command or ['sh', 'run.sh'])}"]
    if build is not None:
        lines.append(f"build = {json.dumps(build)}")
    (folder / "bot.toml").write_text("\n".join(lines) + "\n" + extra)
    (folder / "run.sh").write_text("exit 0\n")
    return folder


def policy(tmp_path: Path, level: Isolation = Isolation.NONE, **kwargs) -> IntakePolicy:
    kwargs.setdefault("build", BuildLimits(wall_seconds=120))
    return IntakePolicy(level, root=tmp_path / "cache", **kwargs)


def peak_mb(action) -> tuple[object, float]:
    """What `action()` returns (or raises), and the peak of Python's allocations during it."""
    tracemalloc.start()
    try:
        try:
            got: object = action()
        except Exception as exc:  # noqa: BLE001 - the caller looks at it
            got = exc
        return got, tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()


# ----- the manifest ---------------------------------------------------------------------------

def test_a_bot_toml_nested_thousands_deep_is_refused_not_a_crash(tmp_path):
    deep = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    bot = make_bot(tmp_path / "bot", extra=deep)
    with pytest.raises(RecursionError):  # the control: TOML's parser recurses
        tomllib.loads(deep)
    with pytest.raises(IntakeFailed) as caught:
        take_bot(bot, policy(tmp_path))
    assert caught.value.failure.stage == "manifest"
    assert "bot.toml" in caught.value.failure.reason


def test_a_huge_bot_toml_is_refused_before_it_is_parsed(tmp_path):
    bot = make_bot(tmp_path / "bot", extra="# " + "a" * (20 * MB) + "\n")
    got, peak = peak_mb(lambda: take_bot(bot, policy(tmp_path)))
    assert isinstance(got, IntakeFailed), got
    assert got.failure.stage == "manifest" and "larger than" in got.failure.reason
    assert peak < 8, f"intake held {peak:.0f} MB for a 20 MB bot.toml"
    snapshot = take_snapshot(bot, tmp_path / "cache" / "snapshots")  # the control: the
    text = (snapshot.folder / "bot.toml").read_text()                 # parser reads it whole
    _, read_whole = peak_mb(lambda: tomllib.loads(text))
    assert read_whole > 20


def test_a_command_that_is_a_symlink_loop_is_refused_not_a_crash(tmp_path):
    bot = make_bot(tmp_path / "bot", command=["./loop"])
    (bot / "loop").symlink_to("loop")  # stays inside the folder: the snapshot takes it
    snapshot = take_snapshot(bot, tmp_path / "cache" / "snapshots")
    with pytest.raises(RuntimeError):  # the control: Path.resolve raises on a loop
        (snapshot.folder / "loop").resolve()
    with pytest.raises(IntakeFailed) as caught:
        take_bot(bot, policy(tmp_path))
    assert caught.value.failure.stage == "command"


def _nest(folder: Path, names: list[str]) -> None:
    """Folders `names` nested in `folder` (through descriptors: any path length), a file at
    the bottom."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for name in names:
        os.mkdir(name, dir_fd=fd)
        sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = sub
    os.close(os.open("bottom", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    os.close(fd)


def _reach(folder: Path, names: list[str]) -> os.stat_result:
    """The lstat of `bottom` under the nested `names` (through descriptors)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = sub
        return os.stat("bottom", dir_fd=fd, follow_symlinks=False)
    finally:
        os.close(fd)


def test_a_bot_whose_paths_pass_path_max_is_built_not_a_crash(tmp_path):
    """20 folders of 250 characters (within the depth limit): 5,000-character paths, which
    no path-based copy can reach (copytree raised shutil.Error, killing the whole run)."""
    names = [chr(ord("a") + i) * 250 for i in range(20)]
    bot = make_bot(tmp_path / "bot", build=["true"])
    _nest(bot, names)
    deep = os.path.join(bot, *names, "bottom")
    with pytest.raises(OSError, match="too long"):  # the control: out of a path's reach
        os.lstat(deep)
    ready = take_bot(bot, policy(tmp_path))
    assert ready.build is not None and ready.build.ok
    assert not _reach(ready.manifest.folder, names).st_mode & 0o222


# ----- archives -------------------------------------------------------------------------------

def test_a_zip_with_a_huge_central_directory_is_refused_before_zipfile_reads_it(tmp_path):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for number in range(40):  # 40 members of 1 byte, each with a 65,000-byte comment
            info = zipfile.ZipInfo(f"f{number}")
            info.comment = b"c" * 65000
            zipped.writestr(info, b"x")
    limits = IntakeLimits(files=50)
    _, plain = peak_mb(lambda: zipfile.ZipFile(archive).infolist())  # the control
    assert plain > 2.4, "zipfile holds the whole central directory"
    got, peak = peak_mb(lambda: take_snapshot(archive, tmp_path / "root", limits))
    assert isinstance(got, IntakeRefused) and "central directory" in str(got), got
    assert peak < 1, f"{peak:.1f} MB"
    assert leftovers(tmp_path / "root") == []


@pytest.mark.parametrize("form", ["pax", "gnu_long_name"])
def test_a_tar_with_a_giant_extended_header_is_refused_before_tarfile_reads_it(tmp_path,
                                                                              form):
    archive = tmp_path / "bot.tar"
    if form == "pax":
        info = tarfile.TarInfo("a")
        info.pax_headers = {"comment": "x" * (8 * MB)}
        fmt = tarfile.PAX_FORMAT
    else:
        info = tarfile.TarInfo("a" * (8 * MB))
        fmt = tarfile.GNU_FORMAT
    with tarfile.open(archive, "w", format=fmt) as tar:
        tar.addfile(info, io.BytesIO(b""))

    def plain() -> None:
        with tarfile.open(archive, "r|") as tar:
            list(tar)
    _, held = peak_mb(plain)  # the control: tarfile reads the header whole (and copies it)
    assert held > 8
    got, peak = peak_mb(lambda: take_snapshot(archive, tmp_path / "root"))
    assert isinstance(got, IntakeRefused) and "header" in str(got), got
    assert peak < 2, f"{peak:.1f} MB"
    assert leftovers(tmp_path / "root") == []


def test_the_folders_an_archive_implies_count_toward_the_file_limit(tmp_path):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("/".join(["d"] * 30) + "/f", b"x")  # one member, 29 folders implied
    refused(archive, tmp_path / "root", "more than 10 files", limits=IntakeLimits(files=10))


# ----- the cache root -------------------------------------------------------------------------

def _plant(root: Path, victim: Path) -> Path:
    """What another user who may write `root` plants there: the victim's build (its digest is
    public: the hash of its files) with a bot.py of theirs, and the marker of a finished
    build."""
    digest = take_snapshot(victim, root.parent / "elsewhere").digest
    planted = root / "builds" / digest
    shutil.copytree(victim, planted)
    (planted / "bot.py").write_text("print('the planted code runs')\n")
    (root / "builds" / f"{digest}.ok").write_text(f"{digest} sandbox\n")
    return planted


def test_a_cache_root_that_another_user_may_write_is_refused(tmp_path):
    victim = make_bot(tmp_path / "victim", build=["true"])
    (victim / "bot.py").write_text("print('the victim')\n")

    private = tmp_path / "private"  # the control: intake trusts what its own cache holds,
    private.mkdir(mode=0o755)       # so only the cache's privacy keeps others out of it
    planted = _plant(private, victim)
    ready = take_bot(victim, IntakePolicy(Isolation.NONE, root=private))
    assert ready.manifest.folder == planted and "planted" in (planted / "bot.py").read_text()

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    _plant(shared, victim)
    for path in [shared / "builds", *(shared / "builds").rglob("*")]:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    with pytest.raises(ConfigError, match="no one else may write"):
        take_bot(victim, IntakePolicy(Isolation.NONE, root=shared))


def test_a_builds_folder_that_is_a_symlink_in_the_cache_root_is_refused(tmp_path):
    victim = make_bot(tmp_path / "victim", build=["true"])
    elsewhere = tmp_path / "theirs"
    elsewhere.mkdir()
    os.chown(elsewhere, NOBODY, NOBODY)
    root = tmp_path / "cache"
    root.mkdir(mode=0o755)
    (root / "builds").symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="no one else may write"):
        take_bot(victim, IntakePolicy(Isolation.NONE, root=root))
    assert list(elsewhere.iterdir()) == []


def test_a_cache_root_made_by_intake_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        ready = take_bot(make_bot(tmp_path / "bot", build=["true"]),
                         IntakePolicy(Isolation.NONE, root=tmp_path / "a" / "b" / "cache"))
    finally:
        os.umask(old)
    for path in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "cache",
                 ready.manifest.folder.parent, ready.snapshot.folder.parent):
        assert not path.stat().st_mode & 0o022, path


def test_a_scratch_folder_left_by_a_killed_take_is_never_taken_for_a_snapshot(tmp_path):
    """A take killed mid-copy leaves `.incoming-*` behind: no digest names it, so no later take
    uses it, whatever it holds."""
    bot = make_bot(tmp_path / "bot")
    root = tmp_path / "cache" / "snapshots"
    digest = take_snapshot(bot, tmp_path / "elsewhere").digest
    left = root / f".incoming-{digest}"
    shutil.copytree(bot, left)
    (left / "run.sh").write_text("echo planted\n")
    got = take_snapshot(bot, root)
    assert got.folder == root / digest and content_hash(got.folder) == digest
    assert (got.folder / "run.sh").read_text() == "exit 0\n"


# ----- the digest -----------------------------------------------------------------------------

def _tree(folder: Path, spec: dict[str, str | None]) -> Path:
    """A folder from {path: content} ('/' ending: a folder; '->x': a link to x; '*x': an
    executable file holding x)."""
    folder.mkdir()
    for path, content in spec.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.endswith("/"):
            target.mkdir()
        elif content.startswith("->"):
            target.symlink_to(content[2:])
        else:
            target.write_text(content.lstrip("*"))
            target.chmod(0o755 if content.startswith("*") else 0o644)
    return folder


def test_trees_that_a_naive_hash_would_confuse_have_distinct_digests(tmp_path):
    trees = [{"a": "x"}, {"a": "*x"}, {"a": "->x"}, {"a/": None}, {}, {"a/b": "x"},
             {"a/": None, "b": "x"}, {"a b": "x"}, {"a": "x\0file\0b\0"}, {"a\nb": "x"}]
    digests = []
    for number, spec in enumerate(trees):
        try:
            digests.append(take_snapshot(_tree(tmp_path / f"t{number}", spec),
                                         tmp_path / "root").digest)
        except IntakeRefused:  # a name with a control character: refused, not confused
            assert number == len(trees) - 1
    assert len(set(digests)) == len(digests) == len(trees) - 1


# ----- the CLI --------------------------------------------------------------------------------

def _arena(tmp_path: Path, *args: str, cache: Path | None = None
           ) -> subprocess.CompletedProcess:
    env = {**os.environ, "ARENA_CACHE": str(cache or tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=REPO, env=env,
                          capture_output=True, timeout=240)


def test_escapes_in_a_build_command_and_its_output_reach_the_terminal_escaped(tmp_path):
    script = ("printf '\\033]0;owned\\007\\033[2J'; echo; echo 'arena: all bots passed'; "
              "exit 3")
    bot = make_bot(tmp_path / "bot", build=["sh", "-c", script, "\x1b[31mred\x1b[0m\rX"])
    done = _arena(tmp_path, "play", str(bot), str(bot), "--isolation", "none")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert b"exit code 3" in out
    for control in (b"\x1b", b"\x07", b"\r"):
        assert control not in out, out
    assert b"\\x1b[31mred" in out  # shown, as text
    assert b"\narena: all bots passed" not in out  # a line of the build's output is indented


@pytest.mark.parametrize("name, kind", [("../escape.txt", tarfile.REGTYPE),
                                        ("/tmp/tichu-redteam-{}", tarfile.REGTYPE),
                                        ("link", tarfile.SYMTYPE)])
def test_arena_play_refuses_a_hostile_archive_and_writes_nothing_outside(tmp_path, name,
                                                                         kind):
    name = name.format(uuid.uuid4().hex)
    archive = tmp_path / "work" / "bot.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        manifest = make_bot(tmp_path / "src") / "bot.toml"
        tar.add(manifest, "bot.toml")
        info = tarfile.TarInfo(name)
        info.type = kind
        if kind == tarfile.SYMTYPE:
            info.linkname = str(tmp_path)
            tar.addfile(info)
            info = tarfile.TarInfo("link/escape.txt")
        data = b"written by the archive\n"
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    done = _arena(tmp_path, "play", str(archive), str(archive), "--isolation", "none")
    assert done.returncode == 2, done.stderr
    assert b"member" in done.stderr
    assert not (tmp_path / "escape.txt").exists() and not Path(name).exists()
    assert leftovers(tmp_path / "cache" / "snapshots") == []


def test_arena_play_with_a_cache_root_others_may_write_says_so_in_one_error(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    bot = make_bot(tmp_path / "bot")
    done = _arena(tmp_path, "play", str(bot), str(bot), "--isolation", "none", cache=shared)
    assert done.returncode == 2, done.stderr
    assert b"no one else may write" in done.stderr and b"Traceback" not in done.stderr
    assert list(shared.iterdir()) == []


def test_check_bot_without_build_runs_the_shared_snapshot_read_only(tmp_path, monkeypatch):
    """`check-bot --no-build` runs the bot from intake's snapshot itself (no build copy):
    sandboxed, the bot cannot write it; unconfined (the control) it rewrites the snapshot
    that every later run of that digest, sandboxed or not, takes as the author's bytes."""
    from arena.botkit.check import check_bot
    from arena.sandbox import probe

    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    bot = make_bot(tmp_path / "bot")
    (bot / "run.sh").write_text("echo poisoned > poisoned.txt\necho '# more' >> run.sh\n"
                                "exit 0\n")
    levels = [Isolation.NONE]
    if probe().level is Isolation.SANDBOX:
        levels.insert(0, Isolation.SANDBOX)
    for level in levels:
        root = tmp_path / "cache" / "snapshots"
        snapshot = take_snapshot(bot, root)
        check_bot(bot, games=0, build=False, isolation=level)
        poisoned = (snapshot.folder / "poisoned.txt").exists()
        if level is Isolation.NONE:  # the control (level none is documented as unsafe)
            assert poisoned and content_hash(snapshot.folder) != snapshot.digest
        else:
            assert not poisoned and content_hash(snapshot.folder) == snapshot.digest


def test_a_cluster_worker_takes_only_the_bundle_of_the_version_shipped(tmp_path,
                                                                      monkeypatch):
    """A worker (`cluster.ensure_built`) takes a shipped snapshot by intake, with symlink
    members allowed (a snapshot's own): a bundle of other content, or one whose link leaves
    the folder, is a build failure, never a built bot."""
    from arena.intake import pack_snapshot
    from arena.referee.match import Entrant
    from arena.tournament.cluster import BuildFailure, ensure_built

    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    bot = make_bot(tmp_path / "bot", build=["true"])
    snapshot = take_snapshot(bot, tmp_path / "coordinator")
    entrant = Entrant(load_manifest(snapshot.folder), snapshot.version, str(bot),
                      snapshot.folder)
    other = take_snapshot(make_bot(tmp_path / "other", name="other"), tmp_path / "coordinator")
    escaping = io.BytesIO()
    with tarfile.open(fileobj=escaping, mode="w") as tar:
        tar.addfile(tarfile.TarInfo("bot.toml"), io.BytesIO(b""))
        link = tarfile.TarInfo("lib")
        link.type, link.linkname = tarfile.SYMTYPE, "../../../../etc"
        tar.addfile(link)
    policy_ = policy(tmp_path)
    for bundle, reason in ((pack_snapshot(other.folder), "hashes to"),
                           (escaping.getvalue(), "climbs out of the folder")):
        got = ensure_built("k", entrant, bundle, policy_)
        assert isinstance(got, BuildFailure) and reason in got.reason, got
    got = ensure_built("k", entrant, pack_snapshot(snapshot.folder), policy_)  # the control
    assert not isinstance(got, BuildFailure), got
    assert got.manifest.folder.is_relative_to(tmp_path / "cache" / "builds")


def test_an_author_renaming_the_bot_after_the_config_is_read_cannot_take_a_name(tmp_path):
    from arena.tournament.config import load_config
    from arena.tournament.runner import open_store, register_entrants
    from tests.tournament.conftest import copy_bot, write_config

    first = copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = load_config(write_config(tmp_path, ["random", "heuristic"],
                                      extra=f'[intake]\nfolder = "{tmp_path / "cache"}"\n'))
    manifest = first / "bot.toml"  # the author, once the config was read
    manifest.write_text(manifest.read_text().replace('name = "random"', 'name = "heuristic"'))
    with open_store(config) as store:
        with contextlib.suppress(ConfigError, IntakeFailed):
            register_entrants(config, store, build=False)
        taken = [(row.name, row.folder) for row in store.entrants()]
    assert ("heuristic", str(first)) not in taken, taken


# ----- what is read of a bot before intake ---------------------------------------------------

def test_an_authors_deep_bot_toml_read_before_intake_is_a_config_error(tmp_path):
    bot = make_bot(tmp_path / "bot", extra="x = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ConfigError):
        load_manifest(bot)


def test_an_authors_bot_toml_that_links_out_of_the_folder_is_not_followed(tmp_path):
    other = make_bot(tmp_path / "other", name="someone-else")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").symlink_to(other / "bot.toml")
    with pytest.raises(IntakeFailed):  # intake refuses it: a link out of the folder
        take_bot(bot, policy(tmp_path))
    with pytest.raises(ConfigError):  # the safe outcome before intake too
        load_manifest(bot)


# ----- a racing author and hard links ---------------------------------------------------------

def _race_the_hard_link_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              shared: bool) -> Path:
    """An author who may write to the bot's folder `z` (when `shared`) links an outside file
    the organizer keeps (`secret`) into the folder, with a link of their own outside
    (`theirs`): 3 links, `a` met first. Right after the copy meets `a`, they drop `theirs`
    and add `z/c` and `z/d`: the walk then meets 3 links inside, as many as `a` had. The
    snapshot's folder is returned (or IntakeRefused raised)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret"
    secret.write_text("the organizer's secret\n")
    theirs = outside / "theirs"
    os.link(secret, theirs)
    bot = make_bot(tmp_path / "bot")
    os.link(secret, bot / "a")
    (bot / "z").mkdir()
    os.chmod(bot, 0o755)
    os.chmod(bot / "z", 0o777 if shared else 0o755)
    names = snapshot_module._FolderCopy._names
    monkeypatch.setattr(snapshot_module._FolderCopy, "_names",
                        lambda self, fd, parts: sorted(names(self, fd, parts)))  # a before z
    note = snapshot_module._FolderCopy._note_hard_links
    raced: list[tuple[str, ...]] = []

    def racing(self, info, parts):  # the author, right after the copy met `a`
        note(self, info, parts)
        if not raced:
            raced.append(parts)
            os.unlink(theirs)
            os.link(secret, bot / "z" / "c")
            os.link(secret, bot / "z" / "d")
    monkeypatch.setattr(snapshot_module._FolderCopy, "_note_hard_links", racing)
    return take_snapshot(bot, tmp_path / "root").folder


def test_an_author_racing_the_hard_link_count_gets_no_outside_bytes(tmp_path, monkeypatch):
    """The author may write to `z`: no count of links can be trusted, and intake takes no
    file of several links from the folder at all."""
    with pytest.raises(IntakeRefused, match=r"a: has 3 hard links, and .*/z may be changed "
                                            r"by another user"):
        _race_the_hard_link_count(tmp_path, monkeypatch, shared=True)


def test_the_race_is_real_where_only_intakes_own_user_writes(tmp_path, monkeypatch):
    """The control: the same moves by intake's own user (who may read the secret anyway, and
    is no author intake guards against) pass the count, and the outside bytes are copied."""
    folder = _race_the_hard_link_count(tmp_path, monkeypatch, shared=False)
    assert (folder / "a").read_text() == "the organizer's secret\n"
