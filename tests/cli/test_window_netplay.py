"""``--host`` / ``--join`` without ``--headless``: the window plays the netplay match
(game/cli/window_net.py).  Two processes on the loopback address, one a window (headless GL),
the other headless: the same replay on both sides; the opponent killed: the window's side ends
with exit 3 and its replay saved.  And the flags a window's netplay refuses."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from clihelp import ROOT
from game.cli.checks import check_mode_flags
from game.cli.parser import build_parser
from game.cli.program import UsageError
from game.online.address import EVERY_ADDRESS


@pytest.mark.parametrize("args, words", [
    (["--net-stats"], ["--net-stats", "--host or --join"]),
    (["--host", "--headless", "--net-stats"], ["--net-stats", "--headless"]),
    (["--host", "--training"], ["--training", "--host"]),
    (["--join", "127.0.0.1", "--screenshot", "a.png"], ["--screenshot", "--join"]),
    (["--host", "--realtime"], ["--realtime", "--headless"]),
])
def test_window_netplay_refuses_flags_that_cannot_take_effect(args, words):
    ns = build_parser().parse_args(args)
    with pytest.raises(UsageError) as err:
        check_mode_flags(ns)
    for w in words:
        assert w in str(err.value)


def test_window_netplay_takes_the_network_display_flag():
    ns = build_parser().parse_args(["--host", "0", "--net-stats"])
    check_mode_flags(ns)
    assert ns.net_stats and ns.host == (EVERY_ADDRESS, 0)        # every address, IPv6 and IPv4


def _start(args, tmp_path, *, window: bool) -> subprocess.Popen:
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    cmd = [sys.executable, str(ROOT / "main.py"), *args] + ([] if window else ["--headless"])
    return subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _port(host: subprocess.Popen) -> int:
    """The port the host's first stderr line names."""
    assert host.stderr is not None
    line = host.stderr.readline()
    found = re.search(r"UDP [0-9.]+:(\d+)", line)
    assert found, line
    return int(found.group(1))


@pytest.mark.gl
@pytest.mark.slow
def test_a_window_hosts_a_match_that_both_sides_record_alike(tmp_path):
    host = _start(["--host", "127.0.0.1:0", "--frames", "240", "--record", "host.rpl", "--net-stats"], tmp_path,
                  window=True)
    try:
        port = _port(host)
        join = _start(["--join", f"127.0.0.1:{port}", "--p2", "cpu", "--frames", "240", "--record", "join.rpl"],
                      tmp_path, window=False)
        _, join_err = join.communicate(timeout=240)
        _, host_err = host.communicate(timeout=60)
    finally:
        if host.poll() is None:
            host.kill()
    assert join.returncode == 0, join_err
    assert host.returncode == 0, host_err
    assert "match played as P1" in host_err and "saved to host.rpl (240 frames)" in host_err
    assert (tmp_path / "host.rpl").read_bytes() == (tmp_path / "join.rpl").read_bytes()


@pytest.mark.gl
@pytest.mark.slow
def test_a_window_whose_opponent_is_killed_ends_with_exit_3_and_its_replay_saved(tmp_path):
    host = _start(["--host", "127.0.0.1:0", "--p1", "cpu", "--record", "host.rpl"], tmp_path, window=False)
    try:
        port = _port(host)
        join = _start(["--join", f"127.0.0.1:{port}", "--frames", "100000", "--net-timeout", "1",
                       "--record", "join.rpl"], tmp_path, window=True)
        assert join.stderr is not None
        for line in join.stderr:                     # the joiner's window plays
            if "playing" in line:
                break
        time.sleep(3.0)
        host.send_signal(signal.SIGKILL)
        _, join_err = join.communicate(timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
    assert join.returncode == 3, join_err
    assert "silent for 1 s" in join_err and "join.rpl" in join_err
    assert (tmp_path / "join.rpl").stat().st_size > 0
