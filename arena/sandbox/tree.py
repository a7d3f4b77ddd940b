"""Walking a folder that a hostile process writes to: its size, handing it to a user, making
it read-only and removing it.

A build writes its folder while the arena walks it (`tree_bytes`, a few times a second) and
may have left anything there afterwards (`chown_tree`, `read_only`, `remove_tree`): symbolic
links to /etc/shadow,
folders nested thousands deep, folders without permissions, hard links. So every walk here
goes through directory file descriptors, one open at a time (`openat` down by name with
O_NOFOLLOW, `..` back up, each step checked against the device and inode seen on the way
down), never follows a symbolic link, never opens a file other than a directory (but for
`chown_tree`'s removal of setuid bits, through a descriptor checked the same way), and
works at any depth.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

BLOCK = 4096  # the least an entry counts for (an inode and its directory entry)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_ATTEMPTS = 3  # walks of a tree that keeps changing under them before a partial count


class TreeChanged(Exception):
    """A folder on the way back up is not the one the walk came down through (the tree was
    moved while it was walked)."""


def entry_bytes(st: os.stat_result) -> int:
    """What an entry counts for: its size or the space allocated to it, whichever is more
    (a sparse file counts its size, a preallocated one its blocks), at least `BLOCK`."""
    return max(st.st_size, st.st_blocks * 512, BLOCK)


def tree_bytes(folder: Path, stop_above: int | None = None) -> int:
    """The bytes of `folder` and everything in it (`entry_bytes` of each; hard links once),
    or, once the count passes `stop_above`, the count so far. A tree moved while it is walked
    is walked again; after a few tries the largest partial count is returned."""
    best = 0
    for _ in range(_ATTEMPTS):
        counted = [0]
        try:
            return _count(folder, stop_above, counted)
        except TreeChanged:
            best = max(best, counted[0])
    return best


def _count(folder: Path, stop_above: int | None, counted: list[int]) -> int:
    seen: set[tuple[int, int]] = set()
    counted[0] = entry_bytes(os.lstat(folder))
    for _, _, st in entries(folder):
        if st.st_nlink > 1 and not stat.S_ISDIR(st.st_mode):
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
        counted[0] += entry_bytes(st)
        if stop_above is not None and counted[0] > stop_above:
            break
    return counted[0]


def chown_tree(folder: Path, uid: int, gid: int) -> None:
    """Give `folder` and everything in it to `uid`:`gid` (lchown: a link is changed, never
    what it points to); regular files lose their setuid and setgid bits. For a tree that
    nothing else changes meanwhile (TreeChanged otherwise)."""
    os.chown(folder, uid, gid, follow_symlinks=False)
    for dir_fd, name, st in entries(folder):
        try:
            os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            _clear_setid(dir_fd, name, st)


def _clear_setid(dir_fd: int, name: str, st: os.stat_result) -> None:
    """Clear a regular file's setuid and setgid bits through a descriptor of that very file
    (the kernel clears them on chown too; this does not rely on it)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
                     | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        now = os.fstat(fd)
        if stat.S_ISREG(now.st_mode) and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
            os.fchmod(fd, stat.S_IMODE(now.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
    finally:
        os.close(fd)


def entries(folder: Path) -> Iterator[tuple[int, str, os.stat_result]]:
    """Every entry under `folder` (not `folder` itself), depth first, as (the descriptor of
    its directory, valid until the next item; its name; its lstat). Symbolic links are
    listed, never followed; an entry that vanishes or cannot be opened is skipped;
    TreeChanged if the tree is moved under the walk."""
    fd = _open_dir(str(folder), None)
    try:
        here = os.fstat(fd)
        chain = [(here.st_dev, here.st_ino)]  # the folders from `folder` down to `fd`
        pending: list[list[tuple[str, tuple[int, int]]]] = [[]]  # subfolders left, per level
        yield from _scan(fd, pending[-1])
        while True:
            if pending[-1]:
                name, ident = pending[-1].pop()
                child = _descend(fd, name, ident)
                if child is None:
                    continue
                os.close(fd)
                fd = child
                chain.append(ident)
                pending.append([])
                yield from _scan(fd, pending[-1])
                continue
            pending.pop()
            chain.pop()
            if not pending:
                return
            parent = os.open("..", _DIR, dir_fd=fd)
            os.close(fd)
            fd = parent
            here = os.fstat(fd)
            if (here.st_dev, here.st_ino) != chain[-1]:
                raise TreeChanged(str(folder))
    finally:
        os.close(fd)


def _scan(fd: int, subfolders: list[tuple[str, tuple[int, int]]]
          ) -> Iterator[tuple[int, str, os.stat_result]]:
    """The entries of the folder `fd`; its subfolders are added to `subfolders`."""
    with os.scandir(fd) as listing:
        for entry in listing:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                subfolders.append((entry.name, (st.st_dev, st.st_ino)))
            yield fd, entry.name, st


def _descend(fd: int, name: str, ident: tuple[int, int]) -> int | None:
    """The subfolder `name` of `fd` if it is still the one listed (`ident`), else None."""
    try:
        child = _open_dir(name, fd)
    except OSError:  # gone, replaced by a link or a file, or shut
        return None
    here = os.fstat(child)
    if (here.st_dev, here.st_ino) != ident:
        os.close(child)
        return None
    return child


def _open_dir(name: str, dir_fd: int | None) -> int:
    """Open a folder (never through a link). A folder of ours that shuts us out (mode 000,
    which a build may set on what it writes) is opened for reading first, as its owner may:
    as root no mode shuts us out; without root the build runs under our own uid."""
    try:
        return os.open(name, _DIR, dir_fd=dir_fd)
    except PermissionError:
        if os.geteuid() == 0:
            raise
    path = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC,
                   dir_fd=dir_fd)
    try:
        st = os.fstat(path)
        if st.st_uid != os.geteuid():
            raise PermissionError(f"cannot open folder {name!r} (not ours)")
        with contextlib.suppress(OSError):
            os.chmod(f"/proc/self/fd/{path}", stat.S_IMODE(st.st_mode) | stat.S_IRUSR
                     | stat.S_IXUSR)
        return os.open(f"/proc/self/fd/{path}", _DIR & ~os.O_NOFOLLOW)
    finally:
        os.close(path)


def read_only(folder: Path) -> None:
    """Take every write bit, and every setuid and setgid bit, off a tree (a build may leave a
    setuid program: without root it runs as the user, at level none as whoever runs the
    arena, and the cache is readable by everyone). Links are untouched and never followed;
    the tree is walked through directory descriptors (`entries`), so at
    any depth and path length. For a tree that nothing changes meanwhile."""
    top = os.lstat(folder)
    if stat.S_ISLNK(top.st_mode):
        return
    _chmod(None, str(folder), top, _read_only_mode(top.st_mode))
    for dir_fd, name, st in entries(folder):
        if not stat.S_ISLNK(st.st_mode):
            _chmod(dir_fd, name, st, _read_only_mode(st.st_mode))


def _read_only_mode(mode: int) -> int:
    bits = stat.S_IMODE(mode) & ~0o222 & ~(stat.S_ISUID | stat.S_ISGID) | 0o444
    return bits | 0o111 if stat.S_ISDIR(mode) else bits


def _chmod(dir_fd: int | None, name: str, seen: os.stat_result, mode: int) -> None:
    """chmod of the entry `name` of `dir_fd` through a descriptor of that very entry (never
    through a link put in its place); nothing if it is gone or no longer the one seen."""
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) == (seen.st_dev, seen.st_ino) and \
                not stat.S_ISLNK(now.st_mode):
            os.chmod(f"/proc/self/fd/{fd}", mode)
    finally:
        os.close(fd)


