#!/usr/bin/env bash
# Fresh machine to green: a project virtualenv (.venv) with the test dependencies, Debian's
# Chromium, Firefox ESR and WebKitGTK driver if missing, build dist/, run every test with the
# venv's python (the browser tests, the build and the tools it starts run under the same
# interpreter: sys.executable). Extra arguments go to pytest (e.g. ./test.sh -m browser).
set -euo pipefail
cd "$(dirname "$0")"

apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # DPkg::Lock::Timeout: wait if another apt/dpkg is running instead of failing.
  $sudo apt-get -o DPkg::Lock::Timeout=900 update
  $sudo apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "$@"
}

if [ ! -x .venv/bin/python ]; then
  # Debian's python3 makes a venv only with python3-venv (ensurepip) installed.
  if ! python3 -m venv .venv; then
    rm -rf .venv
    apt_install python3-venv
    python3 -m venv .venv
  fi
fi
PY=.venv/bin/python
$PY -m pip install -q --disable-pip-version-check -e '.[test]'

# The three browser engines the page is tested in (tests/browser/engines.py): Chromium, Firefox
# (driven over WebDriver BiDi) and WebKit (MiniBrowser through WebKitWebDriver, on Xvfb).
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/firefox-esr ] || need+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || need+=(webkit2gtk-driver)
[ -x /usr/bin/Xvfb ] || need+=(xvfb xauth)
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}"
fi

$PY build.py
$PY -m pytest -q "$@"
