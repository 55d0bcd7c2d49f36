"""The netplay datagrams: their layouts, building them and parsing them (``docs/netplay.md``).

Every datagram is little-endian ``struct`` data: a 10-byte header (magic ``b"RN"``, protocol
version, message type, the sender's sequence number, a CRC-32 of the rest keyed by the match's
``key``), then the message's fields.  Every
message but :class:`Inputs` has one fixed size; an :class:`Inputs` datagram is its fixed part
plus exactly ``count`` 2-byte inputs.  :func:`parse` checks the magic, version, type, size and
every field's range, and raises :class:`ProtocolError` (with a short ``reason`` a session counts)
for anything else; it never allocates more than the datagram's own bytes.  Frame numbers are
checked against the session's own frame by the session (:mod:`.session`), not here.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

from game.sim.ai.levels import LEVELS
from game.sim.rounds import MATCH_ROUNDS

MAGIC = b"RN"
#: Bumped whenever a layout or a message's meaning changes; peers of two versions refuse each other.
VERSION = 1
#: No datagram is larger (well under the 1,200 bytes that cross any path unfragmented).
MAX_DATAGRAM = 512
#: At most this many inputs in one Inputs datagram (the oldest unacknowledged first).
MAX_INPUTS = 64
#: Inputs are 11-bit ints (``FrameInput.bits``).
INPUT_LIMIT = 1 << 11
#: Frame numbers on the wire are below this (a match lasts far fewer frames).
FRAME_LIMIT = 1 << 31
#: Bytes of a digest (settings handshake) and of a state hash (SHA-256).
DIGEST_BYTES = 32

HEADER = struct.Struct("<2sBBHI")           # magic, version, type, sequence, check


class ProtocolError(ValueError):
    """A datagram that is not a well-formed message of this version; ``reason`` is one short word
    (``"short"``, ``"magic"``, ``"version"``, ``"type"``, ``"check"``, ``"size"``, ``"field"``) for the
    counters."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


# ----------------------------------------------------------------------------- the messages
class Hello(NamedTuple):
    """A joiner asks to play (type 1).  ``token``: a random u32 the answer echoes."""

    token: int            # u32: matches the Welcome / Refuse to this Hello
    digest: bytes         # 32 bytes: of everything that decides the simulation (the caller's)


class Welcome(NamedTuple):
    """The host accepts (type 2) and fixes the match: the joiner plays ``side`` 1 - host side."""

    token: int            # u32: the Hello's token
    digest: bytes         # 32 bytes: the host's digest (equal to the Hello's, or it would refuse)
    seed: int             # u64: the match's seed
    p1_cpu: int           # u8: 0 a player, else 1 + index in game.sim.ai.LEVELS of a CPU P1
    p2_cpu: int           # u8: the same for P2
    rounds: int           # u8: best of this many rounds
    timer: int            # u8: seconds a round lasts
    host_side: int        # u8: 0 the host is P1, 1 the host is P2


class Refuse(NamedTuple):
    """The host refuses (type 3); ``reason`` is one of :data:`REFUSALS`."""

    token: int            # u32: the Hello's token
    reason: int           # u8: index in REFUSALS
    digest: bytes         # 32 bytes: the host's digest (the joiner tells which part differs)


class Inputs(NamedTuple):
    """The sender's inputs (type 4): ``bits[k]`` is its input for frame ``start + k``."""

    start: int            # u32: frame of the first input
    frame: int            # u32: the frame the sender is at (time sync)
    ack: int              # i32: the newest frame of the receiver's inputs the sender holds, -1 none
    advantage: int        # i8: the sender's frame advantage (its frame minus its estimate of ours)
    bits: tuple[int, ...]  # on the wire: u8 runs, then runs x (u16 input, u8 frames it is held)


class Quality(NamedTuple):
    """A keep-alive and ping (type 5): the receiver answers with a QualityReply of ``stamp``."""

    stamp: int            # u32: the sender's clock in ms (wraps), echoed back
    frame: int            # u32: the frame the sender is at
    advantage: int        # i8: as in Inputs


class QualityReply(NamedTuple):
    """The answer to a Quality (type 6): the round trip is now minus ``stamp``."""

    stamp: int            # u32: the Quality's stamp


class HashReport(NamedTuple):
    """The state hash of a confirmed frame (type 7)."""

    frame: int            # u32: a multiple of the hash interval
    state_hash: bytes     # 32 bytes: SHA-256 of the state at the start of that frame


