"""The datagrams between a client and a Rangebox server's rooms (``docs/netplay.md``, "The server").

Through a server, the two players' rollback sessions run unchanged: each sends its netplay
datagrams (:mod:`.protocol`) to the server inside a :class:`Relay`, and the server passes them
on to the other player inside another.  Around that, a client joins a room (:class:`Join`,
answered by :class:`Joined` or :class:`Refused`), a spectator receives the room's confirmed
inputs (:class:`Confirmed`, acknowledged by :class:`SpectatorAck`), and the server says how a
match ended (:class:`RoomEnd`).  A client leaves with :class:`Leave`.

Every datagram is little-endian ``struct`` data: a 16-byte header (magic ``b"RS"``, protocol
version, message type, the *token*, a CRC-32 of the rest), then the message's fields.  The token
is the 64-bit number the server drew for that client when it joined (0 in a Join and a Refused,
which come before one): the server drops any later datagram whose token is not the one it gave
to the sender's address, so one client cannot speak for another.  The server's own datagrams carry
the receiver's token, so a client can tell them from a stranger's.  A :class:`Relay` is its fixed
part plus its payload (at most :data:`~.protocol.MAX_DATAGRAM` bytes), a :class:`Confirmed` its
fixed part plus ``count`` runs; every other message has one size.  :func:`parse` checks the
magic, version, type, check value, size and every field's range, and raises
:class:`~.protocol.ProtocolError` (with a short ``reason`` to count) for anything else; it never
allocates more than the datagram's own bytes.  The payload of a Relay is parsed by the receiver
with :func:`.protocol.parse` and the room's key.
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from typing import NamedTuple

from game.sim.rounds import MATCH_ROUNDS

from . import protocol as netwire
from .protocol import ProtocolError

MAGIC = b"RS"
#: Bumped whenever a layout or a message's meaning changes; a server refuses another version.
VERSION = 2
#: No datagram is larger: a Relay of the largest netplay datagram fits.
MAX_DATAGRAM = 600
#: At most this many frames in one Confirmed datagram, in at most MAX_RUNS runs of one pair
#: held (:func:`confirmed_prefix` takes as many as fit).
MAX_CONFIRMED = 240
#: A room's name: 1 to 16 of these characters (ASCII, so its bytes are its characters).
ROOM_NAME = re.compile(r"[A-Za-z0-9._-]{1,16}")
#: A player's name: up to 16 printable ASCII characters (empty: the server names it by address).
PLAYER_NAME = re.compile(r"[ -~]{0,16}")
#: A Joined's ``side`` for a spectator.
NO_SIDE = 255

HEADER = struct.Struct("<2sBBQI")           # magic, version, type, token, check
#: A Join's ``secret``: bytes of :func:`room_secret` (all zeros: a public room).
SECRET_BYTES = 16

#: What a client asks for in a Join, by index.
ROLES = ("play", "spectate", "play or spectate")
#: A Refused's reasons, by index: the room has two players; its game differs (digest); the
#: settings asked for are impossible; the server holds its most rooms; too many datagrams from
#: this address; the room's match is over; the room's spectator places are taken; the name; the
#: sender's address already holds a place (in this room or another) under another Join; the
#: sender's IP address holds as many seats, or spectator places of this room, as it may; the
#: room is private and the Join's secret is not its.
REFUSALS = ("full", "digest", "settings", "rooms", "rate", "ended", "spectators", "name", "address", "network",
            "key")
#: A RoomEnd's reasons, by index: the match reached its end (a K.O. or time over decided it);
#: a player left or fell silent; the referee found a player's state differs from its own; the
#: room failed on the server; the server shut down; nobody came back to the room.
ENDINGS = ("finished", "disconnect", "desync", "error", "shutdown", "expired")
#: A RoomEnd's ``winner`` when the match has none (a draw, or it ended early).
NO_WINNER = 255


def room_secret(room: str, key: str) -> bytes:
    """A Join's ``secret`` for ``room`` with the players' shared ``key`` ("" : a public room, all
    zeros): the first 16 bytes of a SHA-256 of both, so the key itself never travels and one
    room's secret opens no other room."""
    if not key:
        return bytes(SECRET_BYTES)
    return hashlib.sha256(b"rangebox room key\0" + room.encode("utf-8") + b"\0" + key.encode("utf-8")).digest()[
        :SECRET_BYTES]


