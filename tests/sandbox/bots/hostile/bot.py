"""A hostile bot for the sandbox's tests: it tries the attacks named in TICHU_TEST_ATTACKS
(comma-separated) and reports each on stderr as one line

    ATTACK <name> seat <seat>: HELD <what stopped it>     or     ATTACK <name> ...: BROKEN <what it got>

while playing the first option of every request (raw pyzmq and msgpack, no SDK). Attacks
that end the game (limits) report nothing: the referee must stop the bot and name the limit.

Environment the tests give it: TICHU_TEST_FOLDERS (every entrant folder, ':'-separated),
TICHU_TEST_SECRET_DIR (stands for the tournament folder: SQLite, records, the deal secret),
TICHU_TEST_REFEREE_PID, TICHU_TEST_REFEREE_UID, TICHU_TEST_NAMESPACES (the referee's own,
`name=ns:[inode]`, ','-separated), TICHU_TEST_HOST_PORT (a tcp port listening on the
machine's loopback), TICHU_TEST_OUTSIDE (`address:port` listening on an address of the
machine that is not its loopback), TICHU_TEST_IPC_KEY (a number: the System V keys, POSIX
queue names, files and abstract socket names it leaves its partner are made from it, so that
unsandboxed games at once do not meet), TICHU_TEST_PARTNER_PORTS (four free tcp ports,
','-separated: each seat listens on its own for its partner; default 31000 to 31003), TICHU_TEST_MARK (a word for the
processes it leaves, so the test can look for them), TICHU_TEST_MULTI_GAME (say `multi_game`
at hello, and play every game of the session).
"""

import ctypes
import errno
import os
import signal
import socket
import struct
import sys
import time

import msgpack
import zmq

ATTACKS = [a for a in os.environ.get("TICHU_TEST_ATTACKS", "").split(",") if a]
TOKEN = os.environ["TICHU_TOKEN"]
HERE = os.getcwd()
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
seat = None
kept = []  # sockets and files kept open for the game
left = []  # IPC objects left for the partner, removed at the end: (kind, id or name)


def report(name, held, detail):
    print(f"ATTACK {name} seat {seat}: {'HELD' if held else 'BROKEN'} {detail}", file=sys.stderr,
          flush=True)


def attempt(name, action):
    """Run `action`; an OSError means the sandbox held (its errno is the detail)."""
    try:
        got = action()
    except OSError as exc:
        report(name, True, errno.errorcode.get(exc.errno, str(exc.errno)))
        return
    report(name, False, repr(got)[:200])


def others():
    return [f for f in os.environ.get("TICHU_TEST_FOLDERS", "").split(":") if f and f != HERE]


# ----- attacks at start-up (before the welcome) ------------------------------------------------

def proc_tokens():
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            for part in data.split(b"\0"):
                if part.startswith(b"TICHU_TOKEN=") and part[12:].decode() != TOKEN:
                    found.add(part[12:].decode())
    report("proc_token", not found, f"{len(found)} other tokens")


def processes():
    mine = {os.getpid(), 1}
    foreign = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in mine:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    foreign.append(f.read().replace(b"\0", b" ")[:80])
            except OSError:
                pass
    report("list_processes", not foreign, f"{len(foreign)} other processes {foreign[:3]}")
    attempt("signal_referee", lambda: os.kill(int(os.environ["TICHU_TEST_REFEREE_PID"]),
                                               signal.SIGCONT))


def read_folders():
    for folder in others():
        attempt("read_opponent", lambda folder=folder: open(os.path.join(folder, "bot.py")).read(100))
        attempt("list_opponent", lambda folder=folder: os.listdir(folder))
    secret = os.environ.get("TICHU_TEST_SECRET_DIR")
    if secret:
        attempt("read_tournament", lambda: os.listdir(secret))


