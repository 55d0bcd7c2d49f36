"""The netplay datagrams (game/net/protocol.py): every message survives a round trip, and every
kind of malformed datagram is refused with its reason."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
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
