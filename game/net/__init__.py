"""Online play's pure logic: no pyglet, no sockets, no clock (time is an argument).

By concept:

* :mod:`.protocol`: the datagrams (``struct`` layouts, checked parsing, ``ProtocolError``);
* :mod:`.handshake`: the joiner's Hello, the host's Welcome or Refuse (:class:`HostHandshake`,
  :class:`JoinHandshake`);
* :mod:`.requests`: what a session asks of the game (save, load, advance) and its events;
* :mod:`.inputqueue`: one side's inputs by frame;
* :mod:`.timesync`: the frame advantage and when to hold a frame;
* :mod:`.stats`: the figures of the network display and the refusal counters;
* :mod:`.session`: :class:`P2PSession`, rollback between one local and one remote player;
* :mod:`.runner`: :class:`MatchRunner`, the requests carried out on a match;
* :mod:`.synctest`: :class:`SyncTestSession`, a rollback every frame checked against the first run;
* :mod:`.cpu_player`: :class:`CpuPlayer`, a CPU that plays one side through its input bits;
* :mod:`.simnet`: :class:`SimNet`, a seeded simulated network for tests.
* :mod:`.spectator`: :class:`SpectatorSession`, a server room's match watched from its confirmed
  inputs (a fixed delay behind, never a rollback).

``docs/netplay.md`` describes the design and the datagram layouts.
"""