def write_folders():
    for folder in others():
        attempt("write_opponent", lambda folder=folder: open(os.path.join(folder, "bot.py"), "a").write(
            "raise SystemExit(9)  # appended by a hostile bot\n"))
    secret = os.environ.get("TICHU_TEST_SECRET_DIR")
    if secret:
        attempt("write_tournament", lambda: open(os.path.join(secret, "forged.sqlite"),
                                                 "w").write("forged"))
    attempt("write_own_folder", lambda: open("bot.py", "a").write("# changed\n"))
    attempt("create_in_own_folder", lambda: open("note.txt", "w").write("note"))


def network():
    def connect(host, port):
        s = socket.create_connection((host, port), timeout=2)
        kept.append(s)
        return s.getpeername()

    names = [name for _, name in socket.if_nameindex()]
    report("interfaces", names == ["lo"], f"network interfaces {names}")
    port = int(os.environ.get("TICHU_TEST_HOST_PORT", "0"))
    if port:
        attempt("tcp_to_machine", lambda: connect("127.0.0.1", port))
    outside = os.environ.get("TICHU_TEST_OUTSIDE")
    if outside:
        host, _, port = outside.rpartition(":")
        attempt("tcp_to_outside", lambda: connect(host, int(port)))


# x86-64 and AArch64 numbers, from the kernel's syscall tables
SYSCALLS = {"add_key": (248, 217), "bpf": (321, 280), "perf_event_open": (298, 241),
            "userfaultfd": (323, 282), "io_uring_setup": (425, 425),
            "io_uring_enter": (426, 426), "io_uring_register": (427, 427)}


def syscall(name, *args):
    """A system call by name; its result, or OSError with its errno."""
    number = SYSCALLS[name][0 if os.uname().machine == "x86_64" else 1]
    result = LIBC.syscall(ctypes.c_long(number), *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), name)
    return result


def outcome(call):
    """The errno name `call` fails with, or None if it succeeds (what it made is closed)."""
    try:
        made = call()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    os.close(made)
    return None


def refused_before_the_kernel(name, real, probes):
    """Try a system call for real, then with arguments that the kernel itself refuses with
    EINVAL or EBADF, whatever the caller's privileges. EPERM every time is the seccomp
    filter's answer (the kernel never looked at the call); a success, or a probe's own
    error, means the call reached the kernel."""
    got = outcome(real)
    if got is None:
        report(name, False, "made one")
        return
    answers = [outcome(probe) for probe in probes]
    report(name, got == "EPERM" and answers == ["EPERM"] * len(probes),
           f"{got}; with bad arguments {', '.join(map(str, answers))}")


def kernel_surface():
    """bpf, perf_event_open, userfaultfd and io_uring, which the seccomp filter refuses."""
    c_int, c_uint, c_ulong = ctypes.c_int, ctypes.c_uint, ctypes.c_ulong
    map_attr = ctypes.create_string_buffer(128)  # an array map of one 4-byte entry
    struct.pack_into("=4I", map_attr, 0, 2, 4, 4, 1)
    refused_before_the_kernel("bpf", lambda: syscall("bpf", c_int(0), map_attr, c_uint(128)),
                              [lambda: syscall("bpf", c_int(0xFFFF), map_attr, c_uint(128))])
    event = ctypes.create_string_buffer(128)  # its own task clock, user space only
    struct.pack_into("=IIQQQQQ", event, 0, 1, 128, 1, 0, 0, 0, 1 | 1 << 5 | 1 << 6)
    refused_before_the_kernel(
        "perf_event_open",
        lambda: syscall("perf_event_open", event, c_int(0), c_int(-1), c_int(-1), c_ulong(0)),
        [lambda: syscall("perf_event_open", event, c_int(0), c_int(-1), c_int(-1),
                         c_ulong(1 << 20))])  # an unknown flag
    refused_before_the_kernel(
        "userfaultfd", lambda: syscall("userfaultfd", c_int(os.O_CLOEXEC | os.O_NONBLOCK)),
        [lambda: syscall("userfaultfd", c_int(1 | 0x10))])  # user mode only, and an unknown flag
    params = ctypes.create_string_buffer(120)
    refused_before_the_kernel(
        "io_uring", lambda: syscall("io_uring_setup", c_uint(1), params),
        [lambda: syscall("io_uring_setup", c_uint(0), params),  # no entries
         lambda: syscall("io_uring_enter", c_int(-1), c_uint(0), c_uint(0), c_uint(0), None,
                         ctypes.c_size_t(0)),  # no ring
         lambda: syscall("io_uring_register", c_int(-1), c_uint(0), None, c_uint(0))])


