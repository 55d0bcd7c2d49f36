"""``--host`` / ``--join``: two real processes play one match over UDP on the loopback address
(127.0.0.1, and ::1 over IPv6).

Headless, CPU players on both sides: they end on the same confirmed ``state_hash`` and record
byte-identical replays that play back.  One side killed mid-match (SIGKILL, the host or the
joiner): the other reports it after ``--net-timeout``, exits with the documented status, and its
replay of the confirmed frames plays back.  A joiner whose game data differs is refused, both
sides naming the part; the host waits on.  Bad netplay flags exit 2 with one line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from clihelp import ROOT, assert_one_line, copy_program, run_main, sitecustomize
from game.cli import app
from game.cli.ending import Reason

#: What every netplay child runs with: no display, headless EGL never needed.
ENV = {**os.environ, "PYGLET_HEADLESS": "1"}
ENV.pop("DISPLAY", None)
CPU = ["--headless", "--level", "hard"]


#: A child's sitecustomize: its simulation differs from frame 100 on (a fighter loses a health
#: point after that frame), as a machine whose arithmetic differed would.
FLAWED_SIM = textwrap.dedent(r'''
    import importlib.util, sys

    class _Flaw:
        def find_spec(self, name, path=None, target=None):
            if name != "game.sim.match":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                step = module.Match.step

                def flawed(self, *inputs):
                    events = step(self, *inputs)
                    if self.frame == 101:
                        self.fighters[0].health -= 1
                    return events
                module.Match.step = flawed
            spec.loader.exec_module = exec_module
            return spec
    sys.meta_path.insert(0, _Flaw())
''')


def start(args, cwd, main=ROOT / "main.py", env=None):
    """A main.py child with stdout and stderr piped."""
    return subprocess.Popen([sys.executable, str(main), *args], cwd=cwd, env={**ENV, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def host_port(host, address: str = "127.0.0.1") -> int:
    """The port a ``--host 127.0.0.1:0`` child (``--host [::1]:0``: ``address`` "[::1]") prints
    on its first stderr line."""
    line = host.stderr.readline()
    m = re.search(rf"waiting for an opponent on UDP {re.escape(address)}:(\d+)", line)
    assert m, f"the host's first line: {line!r}"
    return int(m.group(1))


def wait_for(proc, words: str) -> list[str]:
    """Read ``proc``'s stderr lines until one holds ``words``; the lines read."""
    lines = []
    while True:
        line = proc.stderr.readline()
        assert line, f"{words!r} never came: {lines}"
        lines.append(line)
        if words in line:
            return lines


def finish(proc, timeout=120.0) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{proc.args} still running after {timeout} s")
    return proc.returncode, out, err


def play_back(path, cwd) -> dict:
    p = run_main(["--headless", "--replay", str(path)], cwd=cwd)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.slow
def test_two_processes_play_3600_frames_to_the_same_state_and_byte_identical_replays(tmp_path):
    # best of 5: the CPUs rarely end it (three K.O.s) before frame 3600; the CPU decides on the
    # predicted present, so the fight differs from run to run (both sides' the same)
    host = start([*CPU, "--host", "127.0.0.1:0", "--p1", "cpu", "--rounds", "5", "--frames", "3600", "--record",
                  "host.rpl"], tmp_path)
    port = host_port(host)
    join = start([*CPU, "--join", f"127.0.0.1:{port}", "--p2", "cpu", "--frames", "3600", "--record", "join.rpl"],
                 tmp_path)
    (hs, hout, herr), (js, jout, jerr) = finish(host), finish(join)
    assert hs == js == 0, (herr, jerr)
    a, b = json.loads(hout), json.loads(jout)
    assert a["frames"] == b["frames"] and (a["frames"] == 3600 or a["winner"] is not None)
    assert a["state_hash"] == b["state_hash"] and (a["player"], b["player"]) == (1, 2)
    assert a["hits"] == b["hits"] > 0 and a["rounds"] == b["rounds"]
    assert a["rollback_max"] <= 8 and b["rollback_max"] <= 8
    assert (tmp_path / "host.rpl").read_bytes() == (tmp_path / "join.rpl").read_bytes()
    assert "playing 127.0.0.1:" in herr and "as P1" in herr and "as P2" in jerr
    for name in ("host.rpl", "join.rpl"):
        out = play_back(tmp_path / name, tmp_path)
        assert out["frames"] == a["frames"] and out["final_hash"] == a["state_hash"]