class Join(NamedTuple):
    """A client asks for a place in a room (type 1, token 0).  It repeats the Join until the
    answer comes; the server answers a repeat with the same token."""

    nonce: int            # u32: a random number the answer echoes (tells this Join's answer from a stale one)
    role: int             # u8: index in ROLES
    room: str             # 16 bytes on the wire, NUL-padded: the room's name (ROOM_NAME)
    name: str             # 16 bytes, NUL-padded: the player's name (PLAYER_NAME), for the results
    digest: bytes         # 32 bytes: of everything that decides the simulation (handshake.settings_digest)
    seed: int             # u64: the match's seed, if this client makes the room
    rounds: int           # u8: best of this many rounds, if this client makes the room
    timer: int            # u8: seconds a round lasts, if this client makes the room
    frames: int = 0       # u32: the match stops at this frame, if this client makes the room (0: at its end)
    secret: bytes = bytes(SECRET_BYTES)     # 16 bytes: room_secret(room, key) of a private room; zeros: public


class Joined(NamedTuple):
    """The server gives a place (type 2; the header's token is the client's from now on).  A
    player is sent one with ``ready`` 0 while the room waits for its opponent, and one with
    ``ready`` 1 when the match starts; the settings are the room's (its first player's)."""

    nonce: int            # u32: the Join's nonce
    role: int             # u8: 0 a player, 1 a spectator
    side: int             # u8: 0 P1, 1 P2, NO_SIDE for a spectator
    key: int              # u32: the room's netplay key (protocol.parse / encode of relayed datagrams)
    seed: int             # u64: the match's seed
    rounds: int           # u8: best of this many rounds
    timer: int            # u8: seconds a round lasts
    ready: int            # u8: 1 both players are in and the match runs; 0 waiting for the opponent
    frames: int = 0       # u32: the room's match stops at this frame (0: at its end)


class Refused(NamedTuple):
    """The server refuses a Join (type 3, token 0)."""

    nonce: int            # u32: the Join's nonce
    reason: int           # u8: index in REFUSALS
    digest: bytes         # 32 bytes: the room's digest (a "digest" refusal names the parts that differ)


class Relay(NamedTuple):
    """A netplay datagram on its way between the players (type 4): from a player, to the server
    for the other; from the server, the other's."""

    payload: bytes        # 1 to protocol.MAX_DATAGRAM bytes: one datagram of game.net.protocol


class Confirmed(NamedTuple):
    """The room's confirmed inputs for a spectator (type 5): ``inputs[k]`` is ``(p1_bits,
    p2_bits)`` of frame ``start + k``."""

    start: int            # u32: frame of the first pair
    newest: int           # u32: frames the server has confirmed in all (the spectator's distance from live)
    ended: int            # u8: 1 the match is over and ``newest`` is its last frame
    inputs: tuple[tuple[int, int], ...]  # on the wire: u8 runs, then runs x (u16 p1, u16 p2, u8 frames)


class SpectatorAck(NamedTuple):
    """A spectator holds every frame before ``next_frame`` (type 6); sent at least every 0.25 s,
    it also keeps the spectator's place."""

    next_frame: int       # u32: the first frame it still needs


class RoomEnd(NamedTuple):
    """The server's verdict on the room's match (type 7), sent to the players and spectators."""

    reason: int           # u8: index in ENDINGS
    culprits: int         # u8: bit 0 P1, bit 1 P2: the players a desync or a disconnect names
    winner: int           # u8: 0 P1, 1 P2, NO_WINNER
    frame: int            # u32: frames the referee simulated (the authoritative replay's length)
    state_hash: bytes     # 32 bytes: the referee's state hash at that frame


class Leave(NamedTuple):
    """The client leaves its room (type 8)."""

    reason: int           # u8: index in protocol.GOODBYES


Message = Join | Joined | Refused | Relay | Confirmed | SpectatorAck | RoomEnd | Leave