def kernel():
    def add_key():  # into KEY_SPEC_USER_KEYRING
        return syscall("add_key", b"user", b"tichu-note", b"hand", 4, -3)

    def unshare_user():
        if LIBC.unshare(0x10000000) != 0:
            raise OSError(ctypes.get_errno(), "unshare")
        return "a user namespace of its own"

    attempt("keyring", add_key)
    attempt("user_namespace", unshare_user)
    attempt("renice", lambda: os.setpriority(os.PRIO_PROCESS, 0, -5))


OWN_ENVIRONMENT = ("PATH", "HOME", "TMPDIR", "LANG", "USER", "LOGNAME")
TOOLCHAIN_VARIABLES = ("RUSTUP_TOOLCHAIN", "PYENV_VERSION", "NVM_BIN", "JAVA_HOME")
"""Set by the toolchains a sandbox shows (`arena.sandbox.toolchains.VARIABLES`), to the
toolchain it chose: not the referee's own environment."""


def environment():
    """Its environment holds PATH, HOME, TMPDIR, LANG, USER, LOGNAME, TICHU_*, the variables
    of the toolchains shown and PWD naming its own folder (bubblewrap sets it where it starts
    the bot), nothing else of the referee's."""
    extra = sorted(k for k in os.environ if k not in OWN_ENVIRONMENT + TOOLCHAIN_VARIABLES
                   and not k.startswith("TICHU_")
                   and not (k == "PWD" and os.environ[k] == os.getcwd()))
    report("environment", not extra, f"{len(extra)} other variables: {' '.join(extra)}")


