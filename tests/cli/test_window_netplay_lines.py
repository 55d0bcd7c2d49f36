"""The waiting screen's line (game/cli/window_net.py): the host's port and an address to join,
the joiner's host; IPv6 addresses in brackets."""

from __future__ import annotations

from game.cli.parser import build_parser
from game.cli.window_net import address_hint, waiting_line


def test_the_host_names_its_port_and_the_address_it_was_bound_to():
    args = build_parser().parse_args(["--host", "192.168.1.20:7001"])
    assert waiting_line(args, ("192.168.1.20", 7001)) == \
        "Waiting on UDP port 7001   ·   join with --join 192.168.1.20:7001"


def test_a_host_on_every_address_names_one_of_this_machine_or_a_placeholder():
    hint = address_hint(("0.0.0.0", 7000))
    assert not hint.startswith("127.") and hint


def test_the_joiner_names_the_host_it_asks():
    args = build_parser().parse_args(["--join", "example.org:7005"])
    assert waiting_line(args, ("0.0.0.0", 40000)) == "Connecting to example.org:7005 ..."


def test_ipv6_addresses_are_named_in_brackets_on_the_waiting_screen():
    host = build_parser().parse_args(["--host", "[2001:db8::5]:7001"])
    assert waiting_line(host, ("2001:db8::5", 7001)) == \
        "Waiting on UDP port 7001   ·   join with --join [2001:db8::5]:7001"
    join = build_parser().parse_args(["--join", "::1"])
    assert waiting_line(join, ("::1", 40000)) == "Connecting to [::1]:7000 ..."
    server = build_parser().parse_args(["--server", "[2001:db8::5]", "--room", "dojo"])
    assert waiting_line(server, ("::", 40000)).startswith(
        "Room dojo on the server [2001:db8::5]:7100   ·   waiting for an opponent: --server [2001:db8::5]:7100")


def test_a_dual_stack_host_names_an_address_of_this_machine_not_a_loopback_one():
    hint = address_hint(("::", 7000))
    assert hint.endswith(":7000") and not hint.startswith(("127.", "[::1]"))
