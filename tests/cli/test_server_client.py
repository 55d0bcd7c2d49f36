"""``main.py --server HOST[:PORT] --room NAME``: its flags' checks (exit 2, one line), and two
headless CPU players in one room of a ``python3 -m game.server`` child: both exit 0 with the
same state, and their replays and the server's are the same bytes; the same on a server on
``::1`` with a spectator, every address printed in brackets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import assert_one_line
from game.cli import app
from game.cli.checks import check_net_flags
from game.cli.parser import build_parser
from game.replay import load_replay, play_replay
from serverhelp import server_child

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("args, words", [
    (["--headless", "--server", "h"], ["--server", "--room NAME"]),
    (["--headless", "--room", "dojo"], ["--room", "--server"]),
    (["--headless", "--name", "Kai"], ["--name", "--server"]),
    (["--headless", "--room-key", "tiger"], ["--room-key", "--server"]),
    (["--headless", "--server", "h", "--room", "a", "--room-key", ""], ["--room-key", "1 to 64"]),
    (["--headless", "--server", "h", "--join", "h", "--room", "a"], ["--join and --server"]),
    (["--headless", "--server", "h:0", "--room", "a"], ["--server", "1 to 65535"]),
    (["--headless", "--server", ":7100", "--room", "a"], ["--server", "HOST"]),
    (["--headless", "--server", "h", "--room", "a b"], ["--room", "A-Z"]),
    (["--headless", "--server", "h", "--room", "x" * 17], ["--room", "1 to 16"]),
    (["--headless", "--server", "h", "--room", "a", "--name", "é"], ["--name", "ASCII"]),
    (["--headless", "--server", "h", "--room", "a", "--p1", "cpu", "--p2", "cpu"], ["--p1", "--p2", "not both"]),
    (["--headless", "--server", "h", "--room", "a", "--level", "hard"], ["--level", "--p1 cpu"]),
    (["--headless", "--server", "h", "--room", "a", "--replay", "x.rpl"], ["--replay", "--server"]),
])
def test_bad_server_client_flags_exit_2_with_one_line(args, words, capsys):
    assert app.main(args) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)


@pytest.mark.parametrize("side", ["--p1", "--p2"])
def test_either_side_flag_lets_the_cpu_play_whichever_side_the_room_gives(side):
    args = build_parser().parse_args(["--server", "h", "--room", "a", side, "cpu", "--level", "hard"])
    check_net_flags(args)
    assert args.server == ("h", 7100) and args.p1 == "cpu" and args.p2 is None


@pytest.mark.slow
def test_two_headless_players_in_a_private_room_play_to_the_same_state_and_the_same_replay_as_the_servers(
        tmp_path):
    child, port = server_child(tmp_path / "server")
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    common = ["--server", f"127.0.0.1:{port}", "--room", "dojo", "--room-key", "tiger", "--headless", "--frames",
              "360"]
    try:
        a = subprocess.Popen([sys.executable, str(ROOT / "main.py"), *common, "--p1", "cpu", "--level", "hard",
                              "--name", "Kaito", "--record", str(tmp_path / "a.rpl")],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        b = subprocess.Popen([sys.executable, str(ROOT / "main.py"), *common, "--p2", "cpu",
                              "--record", str(tmp_path / "b.rpl")],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        outs = [p.communicate(timeout=120) for p in (a, b)]
    finally:
        child.terminate()
        child.wait(30)
    assert a.returncode == b.returncode == 0, outs
    assert "playing in room dojo on the server" in outs[0][1]
    ja, jb = (json.loads(o[0]) for o in outs)
    assert ja["frames"] == jb["frames"] == 360 and ja["state_hash"] == jb["state_hash"]
    assert {ja["player"], jb["player"]} == {1, 2}
    line = json.loads((tmp_path / "server" / "results.jsonl").read_text())
    assert line["state_hash"] == ja["state_hash"] and line["reason"] == "finished"
    assert "Kaito" in [p["name"] for p in line["players"]] and line["private"] is True
    server_replay = Path(line["replay"]).read_bytes()
    assert (tmp_path / "a.rpl").read_bytes() == (tmp_path / "b.rpl").read_bytes() == server_replay
    replay = load_replay(line["replay"])                # an online replay: checkpoints only, and it plays
    assert not replay.tagged and replay.interval == 30 and len(replay.checkpoints) == 12
    assert play_replay(replay)["final_hash"] == ja["state_hash"]


@pytest.mark.slow
def test_a_player_with_no_server_answering_exits_3_naming_the_server(tmp_path):
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    try:
        p = subprocess.run([sys.executable, str(ROOT / "main.py"), "--server", f"127.0.0.1:{port}", "--room", "x",
                            "--headless", "--net-timeout", "1"], cwd=tmp_path,
                           env=dict(os.environ, PYGLET_HEADLESS="1"), capture_output=True, text=True, timeout=60)
    finally:
        s.close()
    assert p.returncode == 3, p.stderr
    assert "no answer from the server" in p.stderr and "python3 -m game.server" in p.stderr


@pytest.mark.gl
@pytest.mark.slow
def test_a_window_plays_in_a_room_and_its_replay_is_the_servers(tmp_path):
    child, port = server_child(tmp_path / "server")
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    common = ["--server", f"127.0.0.1:{port}", "--room", "window", "--frames", "240"]
    try:
        win = subprocess.Popen([sys.executable, str(ROOT / "main.py"), *common, "--record", "win.rpl"],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        head = subprocess.Popen([sys.executable, str(ROOT / "main.py"), *common, "--headless", "--p2", "cpu",
                                 "--record", "head.rpl"],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, head_err = head.communicate(timeout=240)
        _, win_err = win.communicate(timeout=120)
    finally:
        for p in (locals().get("win"), locals().get("head")):
            if p is not None and p.poll() is None:
                p.kill()
        child.terminate()
        child.wait(30)
    assert head.returncode == 0, head_err
    assert win.returncode == 0, win_err
    assert "match played as P" in win_err and "saved to win.rpl (240 frames)" in win_err
    line = json.loads((tmp_path / "server" / "results.jsonl").read_text())
    assert (tmp_path / "win.rpl").read_bytes() == (tmp_path / "head.rpl").read_bytes() \
        == Path(line["replay"]).read_bytes()


@pytest.mark.slow
def test_a_server_on_the_ipv6_loopback_with_two_headless_players_and_a_spectator_prints_addresses_in_brackets(
        tmp_path):
    child = subprocess.Popen([sys.executable, "-m", "game.server", "--port", "0", "--bind", "::1", "--results",
                              str(tmp_path / "server"), "--status-every", "0"], cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), stderr=subprocess.PIPE, text=True)
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    try:
        first = child.stderr.readline()                         # type: ignore[union-attr]
        m = re.search(r"listening on UDP \[::1\]:(\d+);", first)
        assert m, first
        common = ["--server", f"[::1]:{m.group(1)}", "--room", "six", "--headless", "--frames", "240", "--realtime"]

        def run(*args):
            return subprocess.Popen([sys.executable, str(ROOT / "main.py"), *args], cwd=tmp_path, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        a = run(*common, "--p1", "cpu", "--level", "hard")
        assert "on the server [::1]:" in a.stderr.readline()    # type: ignore[union-attr]
        b = run(*common, "--p2", "cpu")
        assert "playing in room six" in a.stderr.readline()     # type: ignore[union-attr]
        spectator = run("--spectate", f"[::1]:{m.group(1)}", "--room", "six", "--headless")
        outs = [p.communicate(timeout=120) for p in (a, b, spectator)]
    finally:
        child.terminate()
        child.wait(30)
    assert a.returncode == b.returncode == spectator.returncode == 0, outs
    ja, jb, js = (json.loads(o[0]) for o in outs)
    assert ja["state_hash"] == jb["state_hash"] == js["state_hash"] and js["verdict"]["agrees"] is True
    assert re.search(r"joining room six on the server \[::1\]:\d+ as a spectator from UDP \[::1\]:\d+", outs[2][1])
    line = json.loads((tmp_path / "server" / "results.jsonl").read_text())
    assert line["state_hash"] == ja["state_hash"] and line["spectators"] == 1
    assert all(re.fullmatch(r"\[::1\]:\d+", p["address"]) for p in line["players"]), line["players"]