def identity():
    """A uid that is not the referee's, and no capability in any set."""
    with open("/proc/self/status") as f:
        status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    sets = {name: int(status[name], 16) for name in
            ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    referee = int(os.environ.get("TICHU_TEST_REFEREE_UID", "0"))
    held = referee not in (os.getuid(), os.geteuid()) and not any(sets.values())
    report("identity", held, f"uid {os.getuid()} euid {os.geteuid()} capabilities "
           + " ".join(f"{name}={value:x}" for name, value in sets.items()))


NAMESPACES = ("pid", "net", "ipc", "uts", "cgroup")


def namespaces():
    """Namespaces of its own: none of them the referee's."""
    referee = dict(p.split("=", 1) for p in os.environ.get("TICHU_TEST_NAMESPACES", "").split(",")
                   if p)
    if not referee:
        return
    mine = {name: os.readlink(f"/proc/self/ns/{name}") for name in NAMESPACES}
    shared = [name for name in NAMESPACES if mine[name] == referee.get(name)]
    report("namespaces", not shared, f"shares {shared} with the referee; "
           + " ".join(f"{name}={mine[name]}" for name in NAMESPACES))


def memory_note():
    """A note for a later process of this bot (the next game)."""
    notes = ["/tmp/tichu-note", "/dev/shm/tichu-note"]
    found = [n for n in notes if os.path.exists(n)]
    report("note_survives", not found, f"found {found}")
    for note in notes:
        try:
            with open(note, "w") as f:
                f.write("the deals of game 0")
        except OSError:
            pass


def open_files():
    limit = int(os.environ.get("TICHU_TEST_OPEN_FILES", "0"))
    opened = []
    try:
        for _ in range(100000):
            opened.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    os.close(opened.pop())  # room to count them
    total = len(os.listdir("/proc/self/fd"))  # (the listing's own descriptor included)
    for fd in opened:
        os.close(fd)
    report("open_files", total <= limit, f"{total} open at most (limit {limit})")


START = {"proc_token": proc_tokens, "processes": processes, "read_folders": read_folders,
         "write_folders": write_folders, "network": network, "kernel": kernel,
         "seccomp": kernel_surface,
         "environment": environment, "identity": identity, "namespaces": namespaces,
         "note": memory_note, "open_files": open_files}


# ----- attacks on the partner: leave something at the welcome, look at request 2 --------------

IPC_CREAT, IPC_EXCL, IPC_RMID = 0o1000, 0o2000, 0
IPC_KEY = int(os.environ.get("TICHU_TEST_IPC_KEY", "0"))
PARTNER_PORTS = [int(p) for p in
                 os.environ.get("TICHU_TEST_PARTNER_PORTS", "31000,31001,31002,31003").split(",")]


def checked(result, what):
    if result < 0:
        raise OSError(ctypes.get_errno(), what)
    return result


def posix_queues():
    """The C library holding mq_open (glibc 2.34 and later: libc itself; before: librt)."""
    return LIBC if hasattr(LIBC, "mq_open") else ctypes.CDLL("librt.so.1", use_errno=True)


def ipc_object(kind, of_seat, create=False):
    """Open (or make, readable and writable by anyone) the IPC object of `kind` that the
    bot in seat `of_seat` leaves; its id (a queue descriptor for a POSIX queue)."""
    key = ctypes.c_int(IPC_KEY + of_seat)
    flags = IPC_CREAT | IPC_EXCL | 0o666 if create else 0
    if kind == "msg_queue":
        return checked(LIBC.msgget(key, flags), "msgget")
    if kind == "semaphore":
        return checked(LIBC.semget(key, 1, flags), "semget")
    if kind == "shared_memory":
        return checked(LIBC.shmget(key, ctypes.c_size_t(4096), flags), "shmget")
    name = f"/tichu-{IPC_KEY}-seat-{of_seat}".encode()
    oflag = os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0)
    return checked(posix_queues().mq_open(name, oflag, 0o666, None), "mq_open")


IPC_KINDS = ("msg_queue", "semaphore", "shared_memory", "posix_queue")


def leave_ipc():
    for kind in IPC_KINDS:
        try:
            left.append((kind, ipc_object(kind, seat, create=True)))
        except OSError as exc:
            print(f"hostile: cannot make a {kind}: {exc}", file=sys.stderr, flush=True)


def remove_ipc():
    """Remove what it left (a sandbox's IPC namespace dies with it anyway; unsandboxed, the
    objects would outlive the process)."""
    for kind, made in left:
        if kind == "msg_queue":
            LIBC.msgctl(made, IPC_RMID, None)
        elif kind == "semaphore":
            LIBC.semctl(made, 0, IPC_RMID)
        elif kind == "shared_memory":
            LIBC.shmctl(made, IPC_RMID, None)
        else:
            posix_queues().mq_unlink(f"/tichu-{IPC_KEY}-seat-{seat}".encode())
    left.clear()


def leave_for_partner():
    for path in (f"/tmp/tichu-{IPC_KEY}-seat-{seat}", f"/dev/shm/tichu-{IPC_KEY}-seat-{seat}"):
        with open(path, "w") as f:
            f.write(TOKEN)
    listener = socket.socket()
    listener.bind(("127.0.0.1", PARTNER_PORTS[seat]))
    listener.listen(4)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0tichu-{IPC_KEY}-seat-{seat}")
    abstract.listen(4)
    kept.extend([listener, abstract])
    if IPC_KEY:
        leave_ipc()


