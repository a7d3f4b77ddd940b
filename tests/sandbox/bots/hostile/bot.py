"""A hostile bot for the sandbox's tests: it tries the attacks named in TICHU_TEST_ATTACKS
(comma-separated) and reports each on stderr as one line

    ATTACK <name> seat <seat>: HELD <what stopped it>     or     ATTACK <name> ...: BROKEN <what it got>

while playing the first option of every request (raw pyzmq and msgpack, no SDK). Attacks
that end the game (limits) report nothing: the referee must stop the bot and name the limit.

Environment the tests give it: TICHU_TEST_FOLDERS (every entrant folder, ':'-separated),
TICHU_TEST_SECRET_DIR (stands for the tournament folder: SQLite, records, the deal secret),
TICHU_TEST_REFEREE_PID, TICHU_TEST_HOST_PORT (a tcp port listening on the machine's
loopback), TICHU_TEST_MARK (a word for the processes it leaves, so the test can look for them).
"""

import ctypes
import errno
import os
import signal
import socket
import sys
import time

import msgpack
import zmq

ATTACKS = [a for a in os.environ.get("TICHU_TEST_ATTACKS", "").split(",") if a]
TOKEN = os.environ["TICHU_TOKEN"]
HERE = os.getcwd()
seat = None
kept = []  # sockets and files kept open for the game


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

    port = int(os.environ.get("TICHU_TEST_HOST_PORT", "0"))
    if port:
        attempt("tcp_to_machine", lambda: connect("127.0.0.1", port))
    attempt("tcp_to_internet", lambda: connect("1.1.1.1", 53))


def kernel():
    libc = ctypes.CDLL(None, use_errno=True)

    def add_key():
        serial = libc.syscall(248 if os.uname().machine == "x86_64" else 217, b"user",
                              b"tichu-note", b"hand", 4, -3)  # KEY_SPEC_USER_KEYRING
        if serial < 0:
            raise OSError(ctypes.get_errno(), "add_key")
        return serial

    def unshare_user():
        if libc.unshare(0x10000000) != 0:
            raise OSError(ctypes.get_errno(), "unshare")
        return "a user namespace of its own"

    attempt("keyring", add_key)
    attempt("user_namespace", unshare_user)
    attempt("renice", lambda: os.setpriority(os.PRIO_PROCESS, 0, -5))


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
         "write_folders": write_folders,
         "network": network, "kernel": kernel, "note": memory_note, "open_files": open_files}


# ----- attacks on the partner: leave something at the welcome, look at request 2 --------------

def leave_for_partner():
    for path in (f"/tmp/tichu-seat-{seat}", f"/dev/shm/tichu-seat-{seat}"):
        with open(path, "w") as f:
            f.write(TOKEN)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 31000 + seat))
    listener.listen(4)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0tichu-seat-{seat}")
    abstract.listen(4)
    kept.extend([listener, abstract])


def reach_partner():
    partner = (seat + 2) % 4
    for path in (f"/tmp/tichu-seat-{partner}", f"/dev/shm/tichu-seat-{partner}"):
        attempt("partner_file", lambda path=path: open(path).read())

    def connect(family, address):
        s = socket.socket(family)
        s.settimeout(2)
        s.connect(address)
        kept.append(s)
        return address

    attempt("partner_tcp", lambda: connect(socket.AF_INET, ("127.0.0.1", 31000 + partner)))
    attempt("partner_abstract", lambda: connect(socket.AF_UNIX, f"\0tichu-seat-{partner}"))


# ----- attacks on the limits: they end the game ------------------------------------------------

def fill_disk():
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            while written < 1 << 34:
                f.write(b"x" * (1 << 20))
                f.flush()
                written += 1 << 20
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
    until = time.monotonic() + 4  # and itself, within the decision's 5 s
    while time.monotonic() < until:
        pass


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
    sock.send(msgpack.packb({"type": "hello", "protocol": 1, "token": TOKEN,
                             "name": "hostile", "version": "1"}))
    requests = 0
    while True:
        message = msgpack.unpackb(sock.recv())
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
    sock.close()
    context.term()


if __name__ == "__main__":
    main()