@pytest.mark.slow
def test_two_processes_play_over_the_ipv6_loopback_to_the_same_state(tmp_path):
    host = start([*CPU, "--host", "[::1]:0", "--p1", "cpu", "--frames", "300", "--record", "host.rpl"], tmp_path)
    port = host_port(host, "[::1]")
    join = start([*CPU, "--join", f"[::1]:{port}", "--p2", "cpu", "--frames", "300", "--record", "join.rpl"],
                 tmp_path)
    (hs, hout, herr), (js, jout, jerr) = finish(host), finish(join)
    assert hs == js == 0, (herr, jerr)
    a, b = json.loads(hout), json.loads(jout)
    assert a["frames"] == b["frames"] == 300 and a["state_hash"] == b["state_hash"]
    assert re.search(r"playing \[::1\]:\d+ as P1", herr), herr              # the joiner, printed in brackets
    assert f"joining [::1]:{port} from UDP [::1]:" in jerr, jerr
    assert (tmp_path / "host.rpl").read_bytes() == (tmp_path / "join.rpl").read_bytes()
    assert play_back(tmp_path / "join.rpl", tmp_path)["final_hash"] == a["state_hash"]


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["host", "join"])
def test_a_side_killed_mid_match_is_reported_by_the_other_whose_replay_plays_back(tmp_path, killed):
    common = [*CPU, "--realtime", "--net-timeout", "1"]
    host = start([*common, "--host", "127.0.0.1:0", "--p1", "cpu", "--record", "host.rpl"], tmp_path)
    port = host_port(host)
    join = start([*common, "--join", f"127.0.0.1:{port}", "--p2", "cpu", "--record", "join.rpl"], tmp_path)
    wait_for(host, "playing")
    wait_for(join, "playing")
    time.sleep(1.0)                              # a second of play (60 frames at --realtime)
    victim, survivor = (host, join) if killed == "host" else (join, host)
    victim.send_signal(signal.SIGKILL)
    victim.communicate()
    status, out, err = finish(survivor, timeout=30)
    assert status == Reason.NET_LOST.status == 3, err
    line = err.strip().splitlines()[-1]
    m = re.search(r"silent for 1 s: disconnected after (\d+) confirmed frames; --record: match 1 saved to "
                  r"(\S+)\.rpl \((\d+) frames\)", line)
    assert m, line
    assert out == "" and int(m.group(1)) == int(m.group(3)) > 20
    survived = "join" if killed == "host" else "host"
    assert m.group(2) == survived
    assert play_back(tmp_path / f"{survived}.rpl", tmp_path)["frames"] == int(m.group(1))


@pytest.mark.slow
def test_ctrl_c_while_waiting_for_an_opponent_cancels_and_saves_nothing(tmp_path):
    host = start([*CPU, "--host", "127.0.0.1:0", "--p1", "cpu", "--record", "host.rpl"], tmp_path)
    host_port(host)
    host.send_signal(signal.SIGINT)
    status, out, err = finish(host, 30)
    assert status == Reason.SIGINT.status == 130 and out == ""
    assert err.strip() == "main.py: interrupted (SIGINT)"
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_ctrl_c_mid_match_saves_the_replay_and_the_opponent_stops_at_once(tmp_path):
    common = [*CPU, "--realtime", "--net-timeout", "30"]          # the Goodbye, not a timeout, stops the joiner
    host = start([*common, "--host", "127.0.0.1:0", "--p1", "cpu", "--record", "host.rpl"], tmp_path)
    port = host_port(host)
    join = start([*common, "--join", f"127.0.0.1:{port}", "--p2", "cpu", "--record", "join.rpl"], tmp_path)
    wait_for(host, "playing")
    wait_for(join, "playing")
    time.sleep(0.5)
    host.send_signal(signal.SIGINT)
    (hs, _, herr), (js, _, jerr) = finish(host, 30), finish(join, 20)
    assert hs == 130 and re.search(r"interrupted \(SIGINT\); --record: match 1 saved to host\.rpl \(\d+ frames\)",
                                   herr), herr
    assert js == 3 and re.search(r"the opponent left the match after (\d+) confirmed frames; --record: match 1 "
                                 r"saved to join\.rpl", jerr), jerr
    for name in ("host.rpl", "join.rpl"):
        assert play_back(tmp_path / name, tmp_path)["frames"] > 0


