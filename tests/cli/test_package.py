"""The command line as a package: ``game/cli`` behind both ``python3 main.py`` and the
``rangebox`` console script, what an install without the checkout says, and the package's
shape (one concept per module, no numpy or pyglet before a mode runs)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import ROOT

CLI = ROOT / "game" / "cli"


#: Runs the console script's function as the installed ``rangebox`` script does.
CONSOLE = "import sys; from game.cli import console; sys.argv[0] = 'rangebox'; sys.exit(console())"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    env.update(extra)
    return env


def _main_py(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)


def _console(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CONSOLE, *args], cwd=cwd, env=env or _env(),
                          capture_output=True, text=True, timeout=120, check=False)


def _installed_script() -> Path | None:
    """``rangebox`` beside this Python (``.venv/bin`` after scripts/setup.sh), if installed."""
    path = Path(sys.executable).parent / "rangebox"
    return path if path.exists() else None


def _without_timing(stdout: str) -> dict:
    out = json.loads(stdout)
    assert isinstance(out.pop("sim_us_per_frame"), float)
    return out


@pytest.mark.slow
def test_console_script_prints_the_same_headless_result_as_main_py():
    args = ("--headless", "--frames", "120", "--p1", "cpu", "--p2", "cpu", "--seed", "7")
    want = _main_py(*args)
    assert want.returncode == 0, want.stderr
    runs = [_console(*args)]
    script = _installed_script()
    if script is not None:
        runs.append(subprocess.run([str(script), *args], cwd="/", env=_env(), capture_output=True, text=True,
                                   timeout=120, check=False))
    for got in runs:
        assert got.returncode == 0, got.stderr
        assert _without_timing(got.stdout) == _without_timing(want.stdout)
        assert _without_timing(want.stdout)["frames"] == 120


@pytest.mark.slow
def test_console_script_speaks_under_its_own_name():
    """``rangebox --help`` says ``usage: rangebox``, its errors say ``rangebox: ...`` and
    ``(see: rangebox --help)``; the options are main.py's, word for word."""
    main_help, console_help = _main_py("--help"), _console("--help")
    assert main_help.returncode == console_help.returncode == 0
    assert main_help.stdout.startswith("usage: python3 main.py [-h] ")
    assert console_help.stdout.startswith("usage: rangebox [-h] ")
    assert main_help.stdout.split("\noptions:")[1] == console_help.stdout.split("\noptions:")[1]

    for args, same in ((["--bogus"], "unrecognized arguments: --bogus"),
                       (["--headless", "--debug"], "--debug cannot be used with --headless")):
        mine, theirs = _console(*args), _main_py(*args)
        assert mine.returncode == theirs.returncode == 2
        assert mine.stderr.startswith(f"rangebox: {same}") and theirs.stderr.startswith(f"main.py: {same}")
        assert mine.stderr.replace("rangebox", "X") == theirs.stderr.replace("python3 main.py", "X").replace(
            "main.py", "X")


def _installed_copy(tmp_path: Path, folder: str) -> Path:
    """``game/`` alone copied into ``tmp_path/folder``, as a non-editable install lays it out."""
    target = tmp_path / folder
    target.mkdir(parents=True)
    shutil.copytree(ROOT / "game", target / "game", ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.mark.slow
def test_a_non_editable_install_says_to_install_editable(tmp_path):
    site = _installed_copy(tmp_path, "lib/python3.11/site-packages")
    p = _console("--headless", "--frames", "5", cwd=tmp_path, env=_env(PYTHONPATH=str(site)))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith(f"rangebox: this Rangebox was installed into {site}")
    for words in ("assets/ and shaders/", "editable", "bash scripts/setup.sh", "pip install -e ."):
        assert words in lines[0], (words, lines[0])
    # --help needs no assets: it still works
    assert _console("--help", cwd=tmp_path, env=_env(PYTHONPATH=str(site))).returncode == 0


@pytest.mark.slow
def test_a_copy_outside_site_packages_gets_the_asset_files_own_message(tmp_path):
    """Only an install into site-packages is told to install editable; a checkout that lost
    its assets/ is told which file is missing and how to restore it (tests/cli/test_asset_errors.py)."""
    lib = _installed_copy(tmp_path, "somewhere")
    p = _console("--headless", "--frames", "5", cwd=tmp_path, env=_env(PYTHONPATH=str(lib)))
    assert p.returncode == 2 and "editable" not in p.stderr and "restore" in p.stderr, p.stderr


@pytest.mark.slow
def test_importing_the_command_line_loads_neither_numpy_nor_pyglet():
    """--help and the usage errors run before numpy is known to be there (a missing package
    is then one line naming the set-up, tests/cli/test_missing_dependencies.py)."""
    code = ("import sys, main, game.cli, game.cli.app; "
            "print(sorted(m for m in ('numpy', 'pyglet', 'pyrr', 'game.sim', 'game.render') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]"


def _functions(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_each_cli_module_is_short_documented_and_its_functions_are_short(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 600, f"{path.name}: over 600 lines"
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path.name}: no module docstring"
    for fn in _functions(tree):
        length = fn.end_lineno - fn.lineno + 1
        assert length <= 80, f"{path.name}: {fn.name} is {length} lines"
        assert fn.returns is not None or fn.name == "__init__", f"{path.name}: {fn.name} has no return type"


def test_the_package_docstring_names_every_module():
    import game.cli

    modules = {p.stem for p in CLI.glob("*.py")} - {"__init__"}
    assert len(modules) >= 5, modules
    unnamed = {m for m in modules if f"``{m}``" not in game.cli.__doc__}
    assert not unnamed, f"game/cli/__init__.py's docstring does not name {sorted(unnamed)}"
