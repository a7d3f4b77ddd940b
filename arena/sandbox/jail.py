"""The bubblewrap command line of one sandboxed bot process: what it sees and what it is.

The sandbox is an empty root with, read-only: the system's programs and libraries (`/usr`
and the `/bin`, `/lib*` links), the few files of `/etc` that runtimes read (the dynamic
loader's cache, `alternatives`, Java's settings, TLS and time zone data), the arena's Python
(its installation, its virtual environment and the `protocol` and `arena` packages, for
Python bots: the SDK, and the rules engine a bot may search with), the installation of the
bot's program when it lives elsewhere, the folders of the toolchains the caller's shell
chooses (`toolchains.py`: rustup's, nvm's, pyenv's, sdkman's; their `bin` on its PATH), and
the bot's own folder, which is its working directory. Its `/etc/passwd` names only root,
the bot and nobody. Writable: a fresh `/tmp` of `disk_mb` (HOME and TMPDIR) and a small
`/dev/shm`, both private memory that dies with the sandbox. Its own pid, network, IPC, UTS
and cgroup namespaces; no capability; the seccomp filter of `seccomp.py`; a session of its
own; it dies with its parent.

Nothing else of the machine is there: no other bot's folder, no tournament folder (configs,
SQLite, records), no referee file, no `/proc` entry of a process outside the sandbox, no
network but its own loopback.

As root, the sandbox is built with bubblewrap's privileges and the bot then runs under a uid
of its own (`uids.py`) through `setpriv`; otherwise bubblewrap makes a user namespace and the
bot keeps the caller's uid.

A bot's build (`build.py`) sees the same (`sandbox_view`), but for its folder, which it may
write, and no hand-off; it may keep the machine's network (`namespace_args(network=True)`).
"""


from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import site
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox.handoff import ENDPOINT_VAR
from arena.sandbox.handoff import compiled as compiled_handoff
from arena.sandbox.toolchains import Toolchains

SYSTEM = (Path("/usr"),)
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
       "localtime", "timezone", "nsswitch.conf", "host.conf", "hosts", "mime.types")
ETC_GLOBS = ("java-*", "jvm")
SHM_MB = 64
HANDOFF = Path(__file__).with_name("handoff.py")
PATH = "/usr/local/bin:/usr/bin:/bin"
PASSED_PREFIX = "TICHU_"  # variables of the referee's environment a sandboxed bot gets


@dataclass(frozen=True)
class JailFds:
    """File descriptors bubblewrap reads (numbers valid in the child; see `pass_fds`)."""

    seccomp: int | None
    passwd: int
    group: int
    handoff: int | None = None
    """The hand-off's end of the referee's socket pair (None: a build, which has none)."""


def bwrap_argv(bwrap: str, folder: Path, command: list[str], disk_mb: int | None,
               uid: int | None, fds: JailFds, port: int, named: str | None = None,
               toolchains: Toolchains | None = None) -> list[str]:
    """The full command: bubblewrap, then (as root) the switch to `uid`, then the hand-off
    of the referee's connection (`handoff.py`, or its twin in C where one could be
    compiled), which execs `command` in `folder`. `named`: the program as `located` names
    it (`runtime_paths`), if `command[0]` is it looked up; `toolchains`: those shown."""
    program = compiled_handoff()
    if program is not None:  # handoff.py's twin in C: a tenth of a Python start's CPU
        handoff, start = Path(program), [program]
    else:
        python = Path(os.path.realpath(sys.executable))
        handoff, start = HANDOFF, [str(python), "-I", "-S", str(HANDOFF)]
    args = [bwrap, *namespace_args(uid is not None)]
    args += sandbox_view(folder, named or command[0], disk_mb, fds, extra=(handoff,),
                         toolchains=toolchains)
    if uid is not None:
        args += switch_user(uid)
    return args + [*start, str(fds.handoff), str(port), "--", *command]


