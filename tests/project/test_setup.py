"""The fresh-machine install: scripts/setup.sh, pyproject.toml, requirements.txt, .ci/run and
the README's two commands.

setup.sh runs here in a copy of the checkout (so the real ``.venv`` is never touched) against
stand-ins for apt-get, dpkg-query, sudo, id, the system's ``python3`` and the Python of the
``.venv`` it makes (each logs what it was asked), so every branch is exercised without
installing anything: a machine that has everything, a second run, a changed pyproject.toml,
a ``.venv`` made by another Python, in another folder, half made or whose install does not
run, apt packages missing (as root and through sudo), no sudo, no venv module, no Python at
all, and failures of apt, venv and pip.  .ci/run runs in a copy too, with stand-in tools."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from clihelp import ROOT

SETUP = ROOT / "scripts" / "setup.sh"


CI = ROOT / ".ci" / "run"


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


#: import name -> the distribution in requirements.txt that provides it
DISTRIBUTIONS = {"numpy": "numpy", "pyrr": "pyrr", "pyglet": "pyglet", "pytest": "pytest",
                 "hypothesis": "hypothesis"}


def _split(requirement: str) -> tuple[str, str]:
    """``"numpy>=1.26,<3"`` -> ``("numpy", ">=1.26,<3")`` (name normalised, specifier as written)."""
    m = re.match(r"\s*([A-Za-z0-9_.-]+)(\[[^]]*\])?\s*(.*)", requirement)
    assert m, requirement
    return re.sub(r"[-_.]+", "-", m.group(1)).lower(), m.group(3).replace(" ", "")


def _requirements() -> dict[str, str]:
    out = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, spec = _split(line)
            assert name not in out, f"requirements.txt names {name} twice"
            out[name] = spec
    return out


def _pyproject_requirements(*extras: str) -> dict[str, str]:
    """The runtime dependencies and the given extras of pyproject.toml, by name."""
    project = PYPROJECT["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project["optional-dependencies"][extra]
    return dict(_split(line) for line in lines)


def _third_party_imports() -> dict[str, set[str]]:
    # the tests' own modules (helpers, child scripts) are imported by name from any folder
    local = {"game", "main", "tests"} | {p.stem for p in (ROOT / "tests").rglob("*.py")}
    found: dict[str, set[str]] = {}
    files = [ROOT / "main.py", *(ROOT / "game").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
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


@pytest.mark.slow
def test_every_third_party_import_is_in_requirements():
    reqs = _requirements()
    imports = _third_party_imports()
    assert imports, "no third-party import found: the scan is broken"
    unknown = {m: sorted(f)[:3] for m, f in imports.items() if DISTRIBUTIONS.get(m) not in reqs}
    assert not unknown, f"imported but not installed by requirements.txt: {unknown}"


def test_requirements_txt_lists_exactly_pyprojects_runtime_and_test_requirements():
    """The README names both files; a package added to one and not the other would install
    in one set-up and not the other."""
    reqs = _requirements()
    assert reqs, "requirements.txt lists nothing: the parse is broken"
    assert reqs == _pyproject_requirements("test")


def test_the_dev_extra_is_the_tests_plus_the_lint_tools_ci_runs():
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    name = PYPROJECT["project"]["name"]
    assert f"{name}[test]" in dev, dev
    tools = dict(_split(line) for line in dev if not line.startswith(f"{name}["))
    assert set(tools) == {"ruff", "mypy"}, tools
    ci = CI.read_text()
    for tool in tools:
        assert f".venv/bin/{tool}" in ci, f".ci/run does not run {tool}"


def test_every_requirement_is_capped_below_the_next_major():
    """A new major (numpy 3, pytest 10, ...) must not reach CI unannounced: each line pins
    (==) or caps (<) its version; the lint tools below their next minor (new rules)."""
    everything = {**_pyproject_requirements("test", "dev"), **_requirements()}
    for name, spec in everything.items():
        if name == PYPROJECT["project"]["name"]:
            continue
        assert "==" in spec or "<" in spec, f"{name}{spec} has no upper bound"
        if name in ("ruff", "mypy"):
            cap = re.search(r"<(\d+)\.(\d+)", spec)
            assert cap and "==" not in spec, f"{name}{spec}: cap the lint tool below a minor version"


def test_the_console_script_runs_the_command_line_main_py_runs():
    assert PYPROJECT["project"]["scripts"] == {"rangebox": "game.cli:console",
                                               "rangebox-server": "game.server.cli:console"}
    import game.cli
    import game.server.cli

    assert callable(game.cli.console) and game.cli.main is _main_module().main
    assert callable(game.server.cli.console)


def _main_module():
    sys.path.insert(0, str(ROOT))
    import main

    return main


def test_main_py_is_a_thin_entry_point():
    """main.py imports the command line and runs it; all its logic is in game/cli."""
    tree = ast.parse((ROOT / "main.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert any(isinstance(n, ast.ImportFrom) and n.module == "game.cli" for n in tree.body)


def test_mypy_checks_the_typed_packages_and_the_command_line():
    """A bare mypy checks every module of game/ (a module named by no entry would be read
    silently, its errors unreported), strictly in collision, sim and the command line."""
    mypy = PYPROJECT["tool"]["mypy"]
    assert {"game", "main.py"} <= set(mypy["files"])
    strict = [o for o in mypy["overrides"] if o.get("disallow_untyped_defs")]
    assert {"game.collision.*", "game.sim.*", "game.cli.*"} <= {m for o in strict for m in o["module"]}


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Two commands for a fresh machine.*?```sh\n(.*?)```", text, re.S).group(1)
    return [ln.strip() for ln in block.splitlines() if "bash scripts/setup.sh" in ln]


def test_readme_first_commands_set_up_then_run_from_the_venv_and_ci_runs_the_test_command_exactly():
    commands = _readme_commands()
    play, test = commands[0], commands[-1]
    assert play == "bash scripts/setup.sh && .venv/bin/rangebox"
    no_screen = [c for c in commands if "no screen" in c]
    assert len(no_screen) == 1 and no_screen[0].endswith(
        "bash scripts/setup.sh && .venv/bin/rangebox --headless --frames 3600 --p1 cpu --p2 cpu")
    test_cmd = test.split("&&", 1)[1].strip()
    assert test_cmd == "PYGLET_HEADLESS=1 .venv/bin/python -m pytest -q"
    ci_lines = [ln.strip() for ln in CI.read_text().splitlines()]
    assert ci_lines.count("bash scripts/setup.sh") == 1
    assert test_cmd in ci_lines, "CI must run the README's test command"
    order = [ci_lines.index(c) for c in ("bash scripts/setup.sh", ".venv/bin/ruff check .", ".venv/bin/mypy",
                                         test_cmd)]
    assert order == sorted(order), "CI: set-up, then ruff and mypy, then the tests"


def test_readme_names_the_quick_subset_with_the_declared_markers():
    text = (ROOT / "README.md").read_text()
    first = text.split("## Layout")[0]
    quick = re.search(r'pytest -q -m "not (\w+) and not (\w+)"', first)
    assert quick, "the README's first section names no quick subset"
    declared = {m.split(":")[0] for m in PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]}
    assert set(quick.groups()) == {"gl", "slow"} <= declared


def test_readme_commands_use_python3():
    """Debian 12 has no `python` command (python-is-python3 is not installed)."""
    text = (ROOT / "README.md").read_text()
    bad = [ln for ln in text.splitlines() if re.search(r"(^|[`\s])python (main\.py|-m )", ln)]
    assert not bad, bad


def test_no_set_up_writes_into_the_system_python():
    for path in (SETUP, CI):
        text = path.read_text()
        assert "--break-system-packages" not in text and "--user" not in text, path
    assert "-r requirements.txt" not in SETUP.read_text()


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


#: The system's python3: its identity ($BASE_ID), its venv module ($NO_VENV_MODULE, $VENV_FAIL).
STUB_PYTHON = r"""#!/bin/bash
echo "python3 $*" >> "$LOG"
case "$1" in
  --version) echo "Python 3.99"; exit 0;;
  -c) case "$2" in
        *base_prefix*) echo "${BASE_ID:-/usr 3.99}"; exit 0;;
        *ensurepip*) [ -z "${NO_VENV_MODULE:-}" ]; exit $?;;
      esac; exit 3;;
  -m) if [ "$2" = venv ]; then
        [ -z "${VENV_FAIL:-}" ] || { echo "Error: ensurepip is not available" >&2; exit 1; }
        mkdir -p "$3/bin"; echo "home = /usr/bin" > "$3/pyvenv.cfg"
        echo "${BASE_ID:-/usr 3.99}" > "$3/identity"
        cp "$STUBS/venv-python" "$3/bin/python"; chmod +x "$3/bin/python"; exit 0
      fi; exit 3;;
