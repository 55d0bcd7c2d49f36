"""The netplay datagrams (game/net/protocol.py): every message survives a round trip, and every
kind of malformed datagram is refused with its reason."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.net import protocol as wire

DIGEST = bytes(range(32))
SAMPLES = [
    wire.Hello(7, DIGEST),
    wire.Welcome(7, DIGEST, 2**64 - 1, 0, 4, 5, 60, 1),
    wire.Refuse(7, 2, DIGEST),
    wire.Inputs(10, 12, 9, -5, (0, 1, 2047)),
    wire.Inputs(0, 0, -1, 0, ()),
    wire.Quality(123456, 40, 3),
    wire.QualityReply(123456),
    wire.HashReport(60, DIGEST),
    wire.DesyncNotice(90, DIGEST, DIGEST[::-1]),
    wire.Goodbye(1),
]


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_with_its_sequence_number(msg):
    data = wire.encode(msg, 70000, key=99)
    assert len(data) <= wire.MAX_DATAGRAM
    assert wire.parse(data, key=99) == (70000 & 0xFFFF, msg)


def test_held_inputs_are_sent_as_runs():
    held = wire.encode(wire.Inputs(0, 0, -1, 0, (5,) * 20 + (6,) * 20), 0)
    assert len(held) == len(wire.encode(wire.Inputs(0, 0, -1, 0, (5, 6)), 0))


def test_a_full_inputs_datagram_fits_the_size_cap_and_one_more_input_is_refused():
    full = wire.Inputs(0, 0, -1, 0, tuple(range(wire.MAX_INPUTS)))
    assert len(wire.encode(full, 0)) <= wire.MAX_DATAGRAM
    with pytest.raises(wire.ProtocolError) as e:
        wire.encode(full._replace(bits=full.bits + (0,)), 0)
    assert e.value.reason == "field"


def _reason(data: bytes, key: int = 0) -> str:
    with pytest.raises(wire.ProtocolError) as e:
        wire.parse(data, key)
    return e.value.reason


def _reseal(data: bytes, key: int = 0) -> bytes:
    """``data`` with its check value recomputed (a forged but well-checked datagram)."""
    head, body = data[:6], data[10:]
    return head + struct.pack("<I", wire._crc(key, head, body)) + body


def test_each_kind_of_malformed_datagram_is_refused_with_its_reason():
    good = wire.encode(wire.Inputs(10, 12, 9, 0, (1, 2)), 5)
    assert _reason(good[:5]) == "short"
    assert _reason(b"XX" + good[2:]) == "magic"
    assert _reason(good[:2] + bytes([wire.VERSION + 1]) + good[3:]) == "version"
    assert _reason(good[:3] + bytes([200]) + good[4:]) == "type"
    assert _reason(good, key=1) == "check"
    assert _reason(good[:-1] + bytes([good[-1] ^ 1])) == "check"
    assert _reason(_reseal(good[:-3])) == "size"                       # runs says 2, one sent
    assert _reason(_reseal(good + b"\0\0\0")) == "size"
    assert _reason(good + bytes(wire.MAX_DATAGRAM)) == "size"           # oversized
    assert _reason(_reseal(good[:-3] + struct.pack("<HB", 2048, 1))) == "field"   # not an 11-bit input
    assert _reason(_reseal(good[:-3] + struct.pack("<HB", 2, 0))) == "field"      # a run of no frames
    assert _reason(_reseal(good[:-3] + struct.pack("<HB", 2, wire.MAX_INPUTS))) == "field"   # too many
    assert _reason(_reseal(wire.encode(wire.Goodbye(0), 0)[:-1] + b"\x09")) == "field"


def test_a_welcome_with_settings_out_of_range_is_refused():
    for bad in (dict(p1_cpu=9), dict(rounds=2), dict(timer=0), dict(host_side=2)):
        msg = SAMPLES[1]._replace(**bad)
        with pytest.raises(wire.ProtocolError):
            wire.encode(msg, 0)


@given(st.binary(max_size=600))
def test_random_bytes_parse_or_raise_protocol_error_only(data):
    try:
        wire.parse(data)
    except wire.ProtocolError:
        pass


@given(st.sampled_from(SAMPLES), st.integers(0, 63), st.integers(1, 255))
def test_a_datagram_with_any_byte_changed_is_refused(msg, at, flip):
    data = bytearray(wire.encode(msg, 3, key=5))
    data[at % len(data)] ^= flip
    with pytest.raises(wire.ProtocolError):
        wire.parse(bytes(data), key=5)


def _reference_inputs(body: bytes) -> wire.Inputs:
    """An Inputs message from a checked header's body as the plain decoding reads one: the fixed
    part, every run it announces, then every field's range."""
    fixed = struct.Struct("<IIibB")
    if len(body) < fixed.size:
        raise wire.ProtocolError("size", "short")
    start, frame, ack, adv, count = fixed.unpack_from(body)
    if len(body) != fixed.size + 3 * count:
        raise wire.ProtocolError("size", "runs")
    runs = list(struct.iter_unpack("<HB", body[fixed.size:]))
    if sum(n for _, n in runs) > wire.MAX_INPUTS or any(n == 0 for _, n in runs):
        raise wire.ProtocolError("field", "runs")
    bits = tuple(b for b, n in runs for _ in range(n))
    if not (0 <= start < wire.FRAME_LIMIT - wire.MAX_INPUTS and 0 <= frame < wire.FRAME_LIMIT
            and -1 <= ack < wire.FRAME_LIMIT and all(0 <= b < wire.INPUT_LIMIT for b in bits)):
        raise wire.ProtocolError("field", "range")
    return wire.Inputs(start, frame, ack, adv, bits)


