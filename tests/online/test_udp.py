"""game/online/udp.py: the link moves datagrams on the loopback address (127.0.0.1 and ::1),
bounds every receive (bytes a datagram, datagrams a drain), counts the socket's errors instead
of raising them, says what to do when it cannot open its socket, and on every address listens
dual-stack (IPv4 peers seen as ``::ffff:127.0.0.1``)."""

from __future__ import annotations

import errno
import socket

import pytest

from game.net.protocol import MAX_DATAGRAM
from game.online.address import EVERY_ADDRESS
from game.online.udp import RECV_BYTES, LinkError, UdpLink, client_bind, is_loopback, resolve

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


# ----------------------------------------------------------------- IPv6 and dual stack (::1 only)
def test_a_link_on_the_ipv6_loopback_is_an_ipv6_socket_and_a_datagram_crosses_with_its_senders_address():
    a, b = UdpLink(("::1", 0)), UdpLink(("::1", 0))
    try:
        assert a.family == socket.AF_INET6 and b.address[0] == "::1" and len(b.address) == 2
        assert a.send(b"hello", b.address) and b.wait(1.0)
        assert b.receive() == [(b"hello", a.address)]                  # (host, port): the same tuple each time
    finally:
        a.close()
        b.close()


def test_every_address_is_one_dual_stack_socket_reached_over_127_0_0_1_and_the_ipv6_loopback():
    server = UdpLink((EVERY_ADDRESS, 0))
    v4, v6 = UdpLink(LOOPBACK), UdpLink(("::1", 0))
    try:
        assert server.family == socket.AF_INET6 and server.address[0] == "::"
        port = server.address[1]
        v4.send(b"four", ("127.0.0.1", port))
        v6.send(b"six", ("::1", port))
        got: list = []
        while len(got) < 2 and server.wait(1.0):
            got += server.receive()
        assert sorted(got) == sorted([(b"four", ("::ffff:127.0.0.1", v4.address[1])), (b"six", v6.address)])
        for data, addr in got:                                          # answered at the address it came from
            server.send(data, addr)
        assert v4.wait(1.0) and v4.receive() == [(b"four", ("127.0.0.1", port))]
        assert v6.wait(1.0) and v6.receive() == [(b"six", ("::1", port))]
    finally:
        for link in (server, v4, v6):
            link.close()


def test_a_client_binds_the_family_and_loopback_of_its_remote():
    assert client_bind(("::1", 7000)) == ("::1", 0)
    assert client_bind(("2001:db8::5", 7000)) == ("::", 0)
    assert client_bind(("::ffff:127.0.0.1", 7000)) == ("::", 0)          # an IPv4 peer written as IPv6
    assert client_bind(("127.0.0.1", 7000)) == ("127.0.0.1", 0)
    assert client_bind(("203.0.113.5", 7000)) == ("0.0.0.0", 0)


def test_resolve_gives_an_ipv6_address_as_the_link_receives_it():
    assert resolve("::1", 7100) == ("::1", 7100)
    assert resolve("0:0:0:0:0:0:0:1", 7100) == ("::1", 7100)           # the one spelling recvfrom gives


def test_an_ipv6_port_in_use_or_a_name_that_does_not_resolve_is_one_line_with_brackets():
    taken = UdpLink(("::1", 0))
    try:
        with pytest.raises(LinkError, match=rf"UDP \[::1\]:{taken.address[1]}: the port is in use"):
            UdpLink(taken.address)
    finally:
        taken.close()
    with pytest.raises(LinkError, match="no-such-host.invalid: cannot find this host"):
        UdpLink(("no-such-host.invalid", 0))


def test_every_address_falls_back_to_every_ipv4_address_where_the_system_has_no_ipv6(monkeypatch):
    real = socket.socket

    def no_ipv6(family=socket.AF_INET, *args, **kw):
        if family == socket.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")
        return real(family, *args, **kw)

    monkeypatch.setattr(socket, "socket", no_ipv6)
    link = UdpLink((EVERY_ADDRESS, 0))
    try:
        assert link.family == socket.AF_INET and link.address[0] == "0.0.0.0"
    finally:
        link.close()
    with pytest.raises(LinkError, match=r"UDP \[::1\]:0: this machine has no IPv6; give an IPv4 address"):
        UdpLink(("::1", 0))
