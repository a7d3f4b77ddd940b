"""Which bot process is at the other end of a connection to the referee.

A seat belongs to the process started for it: the referee looks up, for each new connection,
the process that opened it, and follows its parents up to one of the processes it started.
So a connection presenting a seat's token is known to come from that seat's process (or a
child of it), from another seat's, or from no seat at all, whatever token it presents.

- Unix-domain sockets (`ipc://`): the kernel records the connecting process (SO_PEERCRED).
- TCP on the loopback: the peer's socket is found in `/proc/net/tcp`, and the process
  holding it among the descendants of the processes started (`/proc/<pid>/fd`).

Linux only (`/proc`); elsewhere, or where `/proc` hides what is needed, `OwnerUnknown` is
raised and the referee falls back to the token alone.
"""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")
_MAX_DEPTH = 64  # parent links followed from a process up to a started one


class OwnerUnknown(Exception):
    """This machine does not tell who opened a connection."""


def connection_owner(sock: socket.socket, roots: Mapping[int, T]) -> T | None:
    """The value in `roots` (keyed by pid) of the started process that opened `sock`'s peer
    end, itself or through a child; None if no started process did. OwnerUnknown if that
    cannot be told here."""
    if not roots:
        return None
    if sock.family == socket.AF_UNIX:
        pid = _unix_peer_pid(sock)
        return _root_of(pid, roots)
    if sock.family == socket.AF_INET:
        inode = _tcp_peer_inode(sock)
        if inode is None:
            return None  # the peer end is gone already
        return _holder(inode, roots)
    raise OwnerUnknown(f"socket family {sock.family!r}")


def _unix_peer_pid(sock: socket.socket) -> int:
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (AttributeError, OSError) as exc:
        raise OwnerUnknown(f"SO_PEERCRED: {exc}") from None
    pid = struct.unpack("3i", creds)[0]
    if pid <= 0:
        raise OwnerUnknown("the peer's pid is not known")
    return pid


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OwnerUnknown(f"/proc/{pid}/stat: {exc}") from None
    return int(text[text.rindex(b")") + 2:].split()[1])


def _root_of(pid: int, roots: Mapping[int, T]) -> T | None:
    if not os.path.isdir("/proc/self"):
        raise OwnerUnknown("no /proc")
    for _ in range(_MAX_DEPTH):
        if pid in roots:
            return roots[pid]
        parent = _parent(pid)
        if parent is None or parent <= 1:
            return None
        pid = parent
    return None


def _tcp_peer_inode(sock: socket.socket) -> int | None:
    """The inode of the socket at the other end of a loopback TCP connection (an IPv4 one,
    or an IPv6 one speaking IPv4, as the JVM's are)."""
    peer_ip, peer_port = sock.getpeername()[:2]
    own_ip, own_port = sock.getsockname()[:2]
    for table, form in (("/proc/net/tcp", _proc_address), ("/proc/net/tcp6", _proc_address6)):
        wanted = (form(peer_ip, peer_port), form(own_ip, own_port))
        try:
            with open(table) as lines:
                next(lines)
                for line in lines:
                    fields = line.split()
                    if (fields[1], fields[2]) == wanted:
                        return int(fields[9])
        except FileNotFoundError:
            if table == "/proc/net/tcp":
                raise OwnerUnknown("no /proc/net/tcp") from None
        except OSError as exc:
            raise OwnerUnknown(f"{table}: {exc}") from None
    return None


def _proc_address(ip: str, port: int) -> str:
    """An IPv4 address as /proc/net/tcp writes it: the address in host order, in hex."""
    return "{:08X}:{:04X}".format(struct.unpack("=I", socket.inet_aton(ip))[0], port)


def _proc_address6(ip: str, port: int) -> str:
    """An IPv4 address mapped to IPv6 (::ffff:a.b.c.d) as /proc/net/tcp6 writes it: four
    32-bit words, each in host order, in hex."""
    raw = bytes(10) + b"\xff\xff" + socket.inet_aton(ip)
    words = struct.unpack("=4I", raw)
    return "".join(f"{w:08X}" for w in words) + f":{port:04X}"


def _descendants(pid: int) -> list[int]:
    """`pid` and every process below it (children of each thread, recursively)."""
    found: list[int] = []
    todo = [pid]
    while todo and len(found) < 4096:
        current = todo.pop()
        found.append(current)
        for task in _listdir(f"/proc/{current}/task"):
            try:
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(c) for c in children.read().split())
            except FileNotFoundError as exc:
                if os.path.isdir(f"/proc/{current}/task/{task}"):
                    raise OwnerUnknown(f"no /proc/<pid>/task/<tid>/children: {exc}") from None
            except OSError as exc:
                raise OwnerUnknown(f"/proc/{current}/task/{task}/children: {exc}") from None
    return found


def _holder(inode: int, roots: Mapping[int, T]) -> T | None:
    link = f"socket:[{inode}]"
    for root, value in roots.items():
        for pid in _descendants(root):
            for fd in _listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == link:
                        return value
                except OSError:
                    continue
    return None


def _listdir(path: str) -> list[str]:
    """The entries of a /proc folder; none if its process is gone; OwnerUnknown if hidden."""
    try:
        return os.listdir(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OwnerUnknown(f"{path}: {exc}") from None