_FIXED = {
    Join: (1, struct.Struct("<IB16s16s32sQBBI16s")),
    Joined: (2, struct.Struct("<IBBIQBBBI")),
    Refused: (3, struct.Struct("<IB32s")),
    Relay: (4, struct.Struct("<H")),
    Confirmed: (5, struct.Struct("<IIBB")),
    SpectatorAck: (6, struct.Struct("<I")),
    RoomEnd: (7, struct.Struct("<BBBI32s")),
    Leave: (8, struct.Struct("<B")),
}
_BY_TYPE = {code: (cls, st) for cls, (code, st) in _FIXED.items()}
_RELAY_CODE, _RELAY_FIXED = _FIXED[Relay]
#: A Relay's payload starts here: the header, then its length (u16).
_RELAY_AT = HEADER.size + _RELAY_FIXED.size
_HEAD = struct.Struct("<2sBBQ")             # the header before its check value
_CHECK = struct.Struct("<I")
_RUN = struct.Struct("<HHB")                # one run of a Confirmed: P1's input, P2's, how many frames
#: The most runs a Confirmed datagram holds within MAX_DATAGRAM.
MAX_RUNS = (MAX_DATAGRAM - HEADER.size - _FIXED[Confirmed][1].size) // _RUN.size


def confirmed_prefix(start: int, newest: int, ended: int, inputs: tuple[tuple[int, int], ...]) -> Confirmed:
    """The Confirmed of the longest prefix of ``inputs`` (pairs from frame ``start``) that fits
    one datagram: at most MAX_CONFIRMED frames in at most MAX_RUNS runs."""
    runs, n = 0, 0
    for k, pair in enumerate(inputs[:MAX_CONFIRMED]):
        if k == 0 or pair != inputs[k - 1]:
            if runs == MAX_RUNS:
                break
            runs += 1
        n = k + 1
    return Confirmed(start, newest, ended, tuple(inputs[:n]))


def encode(msg: Message, token: int) -> bytes:
    """The datagram of ``msg`` with ``token`` (u64; 0 before the server gave one).  A field out
    of range raises ProtocolError (reason ``"field"``): a client or the server never builds one."""
    _check(msg)
    if not 0 <= token < 1 << 64:
        raise ProtocolError("field", f"token {token}")
    code, st = _FIXED[type(msg)]
    try:
        if isinstance(msg, Join):
            body = st.pack(msg.nonce, msg.role, msg.room.encode("ascii"), msg.name.encode("ascii"),
                           msg.digest, msg.seed, msg.rounds, msg.timer, msg.frames, msg.secret)
        elif isinstance(msg, Relay):
            body = st.pack(len(msg.payload)) + msg.payload
        elif isinstance(msg, Confirmed):
            runs = _runs(msg.inputs)
            body = st.pack(msg.start, msg.newest, msg.ended, len(runs))
            body += b"".join(_RUN.pack(a, b, n) for (a, b), n in runs)
        else:
            body = st.pack(*msg)
    except struct.error as e:
        raise ProtocolError("field", f"{type(msg).__name__}: {e}") from None
    head = _HEAD.pack(MAGIC, VERSION, code, token)
    return head + _CHECK.pack(zlib.crc32(body, zlib.crc32(head))) + body


def encode_relay(payload: bytes, token: int) -> bytes:
    """``encode(Relay(payload), token)``, the same bytes and the same checks, without building
    the message: the server passes every player's datagram on to the other with it."""
    n = len(payload)
    if not 1 <= n <= netwire.MAX_DATAGRAM:
        raise ProtocolError("field", f"Relay: a payload of {n} bytes (1 to {netwire.MAX_DATAGRAM})")
    if not 0 <= token < 1 << 64:
        raise ProtocolError("field", f"token {token}")
    head = _HEAD.pack(MAGIC, VERSION, _RELAY_CODE, token)
    body = _RELAY_FIXED.pack(n) + payload
    return head + _CHECK.pack(zlib.crc32(body, zlib.crc32(head))) + body


