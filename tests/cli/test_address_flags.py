"""The address flags (``--host``, ``--join``, ``--server``, ``--spectate``): IPv4 addresses and
names as ``HOST[:PORT]``, IPv6 addresses in brackets (``[::1]:7100``) or bare (no port part),
the bad forms exit 2 with one line naming the flag and the form to write (a headless match over
``::1``: ``tests/cli/test_netplay.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clihelp import assert_one_line
from game.cli import app
from game.cli.parser import NET_PORT, SERVER_PORT, build_parser
from game.online.address import EVERY_ADDRESS

#: The remote flags and their default ports.
REMOTE = [("--join", NET_PORT), ("--server", SERVER_PORT), ("--spectate", SERVER_PORT)]
IPV6 = st.ip_addresses(v=6).flatmap(lambda ip: st.sampled_from([ip.compressed, ip.exploded]))
FEW = settings(max_examples=20)


def _parsed(flag: str, text: str) -> tuple[str, int]:
    return getattr(build_parser().parse_args([flag, text]), flag[2:])


@FEW
@given(st.sampled_from(REMOTE), IPV6, st.integers(1, 65535))
def test_a_remote_ipv6_address_in_brackets_with_or_without_a_port_or_bare_is_that_address(remote, host, port):
    flag, default = remote
    assert _parsed(flag, f"[{host}]:{port}") == (host, port)
    assert _parsed(flag, f"[{host}]") == (host, default)
    assert _parsed(flag, host) == (host, default)                     # a bare IPv6 address has no port part


@FEW
@given(st.sampled_from(REMOTE), st.ip_addresses(v=4).map(str), st.integers(1, 65535))
def test_a_remote_ipv4_address_keeps_its_host_colon_port_form(remote, host, port):
    flag, default = remote
    assert _parsed(flag, f"{host}:{port}") == (host, port)
    assert _parsed(flag, host) == (host, default)


@pytest.mark.parametrize("text, address", [
    ("7001", (EVERY_ADDRESS, 7001)), ("0", (EVERY_ADDRESS, 0)),                 # every address, IPv6 and IPv4
    ("127.0.0.1:0", ("127.0.0.1", 0)), ("[::1]:0", ("::1", 0)), ("[::]:7002", ("::", 7002)),
    ("::1", ("::1", NET_PORT)), ("[::1]", ("::1", NET_PORT)), ("127.0.0.1", ("127.0.0.1", NET_PORT)),
    ("localhost:7003", ("localhost", 7003)),
])
def test_host_takes_a_port_an_ipv4_or_ipv6_address_and_port_or_an_address_alone(text, address):
    assert _parsed("--host", text) == address


@pytest.mark.parametrize("args, words", [
    (["--join", "[::1"], ["--join [::1:", "closing ']'", "[::1]:7100"]),
    (["--join", "[::1]x"], ["--join [::1]x:", "'x' after ']'"]),
    (["--server", "[::1]:70000"], ["--server", "1 to 65535, got 70000"]),
    (["--spectate", "[::1]:", "--room", "a"], ["--spectate", "whole number, got ''"]),
    (["--join", "[example.org]:7000"], ["--join", "not an IPv6 address"]),
    (["--join", "1:2:3"], ["--join 1:2:3", "not an IPv6 address", "[ADDRESS]:PORT"]),
    (["--join", "[]"], ["--join []", "not an IPv6 address"]),
    (["--host", "[::1]:x"], ["--host", "whole number, got 'x'"]),
    (["--host", "[::1"], ["--host [::1:", "closing ']'"]),
    (["--host", "::1]:7000"], ["--host", "']' with no '['"]),
])
def test_a_bad_address_exits_2_with_one_line_naming_the_flag_and_the_fix(args, words, capsys):
    assert app.main(["--headless", *args]) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)



def test_the_joining_line_names_the_address_used_and_the_name_it_resolved_from():
    from game.cli.netplay import named_address

    assert named_address(("::1", 7000), ("::1", 7000)) == "[::1]:7000"
    assert named_address(("127.0.0.1", 7000), ("127.0.0.1", 7000)) == "127.0.0.1:7000"
    assert named_address(("localhost", 7000), ("::1", 7000)) == "localhost ([::1]:7000)"