esac
exit 3
"""


#: A venv's python: the identity of the Python that made it, pip (unless the file nopip is
#: there; $PIP_FAIL), an install that writes the commands' scripts (unless noscripts).
STUB_VENV_PYTHON = r"""#!/bin/bash
venv="$(cd "$(dirname "$0")/.." && pwd -P)"
echo "venv-python $*" >> "$LOG"
case "$1 $2" in
  "-c "*) [[ "$2" == *base_prefix* ]] && { cat "$venv/identity"; exit 0; }; exit 3;;
  "-m pip")
     [ ! -e "$venv/nopip" ] || exit 1
     [ "$3" = install ] || { echo "pip 99"; exit 0; }
     [ -z "${PIP_FAIL:-}" ] || { echo "ERROR: Could not find a version" >&2; exit 1; }
     if [ ! -e "$venv/noscripts" ]; then
       for s in rangebox ruff mypy; do printf '#!/bin/bash\nexit 0\n' > "$venv/bin/$s"; chmod +x "$venv/bin/$s"; done
     fi
     touch "$venv/installed"; exit 0;;
  "-P -c") [ -e "$venv/installed" ] || { echo "ModuleNotFoundError: No module named 'numpy'"; exit 1; }
           dirname "$venv"; exit 0;;
  "--version ") echo "Python 3.99"; exit 0;;
