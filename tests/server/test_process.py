"""``python3 -m game.server`` as a process: its flags (one line and exit 2 for a bad one), and
SIGTERM with rooms in play (every room's result and replay written, exit 143)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from clihelp import assert_one_line
from game.replay import decode, load_replay
from game.server.cli import main
from serverhelp import close, log_faults, play, recorded, room_player, server_child, stop_child

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("args, words", [
    (["--port", "70000"], ["--port", "0 to 65535"]),
    (["--port", "x"], ["--port", "'x'"]),
    (["--max-rooms", "0"], ["--max-rooms", "1 to"]),
    (["--rooms-per-ip", "0"], ["--rooms-per-ip", "1 to"]),
    (["--spectators-per-ip", "many"], ["--spectators-per-ip", "'many'"]),
    (["--room-timeout", "soon"], ["--room-timeout"]),
    (["--status-every", "-1"], ["--status-every"]),
    (["--what"], ["--what"]),
])
def test_bad_server_flags_exit_2_with_one_line(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)


def test_a_results_folder_that_cannot_be_made_exits_2_naming_it(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["--port", "0", "--bind", "127.0.0.1", "--results", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--results" in err


def _server_child(results: Path) -> tuple[subprocess.Popen, tuple[str, int]]:
    child, port = server_child(results, "0.5")
    return child, ("127.0.0.1", port)




@pytest.mark.slow
def test_sigterm_with_rooms_in_play_writes_every_rooms_result_and_replay_and_exits_143(tmp_path):
    child, address = _server_child(tmp_path)
    nets = []
    try:
        for room in ("east", "west"):
            nets += [room_player(address, room, timeout=3.0), room_player(address, room, level="normal", seed=9)]
        recs = [recorded(n) for n in nets]
        play([], nets, seconds=120, until=lambda: all(n.confirmed is not None for n in nets))
        started = time.monotonic()                      # both rooms in play: the next status line counts them
        play([], nets, seconds=120, until=lambda: all(n.confirmed.frame >= 150 for n in nets)
             and time.monotonic() - started > 1.2)      # past two status lines (every 0.5 s), however fast the run
        child.send_signal(signal.SIGTERM)
        code = child.wait(30)
        play([], nets, seconds=30)                          # the RoomEnd ends every player's match
    finally:
        err = stop_child(child)
        close([], nets)
        print(f"the server's log (its stderr):\n{err}")     # pytest shows it with any failure of this test
    faults = log_faults(err)
    if faults:                                              # the whole log, which an assert's message would cut
        pytest.fail(f"the server's log shows a fault ({faults[0].strip()}); its whole log:\n{err}", pytrace=False)
    assert code == 143 and "status: 2 rooms, 4 players" in err
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(x["room"] for x in lines) == ["east", "west"]
    for line in lines:
        assert line["reason"] == "shutdown" and line["frames"] >= 140
        replay = load_replay(line["replay"])
        assert replay.frames == line["frames"]
    for n, rec in zip(nets, recs):
        assert n.ending.kind == "disconnected" and "the server shut down" in n.ending.detail
        line = next(x for x in lines if x["room"] == n.link.join.room)
        mine = decode(rec[0].to_bytes())
        theirs = load_replay(line["replay"])
        k = min(mine.frames, theirs.frames)
        same_hashes = (mine.checkpoints[:k // 30] == theirs.checkpoints[:k // 30]).all()
        assert k >= 140 and (mine.inputs[:k] == theirs.inputs[:k]).all() and same_hashes


def test_the_status_line_names_rooms_players_packets_and_the_slowest_rooms_lag():
    from game.server.loop import status_line
    line = status_line({"rooms": 3, "players": 5, "ended": 0, "spectators": 2, "in": 10, "out": 9, "dropped": 1,
                        "lag": 4})
    assert line == ("status: 3 rooms, 5 players, 2 spectators; packets 10 in, 9 out, 1 dropped; "
                    "slowest room 4 frames behind")
    line = status_line({"rooms": 1, "players": 2, "ended": 1, "spectators": 1, "in": 1, "out": 1, "dropped": 0,
                        "lag": 1})
    assert line.startswith("status: 1 room (and 1 ended, closing), 2 players, 1 spectator;")
    assert line.endswith("slowest room 1 frame behind")


def test_the_status_counts_an_ended_room_apart_from_the_rooms_in_play():
    from game.server.server import RoomServer
    from serverhelp import RawClient, route
    srv = RoomServer()
    a, b = RawClient(srv, ("10.0.0.2", 4000)), RawClient(srv, ("10.0.0.3", 4000))
    for c in (a, b):
        c.join("dojo", frames=2)
    route(srv, [a, b])
    assert (srv.status()["rooms"], srv.status()["players"], srv.status()["ended"]) == (1, 2, 0)
    srv.rooms["dojo"].end("finished", 0, "over", 0.0)
    assert (srv.status()["rooms"], srv.status()["players"], srv.status()["ended"]) == (0, 0, 1)


@pytest.mark.slow
def test_shutdown_sends_each_players_room_end_three_times(tmp_path):
    """One lost RoomEnd would leave a player waiting out its timeout for a server that is gone."""
    import socket

    from game.net import room_protocol as wire
    from serverhelp import DIGEST, start_server

    loop = start_server(tmp_path)
    socks = []
    try:
        for nonce in (1, 2):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            s.settimeout(2.0)
            s.sendto(wire.encode(wire.Join(nonce, 0, "dojo", "", DIGEST, 5, 3, 60), 0), loop.address)
            socks.append(s)
        loop.step(0.0)
        for s in socks:
            while not (isinstance(m := wire.parse(s.recv(700))[1], wire.Joined) and m.ready):
                pass
        loop.shutdown(0.1)
        for s in socks:
            ends = []
            s.settimeout(0.5)
            try:
                while True:
                    ends.append(wire.parse(s.recv(700))[1])
            except TimeoutError:
                pass
            assert [wire.ENDINGS[e.reason] for e in ends if isinstance(e, wire.RoomEnd)] == ["shutdown"] * 3
    finally:
        for s in socks:
            s.close()
        loop.close()