@pytest.mark.slow
def test_a_desync_stops_both_sides_with_a_report_beside_each_replay(tmp_path):
    """The host records to --record's file, the joiner to its default one: each report goes
    beside its side's replay."""
    shim = sitecustomize(tmp_path, FLAWED_SIM)
    data = {"XDG_DATA_HOME": str(tmp_path / "data")}
    host = start([*CPU, "--host", "127.0.0.1:0", "--p1", "cpu", "--record", "host.rpl"], tmp_path,
                 env={"PYTHONPATH": str(shim), **data})
    port = host_port(host)
    join = start([*CPU, "--join", f"127.0.0.1:{port}", "--p2", "cpu"], tmp_path, env=data)
    (hs, _, herr), (js, _, jerr) = finish(host, 60), finish(join, 60)
    assert hs == js == Reason.DESYNC.status == 4, (herr, jerr)
    host_line, join_line = herr.strip().splitlines()[-1], jerr.strip().splitlines()[-1]
    for line in (host_line, join_line):
        assert "desync: the two sides' states differ at frame 120" in line and "last agreed at frame 90" in line
    assert re.search(r"; desync report written to host\.desync\.json; --record: match 1 saved to host\.rpl "
                     r"\(\d+ frames\)$", host_line), host_line
    join_report_path, = (tmp_path / "data" / "rangebox" / "replays").glob("netplay-*-p2.desync.json")
    assert f"desync report written to {join_report_path}" in join_line, join_line
    host_report = json.loads((tmp_path / "host.desync.json").read_text())
    join_report = json.loads(join_report_path.read_text())
    assert host_report["frame"] == join_report["frame"] == 120 and join_report["player"] == 2
    assert host_report["local_hash"] == join_report["remote_hash"] != join_report["local_hash"]
    frames = [f for f, _p1, _p2 in join_report["inputs"]]
    assert frames[0] == 90 and frames == list(range(90, frames[-1] + 1)) and frames[-1] >= 119


@pytest.mark.slow
def test_a_joiner_with_other_move_data_is_refused_both_name_the_file_and_the_host_waits_on(tmp_path):
    other_main, assets = copy_program(tmp_path)
    moves = json.loads((assets / "moves.json").read_text())
    moves["_netplay_test"] = "a comment: the same game, other bytes"
    (assets / "moves.json").write_text(json.dumps(moves))
    host = start([*CPU, "--host", "127.0.0.1:0", "--p1", "cpu"], tmp_path)
    port = host_port(host)
    join = start([*CPU, "--join", f"127.0.0.1:{port}", "--p2", "cpu"], tmp_path, main=other_main)
    js, _, jerr = finish(join, 60)
    assert js == Reason.REFUSED.status == 5, jerr
    host_line = wait_for(host, "a joiner was refused")[-1]
    assert host.poll() is None and "still waiting for an opponent" in host_line     # anyone may send a Hello
    host.send_signal(signal.SIGINT)
    hs, _, herr = finish(host, 60)
    assert hs == Reason.SIGINT.status and herr.strip() == "main.py: interrupted (SIGINT)", herr
    join_line = jerr.strip().splitlines()[-1]
    assert "a joiner was refused: its assets/moves.json differs" in host_line
    assert "the host refused this game: its assets/moves.json differs" in join_line
    assert "fighters.json" not in join_line + host_line and "Traceback" not in jerr + herr