class DesyncNotice(NamedTuple):
    """The sender found the states differ (type 8): the receiver stops too."""

    frame: int            # u32: the first frame known to differ
    sender_hash: bytes    # 32 bytes: the sender's hash of that frame
    receiver_hash: bytes  # 32 bytes: the receiver's, as the sender received it


class Goodbye(NamedTuple):
    """The sender leaves the match (type 9); ``reason`` is one of :data:`GOODBYES`."""

    reason: int           # u8: index in GOODBYES


Message = Hello | Welcome | Refuse | Inputs | Quality | QualityReply | HashReport | DesyncNotice | Goodbye

#: A Refuse's reasons, by index.
REFUSALS = ("busy", "version", "digest", "settings")
#: A Goodbye's reasons, by index.
GOODBYES = ("quit", "desync", "timeout", "error")

_FIXED = {
    Hello: (1, struct.Struct("<I32s")),
    Welcome: (2, struct.Struct("<I32sQBBBBB")),
    Refuse: (3, struct.Struct("<IB32s")),
    Inputs: (4, struct.Struct("<IIibB")),
    Quality: (5, struct.Struct("<IIb")),
    QualityReply: (6, struct.Struct("<I")),
    HashReport: (7, struct.Struct("<I32s")),
    DesyncNotice: (8, struct.Struct("<I32s32s")),
    Goodbye: (9, struct.Struct("<B")),
}
_BY_TYPE = {code: (cls, st) for cls, (code, st) in _FIXED.items()}
_RUN = struct.Struct("<HB")                 # one run of an Inputs datagram: the input, how many frames
_KEY = struct.Struct("<I")


def _runs(bits: tuple[int, ...]) -> list[tuple[int, int]]:
    """``bits`` as runs ``(input, frames)`` of one input repeated (players hold buttons)."""
    runs: list[tuple[int, int]] = []
    for b in bits:
        if runs and runs[-1][0] == b:
            runs[-1] = (b, runs[-1][1] + 1)
        else:
            runs.append((b, 1))
    return runs


def encode(msg: Message, seq: int, key: int = 0) -> bytes:
    """The datagram of ``msg`` with sequence number ``seq`` (taken mod 2**16), checked with ``key``
    (a u32 both peers hold: the Hello's token once the match is agreed, 0 in the handshake).
    A field out of range raises ProtocolError (reason ``"field"``): the session never builds one."""
    _check(msg)
    code, st = _FIXED[type(msg)]
    try:
        if isinstance(msg, Inputs):
            runs = _runs(msg.bits)
            body = st.pack(msg.start, msg.frame, msg.ack, msg.advantage, len(runs))
            body += b"".join(_RUN.pack(b, n) for b, n in runs)
        else:
            body = st.pack(*msg)
    except struct.error as e:
        raise ProtocolError("field", f"{type(msg).__name__}: {e}") from None
    head = struct.pack("<2sBBH", MAGIC, VERSION, code, seq & 0xFFFF)
    return head + struct.pack("<I", _crc(key, head, body)) + body


def parse(data: bytes, key: int = 0) -> tuple[int, Message]:
    """``(sequence, message)`` of a datagram checked with ``key`` (as :func:`encode`), or
    ProtocolError naming what is wrong."""
    size = len(data)
    if size > MAX_DATAGRAM:
        raise ProtocolError("size", f"{size} bytes, more than {MAX_DATAGRAM}")
    if size < HEADER.size:
        raise ProtocolError("short", f"{size} bytes, less than the {HEADER.size}-byte header")
    magic, version, code, seq, check = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ProtocolError("magic", f"magic {magic!r}, not {MAGIC!r}")
    if version != VERSION:
        raise ProtocolError("version", f"protocol version {version}, this game speaks {VERSION}")
    if code not in _BY_TYPE:
        raise ProtocolError("type", f"message type {code}")
    if check != _crc(key, data[:HEADER.size - 4], data[HEADER.size:]):
        raise ProtocolError("check", "the check value does not match (damaged, or another match's)")
    cls, st = _BY_TYPE[code]
    body = size - HEADER.size
    msg: Message
    if cls is Inputs:
        if body < st.size:
            raise ProtocolError("size", f"Inputs of {body} bytes, less than its {st.size}-byte fixed part")
        start, frame, ack, adv, count = st.unpack_from(data, HEADER.size)
        if body != st.size + count * _RUN.size:
            raise ProtocolError("size", f"Inputs of {count} runs in {body} bytes")
        msg = inputs = Inputs(start, frame, ack, adv, _run_bits(data, HEADER.size + st.size, count))
        bad = _bad_inputs(inputs)                   # what _bad_field would say, without its type tests
    else:
        if body != st.size:
            raise ProtocolError("size", f"{cls.__name__} of {body} bytes, not {st.size}")
        msg = cls(*st.unpack_from(data, HEADER.size))
        bad = _bad_field(msg)
    if bad:
        raise ProtocolError("field", f"{cls.__name__}: {bad}")
    return seq, msg


