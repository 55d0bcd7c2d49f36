"""Fixtures of the command-line tests."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture
def sighup_default():
    """SIGHUP at its default for the test (and the children it starts), as a terminal's shell
    leaves it: under ``nohup`` it is ignored, which a process and its children inherit, and the
    game rightly leaves an ignored SIGHUP ignored, so a test of what SIGHUP does would fail there."""
    old = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, old)
