"""Online play over a real network: the socket, the settings digest, and the match loop.

``game/net`` is the pure logic (datagrams in and out, no socket, no clock); this package is
what connects it to the machine:

* :mod:`.udp`: :class:`UdpLink`, a non-blocking UDP socket, drained each frame, its errors counted;
* :mod:`.digest`: the handshake's digest of the game version, the move and fighter data and the
  arena's files, part by part;
* :mod:`.netmatch`: :class:`NetMatch`, one side of a match: link, handshake, session, the live
  and the confirmed match, the local CPU; ``tick(now, local_bits)`` once per frame.
* :mod:`.spectate`: :class:`Spectator`, a server room's match watched from its confirmed inputs
  (join, session, the match stepped once per frame); ``tick(now)``.

The command line's headless netplay (``game/cli/netplay.py``) ticks a NetMatch as fast as the
session allows (or at 60 Hz with ``--realtime``); ``docs/netplay.md`` ("Playing over UDP").
"""