def _run_bits(data: bytes, at: int, count: int) -> tuple[int, ...]:
    """The inputs of an Inputs datagram's ``count`` runs from ``at`` (their size checked), or
    ProtocolError ("field") for a run of no input or more than MAX_INPUTS inputs in all."""
    if count == 1:                          # one input held over every frame sent: the usual datagram
        b, n = _RUN.unpack_from(data, at)
        if 1 <= n <= MAX_INPUTS:
            return (b,) * n
    else:
        bits: list[int] = []
        for b, n in _RUN.iter_unpack(data[at:at + count * _RUN.size]):
            if n == 0 or len(bits) + n > MAX_INPUTS:
                break
            bits += [b] * n
        else:
            return tuple(bits)
    runs = [n for _, n in _RUN.iter_unpack(data[at:at + count * _RUN.size])]
    raise ProtocolError("field", f"Inputs: runs of {runs} inputs (1 each at least, {MAX_INPUTS} in all at most)")


def _crc(key: int, head: bytes, body: bytes) -> int:
    """CRC-32 of ``key`` (4 bytes), the header before the check, and the body."""
    return zlib.crc32(body, zlib.crc32(head, zlib.crc32(_KEY.pack(key & 0xFFFFFFFF))))


def _check(msg: Message) -> None:
    """ProtocolError (``"field"``) unless every field of ``msg`` is in its range."""
    bad = _bad_field(msg)
    if bad:
        raise ProtocolError("field", f"{type(msg).__name__}: {bad}")


def _bad_field(msg: Message) -> str:
    """What is out of range in ``msg``, or "" (the struct formats bound the rest when parsing)."""
    if isinstance(msg, Inputs):
        return _bad_inputs(msg)
    if isinstance(msg, (Hello, Welcome, Refuse)) and len(msg.digest) != DIGEST_BYTES:
        return f"a digest of {len(msg.digest)} bytes"
    if isinstance(msg, Welcome) and (msg.p1_cpu > len(LEVELS) or msg.p2_cpu > len(LEVELS) or msg.host_side > 1
                                     or msg.rounds not in MATCH_ROUNDS or not 1 <= msg.timer <= 60):
        return f"cpu levels {msg.p1_cpu}, {msg.p2_cpu}, side {msg.host_side}, rounds {msg.rounds} or timer {msg.timer}"
    if isinstance(msg, Refuse) and msg.reason >= len(REFUSALS):
        return f"reason {msg.reason}"
    if isinstance(msg, Goodbye) and msg.reason >= len(GOODBYES):
        return f"reason {msg.reason}"
    if isinstance(msg, (Quality, HashReport, DesyncNotice)) and not 0 <= msg.frame < FRAME_LIMIT:
        return f"frame {msg.frame}"
    if isinstance(msg, HashReport) and len(msg.state_hash) != DIGEST_BYTES:
        return "a hash not of 32 bytes"
    if isinstance(msg, DesyncNotice) and DIGEST_BYTES != len(msg.sender_hash) or \
            isinstance(msg, DesyncNotice) and DIGEST_BYTES != len(msg.receiver_hash):
        return "a hash not of 32 bytes"
    return ""


def _bad_inputs(msg: Inputs) -> str:
    """What is out of range in an Inputs message, or ""."""
    if len(msg.bits) > MAX_INPUTS:
        return f"{len(msg.bits)} inputs, more than {MAX_INPUTS}"
    if not 0 <= msg.start < FRAME_LIMIT - MAX_INPUTS or not 0 <= msg.frame < FRAME_LIMIT:
        return f"frame {msg.start} / {msg.frame} out of range"
    if not -1 <= msg.ack < FRAME_LIMIT:
        return f"ack {msg.ack}"
    if not -128 <= msg.advantage <= 127:
        return f"advantage {msg.advantage}"
    if msg.bits and not (0 <= min(msg.bits) and max(msg.bits) < INPUT_LIMIT):
        return f"an input outside 0..{INPUT_LIMIT - 1}"
    return ""
