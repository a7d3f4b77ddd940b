"""The toolchains an author installed in their home, chosen as their shell chooses them.

rustup's cargo, nvm's node, pyenv's python and sdkman's java live in the caller's home, which
no sandbox shows. `find_toolchains(folder)` looks at the caller's PATH, resolves each such
toolchain on the host (`rustup show active-toolchain` and `pyenv version-name` in the bot's
folder, the nvm version whose `bin` is on PATH, sdkman's `current`), and says what a sandbox
must show for it: the chosen toolchain's own folders (read-only), its `bin` on the sandbox's
PATH where the caller's PATH had it, and its variables (RUSTUP_TOOLCHAIN, PYENV_VERSION,
JAVA_HOME). Nothing else of the home is shown: not rustup's other toolchains, not cargo's
registry or credentials, not pyenv's shims (the chosen version's `bin` takes their place).

A bot's folder may name a toolchain (rust-toolchain.toml, .python-version), and an uploaded
bot's folder is untrusted: a name that is a path, or leaves the toolchain manager's folder,
is refused, so a bot cannot have a folder of the host shown to it as its "toolchain".

A toolchain found but unusable (rustup with no toolchain, a pyenv version not installed, an
nvm `bin` with no node) is not shown; its `problem` is one line naming it and what to do.

A build asks each time (`find_toolchains`); a bot process's start reuses the answer for its
folder and environment for a minute (`remembered`): asking costs 20-30 ms of CPU.
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
VARIABLES = ("RUSTUP_TOOLCHAIN", "PYENV_VERSION", "NVM_BIN", "JAVA_HOME")
"""The variables a shown toolchain may set in a sandbox (no other of the caller's passes)."""
RESOLVE_SECONDS = 10.0  # for `rustup show active-toolchain` or `pyenv version-name`


class ToolchainKind(enum.Enum):
    """The toolchain managers whose installations a sandbox can show."""

    RUSTUP = "rustup"
    NVM = "nvm"
    PYENV = "pyenv"
    SDKMAN = "sdkman"


@dataclass(frozen=True)
class Toolchain:
    """One toolchain found on the caller's PATH, as the caller's shell chooses it."""

    kind: ToolchainKind
    entry: Path
    """The caller's PATH entry it was found by (~/.cargo/bin, ~/.pyenv/shims...)."""
    name: str
    """For people: "rustup's toolchain stable-x86_64-unknown-linux-gnu"."""
    folders: tuple[Path, ...] = ()
    """Shown read-only in the sandbox, at the same paths."""
    path: tuple[Path, ...] = ()
    """The sandbox's PATH entries in place of `entry`."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables set in the sandbox."""
    problem: str | None = None
    """Why it cannot be used, and what to do (one line); None if it can."""


@dataclass(frozen=True)
class Toolchains:
    """What the caller's PATH holds: its toolchains and the sandbox's PATH made from it."""

    found: tuple[Toolchain, ...] = ()
    search_path: str = ":".join(DEFAULT_PATH)
    """The sandbox's PATH: the caller's, with each toolchain's entry replaced by its `path`
    (dropped if unusable), the system's entries kept, and every other entry dropped."""
    caller_path: str | None = field(default=None, compare=False)

    @property
    def usable(self) -> tuple[Toolchain, ...]:
        return tuple(t for t in self.found if t.problem is None)

    def folders(self) -> list[Path]:
        """The folders to show read-only (every usable toolchain's)."""
        return [folder for t in self.usable for folder in t.folders]

    def environment(self) -> dict[str, str]:
        """PATH and the toolchains' variables (of `VARIABLES`), for the sandbox's
        environment."""
        env = {"PATH": self.search_path}
        for toolchain in self.usable:
            env.update((k, v) for k, v in toolchain.env if k in VARIABLES)
        return env

    def which(self, program: str) -> str | None:
        """`program` (a bare name) as the sandbox finds it on its PATH, else None."""
        return shutil.which(program, path=self.search_path)

    def inside(self, program: str) -> str | None:
        """The program the sandbox runs for `program` (a bare name) if a usable toolchain's
        entry of the caller's PATH provides it: the same name in the toolchain's `path`."""
        owner = self.owner(program)
        if owner is None or owner.problem is not None:
            return None
        return shutil.which(program, path=os.pathsep.join(map(str, owner.path)))

    def owner(self, program: str) -> Toolchain | None:
        """The toolchain whose entry of the caller's PATH provides `program`, if one does."""
        found = shutil.which(program, path=self.caller_path)
        if found is None:
            return None
        folder = Path(found).parent
        return next((t for t in self.found if t.entry == folder), None)

    def problem_of(self, argv: list[str] | tuple[str, ...]) -> str | None:
        """The problem of the unusable toolchain that runs `argv`'s program (after `env`
        and its assignments), if one does."""
        program = program_of(argv)
        if program is None or os.sep in program:
            return None
        owner = self.owner(program)
        if owner is None or owner.problem is not None:
            return owner.problem if owner is not None else None
        if owner.kind is ToolchainKind.PYENV and self.inside(program) is None:
            return (f"{program} on PATH is a shim of pyenv ({owner.entry}), and {owner.name} "
                    f"has no {program}: choose a version that has it (`pyenv versions`)")
        return None

    def problems(self) -> list[str]:
        return [t.problem for t in self.found if t.problem is not None]


def program_of(argv: list[str] | tuple[str, ...]) -> str | None:
    """The program `argv` runs: its first word, or the one `env` runs after its options and
    NAME=value assignments."""
    words = list(argv)
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0]):
            words = words[1:]
    return words[0] if words else None