def sandbox_view(folder: Path, program: str, disk_mb: int | None, fds: JailFds, *,
                 writable: bool = False, extra: tuple[Path, ...] = (),
                 etc: tuple[str, ...] = (), toolchains: Toolchains | None = None) -> list[str]:
    """What bubblewrap shows a sandboxed process, up to and including the `--` before its
    command: `system_view` (with the files `etc` of /etc besides), the /etc/passwd and
    /etc/group of `fds`, /proc, /dev, the private /tmp and /dev/shm, the runtime of
    `program` (`runtime_paths`) and the folders of `toolchains` read-only, `folder`
    (read-only unless `writable`) as the working directory, the files `extra` read-only,
    and the seccomp filter of `fds`."""
    args = [*system_view(etc)]
    args += ["--ro-bind-data", str(fds.passwd), "/etc/passwd",
             "--ro-bind-data", str(fds.group), "/etc/group"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += tmpfs("/tmp", disk_mb) + tmpfs("/dev/shm", min(disk_mb or SHM_MB, SHM_MB))
    shown = toolchains.folders() if toolchains is not None else []
    runtime = _outermost(runtime_paths(program, folder) + [
        p for p in shown if not is_system(p) and p != folder and folder not in p.parents])
    args += _parents([*runtime, folder, *extra])
    for path in runtime:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--bind" if writable else "--ro-bind", str(folder), str(folder)]
    for path in extra:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--chdir", str(folder)]
    if fds.seccomp is not None:
        args += ["--seccomp", str(fds.seccomp)]
    return args + ["--"]


def namespace_args(as_root: bool, network: bool = False) -> list[str]:
    """New namespaces, no capability, a session of its own, death with the parent. As root,
    no user namespace (the switch to the bot's own uid needs real uids) and only the
    capabilities that switch needs, which it then drops. `network`: keep the machine's
    network namespace (a build that downloads); every other namespace is still new."""
    if as_root:
        net = [] if network else ["--unshare-net"]
        args = ["--unshare-ipc", "--unshare-pid", *net, "--unshare-uts",
                "--unshare-cgroup", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args = ["--unshare-all", *(["--share-net"] if network else []), "--unshare-user",
                "--disable-userns"]
    return args + ["--die-with-parent", "--new-session", "--hostname", "arena"]


def switch_user(uid: int) -> list[str]:
    """A command prefix (run as root in the sandbox) that becomes `uid` with no group, no
    capability left in any set, and execs the rest."""
    return [_setpriv(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


def sandbox_env(env: Mapping[str, str], uid: int | None,
                toolchains: Toolchains | None = None) -> dict[str, str]:
    """A sandboxed bot's environment: a plain PATH (with the `bin` folders of `toolchains`
    where the caller's PATH has them) and their variables, HOME and TMPDIR in its scratch
    space, and the referee's `TICHU_*` variables (its token among them); nothing else of
    the referee's environment (`TICHU_ENDPOINT` is set inside, by the hand-off)."""
    clean = {"PATH": PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
             "USER": "bot" if uid is not None else os.environ.get("USER", "bot")}
    clean["LOGNAME"] = clean["USER"]
    if toolchains is not None:
        clean.update(toolchains.environment())
    clean.update((k, v) for k, v in env.items() if k.startswith(PASSED_PREFIX))
    clean.pop(ENDPOINT_VAR, None)
    return clean


def passwd_text(uid: int | None) -> tuple[bytes, bytes]:
    """The sandbox's /etc/passwd and /etc/group: root, the bot's user and nobody."""
    me = uid if uid is not None else os.getuid()
    gid = uid if uid is not None else os.getgid()
    users = {0: "root", me: "bot" if uid is not None else _user_name(me), 65534: "nobody"}
    passwd = "".join(f"{name}:x:{n}:{n if n != me else gid}::{'/tmp' if n == me else '/'}:"
                     "/usr/sbin/nologin\n" for n, name in users.items())
    groups = {0: "root", gid: "bot", 65534: "nogroup"}
    group = "".join(f"{name}:x:{n}:\n" for n, name in groups.items())
    return passwd.encode(), group.encode()


PYTHON_PACKAGES = ("protocol", "arena")
"""The arena's packages a Python bot may import: the SDK, and the rules engine that a bot
may search with (`arena.rules`, which imports nothing of the rest)."""


def located(program: str, toolchains: Toolchains) -> tuple[str, str]:
    """`program` as the sandbox runs it, and as `runtime_paths` takes it. A name is looked
    up on the caller's PATH: found in a toolchain's entry, it is that toolchain's own
    program (pyenv's version in place of its shim), by its path, which brings nothing
    more; found elsewhere, it keeps its name (its installation is shown)."""
    if os.sep in program:
        return program, program
    inside = toolchains.inside(program)
    if inside is not None:
        return inside, inside
    return shutil.which(program, path=toolchains.caller_path) or program, program


def runtime_paths(program: str, folder: Path) -> list[Path]:
    """What a bot's program needs from outside the system folders: the arena's Python (for
    Python bots and the hand-off) and, for a program named by its name and found on the
    caller's PATH elsewhere (a runtime the organizer installed in /opt; a toolchain manager's
    programs are `located` and shown by `toolchains.py` instead), its installation. A program named by its path brings nothing: it must be a file of the bot's
    folder or of the system (else a bot could name any program of the organizer's, and see
    the folder it is installed in)."""
    paths = [Path(sys.base_prefix), Path(sys.prefix)]
    paths += [Path(p) for p in site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        paths.append(Path(site.getusersitepackages()))
    for package in PYTHON_PACKAGES:  # (in site-packages, unless installed in place: -e)
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            paths += [Path(p) for p in spec.submodule_search_locations]
    executable = None if os.sep in program else shutil.which(program)
    if executable is not None:
        paths += _installation(Path(executable))
    return [p for p in dict.fromkeys(paths) if p.exists() and not is_system(p)
            and p != folder and folder not in p.parents]


def _installation(executable: Path) -> list[Path]:
    """The folders holding `executable` and every link on the way to it, outside the system:
    a `bin` folder's parent (the installation prefix), else the folder itself."""
    found = []
    path = executable.absolute()
    for _ in range(16):  # links of links (pyenv shims, alternatives)
        folder = path.parent
        found.append(folder.parent if folder.name == "bin" else folder)
        if not path.is_symlink():
            break
        path = Path(folder, os.readlink(path))
    real = Path(os.path.realpath(executable)).parent
    found.append(real.parent if real.name == "bin" else real)
    return found


def is_system(path: Path) -> bool:
    """Whether `path` is visible in every sandbox anyway (the system folders, `SYSTEM`)."""
    resolved = Path(os.path.realpath(path))
    return any(resolved == s or s in resolved.parents for s in SYSTEM) or str(resolved) == "/"


def system_view(etc: tuple[str, ...] = ()) -> list[str]:
    """The read-only system: /usr, the /bin and /lib links, the runtimes' files of /etc
    (and the files `etc` of /etc, where they exist)."""
    args = ["--perms", "0755", "--dir", "/etc"]  # else 0700: closed to a bot's own uid
    for path in SYSTEM:
        args += ["--ro-bind", str(path), str(path)]
    for name in SYSTEM_LINKS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    names = [*ETC, *(os.path.basename(p) for g in ETC_GLOBS for p in glob.glob(f"/etc/{g}")),
             *etc]
    for name in dict.fromkeys(names):
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def tmpfs(path: str, size_mb: int | None) -> list[str]:
    """A fresh, world-writable (sticky) tmpfs at `path`, of at most `size_mb`."""
    sized = ["--size", str(size_mb * 1024 * 1024)] if size_mb else []
    return ["--perms", "1777", *sized, "--tmpfs", path]


def _parents(paths: Iterable[Path]) -> list[str]:
    """Every folder above `paths`, made world-searchable (bubblewrap would make them 0700,
    which shuts out a bot under its own uid)."""
    made: dict[str, None] = {}
    for path in paths:
        for parent in reversed(Path(path).parents):
            if str(parent) != "/" and not is_system(parent) and str(parent) != "/tmp":
                made.setdefault(str(parent))
    args: list[str] = []
    for folder in made:
        args += ["--perms", "0755", "--dir", folder]
    return args


def _outermost(paths: list[Path]) -> list[Path]:
    """`paths` without those inside another of them (a bind covers its subfolders)."""
    ordered = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in ordered:
        if not any(k == path or k in path.parents for k in kept):
            kept.append(path)
    return kept


def _setpriv() -> str:
    found = shutil.which("setpriv")
    return os.path.realpath(found) if found else "/usr/bin/setpriv"


def _user_name(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return "bot"
