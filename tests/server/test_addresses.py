"""The server over IPv6: players and spectators at IPv6 addresses (the socket's 4-tuples too),
the per-IP limits counting an IPv6 client by its /64 and an IPv4-mapped one as its IPv4
address, addresses printed in brackets in the log and the results, ``--bind`` taking an IPv6
address; and whole matches in the test's process on ``::1`` and on a dual-stack server reached
over 127.0.0.1 and ::1 in one room."""

from __future__ import annotations

import json
import logging
import re

import pytest

from clihelp import assert_one_line
from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.server.cli import build_parser, main
from game.server.results import ResultWriter
from game.server.server import RoomServer, ServerOptions
from serverhelp import RawClient, close, play, room_player, route, start_server


def _refusal(client: RawClient) -> str | None:
    found = [m for _, m in client.got if isinstance(m, wire.Refused)]
    return wire.REFUSALS[found[-1].reason] if found else None


def _last(client: RawClient, kind):
    found = [m for _, m in client.got if isinstance(m, kind)]
    return found[-1] if found else None


@pytest.mark.slow
def test_a_room_of_ipv6_socket_addresses_relays_binds_tokens_and_writes_bracketed_addresses(tmp_path, caplog):
    """Players at the 4-tuples an IPv6 recvfrom gives: their tokens are bound to those
    addresses (another port of the same host is refused), inputs are relayed, and the log and
    the result line print each address as ``[host]:port``."""
    writer = ResultWriter(tmp_path)
    srv = RoomServer(ServerOptions(report_wait=0), sink=lambda room, started: writer.write(room, started, started))
    a, b = RawClient(srv, ("2001:db8::2", 4000, 0, 0)), RawClient(srv, ("2001:db8:9::3", 4001, 0, 0))
    with caplog.at_level(logging.INFO, logger="rangebox.server"):
        a.join("v6", frames=3)
        b.join("v6", frames=3)
        route(srv, [a, b])
    assert "room v6 created by [2001:db8::2]:4000" in caplog.text
    assert "P1 [2001:db8::2]:4000 against P2 [2001:db8:9::3]:4001" in caplog.text
    a.inputs(0, [1, 2, 3], addr=("2001:db8::2", 4002, 0, 0))          # the right token from another port
    route(srv, [a, b])
    assert _last(b, wire.Relay) is None and srv.dropped["token"] == 1
    a.inputs(0, [1, 2, 3])
    route(srv, [a, b])
    relayed = _last(b, wire.Relay)
    assert relayed is not None and netwire.parse(relayed.payload, b.key)[1].bits == (1, 2, 3)
    b.inputs(0, [4, 4, 4])
    route(srv, [a, b], 0.1)
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["reason"] == "finished" and line["frames"] == 3
    assert [p["address"] for p in line["players"]] == ["[2001:db8::2]:4000", "[2001:db8:9::3]:4001"]
    assert [p["name"] for p in line["players"]] == ["[2001:db8::2]:4000", "[2001:db8:9::3]:4001"]


def test_one_ipv6_slash_64_holds_at_most_rooms_per_ip_seats_and_another_slash_64_still_gets_a_room():
    srv = RoomServer(ServerOptions(rooms_per_ip=3, waiting_per_ip=8, report_wait=0))
    one_net = [RawClient(srv, (f"2001:db8:1:2::{k + 1:x}", 5000 + k), nonce=k + 1) for k in range(4)]
    for k, c in enumerate(one_net):                     # four hosts of one /64: one home, three rooms
        c.join(f"r{k}")
    other = RawClient(srv, ("2001:db8:1:3::1", 5000))
    other.join("theirs")
    route(srv, [*one_net, other])
    assert [_refusal(c) for c in one_net] == [None, None, None, "network"] and _refusal(other) is None


def test_an_ipv4_mapped_client_counts_as_its_ipv4_address_for_the_per_ip_limits():
    srv = RoomServer(ServerOptions(rooms_per_ip=2, waiting_per_ip=8, report_wait=0))
    plain = RawClient(srv, ("10.0.7.7", 5000), nonce=1)
    mapped = RawClient(srv, ("::ffff:10.0.7.7", 5001), nonce=2)     # the same host through a dual-stack socket
    third = RawClient(srv, ("::ffff:10.0.7.7", 5002), nonce=3)
    for k, c in enumerate((plain, mapped, third)):
        c.join(f"m{k}")
    route(srv, [plain, mapped, third])
    assert [_refusal(c) for c in (plain, mapped, third)] == [None, None, "network"]