def find_toolchains(folder: Path, env: Mapping[str, str] | None = None) -> Toolchains:
    """The toolchains on the PATH of `env` (the caller's environment by default), chosen as
    in `folder` (the bot's folder: rust-toolchain.toml, .python-version count)."""
    env = os.environ if env is None else env
    caller_path = env.get("PATH", os.defpath)
    found: list[Toolchain] = []
    path: list[str] = []
    for text in caller_path.split(os.pathsep):
        entry = Path(text)
        if not text or not entry.is_absolute():
            continue
        toolchain = _recognise(entry, folder, env)
        if toolchain is not None:
            if all(t.entry != entry for t in found):
                found.append(toolchain)
            if toolchain.problem is None:
                path += [str(p) for p in toolchain.path]
        elif _is_system(entry) and entry.is_dir():
            path.append(text)
    path += DEFAULT_PATH
    return Toolchains(tuple(found), ":".join(dict.fromkeys(path)), caller_path)


REMEMBER_SECONDS = 60.0
"""How long `remembered` keeps an answer: a bot's built copy starts once per game, and
asking rustup and pyenv costs 20-30 ms of CPU (100-200 ms of wall time on a busy machine)."""
_KEYS = ("PATH", "HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "PYENV_ROOT", "PYENV_VERSION",
         "NVM_DIR", "SDKMAN_DIR", "JAVA_HOME")
_remembered: dict[tuple[str, ...], tuple[float, Toolchains]] = {}
_lock = threading.Lock()


def remembered(folder: Path) -> Toolchains:
    """`find_toolchains(folder)` for the caller's environment, as answered in the last
    `REMEMBER_SECONDS` for the same folder and variables (a change of the author's default
    toolchain is seen within that time)."""
    key = (str(folder), *(os.environ.get(k, "") for k in _KEYS))
    now = time.monotonic()
    with _lock:
        for old in [k for k, (when, _) in _remembered.items() if now - when > REMEMBER_SECONDS]:
            del _remembered[old]
        if key in _remembered:
            return _remembered[key][1]
    found = find_toolchains(folder)
    with _lock:
        _remembered[key] = (now, found)
    return found