def _outcome(fn, *args):
    """``fn(*args)``, or the reason of the ProtocolError it raised."""
    try:
        return fn(*args)
    except wire.ProtocolError as e:
        return e.reason


def _mostly(usual, *edges):
    """``usual`` three times in four, else one of ``edges``."""
    return st.one_of(usual, usual, usual, st.sampled_from(edges))


_FRAMES = _mostly(st.integers(0, 200), wire.FRAME_LIMIT - wire.MAX_INPUTS - 1, wire.FRAME_LIMIT - wire.MAX_INPUTS,
                  wire.FRAME_LIMIT - 1, wire.FRAME_LIMIT, 2**32 - 1)


@settings(max_examples=500)
@given(_FRAMES, _FRAMES, _mostly(st.integers(-1, 200), -2, -2**31, 2**31 - 1), st.integers(-128, 127),
       st.lists(st.tuples(_mostly(st.integers(0, 20), wire.INPUT_LIMIT - 1, wire.INPUT_LIMIT, 2**16 - 1),
                          _mostly(st.integers(1, 6), 0, wire.MAX_INPUTS, 255)), max_size=8),
       _mostly(st.none(), 0, 1, 2, 255), _mostly(st.none(), 0, 13, 14, 15, wire.MAX_DATAGRAM))
def test_inputs_parse_as_the_plain_decoding_reads_them(start, frame, ack, adv, runs, count, cut):
    body = struct.pack("<IIibB", start, frame, ack, adv, len(runs) if count is None else count)
    body = (body + b"".join(struct.pack("<HB", b, n) for b, n in runs))[:cut]
    data = _reseal(struct.pack("<2sBBH", wire.MAGIC, wire.VERSION, 4, 9) + bytes(4) + body, key=77)
    if len(data) > wire.MAX_DATAGRAM:
        assert _reason(data, key=77) == "size"
        return
    got, want = _outcome(wire.parse, data, 77), _outcome(_reference_inputs, body)
    assert got == (want if isinstance(want, str) else (9, want))


@given(st.lists(_mostly(st.integers(0, wire.INPUT_LIMIT - 1), -1, -2**16, wire.INPUT_LIMIT, 2**16), max_size=4))
def test_inputs_with_an_input_outside_eleven_bits_are_refused(bits):
    msg = wire.Inputs(0, 0, -1, 0, tuple(bits))
    refused = _outcome(wire.encode, msg, 0) == "field"
    assert refused == any(not 0 <= b < wire.INPUT_LIMIT for b in bits)
