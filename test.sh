#!/usr/bin/env bash
# Fresh machine to green: install the test dependencies, Debian's Chromium if missing,
# build dist/, run every test. Extra arguments go to pytest (e.g. ./test.sh -m browser).
set -euo pipefail
cd "$(dirname "$0")"

python3 -m pip install -q --disable-pip-version-check -e '.[test]'

if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # DPkg::Lock::Timeout: wait if another apt/dpkg is running instead of failing.
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends chromium
fi

python3 build.py
python3 -m pytest -q "$@"