@pytest.mark.parametrize("args, words", [
    (["--host", "--join", "h"], ["--host and --join"]),
    (["--host"], ["--host", "add --headless"]),
    (["--headless", "--host", "70000"], ["--host", "0 to 65535"]),
    (["--headless", "--host", "seven"], ["--host", "whole number"]),
    (["--headless", "--host", ":7000"], ["--host", "ADDRESS:PORT"]),
    (["--headless", "--join", ":7000"], ["--join", "HOST"]),
    (["--headless", "--join", "h:0"], ["--join", "1 to 65535"]),
    (["--headless", "--host", "--input-delay", "9"], ["--input-delay", "0 to 8"]),
    (["--headless", "--host", "--max-rollback", "0"], ["--max-rollback", "1 to 16"]),
    (["--headless", "--host", "--max-rollback", "17"], ["--max-rollback", "from 1 to 16, got 17"]),
    (["--headless", "--host", "--max-rollback", "-3"], ["--max-rollback", "from 1 to 16, got -3"]),
    (["--headless", "--host", "--net-timeout", "0"], ["--net-timeout", "0.5 to 600"]),
    (["--headless", "--host", "--net-timeout", "nan"], ["--net-timeout", "0.5 to 600"]),
    (["--headless", "--host", "--net-timeout", "soon"], ["--net-timeout", "'soon'"]),
    (["--headless", "--input-delay", "3"], ["--input-delay", "--host or --join"]),
    (["--headless", "--realtime"], ["--realtime", "--host or --join"]),
    (["--headless", "--host", "--p2", "cpu"], ["--p2", "opponent"]),
    (["--headless", "--join", "h", "--p1", "cpu"], ["--p1", "opponent"]),
    (["--headless", "--join", "h", "--seed", "3"], ["--join", "--seed"]),
    (["--headless", "--host", "--level", "hard"], ["--level", "--p1 cpu"]),
    (["--headless", "--host", "--replay", "x.rpl"], ["--replay", "--host"]),
    (["--headless", "--join", "h", "--sync-test", "2"], ["--sync-test", "--join"]),
])
def test_bad_netplay_flags_exit_2_with_one_line(args, words, capsys):
    assert app.main(args) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)


@pytest.mark.slow
def test_a_port_in_use_exits_2_naming_it(tmp_path):
    from game.online.udp import UdpLink

    taken = UdpLink(("127.0.0.1", 0))
    try:
        p = run_main(["--headless", "--host", f"127.0.0.1:{taken.address[1]}"], cwd=tmp_path)
    finally:
        taken.close()
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    assert f"--host: cannot listen on UDP 127.0.0.1:{taken.address[1]}: the port is in use" in p.stderr


@pytest.mark.slow
def test_a_match_without_record_is_kept_in_the_data_folder_on_both_sides(tmp_path):
    """Every netplay match is recorded (issue: nothing lost): with no ``--record`` each side
    saves its replay of the confirmed match in ``$XDG_DATA_HOME/rangebox/replays``, says where,
    and the two files are the same bytes and play back to the hash both printed."""
    data = {"XDG_DATA_HOME": str(tmp_path / "data")}
    host = start([*CPU, "--host", "127.0.0.1:0", "--p1", "cpu", "--frames", "240"], tmp_path, env=data)
    port = host_port(host)
    join = start([*CPU, "--join", f"127.0.0.1:{port}", "--p2", "cpu", "--frames", "240"], tmp_path, env=data)
    (hs, hout, herr), (js, jout, jerr) = finish(host), finish(join)
    assert hs == js == 0, (herr, jerr)
    folder = tmp_path / "data" / "rangebox" / "replays"
    files = sorted(folder.glob("netplay-*.rpl"))
    assert [f.name[-7:] for f in files] == ["-p1.rpl", "-p2.rpl"], files
    assert files[0].read_bytes() == files[1].read_bytes()
    assert str(files[0]) in herr and str(files[1]) in jerr, (herr, jerr)
    played = play_back(files[1], tmp_path)
    assert played["final_hash"] == json.loads(hout)["state_hash"] == json.loads(jout)["state_hash"]
    assert played["frames"] == 240
