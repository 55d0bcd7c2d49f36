"""A player's link through a server's room: the netplay datagrams inside Relays.

:class:`RoomLink` stands where a :class:`~game.online.udp.UdpLink` stands for a
:class:`~game.online.netmatch.NetMatch` (the same ``receive`` / ``send`` / ``wait`` / ``counts``
/ ``address`` / ``close``), so the player's rollback session runs unchanged through a server
(``docs/netplay.md``, "The server"):

- ``send``: a netplay datagram (magic ``RN``) for the server goes out inside a Relay carrying
  the room's token (:attr:`~game.net.room_client.RoomJoin.token`); the RoomJoin's own Joins
  go as they are;
- ``receive``: from the server, a Relay with our token gives its payload, as if the opponent
  had sent it from the server's address; a RoomEnd with our token is kept in
  :attr:`RoomLink.room_end` (the NetMatch ends on it); anything else from the server (its
  answers to the Join) is handed on as it is, for the RoomJoin, until the match starts; a
  datagram from any other address is dropped and counted in :attr:`RoomLink.strangers`.
"""

from __future__ import annotations

from game.net import room_protocol as wire
from game.net.protocol import MAGIC as NETPLAY_MAGIC
from game.net.room_client import RoomJoin, unwrap, wrap

from .udp import Address, LinkCounts, UdpLink

#: Bytes asked of each receive: one more than the largest server datagram.
RECV_BYTES = wire.MAX_DATAGRAM + 1


class RoomLink:
    """``udp`` (opened with ``recv_bytes=RECV_BYTES``) talking to the server ``join`` asks."""

    def __init__(self, udp: UdpLink, join: RoomJoin) -> None:
        self.udp, self.join = udp, join
        self.server: Address = join.server      # type: ignore[assignment]   # the resolved (ip, port)
        #: The server's verdict on the match, once one came (None before).
        self.room_end: wire.RoomEnd | None = None
        #: Datagrams dropped: from another address than the server's; the server's answers to
        #: the Join after the match started.
        self.strangers = self.late = 0

    @property
    def address(self) -> Address:
        return self.udp.address

    @property
    def counts(self) -> LinkCounts:
        return self.udp.counts

    def receive(self) -> list[tuple[bytes, Address]]:
        out: list[tuple[bytes, Address]] = []
        token = self.join.token
        for data, addr in self.udp.receive():
            if addr != self.server:
                self.strangers += 1
                continue
            msg = unwrap(data, token)
            if isinstance(msg, wire.Relay):
                out.append((msg.payload, addr))
            elif isinstance(msg, wire.RoomEnd):
                if self.room_end is None:
                    self.room_end = msg
            elif self.join.result is None:
                out.append((data, addr))        # the Join's answers (a Joined, a Refused)
            else:
                self.late += 1                  # a repeated Joined once agreed: nothing to do
        return out

    def send(self, data: bytes, addr: Address) -> bool:
        if data[:2] == NETPLAY_MAGIC and self.join.token:
            data = wrap(data, self.join.token)
        return self.udp.send(data, self.server)

    def leave(self, reason: int = 0) -> None:
        """Tell the server this client leaves its room (nothing before it had a place)."""
        data = self.join.leave(reason)
        if data:
            self.udp.send(data, self.server)

    def wait(self, timeout: float) -> bool:
        return self.udp.wait(timeout)

    def close(self) -> None:
        self.udp.close()
