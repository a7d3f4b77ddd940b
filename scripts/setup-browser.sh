#!/bin/sh
# Install the headless browser that the tests of `arena report` drive: Debian's chromium and
# chromium-driver (selenium talks to chromedriver; nothing here downloads a browser build of
# its own). On Debian/Ubuntu as root only, when one is missing; anything else is skipped
# quietly: the browser tests then skip saying what to install (under CI, where CI is set, they
# fail instead).
set -u
PACKAGES="chromium chromium-driver"

missing_packages() {
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
    missing=$(missing_packages | tr '\n' ' ')
    if [ -n "${missing% }" ]; then
        echo "setup-browser: apt-get install $missing"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/dev/null \
            || echo "setup-browser: apt-get failed; the browser tests will be skipped" >&2
    fi
fi
exit 0
