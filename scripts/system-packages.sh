#!/bin/sh
# The real servers the test suite drives that come from Debian/Ubuntu, not from PyPI or npm:
# chromium renders the episode report, redis-server backs the shared episode store.
# Installs only what is missing; uses sudo when not root. Safe to run again.
set -eu
missing=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$missing chromium"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-packages.sh: install$missing with your package manager; the tests that need them say so" >&2
    exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "system-packages.sh: installing$missing (apt-get)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
