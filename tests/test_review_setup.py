"""The fresh-machine install: scripts/setup.sh, requirements.txt, .ci/run and the README's commands.

setup.sh runs here against stand-ins for apt-get, dpkg-query, sudo, id and the Python
interpreter (each logs what it was asked), so every branch is exercised without
installing anything: a machine that has everything, one that lacks apt packages (as root
and through sudo), one with no sudo, Debian's externally managed Python, no Python at all,
and an apt failure.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "scripts" / "setup.sh"
CI = ROOT / ".ci" / "run"

#: import name -> the distribution in requirements.txt that provides it
DISTRIBUTIONS = {"numpy": "numpy", "pyrr": "pyrr", "pyglet": "pyglet", "pytest": "pytest",
                 "hypothesis": "hypothesis"}


def _requirements() -> dict[str, str]:
    out = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name = re.match(r"[A-Za-z0-9_.-]+", line).group(0).lower()
            out[name] = line[len(name):]
    return out


def _third_party_imports() -> dict[str, set[str]]:
    local = {"game", "main", "tests"} | {p.stem for p in (ROOT / "tests").glob("*.py")}
    found: dict[str, set[str]] = {}
    files = [ROOT / "main.py", *(ROOT / "game").rglob("*.py"), *(ROOT / "tests").glob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local and top != "__future__":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_in_requirements():
    reqs = _requirements()
    imports = _third_party_imports()
    assert imports, "no third-party import found: the scan is broken"
    unknown = {m: sorted(f)[:3] for m, f in imports.items() if DISTRIBUTIONS.get(m) not in reqs}
    assert not unknown, f"imported but not installed by requirements.txt: {unknown}"


def test_every_requirement_is_capped_below_the_next_major():
    """A new major (numpy 3, pytest 10, ...) must not reach CI unannounced: each line pins
    (==) or caps (<) its version."""
    for name, spec in _requirements().items():
        assert "==" in spec or "<" in spec, f"requirements.txt: {name}{spec} has no upper bound"


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Two commands for a fresh machine.*?```sh\n(.*?)```", text, re.S).group(1)
    return [ln.strip() for ln in block.splitlines() if ln.strip().startswith("bash scripts/setup.sh")]


def test_readme_first_commands_set_up_then_run_and_ci_runs_the_test_command_exactly():
    play, test = _readme_commands()[0], _readme_commands()[-1]
    assert play == "bash scripts/setup.sh && python3 main.py"
    test_cmd = test.split("&&", 1)[1].strip()
    assert test_cmd == "PYGLET_HEADLESS=1 python3 -m pytest -q"
    ci = CI.read_text()
    assert "bash scripts/setup.sh" in ci
    assert test_cmd.replace("python3", '"$PYTHON"') in ci, "CI must run the README's test command"
    assert 'PYTHON="${PYTHON:-python3}"' in ci


def test_readme_commands_use_python3():
    """Debian 12 has no `python` command (python-is-python3 is not installed)."""
    text = (ROOT / "README.md").read_text()
    bad = [ln for ln in text.splitlines() if re.search(r"(^|[`\s])python (main\.py|-m )", ln)]
    assert not bad, bad


# --- setup.sh against stand-ins -------------------------------------------------------

STUB_DPKG = """#!/bin/bash
# dpkg-query -W -f=FORMAT PKG: "installed" unless PKG is in $MISSING
pkg="${@: -1}"
for m in $MISSING; do [ "$m" = "$pkg" ] && exit 1; done
printf installed
"""
STUB_LOG = """#!/bin/bash
echo "$(basename "$0") $*" >> "$LOG"
[ "$(basename "$0")" = apt-get ] && [ "$1" = install ] && [ -n "${APT_FAIL:-}" ] && exit 100
[ "$(basename "$0")" = sudo ] && exec "$@"
[ "$(basename "$0")" = env ] && { while [[ "$1" == *=* ]]; do echo "env-set $1" >> "$LOG"; shift; done; exec "$@"; }
exit 0
"""
STUB_ID = """#!/bin/bash
echo "${FAKE_UID:-0}"
"""
STUB_PYTHON = """#!/bin/bash
if [ "$1 $2 $3" = "-m pip install" ]; then echo "pip $*" >> "$LOG"; exit 0; fi
if [ "$1 $2" = "-m pip" ]; then echo "pip 99"; exit 0; fi
if [ "$1" = "-" ]; then cat >/dev/null; [ -n "${EXTERNALLY_MANAGED:-}" ] && exit 0; exit 1; fi
if [ "$1" = "-c" ]; then exit 0; fi
if [ "$1" = "--version" ]; then echo "Python 3.99"; exit 0; fi
exit 3
"""


@pytest.fixture
def stubs(tmp_path):
    """A PATH holding only bash, dirname and the stand-ins (so a real apt-get or sudo is never reached)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("bash", "dirname", "cat", "basename"):
        os.symlink(shutil.which(tool), bin_ / tool)
    for name, text in (("dpkg-query", STUB_DPKG), ("apt-get", STUB_LOG), ("sudo", STUB_LOG),
                       ("env", STUB_LOG), ("id", STUB_ID), ("python3", STUB_PYTHON)):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    log = tmp_path / "log"
    log.write_text("")

    def run(**env):
        e = {"PATH": str(bin_), "LOG": str(log), "HOME": str(tmp_path)}
        e.update({k: v for k, v in env.items() if v is not None})
        p = subprocess.run([str(bin_ / "bash"), str(SETUP)], env=e, capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        return p, log.read_text().splitlines()

    run.bin = bin_
    return run


def test_setup_with_everything_installed_skips_apt_and_pip_installs_requirements(stubs):
    p, log = stubs()
    assert p.returncode == 0, p.stderr
    assert not [ln for ln in log if ln.startswith(("apt-get", "sudo"))], log
    pips = [ln for ln in log if ln.startswith("pip ")]
    assert len(pips) == 1 and "-r requirements.txt" in pips[0] and "--break-system-packages" not in pips[0]
    assert "setup: done" in p.stdout


def test_setup_as_root_installs_only_the_missing_packages_after_an_update(stubs):
    p, log = stubs(MISSING="libegl1 fonts-dejavu-core")
    assert p.returncode == 0, p.stderr
    apt = [ln for ln in log if ln.startswith("apt-get")]
    assert apt[0] == "apt-get update -qq"
    assert apt[1].startswith("apt-get install -y") and "--no-install-recommends" in apt[1]
    assert apt[1].split()[-2:] == ["libegl1", "fonts-dejavu-core"]
    assert "env-set DEBIAN_FRONTEND=noninteractive" in log
    assert not any(ln.startswith("sudo") for ln in log)


def test_setup_not_root_goes_through_sudo_and_keeps_apt_noninteractive(stubs):
    p, log = stubs(MISSING="git", FAKE_UID="1000")
    assert p.returncode == 0, p.stderr
    assert "sudo apt-get update -qq" in log
    # sudo resets the environment: DEBIAN_FRONTEND must be set after it, by env
    assert any(ln.startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get install") for ln in log), log


def test_setup_not_root_without_sudo_fails_with_one_clear_line(stubs):
    (stubs.bin / "sudo").unlink()
    p, log = stubs(MISSING="libgl1", FAKE_UID="1000")
    assert p.returncode != 0
    assert "root" in p.stderr and "libgl1" in p.stderr
    assert not any(ln.startswith(("apt-get", "pip")) for ln in log)


def test_setup_stops_when_apt_fails(stubs):
    p, log = stubs(MISSING="libgl1", APT_FAIL="1")
    assert p.returncode != 0
    assert not any(ln.startswith("pip ") for ln in log), "pip ran after apt failed"


def test_setup_uses_break_system_packages_on_debians_externally_managed_python(stubs):
    p, log = stubs(EXTERNALLY_MANAGED="1")
    assert p.returncode == 0, p.stderr
    assert any(ln.startswith("pip ") and "--break-system-packages" in ln for ln in log), log


def test_setup_on_a_machine_without_python_installs_debians_python3_and_pip(stubs):
    (stubs.bin / "python3").unlink()
    p, log = stubs(MISSING="python3 python3-pip")
    install = [ln for ln in log if ln.startswith("apt-get install")]
    assert install and "python3" in install[0].split() and "python3-pip" in install[0].split()
    # the stand-in apt-get installs nothing, so the script must then stop with a clear line
    assert p.returncode != 0 and "python3" in p.stderr and "not found" in p.stderr


def test_setup_script_is_valid_bash_and_fails_fast():
    assert subprocess.run(["bash", "-n", str(SETUP)]).returncode == 0
    assert subprocess.run(["bash", "-n", str(CI)]).returncode == 0
    for script in (SETUP, CI):
        assert "set -euo pipefail" in script.read_text(), script


def test_ci_run_fails_when_the_tests_fail(tmp_path):
    """.ci/run with an interpreter whose pytest fails must exit non-zero (and run setup first)."""
    py = tmp_path / "py"
    log = tmp_path / "log"
    py.write_text('#!/bin/bash\necho "py $*" >> "%s"\n'
                  '[ "$1 $2" = "-m pytest" ] && exit 1\n'
                  '[ "$1" = "-" ] && { cat >/dev/null; exit 1; }\nexit 0\n' % log)
    py.chmod(0o755)
    dpkg = tmp_path / "dpkg-query"
    dpkg.write_text("#!/bin/bash\nprintf installed\n")
    dpkg.chmod(0o755)
    env = dict(os.environ, PYTHON=str(py), PATH=f"{tmp_path}:{os.environ['PATH']}")
    p = subprocess.run(["bash", str(CI)], env=env, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    lines = log.read_text().splitlines()
    assert p.returncode != 0
    assert any("-m pip install" in ln for ln in lines)
    assert lines[-1] == "py -m pytest -q"