def parse(data: bytes) -> tuple[int, Message]:
    """``(token, message)`` of a datagram, or ProtocolError naming what is wrong."""
    size = len(data)
    if size > MAX_DATAGRAM:
        raise ProtocolError("size", f"{size} bytes, more than {MAX_DATAGRAM}")
    if size < HEADER.size:
        raise ProtocolError("short", f"{size} bytes, less than the {HEADER.size}-byte header")
    magic, version, code, token, check = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ProtocolError("magic", f"magic {magic!r}, not {MAGIC!r}")
    if version != VERSION:
        raise ProtocolError("version", f"server protocol version {version}, this game speaks {VERSION}")
    if code not in _BY_TYPE:
        raise ProtocolError("type", f"message type {code}")
    if check != zlib.crc32(data[HEADER.size:], zlib.crc32(data[:HEADER.size - 4])):
        raise ProtocolError("check", "the check value does not match (a damaged datagram)")
    if code == _RELAY_CODE:                    # the most frequent by far: a player's datagram for the other
        return token, _parse_relay(data)
    cls, st = _BY_TYPE[code]
    body = memoryview(data)[HEADER.size:]
    msg: Message
    if cls is Confirmed:
        msg = _parse_confirmed(st, body)
    else:
        if len(body) != st.size:
            raise ProtocolError("size", f"{cls.__name__} of {len(body)} bytes, not {st.size}")
        fields = st.unpack_from(body)
        msg = _join(fields) if cls is Join else cls(*fields)
    _check(msg)
    return token, msg


def _parse_relay(data: bytes) -> Relay:
    """A Relay from its datagram (the header checked), its payload's size checked as
    :func:`_check` would."""
    size = len(data)
    if size < _RELAY_AT:
        raise ProtocolError("size", f"Relay of {size - HEADER.size} bytes, less than its {_RELAY_FIXED.size}-byte "
                                    f"fixed part")
    (n,) = _RELAY_FIXED.unpack_from(data, HEADER.size)
    if size != _RELAY_AT + n:
        raise ProtocolError("size", f"Relay of a {n}-byte payload in {size - HEADER.size} bytes")
    if not 1 <= n <= netwire.MAX_DATAGRAM:
        raise ProtocolError("field", f"Relay: a payload of {n} bytes (1 to {netwire.MAX_DATAGRAM})")
    return Relay(bytes(data[_RELAY_AT:]))


def _parse_confirmed(st: struct.Struct, body: memoryview) -> Confirmed:
    """A Confirmed from its body (the header checked)."""
    if len(body) < st.size:
        raise ProtocolError("size", f"Confirmed of {len(body)} bytes, less than its {st.size}-byte fixed part")
    start, newest, ended, count = st.unpack_from(body)
    if len(body) != st.size + count * _RUN.size:
        raise ProtocolError("size", f"Confirmed of {count} runs in {len(body)} bytes")
    runs = list(_RUN.iter_unpack(body[st.size:]))
    if sum(n for _, _, n in runs) > MAX_CONFIRMED or any(n == 0 for _, _, n in runs):
        raise ProtocolError("field", f"Confirmed: runs of {[n for _, _, n in runs]} frames (1 each at least, "
                                     f"{MAX_CONFIRMED} in all at most)")
    return Confirmed(start, newest, ended, tuple((a, b) for a, b, n in runs for _ in range(n)))


def _join(fields: tuple) -> Join:
    """A Join from its unpacked fields: the names' NUL padding removed, refused unless ASCII."""
    nonce, role, room, name, digest, seed, rounds, timer, frames, secret = fields
    try:
        room_s, name_s = room.rstrip(b"\0").decode("ascii"), name.rstrip(b"\0").decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError("field", "Join: a room or player name not in ASCII") from None
    return Join(nonce, role, room_s, name_s, digest, seed, rounds, timer, frames, secret)


def _runs(inputs: tuple[tuple[int, int], ...]) -> list[tuple[tuple[int, int], int]]:
    """``inputs`` as runs ``(pair, frames)`` of one pair repeated."""
    runs: list[tuple[tuple[int, int], int]] = []
    for pair in inputs:
        if runs and runs[-1][0] == pair:
            runs[-1] = (pair, runs[-1][1] + 1)
        else:
            runs.append((pair, 1))
    return runs