esac
exit 3
"""


class Stubs:
    """A copy of the checkout's set-up files and a PATH holding only the shell tools setup.sh
    and the stand-ins use (so a real apt-get, sudo or python is never reached)."""

    def __init__(self, tmp_path: Path):
        self.repo = tmp_path / "repo"
        (self.repo / "scripts").mkdir(parents=True)
        shutil.copy2(SETUP, self.repo / "scripts" / "setup.sh")
        (self.repo / "pyproject.toml").write_text('[project]\nname = "rangebox"\n')
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        for tool in ("bash", "dirname", "cat", "basename", "rm", "mkdir", "cp", "chmod", "touch"):
            os.symlink(shutil.which(tool), self.bin / tool)
        for name, text in (("dpkg-query", STUB_DPKG), ("apt-get", STUB_LOG), ("sudo", STUB_LOG),
                           ("env", STUB_LOG), ("id", STUB_ID), ("python3", STUB_PYTHON),
                           ("venv-python", STUB_VENV_PYTHON)):
            (self.bin / name).write_text(text)
            (self.bin / name).chmod(0o755)
        self.log = tmp_path / "log"
        self.home = tmp_path

    @property
    def venv(self) -> Path:
        return self.repo / ".venv"

    def run(self, **env: str | None) -> tuple[subprocess.CompletedProcess, list[str]]:
        self.log.write_text("")
        e = {"PATH": str(self.bin), "LOG": str(self.log), "HOME": str(self.home), "STUBS": str(self.bin)}
        e.update({k: v for k, v in env.items() if v is not None})
        p = subprocess.run([str(self.bin / "bash"), str(self.repo / "scripts" / "setup.sh")], env=e,
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        return p, self.log.read_text().splitlines()


def _made_venv(log: list[str]) -> bool:
    return any(ln.startswith("python3 -m venv .venv") for ln in log)


def _pip_installs(log: list[str]) -> list[str]:
    return [ln for ln in log if ln.startswith("venv-python -m pip install")]


@pytest.fixture
def stubs(tmp_path):
    return Stubs(tmp_path)


def test_setup_with_everything_installed_skips_apt_and_installs_the_project_into_a_new_venv(stubs):
    p, log = stubs.run()
    assert p.returncode == 0, p.stderr
    assert not [ln for ln in log if ln.startswith(("apt-get", "sudo"))], log
    assert _made_venv(log)
    pips = _pip_installs(log)
    assert len(pips) == 1 and pips[0].endswith("-e .[dev]"), pips
    assert not [ln for ln in log if ln.startswith("python3 -m pip")], "pip ran in the system's Python"
    assert "setup: done" in p.stdout and ".venv/bin/rangebox" in p.stdout
    assert (stubs.venv / ".rangebox-setup").read_text().startswith(f"checkout: {stubs.repo.resolve()}\n")


@pytest.mark.slow
def test_setup_run_again_keeps_an_up_to_date_venv_without_pip(stubs):
    assert stubs.run()[0].returncode == 0
    p, log = stubs.run()
    assert p.returncode == 0, p.stderr
    assert not _made_venv(log) and not _pip_installs(log), log
    assert "up to date" in p.stdout


@pytest.mark.slow
def test_setup_after_pyproject_changes_installs_again_into_the_same_venv(stubs):
    assert stubs.run()[0].returncode == 0
    (stubs.repo / "pyproject.toml").write_text('[project]\nname = "rangebox"\ndependencies = ["numpy"]\n')
    p, log = stubs.run()
    assert p.returncode == 0, p.stderr
    assert not _made_venv(log) and len(_pip_installs(log)) == 1, log


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["another python", "another folder", "no pip", "no python", "no pyvenv.cfg"])
def test_setup_makes_a_broken_or_foreign_venv_anew(stubs, damage):
    assert stubs.run()[0].returncode == 0
    if damage == "another python":
        (stubs.venv / "identity").write_text("/opt/python3.12 3.12.1\n")
    elif damage == "another folder":
        stamp = stubs.venv / ".rangebox-setup"
        stamp.write_text(stamp.read_text().replace(str(stubs.repo.resolve()), "/home/someone/old-checkout"))
    elif damage == "no pip":
        (stubs.venv / "nopip").touch()
    elif damage == "no python":
        (stubs.venv / "bin" / "python").unlink()
    else:
        (stubs.venv / "pyvenv.cfg").unlink()
    p, log = stubs.run()
    assert p.returncode == 0, p.stderr
    assert "making it anew" in p.stdout
    assert _made_venv(log) and len(_pip_installs(log)) == 1, log
    assert not (stubs.venv / "nopip").exists() and (stubs.venv / "identity").read_text() == "/usr 3.99\n"


@pytest.mark.slow
def test_setup_makes_the_venv_anew_when_an_install_into_the_kept_one_does_not_run(stubs):
    """A venv the script did not finish (no stamp): pip runs in it; if the commands it
    should have written still do not run, the venv is made anew and installed once more."""
    stubs.venv.mkdir()
    (stubs.venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (stubs.venv / "identity").write_text("/usr 3.99\n")
    (stubs.venv / "bin").mkdir()
    shutil.copy2(stubs.bin / "venv-python", stubs.venv / "bin" / "python")
    (stubs.venv / "noscripts").touch()
    p, log = stubs.run()
    assert p.returncode == 0, p.stderr
    assert ".venv/bin/rangebox --help does not run" in p.stderr
    assert _made_venv(log) and len(_pip_installs(log)) == 2, log
    assert (stubs.venv / "bin" / "rangebox").exists()


def test_setup_with_python_set_makes_the_venv_with_that_interpreter(stubs):
    other = stubs.bin / "python3.12"
    other.write_text(STUB_PYTHON.replace('echo "python3 $*"', 'echo "python3.12 $*"'))
    other.chmod(0o755)
    p, log = stubs.run(PYTHON=str(other))
    assert p.returncode == 0, p.stderr
    assert any(ln.startswith("python3.12 -m venv .venv") for ln in log), log
    assert not any(ln.startswith("python3 ") for ln in log), log


@pytest.mark.slow
def test_setup_as_root_installs_only_the_missing_packages_after_an_update(stubs):
    p, log = stubs.run(MISSING="libegl1 fonts-dejavu-core")
    assert p.returncode == 0, p.stderr
    apt = [ln for ln in log if ln.startswith("apt-get")]
    assert apt[0] == "apt-get update -qq"
    assert apt[1].startswith("apt-get install -y") and "--no-install-recommends" in apt[1]
    assert apt[1].split()[-2:] == ["libegl1", "fonts-dejavu-core"]
    assert "env-set DEBIAN_FRONTEND=noninteractive" in log
    assert not any(ln.startswith("sudo") for ln in log)


@pytest.mark.slow
def test_setup_not_root_goes_through_sudo_and_keeps_apt_noninteractive(stubs):
    p, log = stubs.run(MISSING="git", FAKE_UID="1000")
    assert p.returncode == 0, p.stderr
    assert "sudo apt-get update -qq" in log
    # sudo resets the environment: DEBIAN_FRONTEND must be set after it, by env
    assert any(ln.startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get install") for ln in log), log


def test_setup_not_root_without_sudo_fails_with_one_clear_line(stubs):
    (stubs.bin / "sudo").unlink()
    p, log = stubs.run(MISSING="libgl1", FAKE_UID="1000")
    assert p.returncode != 0
    assert "root" in p.stderr and "libgl1" in p.stderr
    assert not any(ln.startswith(("apt-get", "venv-python")) for ln in log) and not _made_venv(log)


def test_setup_stops_when_apt_fails(stubs):
    p, log = stubs.run(MISSING="libgl1", APT_FAIL="1")
    assert p.returncode != 0
    assert not _made_venv(log) and not _pip_installs(log), "the set-up went on after apt failed"


@pytest.mark.slow
def test_setup_takes_python3_venv_from_apt_where_python_cannot_make_a_venv(stubs):
    p, log = stubs.run(NO_VENV_MODULE="1", MISSING="python3-venv")
    assert p.returncode == 0, p.stderr
    install = [ln for ln in log if ln.startswith("apt-get install")]
    assert install and install[0].split()[-1] == "python3-venv", install


def test_setup_names_the_fix_when_python_cannot_make_the_venv(stubs):
    p, log = stubs.run(VENV_FAIL="1")
    assert p.returncode != 0
    assert "python3-venv" in p.stderr and "-m venv" in p.stderr
    assert not _pip_installs(log)


def test_setup_stops_when_pip_fails_and_leaves_no_stamp(stubs):
    p, log = stubs.run(PIP_FAIL="1")
    assert p.returncode != 0
    assert "setup: done" not in p.stdout
    assert not (stubs.venv / ".rangebox-setup").exists()


def test_setup_on_a_machine_without_python_installs_debians_python3_and_venv(stubs):
    (stubs.bin / "python3").unlink()
    p, log = stubs.run(MISSING="python3 python3-venv")
    install = [ln for ln in log if ln.startswith("apt-get install")]
    assert install and {"python3", "python3-venv"} <= set(install[0].split())
    # the stand-in apt-get installs nothing, so the script must then stop with a clear line
    assert p.returncode != 0 and "python3" in p.stderr and "not found" in p.stderr


def test_setup_script_is_valid_bash_and_fails_fast():
    assert subprocess.run(["bash", "-n", str(SETUP)]).returncode == 0
    assert subprocess.run(["bash", "-n", str(CI)]).returncode == 0
    for script in (SETUP, CI):
        assert "set -euo pipefail" in script.read_text(), script


STUB_CI_SETUP = """#!/usr/bin/env bash
# stand-in for scripts/setup.sh: logs, then lays out .venv's tools (each logs; $FAIL names one that fails)
echo "setup" >> "$LOG"
[ "${FAIL:-}" != setup ] || exit 1
mkdir -p .venv/bin
for tool in ruff mypy python; do
  printf '#!/bin/bash\\necho "%s $* PYGLET_HEADLESS=${PYGLET_HEADLESS:-}" >> "$LOG"\\n[ "${FAIL:-}" != %s ]\\n' \
    "$tool" "$tool" > ".venv/bin/$tool"
  chmod +x ".venv/bin/$tool"
done
"""


@pytest.mark.parametrize("fail", [None, "setup", "ruff", "mypy", "python"])
def test_ci_runs_setup_lint_types_size_limits_then_the_tests_and_fails_on_any(tmp_path, fail):
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    (repo / "scripts").mkdir()
    shutil.copy2(CI, repo / ".ci" / "run")
    (repo / "scripts" / "setup.sh").write_text(STUB_CI_SETUP)
    log = tmp_path / "log"
    log.write_text("")
    env = dict(os.environ, LOG=str(log))
    env.pop("PYGLET_HEADLESS", None)
    if fail:
        env["FAIL"] = fail
    p = subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    steps = ["setup", "ruff check . PYGLET_HEADLESS=", "mypy  PYGLET_HEADLESS=",
             "python scripts/size_limits.py --check PYGLET_HEADLESS=", "python -m pytest -q PYGLET_HEADLESS=1"]
    ran = log.read_text().splitlines()
    if fail is None:
        assert p.returncode == 0, p.stderr
        assert ran == steps
    else:
        assert p.returncode != 0
        upto = [s.split()[0] for s in steps].index(fail) + 1
        assert ran == steps[:upto], ran