def _recognise(entry: Path, folder: Path, env: Mapping[str, str]) -> Toolchain | None:
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    nvm = Path(env.get("NVM_DIR") or home / ".nvm")
    pyenv = Path(env.get("PYENV_ROOT") or home / ".pyenv")
    sdkman = Path(env.get("SDKMAN_DIR") or home / ".sdkman")
    if entry.parent.parent.parent == nvm / "versions" and entry.name == "bin":
        return _nvm(entry)
    if entry == pyenv / "shims":
        return _pyenv(entry, pyenv, folder, env)
    if entry.parent.parent.parent == sdkman / "candidates" and entry.name == "bin":
        return _sdkman(entry, env)
    if (entry / "rustup").is_file() and os.access(entry / "rustup", os.X_OK) \
            and not _is_system(entry):  # (a system rustup's proxies: not one of these)
        return _rustup(entry, home, folder, env)
    return None


def _rustup(entry: Path, home: Path, folder: Path, env: Mapping[str, str]) -> Toolchain:
    """rustup's active toolchain (RUSTUP_TOOLCHAIN, rust-toolchain.toml, its default),
    shown by its own folder, whose `bin` replaces rustup's proxies on PATH."""
    rustup_home = Path(env.get("RUSTUP_HOME") or home / ".rustup")
    what = f"rustup ({entry / 'rustup'})"
    code, out, err = _ask([str(entry / "rustup"), "show", "active-toolchain"], folder, env,
                          {"RUSTUP_AUTO_INSTALL": "0", "RUST_BACKTRACE": "0"})
    if code != 0 or not out.split():
        return Toolchain(ToolchainKind.RUSTUP, entry, "rustup", problem=(
            f"{what} cannot choose a toolchain: {_first_error(err)}; install one (`rustup "
            "default stable`), or link Debian's Rust (`rustup toolchain link system /usr`, "
            "then `rustup default system`)"))
    chosen = out.split()[0]
    name = f"rustup's toolchain {chosen}"
    toolchains = rustup_home / "toolchains"
    place = toolchains / chosen
    if not _inside(chosen, toolchains):
        return Toolchain(ToolchainKind.RUSTUP, entry, name, problem=(
            f"{what} chose the toolchain {chosen!r}, a path: a sandbox shows only toolchains "
            f"installed in {toolchains}; name one of those (rust-toolchain.toml, "
            "RUSTUP_TOOLCHAIN)"))
    if not (place / "bin" / "cargo").is_file() and not (place / "bin" / "rustc").is_file():
        return Toolchain(ToolchainKind.RUSTUP, entry, name, problem=(
            f"{name} has no cargo or rustc in {place / 'bin'}: reinstall it (`rustup "
            f"toolchain install {chosen}`)"))
    return Toolchain(ToolchainKind.RUSTUP, entry, name, tuple(_shown(place)), (place / "bin",),
                     (("RUSTUP_TOOLCHAIN", chosen),))


def _pyenv(entry: Path, root: Path, folder: Path, env: Mapping[str, str]) -> Toolchain:
    """pyenv's version (PYENV_VERSION, .python-version, its global one), each version's
    own folder shown and its `bin` on PATH in place of the shims."""
    program = next((str(p) for p in (root / "bin" / "pyenv", root / "libexec" / "pyenv")
                    if p.is_file()), None) or shutil.which("pyenv") or "pyenv"
    code, out, err = _ask([program, "version-name"], folder, env, {"PYENV_ROOT": str(root)})
    if code != 0 or not out.strip():
        wanted = _first_error(err)
        return Toolchain(ToolchainKind.PYENV, entry, "pyenv's Python", problem=(
            f"pyenv ({root}) cannot choose a Python: {wanted}; install it (`pyenv install`), "
            "or choose an installed one (`pyenv versions` lists them)"))
    chosen = out.strip()
    name = f"pyenv's Python {chosen}"
    versions = root / "versions"
    folders: list[Path] = []
    path: list[Path] = []
    for version in chosen.split(":"):
        if version == "system":
            continue
        if not _inside(version, versions, nested=True):
            return Toolchain(ToolchainKind.PYENV, entry, name, problem=(
                f"pyenv chose the version {version!r}, which is not a folder of {versions}: "
                "name an installed version (`pyenv versions` lists them)"))
        place = versions / version
        folders += _shown(place) + _venv_home(place)
        path.append(place / "bin")
    return Toolchain(ToolchainKind.PYENV, entry, name, tuple(folders), tuple(path),
                     (("PYENV_VERSION", chosen),))


