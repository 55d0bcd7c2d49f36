#!/usr/bin/env bash
# Set Rangebox up on a fresh Debian 12 machine, in the checkout's own virtual environment:
#  1. with apt (skipped, with no network needed, when every package is already installed):
#     Mesa software GL + EGL (headless rendering), fontconfig + a font (HUD text),
#     git (`python3 -m game.bench.ab` and its tests read revisions with it), Xvfb (the tests
#     that end a real window from outside run it on a virtual screen), and Python 3
#     with its venv module where the machine lacks them (Debian ships `python3 -m venv`'s
#     ensurepip apart, in python3-venv);
#  2. .venv, made with `python3 -m venv`, into which pip installs Rangebox in editable mode
#     with its test and lint tools and the Gymnasium environment's extra
#     (pip install -e ".[dev,rl]"): .venv/bin/rangebox, .venv/bin/python -m pytest,
#     .venv/bin/ruff, .venv/bin/mypy, and gymnasium for game/rl and its tests.
# Nothing goes into the system's Python.  Safe to run again: a .venv made by the same Python
# in this folder is kept, and pip is skipped when .venv already holds this pyproject.toml's
# install and its tools run; a .venv made by another Python, moved here from another folder
# or left half made is made anew.  Fails loudly on the first error.
#
#   PYTHON=/path/to/python3 bash scripts/setup.sh   makes .venv with that interpreter
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV=.venv
STAMP="$VENV/.rangebox-setup"      # what the last complete install was made from (see stamp_text)
INSTALL=(-e ".[dev,rl]")
APT_PACKAGES="libgl1 libegl1 libgl1-mesa-dri libfontconfig1 fonts-dejavu-core git xvfb"
# A minimal Debian (debootstrap, a container image) has no Python at all, and Debian's own
# python3 cannot make a venv (no ensurepip) without python3-venv: take them from apt then.
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  APT_PACKAGES="$APT_PACKAGES python3 python3-venv"
elif ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
  APT_PACKAGES="$APT_PACKAGES python3-venv"
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
  echo "setup: no apt-get here; install OpenGL/EGL (Mesa), fontconfig, the DejaVu fonts and Python 3 with" \
       "its venv module with your package manager" >&2
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "setup: $PYTHON not found; install Python 3 (3.11 is tested), or set PYTHON=/path/to/python3" >&2
  exit 1
fi

# The interpreter a venv is built on: its installation and exact version.
IDENTITY='import sys; print(sys.base_prefix, sys.version)'
# Every package the game and its tests import, and the checkout that `game` is found in
# (-P: not the current folder, so this is the editable install's mapping).
CHECK='import numpy, pyrr, pyglet, pytest, hypothesis, gymnasium, game, os; print(os.path.dirname(os.path.dirname(os.path.realpath(game.__file__))))'
HERE="$(pwd -P)"

stamp_text() {
  printf 'checkout: %s\ninstall: %s\n' "$HERE" "${INSTALL[*]}"
  cat pyproject.toml
}

# .venv can be kept: its Python runs and is $PYTHON's, it has pip, and (if an install
# finished in it) that install was made in this folder, so its scripts' first lines
# name this .venv's python.
venv_usable() {
  [ -f "$VENV/pyvenv.cfg" ] && [ -x "$VENV/bin/python" ] || return 1
  local have want line
  have="$("$VENV/bin/python" -c "$IDENTITY" 2>/dev/null)" || return 1
  want="$("$PYTHON" -c "$IDENTITY")"
  [ "$have" = "$want" ] || return 1
  "$VENV/bin/python" -m pip --version >/dev/null 2>&1 || return 1
  if [ -f "$STAMP" ]; then
    IFS= read -r line < "$STAMP" || return 1
    [ "$line" = "checkout: $HERE" ] || return 1
  fi
}

# The install works: every import, `game` from this checkout, and the commands' scripts.
# With "loud", say what does not.
installed_ok() {
  local out
  out="$("$VENV/bin/python" -P -c "$CHECK" 2>&1)" && [ "$out" = "$HERE" ] || {
    [ -z "${1:-}" ] || echo "setup: .venv/bin/python cannot import the game from $HERE: $out" >&2; return 1; }
  for cmd in "rangebox --help" "ruff --version" "mypy --version"; do
    # shellcheck disable=SC2086
    "$VENV/bin/"$cmd >/dev/null 2>&1 || {
      [ -z "${1:-}" ] || echo "setup: .venv/bin/$cmd does not run" >&2; return 1; }
  done
}

make_venv() {
  rm -rf "$VENV"
  echo "setup: $PYTHON -m venv $VENV ($("$PYTHON" --version 2>&1))"
  "$PYTHON" -m venv "$VENV" || {
    echo "setup: $PYTHON -m venv failed (see above); install Python's venv module (Debian: python3-venv)" >&2
    exit 1; }
}

install() {
  echo "setup: $VENV/bin/python -m pip install ${INSTALL[*]}"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q "${INSTALL[@]}"
  installed_ok loud || return 1
  stamp_text > "$STAMP"
}

if venv_usable; then
  if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(stamp_text)" ] && installed_ok; then
    echo "setup: $VENV is up to date (made from this pyproject.toml; pip skipped)"
  elif ! install; then
    echo "setup: the install into the existing $VENV does not work; making $VENV anew" >&2
    make_venv
    install || { echo "setup: the install does not work (see above)" >&2; exit 1; }
  fi
else
  if [ -e "$VENV" ] || [ -L "$VENV" ]; then
    echo "setup: $VENV was made by another Python, in another folder, or is broken: making it anew"
  fi
  make_venv
  install || { echo "setup: the install does not work (see above)" >&2; exit 1; }
fi
echo "setup: done ($VENV: $("$VENV/bin/python" --version 2>&1)); play: $VENV/bin/rangebox," \
     "test: PYGLET_HEADLESS=1 $VENV/bin/python -m pytest -q"