def remove_tree(folder: Path) -> None:
    """Remove a tree that may be read-only (nothing if it is not there), through directory
    descriptors, without recursion and never through a link: at any depth and path length
    (a build may nest folders thousands deep). What cannot be removed is left."""
    try:
        top = os.lstat(folder)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(top.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(folder)
        return
    parent = os.open(os.path.dirname(os.path.abspath(folder)),
                     os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _remove_folder(parent, os.path.basename(os.path.abspath(folder)), top)
    finally:
        os.close(parent)


def _remove_folder(parent_fd: int, name: str, seen: os.stat_result) -> None:
    """Empties and removes the folder `name` of `parent_fd`, depth first, one descriptor
    per level."""
    fd = _opened_for_removal(parent_fd, name, seen)
    if fd is None:
        return
    stack: list[tuple[int, str, list[tuple[str, os.stat_result]]]] = [
        (fd, name, _clear_files(fd))]
    while stack:
        fd, here, folders = stack[-1]
        if folders:
            sub, sub_seen = folders.pop()
            sub_fd = _opened_for_removal(fd, sub, sub_seen)
            if sub_fd is not None:
                stack.append((sub_fd, sub, _clear_files(sub_fd)))
            continue
        stack.pop()
        os.close(fd)
        with contextlib.suppress(OSError):
            os.rmdir(here, dir_fd=stack[-1][0] if stack else parent_fd)


def _opened_for_removal(parent_fd: int, name: str, seen: os.stat_result) -> int | None:
    """The folder `name` of `parent_fd` made ours to empty (mode 0700) and opened, if it is
    still the folder seen; else None."""
    _chmod(parent_fd, name, seen, 0o700)
    try:
        fd = os.open(name, _DIR, dir_fd=parent_fd)
    except OSError:
        return None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(fd)
        return None
    return fd


def _clear_files(fd: int) -> list[tuple[str, os.stat_result]]:
    """Unlinks every entry of the folder `fd` but its folders, which it returns."""
    folders = []
    with contextlib.suppress(OSError), os.scandir(fd) as listing:
        for entry in listing:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                folders.append((entry.name, st))
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=fd)
    return folders