def _nvm(entry: Path) -> Toolchain:
    """nvm's Node.js: the version whose `bin` is on PATH (what `nvm use` chose)."""
    place = entry.parent
    name = f"nvm's Node.js {place.name}"
    if not (entry / "node").is_file():
        return Toolchain(ToolchainKind.NVM, entry, name, problem=(
            f"{name} is on PATH ({entry}) but has no node: install it (`nvm install "
            f"{place.name}`), or choose an installed one (`nvm use`)"))
    return Toolchain(ToolchainKind.NVM, entry, name, tuple(_shown(place)), (entry,),
                     (("NVM_BIN", str(entry)),))


def _sdkman(entry: Path, env: Mapping[str, str]) -> Toolchain:
    """An sdkman candidate on PATH (java, gradle, maven...): its version's folder (what
    `current` points to), and for java JAVA_HOME."""
    place = entry.parent
    candidate = place.parent.name
    version = os.readlink(place) if place.is_symlink() else place.name
    name = f"sdkman's {candidate} {Path(version).name}"
    if not entry.is_dir():
        return Toolchain(ToolchainKind.SDKMAN, entry, name, problem=(
            f"sdkman's {candidate} is on PATH ({entry}) but is not installed there: choose "
            f"an installed version (`sdk default {candidate} <version>`, `sdk list "
            f"{candidate}`)"))
    variables: tuple[tuple[str, str], ...] = ()
    if candidate == "java":  # JAVA_HOME as the author's shell has it (sdkman: `current`)
        home = env.get("JAVA_HOME")
        value = home if home and Path(home) in (place, place.resolve()) else str(place)
        variables = (("JAVA_HOME", value),)
    return Toolchain(ToolchainKind.SDKMAN, entry, name, tuple(_shown(place)), (entry,),
                     variables)


def _ask(argv: list[str], folder: Path, env: Mapping[str, str],
         extra: Mapping[str, str]) -> tuple[int, str, str]:
    """Run a toolchain manager's question on the host, in `folder`: exit code, stdout,
    stderr (code 127 if it cannot run)."""
    try:
        done = subprocess.run(argv, cwd=folder, env={**env, **extra}, capture_output=True,
                              text=True, errors="replace", timeout=RESOLVE_SECONDS,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def _first_error(stderr: str) -> str:
    """The tool's own one-line reason (its first line, without an "error: " prefix)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if line.lower().startswith("error")), None)
    first = first or (lines[0] if lines else "it gave no reason")
    return first.removeprefix("error: ").removeprefix("pyenv: ")


def _inside(name: str, folder: Path, nested: bool = False) -> bool:
    """Whether `name` names an entry of `folder` (of a folder under it, if `nested`: pyenv's
    `3.12.1/envs/x`), never a path elsewhere (a bot's folder may choose the name)."""
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or any(p in ("..", ".", "") for p in parts):
        return False
    if len(parts) > 1 and not nested:
        return False
    return os.path.lexists(folder / name)


def _shown(place: Path) -> list[Path]:
    """`place` and, if it is a link (a linked rustup toolchain, sdkman's `current`, a
    pyenv-virtualenv), where it leads (unless that is a system folder, shown anyway)."""
    real = Path(os.path.realpath(place))
    return [place] if real == place else [place, real]


def _venv_home(place: Path) -> list[Path]:
    """The installation a virtual environment's Python runs from (its pyvenv.cfg `home`)."""
    config = Path(os.path.realpath(place)) / "pyvenv.cfg"
    try:
        lines = config.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return [Path(os.path.realpath(value.strip())).parent]
    return []


def _is_system(path: Path) -> bool:
    resolved = Path(os.path.realpath(path))
    return resolved == Path("/usr") or Path("/usr") in resolved.parents