def _check(msg: Message) -> None:
    """ProtocolError (``"field"``) unless every field of ``msg`` is in its range."""
    bad = _bad_field(msg)
    if bad:
        raise ProtocolError("field", f"{type(msg).__name__}: {bad}")


def _bad_field(msg: Message) -> str:
    """What is out of range in ``msg``, or "" (the struct formats bound the rest)."""
    if isinstance(msg, Join):
        return _bad_join(msg)
    if isinstance(msg, Joined) and (msg.role > 1 or (msg.side > 1 if msg.role == 0 else msg.side != NO_SIDE)
                                    or msg.ready > 1 or msg.rounds not in MATCH_ROUNDS or not 1 <= msg.timer <= 60
                                    or not 0 <= msg.frames < netwire.FRAME_LIMIT):
        return (f"role {msg.role}, side {msg.side}, ready {msg.ready}, rounds {msg.rounds}, timer {msg.timer} "
                f"or frames {msg.frames}")
    if isinstance(msg, Refused) and (msg.reason >= len(REFUSALS) or len(msg.digest) != netwire.DIGEST_BYTES):
        return f"reason {msg.reason} or a digest of {len(msg.digest)} bytes"
    if isinstance(msg, Relay) and not 1 <= len(msg.payload) <= netwire.MAX_DATAGRAM:
        return f"a payload of {len(msg.payload)} bytes (1 to {netwire.MAX_DATAGRAM})"
    if isinstance(msg, Confirmed):
        return _bad_confirmed(msg)
    if isinstance(msg, SpectatorAck) and not 0 <= msg.next_frame < netwire.FRAME_LIMIT:
        return f"frame {msg.next_frame}"
    if isinstance(msg, RoomEnd) and (msg.reason >= len(ENDINGS) or msg.culprits > 3
                                     or msg.winner not in (0, 1, NO_WINNER) or len(msg.state_hash) != 32
                                     or not 0 <= msg.frame < netwire.FRAME_LIMIT):
        return f"reason {msg.reason}, culprits {msg.culprits}, winner {msg.winner} or frame {msg.frame}"
    if isinstance(msg, Leave) and msg.reason >= len(netwire.GOODBYES):
        return f"reason {msg.reason}"
    return ""


def _bad_join(msg: Join) -> str:
    if msg.role >= len(ROLES):
        return f"role {msg.role}"
    if not ROOM_NAME.fullmatch(msg.room):
        return f"room name {msg.room!r} (1 to 16 of A-Z a-z 0-9 . _ -)"
    if not PLAYER_NAME.fullmatch(msg.name):
        return f"player name {msg.name!r} (up to 16 printable ASCII characters)"
    if len(msg.digest) != netwire.DIGEST_BYTES:
        return f"a digest of {len(msg.digest)} bytes"
    if len(msg.secret) != SECRET_BYTES:
        return f"a room secret of {len(msg.secret)} bytes"
    if msg.rounds not in MATCH_ROUNDS or not 1 <= msg.timer <= 60 or not 0 <= msg.frames < netwire.FRAME_LIMIT:
        return f"rounds {msg.rounds}, timer {msg.timer} or frames {msg.frames}"
    return ""


def _bad_confirmed(msg: Confirmed) -> str:
    if len(msg.inputs) > MAX_CONFIRMED or len(_runs(msg.inputs)) > MAX_RUNS:
        return f"{len(msg.inputs)} frames in {len(_runs(msg.inputs))} runs, more than {MAX_CONFIRMED} or {MAX_RUNS}"
    if not 0 <= msg.start < netwire.FRAME_LIMIT - MAX_CONFIRMED or not 0 <= msg.newest < netwire.FRAME_LIMIT \
            or msg.ended > 1 or msg.start + len(msg.inputs) > msg.newest:
        return f"frames {msg.start} + {len(msg.inputs)} / {msg.newest} or ended {msg.ended}"
    if any(not (0 <= a < netwire.INPUT_LIMIT and 0 <= b < netwire.INPUT_LIMIT) for a, b in msg.inputs):
        return f"an input outside 0..{netwire.INPUT_LIMIT - 1}"
    return ""
