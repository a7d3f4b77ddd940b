"""The seccomp filter of a sandbox: the few system calls that namespaces do not confine.

Namespaces give a bot its own processes, network, IPC and file view, but some kernel objects
belong to no namespace. The filter (a classic BPF program, given to bubblewrap's `--seccomp`)
refuses, with EPERM:

- the kernel keyrings (`add_key`, `request_key`, `keyctl`): keys are per uid and outlive the
  process, so a bot could leave itself a note for a later game, or hand one to its partner;
- new user namespaces (`unshare` or `clone` with CLONE_NEWUSER; `clone3`, whose flags a
  filter cannot read, fails with ENOSYS so that the C library falls back to `clone`): a nested
  sandbox is kernel attack surface a bot does not need;
- `bpf`, `perf_event_open`, `userfaultfd` and io_uring: the usual kernel attack surface,
  refused by container runtimes for the same reason;
- any system call of another ABI (32-bit, x32), whose numbers differ from the ones above.

A build's filter (`unsupported=BUILD_UNSUPPORTED`) also answers `fallocate` with EOPNOTSUPP, as
a file system without it would: a preallocated file costs disk without a write, so a build
could fill the disk faster than its disk watcher looks (`build.py`); the C library's
`posix_fallocate` then writes the blocks instead, which takes the time of the writes.

Everything else is allowed. Only x86-64 and AArch64 are known; `filter_program` returns None
on any other machine (the sandbox then runs without the filter, and `arena doctor` says so).
"""

from __future__ import annotations

import errno
import platform
import struct

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000
CLONE_NEWUSER = 0x10000000

# machine: (audit arch, {name: number}), numbers from the kernel's syscall tables
_ARCHES = {
    "x86_64": (0xC000003E, {
        "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272, "clone": 56,
        "clone3": 435, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "fallocate": 285}),
    "aarch64": (0xC00000B7, {
        "add_key": 217, "request_key": 218, "keyctl": 219, "unshare": 97, "clone": 220,
        "clone3": 435, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "fallocate": 47}),
}
REFUSED = ("add_key", "request_key", "keyctl", "bpf", "perf_event_open", "userfaultfd",
           "io_uring_setup", "io_uring_enter", "io_uring_register")
BUILD_UNSUPPORTED = ("fallocate",)


# An instruction (op, k, label jumped to if true, label if false; None: the next one), or
# a label naming the place of the next instruction, (name, 0, None, None).
_Entry = tuple[int | str, int, str | None, str | None]


def filter_program(machine: str | None = None,
                   unsupported: tuple[str, ...] = ()) -> bytes | None:
    """The filter as an array of `struct sock_filter`, or None for an unknown machine; the
    system calls `unsupported` besides fail with EOPNOTSUPP."""
    machine = machine or platform.machine()
    if machine not in _ARCHES:
        return None
    arch, numbers = _ARCHES[machine]
    deny, nosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    code: list[_Entry] = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ, arch, None, "deny"),
        (_LD_W_ABS, _NR, None, None),
    ]
    if machine == "x86_64":
        code.append((_JGE, _X32_BIT, "deny", None))
    code += [(_JEQ, numbers[name], "deny", None) for name in REFUSED]
    code += [(_JEQ, numbers[name], "unsupported", None) for name in unsupported]
    code += [
        (_JEQ, numbers["clone3"], "nosys", None),
        (_JEQ, numbers["unshare"], "flags", None),
        (_JEQ, numbers["clone"], "flags", None),
        (_RET, _ALLOW, None, None),
        ("flags", 0, None, None),
        (_LD_W_ABS, _ARG0, None, None),  # the low half of the flags (little-endian)
        (_JSET, CLONE_NEWUSER, "deny", None),
        (_RET, _ALLOW, None, None),
        ("deny", 0, None, None),
        (_RET, deny, None, None),
        ("nosys", 0, None, None),
        (_RET, nosys, None, None),
    ]
    if unsupported:
        code += [("unsupported", 0, None, None),
                 (_RET, _ERRNO | errno.EOPNOTSUPP, None, None)]
    return _assemble(code)


def _assemble(code: list[_Entry]) -> bytes:
    """Resolve labels (entries whose op is a str) to relative jumps and pack the program."""
    labels: dict[str, int] = {}
    program: list[tuple[int, int, str | None, str | None]] = []
    for op, k, jt, jf in code:
        if isinstance(op, str):
            labels[op] = len(program)
        else:
            program.append((op, k, jt, jf))
    out = bytearray()
    for index, (op, k, jt, jf) in enumerate(program):
        out += struct.pack("=HBBI", op, _offset(labels, jt, index), _offset(labels, jf, index), k)
    return bytes(out)


def _offset(labels: dict[str, int], label: str | None, index: int) -> int:
    if label is None:
        return 0  # fall through to the next instruction
    jump = labels[label] - index - 1
    if not 0 <= jump < 256:
        raise ValueError(f"seccomp jump to {label} out of range")
    return jump
