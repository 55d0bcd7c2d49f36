"""game/online/udp.py: the link moves datagrams on the loopback address, bounds every receive
(bytes a datagram, datagrams a drain), counts the socket's errors instead of raising them, and
says what to do when it cannot open its socket."""

from __future__ import annotations

import socket

import pytest

from game.net.protocol import MAX_DATAGRAM
from game.online.udp import RECV_BYTES, LinkError, UdpLink, is_loopback, resolve

LOOPBACK = ("127.0.0.1", 0)


@pytest.fixture
def pair():
    a, b = UdpLink(LOOPBACK), UdpLink(LOOPBACK)
    yield a, b
    a.close()
    b.close()


def test_a_datagram_crosses_with_its_senders_address(pair):
    a, b = pair
    assert b.address[0] == "127.0.0.1" and b.address[1] > 0          # port 0: the system picked one
    assert a.send(b"hello", b.address)
    assert b.wait(1.0)
    assert b.receive() == [(b"hello", a.address)]
    assert b.receive() == []                                          # drained: nothing waits, no block
    assert a.counts.sent == 1 and b.counts.received == 1


def test_a_drain_takes_at_most_max_drain_datagrams_in_order(pair):
    a, _ = pair
    b = UdpLink(LOOPBACK, max_drain=4)
    for i in range(10):
        a.send(bytes([i]), b.address)
    b.wait(1.0)
    got = [b.receive() for _ in range(4)]
    b.close()
    assert [len(g) for g in got] == [4, 4, 2, 0]
    assert [d[0] for g in got for d, _ in g] == list(range(10))


def test_an_oversized_datagram_arrives_cut_to_one_byte_past_the_largest_valid(pair):
    a, b = pair
    a.send(bytes(4000), b.address)
    b.wait(1.0)
    (data, _), = b.receive()
    assert len(data) == RECV_BYTES == MAX_DATAGRAM + 1                # the parser refuses it by its size


class _RefusingSocket:
    """A socket whose first recvfrom reports an ICMP port unreachable, as Linux does on the next
    receive of a connected UDP socket (and Windows of any)."""

    def __init__(self, real):
        self.real, self.calls = real, 0

    def recvfrom(self, n):
        self.calls += 1
        if self.calls == 1:
            raise ConnectionRefusedError(111, "Connection refused")
        return self.real.recvfrom(n)

    def sendto(self, data, addr):
        raise ConnectionRefusedError(111, "Connection refused")

    def close(self):
        self.real.close()


def test_a_refused_port_is_counted_and_the_drain_goes_on(pair):
    a, b = pair
    a.send(b"after", b.address)
    b.wait(1.0)
    b._sock = _RefusingSocket(b._sock)
    assert b.receive() == [(b"after", a.address)]                     # the datagram behind the error still comes
    assert not b.send(b"x", a.address)
    assert b.counts.refused == 2 and b.counts.sent == 0


def test_a_port_in_use_is_one_line_naming_it():
    taken = UdpLink(LOOPBACK)
    try:
        with pytest.raises(LinkError, match=rf"UDP 127.0.0.1:{taken.address[1]}: the port is in use"):
            UdpLink(taken.address)
    finally:
        taken.close()


def test_an_address_this_machine_has_not_is_refused_with_the_fix():
    with pytest.raises(LinkError, match="no such address"):
        UdpLink(("192.0.2.1", 0))                                      # TEST-NET-1: never a local address


def test_resolve_gives_an_ipv4_address_and_names_a_host_it_cannot_find():
    assert resolve("127.0.0.1", 7000) == ("127.0.0.1", 7000)
    assert is_loopback(resolve("localhost", 7000)[0])
    with pytest.raises(LinkError, match="no-such-host.invalid: cannot find this host"):
        resolve("no-such-host.invalid", 7000)


def test_wait_returns_false_when_nothing_comes(pair):
    _, b = pair
    assert not b.wait(0.0)
    assert isinstance(b._sock, socket.socket)
