#!/usr/bin/env bash
# Install everything Rangebox needs on a fresh Debian 12 machine:
# Mesa software GL + EGL (headless rendering), fontconfig + a font (HUD text),
# git (`python3 -m game.bench.ab` and its tests read revisions with it),
# Python 3 with pip where the machine has none, then the Python packages.
# Fails loudly on the first error; safe to run again (apt is skipped, with no
# network needed, when every package is already installed).
#
#   PYTHON=/path/to/python bash scripts/setup.sh   installs into that interpreter
#                                                  (a venv's, say) instead of python3
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
APT_PACKAGES="libgl1 libegl1 libgl1-mesa-dri libfontconfig1 fonts-dejavu-core git"
# A minimal Debian (debootstrap, a container image) has no Python at all, and
# Debian's own python3 comes without pip: take both from apt then.
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  APT_PACKAGES="$APT_PACKAGES python3 python3-pip"
elif ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  APT_PACKAGES="$APT_PACKAGES python3-pip"
fi

if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
  missing=""
  for pkg in $APT_PACKAGES; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)" != "installed" ]; then
      missing="$missing $pkg"
    fi
  done
  if [ -z "$missing" ]; then
    echo "setup: apt packages already installed: $APT_PACKAGES"
  else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "setup: apt packages missing:$missing; run this script as root (or install sudo)" >&2
        exit 1
      fi
      SUDO="sudo"
    fi
    echo "setup: apt-get install$missing"
    $SUDO apt-get update -qq
    # env after sudo: sudo's env_reset would drop a DEBIAN_FRONTEND set before it.
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
else
  echo "setup: no apt-get here; install OpenGL/EGL (Mesa), fontconfig, the DejaVu fonts and Python 3 with pip" \
       "with your package manager" >&2
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "setup: $PYTHON not found; install Python 3 (3.11 is tested), or set PYTHON=/path/to/python" >&2
  exit 1
fi
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  echo "setup: $PYTHON has no pip; install it (python3-pip, or $PYTHON -m ensurepip)" >&2
  exit 1
fi

PIP_FLAGS=(--disable-pip-version-check -q)
# Debian's own python3 refuses pip installs outside a venv (PEP 668,
# "externally-managed-environment").  The README's commands run plain
# `python3`, so install beside it: Debian's pip puts the packages in
# /usr/local (or ~/.local), never over files that apt owns.
if "$PYTHON" - <<'EOF'
import os, sys, sysconfig
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if sys.prefix == sys.base_prefix and os.path.exists(marker) else 1)
EOF
then
  echo "setup: $PYTHON is Debian's externally managed Python: pip install --break-system-packages"
  PIP_FLAGS+=(--break-system-packages)
fi

echo "setup: $PYTHON -m pip install -r requirements.txt"
PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install "${PIP_FLAGS[@]}" -r requirements.txt
"$PYTHON" -c "import numpy, pyrr, pyglet, pytest, hypothesis" || {
  echo "setup: the Python packages do not import after pip install (see above)" >&2; exit 1; }
echo "setup: done ($("$PYTHON" --version 2>&1))"