def reach_partner():
    partner = (seat + 2) % 4
    for path in (f"/tmp/tichu-{IPC_KEY}-seat-{partner}",
                 f"/dev/shm/tichu-{IPC_KEY}-seat-{partner}"):
        attempt("partner_file", lambda path=path: open(path).read())
    if IPC_KEY:
        for kind in IPC_KINDS:
            attempt(f"partner_{kind}", lambda kind=kind: ipc_object(kind, partner))

    def connect(family, address):
        s = socket.socket(family)
        s.settimeout(2)
        s.connect(address)
        kept.append(s)
        return address

    attempt("partner_tcp", lambda: connect(socket.AF_INET,
                                            ("127.0.0.1", PARTNER_PORTS[partner])))
    attempt("partner_abstract",
            lambda: connect(socket.AF_UNIX, f"\0tichu-{IPC_KEY}-seat-{partner}"))


# ----- attacks on the limits: they end the game ------------------------------------------------

def fill_disk():
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            while written < 1 << 34:
                f.write(b"x" * (1 << 20))
                f.flush()
                written += 1 << 20
                # a line a megabyte, for the same reason as fork_bomb's
                print(f"fill_disk: wrote {written >> 20} MB", file=sys.stderr, flush=True)
    except OSError:
        pass
    print(f"fill_disk: wrote {written >> 20} MB", file=sys.stderr, flush=True)


def fork_bomb():
    children = 0
    try:
        while children < 100000:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
            # one line a child: the referee may stop the bot as soon as a fork fails, before
            # a last line could be written, and the test reads the count from the last line
            print(f"fork_bomb: {children} children", file=sys.stderr, flush=True)
    except OSError:
        pass
    print(f"fork_bomb: {children} children", file=sys.stderr, flush=True)


def memory_hog():
    hoard = []
    while True:
        hoard.append(b"x" * (16 << 20))


def cpu_burn():
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass
    while True:  # and itself, until the referee stops it (however slowly CPU time adds up
        pass     # on a busy machine: the test's decision time is long)


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            mark = os.environ.get("TICHU_TEST_MARK", "tichu-daemon")
            os.execvp(sys.executable, [sys.executable, "-c",
                                       f"import time; time.sleep(600)  # {mark}"])
        os._exit(0)
    os.wait()


LIMITS = {"fill_disk": fill_disk, "fork_bomb": fork_bomb, "memory_hog": memory_hog,
          "cpu_burn": cpu_burn, "daemon": daemon}


# ----- the game --------------------------------------------------------------------------------

def main():
    global seat
    for name in ATTACKS:
        if name in START:
            START[name]()
    context = zmq.Context()
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 500)
    sock.connect(os.environ["TICHU_ENDPOINT"])
    multi_game = bool(os.environ.get("TICHU_TEST_MULTI_GAME"))
    sock.send(msgpack.packb({"type": "hello", "protocol": 1, "token": TOKEN,
                             "name": "hostile", "version": "1",
                             "capabilities": ["multi_game"] if multi_game else []}))
    requests = 0
    while True:
        message = msgpack.unpackb(sock.recv())
        if message["type"] == "end" and message.get("more_games"):
            continue
        if message["type"] in ("end", "error", "reject"):
            break
        if message["type"] == "welcome":
            seat = message["seat"]
            if "partner" in ATTACKS:
                leave_for_partner()
            continue
        if message["type"] != "request":
            continue
        requests += 1
        if requests == 2:
            if "partner" in ATTACKS:
                reach_partner()
            for name in ATTACKS:
                if name in LIMITS:
                    LIMITS[name]()
                    time.sleep(1)  # holding on to what it took, within the decision's time
        if message["kind"] == "exchange":
            reply = {"type": "reply", "id": message["id"],
                     "action": {"action": "exchange", "give": message["observation"]["hand"][:3]}}
        else:
            reply = {"type": "reply", "id": message["id"], "option": 0}
        sock.send(msgpack.packb(reply))
    remove_ipc()
    for path in (f"/tmp/tichu-{IPC_KEY}-seat-{seat}", f"/dev/shm/tichu-{IPC_KEY}-seat-{seat}"):
        if "partner" in ATTACKS and os.path.exists(path):
            os.unlink(path)  # unsandboxed, the machine's own /tmp and /dev/shm keep them
    sock.close()
    context.term()


if __name__ == "__main__":
    main()