def test_a_rooms_spectators_per_ip_count_ipv6_hosts_of_one_slash_64_together():
    from game.server.spectators import SpectatorFeed

    srv = RoomServer(ServerOptions(spectators_per_ip=2, report_wait=0), make_feed=SpectatorFeed)
    a, b = RawClient(srv, ("2001:db8::2", 4000)), RawClient(srv, ("2001:db8:9::3", 4000))
    a.join("dojo")
    b.join("dojo")
    crowd = [RawClient(srv, (f"2001:db8:5:5::{k + 1}", 6000, 0, 0), nonce=k + 1) for k in range(3)]
    elsewhere = RawClient(srv, ("2001:db8:5:6::1", 6000, 0, 0))
    for c in (*crowd, elsewhere):
        c.join("dojo", role=1)
    route(srv, [a, b, *crowd, elsewhere])
    assert [_refusal(c) for c in crowd] == [None, None, "network"] and _refusal(elsewhere) is None
    assert len(srv.rooms["dojo"].spectators) == 3


@pytest.mark.parametrize("text, host", [("::1", "::1"), ("[::1]", "::1"), ("127.0.0.1", "127.0.0.1"),
                                        ("2001:db8::5", "2001:db8::5")])
def test_bind_takes_an_ipv4_or_ipv6_address_and_defaults_to_every_address(text, host):
    assert build_parser().parse_args(["--bind", text]).bind == host
    assert build_parser().parse_args([]).bind == ""                  # every address: dual-stack


@pytest.mark.parametrize("text, words", [
    ("[::1]:7100", ["--bind [::1]:7100", "the port is --port's"]),
    ("127.0.0.1:7100", ["--bind 127.0.0.1:7100", "the port is --port's"]),
    ("[::1", ["--bind [::1", "closing ']'"]),
    ("1:2:3", ["--bind 1:2:3", "not an IPv6 address"]),
])
def test_a_bad_bind_exits_2_with_one_line_naming_it(text, words, capsys):
    assert main(["--bind", text, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)


@pytest.mark.slow
def test_two_players_and_a_spectator_on_the_ipv6_loopback_agree_and_the_result_prints_brackets(tmp_path):
    from game.online.spectate import SpectateOptions, Spectator

    srv = start_server(tmp_path, bind="::1")
    assert srv.address[0] == "::1"
    a = room_player(srv.address, "six", frames=240, name="Kaito")
    b = room_player(srv.address, "six", frames=240, level="normal", seed=9)
    spec: list[Spectator] = []

    def each(now: float) -> None:
        if not spec and a.state == "playing":
            spec.append(Spectator.open(srv.address, "six", SpectateOptions(delay=10), now))
        for sp in spec:
            sp.tick(now)

    try:
        play([srv], [a, b], seconds=60, each=each, until=lambda: a.state == b.state == "ended" and spec
             and spec[0].state == "ended" and not srv.server.rooms)
    finally:
        close([srv], [a, b])
        for sp in spec:
            sp.link.close()
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["reason"] == "finished" and line["frames"] == 240 and line["spectators"] == 1
    assert line["state_hash"] == a.confirmed.state_hash() == b.confirmed.state_hash() == spec[0].match.state_hash()
    assert spec[0].ending.agrees is True
    p1, p2 = line["players"]
    assert p1["name"] == "Kaito" and p1["address"] == f"[::1]:{a.link.address[1]}"
    assert p2["address"] == p2["name"] == f"[::1]:{b.link.address[1]}"


@pytest.mark.slow
def test_a_dual_stack_server_seats_an_ipv4_and_an_ipv6_player_in_one_room(tmp_path):
    srv = start_server(tmp_path, bind="")                          # every address: one dual-stack socket
    assert srv.address[0] == "::"
    port = srv.address[1]
    a = room_player(("127.0.0.1", port), "both", frames=180)
    b = room_player(("::1", port), "both", frames=180, level="normal")
    try:
        play([srv], [a, b], seconds=60, until=lambda: a.state == b.state == "ended" and not srv.server.rooms)
    finally:
        close([srv], [a, b])
    assert a.ending.kind == b.ending.kind == "finished"
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["reason"] == "finished" and line["state_hash"] == a.confirmed.state_hash() == b.confirmed.state_hash()
    assert [p["address"] for p in line["players"]] == [f"[::ffff:127.0.0.1]:{a.link.address[1]}",
                                                       f"[::1]:{b.link.address[1]}"]
    assert re.fullmatch(r"\[::1\]:\d+", line["players"][1]["name"])
