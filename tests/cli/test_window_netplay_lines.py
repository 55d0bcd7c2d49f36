"""The waiting screen's line (game/cli/window_net.py): the host's port and an address to join,
the joiner's host."""

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
