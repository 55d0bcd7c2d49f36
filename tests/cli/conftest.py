"""Fixtures of the command-line tests."""

from __future__ import annotations

import signal

import pytest

#: The signals the tests send the game, and what each is set to when the test run inherited it
#: ignored: a terminal's shell leaves them at their defaults, but ``nohup`` ignores SIGHUP and a
#: background job of a non-interactive shell (``cmd &`` in a script) ignores SIGINT and SIGQUIT.
#: A process and its children inherit an ignored signal, and the game rightly leaves an ignored
#: signal ignored, so a test of what the signal does would fail there.
_DEFAULTS = {signal.SIGHUP: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler,
             signal.SIGQUIT: signal.SIG_DFL}


@pytest.fixture(autouse=True)
def signals_not_ignored():
    """SIGHUP, SIGINT and SIGQUIT not ignored for the test (and the children it starts): each
    one the run inherited ignored is set to its default for the test, and put back after."""
    old = {}
    for sig, default in _DEFAULTS.items():
        if signal.getsignal(sig) == signal.SIG_IGN:
            old[sig] = signal.signal(sig, default)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@pytest.fixture
def sighup_default():
    """SIGHUP at its default for the test (and the children it starts), whatever the run
    inherited: these tests send SIGHUP to themselves or a child."""
    old = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, old)
