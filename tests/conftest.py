"""The test process: headless GL, the game's allocator and pyglet settings, reproducible
hypothesis examples, and the ``gl`` marker kept honest.

* Render tests draw headless: pyglet is switched to EGL (``PYGLET_HEADLESS``) before anything
  imports ``pyglet.window`` or ``pyglet.gl``, and, as the game's own start-up does
  (``game.render.boot.load_pyglet``), pyglet makes no hidden shadow window: importing
  ``pyglet.window`` (for its key codes, say) then creates no GL context.
* The test process keeps freed memory as the game's process does (``game/allocator.py``): the
  brute-force references' large temporaries then reuse pages instead of page-faulting new ones.
* Hypothesis runs the same examples every time (profile ``ci``: ``derandomize``, no example
  database), so a test that passes in CI passes again; ``--hypothesis-profile=explore`` draws
  new examples on every run, to hunt for failures.
* A test that needs OpenGL is marked ``gl`` (``-m "not gl"`` leaves it out on a machine
  without GL).  A test, or a fixture it uses, that makes a GL context in this process unmarked
  fails here.  What this cannot see (a child process that renders, a test that only loads the
  GL libraries) shows up when the tests run with ``tests/helpers/nogl`` on ``PYTHONPATH``,
  which hides the GL libraries from the process and its children.
"""

import os
import sys
import tempfile

import pytest

os.environ.setdefault("PYGLET_HEADLESS", "1")
# The game's settings file (game/settings.py) lives in $XDG_CONFIG_HOME: the tests and every
# child process they start read and write a private one, never the user's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="rangebox-test-config-")
# A netplay match without --record is kept in $XDG_DATA_HOME/rangebox/replays: a private one too.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="rangebox-test-data-")

from hypothesis import settings

from game.allocator import keep_freed_memory

keep_freed_memory()

try:
    import pyglet
except ImportError:                     # the tests that need it say so; the rest run without
    pyglet = None
else:
    pyglet.options["shadow_window"] = False

# No deadline: a test's examples are judged on what they compute, not how fast a loaded
# machine runs them (a CI box shared with other jobs can take several times the usual time).
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", database=None)
settings.load_profile("ci")


# ---------------------------------------------------------------- the gl marker

_made = [0]                              # GL contexts pyglet has made since the counter was installed
_gl_fixtures: set[tuple[str, str]] = set()   # (baseid, name) of the fixtures whose set-up made one


def _count_contexts() -> None:
    """Count every context ``pyglet.gl.base.Context`` makes, once pyglet.gl is loaded."""
    base = sys.modules.get("pyglet.gl.base")
    if base is None or getattr(base.Context, "_counted_by_tests", False):
        return
    init = base.Context.__init__

    def counted(self, *args, **kwargs):
        _made[0] += 1
        init(self, *args, **kwargs)

    base.Context.__init__ = counted
    base.Context._counted_by_tests = True


def _gl_state() -> tuple[bool, int]:
    """(is pyglet.gl loaded, contexts made so far)."""
    _count_contexts()
    return "pyglet.gl" in sys.modules, _made[0]


def _made_a_context(before: tuple[bool, int]) -> bool:
    """Did the step since ``before`` make a GL context?  A context made by the very import that
    loaded pyglet.gl (before it could be counted) is current, or held by a window."""
    loaded, made = _gl_state()
    if made > before[1]:
        return True
    if loaded and not before[0]:
        gl = sys.modules["pyglet.gl"]
        return gl.current_context is not None or getattr(gl, "_shadow_window", None) is not None
    return False


def _unmarked(item) -> bool:
    return item.get_closest_marker("gl") is None


def _fail(item, where: str) -> None:
    pytest.fail(f"{item.nodeid} makes an OpenGL context ({where}) but is not marked gl: add "
                f"@pytest.mark.gl (or pytestmark = pytest.mark.gl for the module)", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    before = _gl_state()
    try:
        return (yield)
    finally:
        if _made_a_context(before):
            _gl_fixtures.add((fixturedef.baseid, fixturedef.argname))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    before = _gl_state()
    result = yield
    if _unmarked(item):
        if _made_a_context(before):
            _fail(item, "in its set-up")
        used = [name for base, name in _gl_fixtures if name in item.fixturenames and item.nodeid.startswith(base)]
        if used:
            _fail(item, f"through the fixture {used[0]}")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    before = _gl_state()
    result = yield
    if _unmarked(item) and _made_a_context(before):
        _fail(item, "in its body")
    return result


@pytest.fixture(scope="session")
def crate_fight_run():
    """The scripted crate fight (``tests/helpers/cratefight.py``), played once for every test
    that checks its frames: determinism, snapshot and restore, replays."""
    from cratefight import crate_fight_run as played

    return played()
