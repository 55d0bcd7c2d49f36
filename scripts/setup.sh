#!/usr/bin/env bash
# Install everything Rangebox needs on a fresh Debian 12 machine:
# Mesa software GL + EGL (headless rendering), fontconfig + a font (HUD text),
# then the Python packages.  Fails loudly on the first error.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="libgl1 libegl1 libgl1-mesa-dri libfontconfig1 fonts-dejavu-core"
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: apt-get install $APT_PACKAGES"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $APT_PACKAGES >/dev/null
else
  echo "setup: no apt-get here; install OpenGL/EGL (Mesa) and fontconfig with your package manager" >&2
fi

PYTHON="${PYTHON:-python3}"
echo "setup: $PYTHON -m pip install -r requirements.txt"
"$PYTHON" -m pip install --disable-pip-version-check -q -r requirements.txt
echo "setup: done"
