#!/bin/sh
# Install what the bundled non-Python bots need to build, the sandbox that bot processes run
# in, and what the tests need besides Python packages: on Debian/Ubuntu as root, the system
# packages (libzmq3-dev, libmsgpack-dev, libjeromq-java, libmsgpack-java; bubblewrap for the
# sandbox; chromium and chromium-driver for tests/presentation) when one is missing, and the
# programs (a C compiler and make, a JDK, Node.js and npm for the bundled bots; valgrind for
# the instruction counts of `arena bench`) when one is not on PATH, so that one installed
# otherwise (a newer Node.js, another JDK) is kept; then each Node bot's npm packages.
# Anything not possible here is left out quietly: the tests that need it are skipped, saying
# what to install, and fail under CI (tests/requirements.py); without bubblewrap bots run
# unsandboxed (`arena doctor` says so).
set -u
cd "$(dirname "$0")/.."

PACKAGES="libzmq3-dev libmsgpack-dev libjeromq-java libmsgpack-java libc6-dev bubblewrap chromium chromium-driver"
PROGRAMS="cc:gcc make:make javac:default-jdk-headless node:nodejs npm:npm valgrind:valgrind"
# the C++ and Rust templates of `arena new-bot`: headers, Debian's cargo (what a build runs
# unless rustup is on PATH, whose chosen toolchain it then runs) and the crates' sources for
# a build without the network
PACKAGES="$PACKAGES cppzmq-dev libmsgpack-cxx-dev cargo librust-zmq-dev librust-rmp-serde-dev librust-serde+serde-derive-dev"
PROGRAMS="$PROGRAMS c++:g++"

missing_packages() {
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
    for pair in $PROGRAMS; do
        command -v "${pair%%:*}" >/dev/null || echo "${pair#*:}"
    done
}

# apt-get, waiting while another package manager holds its lock (an unattended upgrade at
# boot, another setup): such a run fails at once with "Could not get lock", and giving up
# there would leave bots out of the demo for no reason of ours. Waits up to 15 minutes.
apt_get() {
    log=$(mktemp)
    waited=0
    while :; do
        if apt-get "$@" >"$log" 2>&1; then
            rm -f "$log"
            return 0
        fi
        if ! grep -q "Could not get lock\|Unable to acquire the dpkg\|Unable to lock" "$log" \
                || [ "$waited" -ge 900 ]; then
            cat "$log" >&2
            rm -f "$log"
            return 1
        fi
        [ "$waited" = 0 ] && echo "setup-bots: another package manager holds the apt/dpkg lock; waiting for it (up to 15 minutes)"
        sleep 5
        waited=$((waited + 5))
    done
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
    missing=$(missing_packages | tr '\n' ' ')
    if [ -n "${missing% }" ]; then
        echo "setup-bots: apt-get install $missing"
        export DEBIAN_FRONTEND=noninteractive
        { apt_get update -qq && apt_get install -y -qq --no-install-recommends $missing; } \
            || echo "setup-bots: apt-get failed; the tests needing $missing will be skipped" >&2
    fi
fi

if command -v npm >/dev/null; then
    for dir in bots/*/; do
        if [ -f "$dir/package.json" ] && [ ! -d "$dir/node_modules" ]; then
            echo "setup-bots: npm install in $dir"
            (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >/dev/null) \
                || echo "setup-bots: npm install failed in $dir" >&2
        fi
    done
fi
exit 0
