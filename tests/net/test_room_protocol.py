"""The server's datagrams (game/net/room_protocol.py): every message survives a round trip with
its token, and every kind of malformed datagram is refused with its reason."""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.net import protocol as netwire
from game.net import room_protocol as wire

DIGEST = bytes(range(32))
SAMPLES = [
    wire.Join(7, 0, "dojo-1", "Kaito", DIGEST, 2**64 - 1, 3, 60),
    wire.Join(8, 2, "a", "", DIGEST, 0, 1, 30),
    wire.Joined(7, 0, 1, 2**32 - 1, 12345, 5, 45, 1),
    wire.Joined(7, 1, wire.NO_SIDE, 9, 12345, 3, 60, 1),
    wire.Refused(7, 1, DIGEST),
    wire.Relay(netwire.encode(netwire.Inputs(10, 12, 9, -5, (0, 1, 2047)), 3, key=9)),
    wire.Relay(bytes(netwire.MAX_DATAGRAM)),
    wire.Confirmed(100, 400, 0, ((0, 1), (0, 1), (2047, 5))),
    wire.Confirmed(0, 0, 1, ()),
    wire.SpectatorAck(131),
    wire.RoomEnd(2, 2, wire.NO_WINNER, 3601, DIGEST),
    wire.Leave(0),
    wire.Join(9, 0, "dojo-2", "Mei", DIGEST, 5, 3, 60, netwire.FRAME_LIMIT - 1),    # with a stop frame
    wire.Joined(9, 0, 0, 9, 5, 3, 60, 0, 3600),
    wire.Join(10, 1, "vip", "", DIGEST, 5, 3, 60, 0, wire.room_secret("vip", "tiger")),    # a private room's
]


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_with_its_token(msg):
    data = wire.encode(msg, 2**64 - 3)
    assert len(data) <= wire.MAX_DATAGRAM
    assert wire.parse(data) == (2**64 - 3, msg)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=400))
def test_confirmed_prefix_takes_the_longest_prefix_that_fits_one_datagram(pairs):
    inputs = tuple(pairs)
    msg = wire.confirmed_prefix(7, 7 + len(inputs), 0, inputs)
    assert inputs[:len(msg.inputs)] == msg.inputs
    assert wire.parse(wire.encode(msg, 1)) == (1, msg)
    if len(msg.inputs) < len(inputs):                    # one more frame would not fit
        longer = msg._replace(inputs=inputs[:len(msg.inputs) + 1])
        with pytest.raises(netwire.ProtocolError):
            wire.encode(longer, 1)


def test_a_full_confirmed_datagram_fits_the_size_cap():
    full = wire.confirmed_prefix(0, 1000, 0, tuple((i, i) for i in range(1000)))
    assert len(full.inputs) == wire.MAX_RUNS
    assert len(wire.encode(full, 1)) <= wire.MAX_DATAGRAM
    held = wire.Confirmed(0, wire.MAX_CONFIRMED, 0, ((3, 4),) * wire.MAX_CONFIRMED)
    assert len(wire.encode(held, 1)) == wire.HEADER.size + 10 + 5        # one run
    with pytest.raises(netwire.ProtocolError):
        wire.encode(held._replace(inputs=held.inputs + ((3, 4),), newest=held.newest + 1), 1)


def test_a_join_with_a_secret_of_another_size_is_refused_and_a_room_secret_hides_its_key():
    with pytest.raises(netwire.ProtocolError):
        wire.encode(wire.Join(1, 0, "vip", "", DIGEST, 5, 3, 60, 0, b"tiger"), 0)
    secret = wire.room_secret("vip", "tiger")
    assert len(secret) == wire.SECRET_BYTES and b"tiger" not in wire.encode(wire.Join(1, 0, "vip", "", DIGEST, 5, 3,
                                                                                      60, 0, secret), 0)
    assert wire.room_secret("vip", "") == bytes(wire.SECRET_BYTES) != secret
    assert secret not in (wire.room_secret("vip2", "tiger"), wire.room_secret("vip", "tiger2"))


def _reason(data: bytes) -> str:
    with pytest.raises(netwire.ProtocolError) as e:
        wire.parse(data)
    return e.value.reason


def _reseal(data: bytes) -> bytes:
    """``data`` with its check value recomputed (a forged but well-checked datagram)."""
    head, body = data[:12], data[16:]
    return head + struct.pack("<I", zlib.crc32(body, zlib.crc32(head))) + body


def test_each_kind_of_malformed_datagram_is_refused_with_its_reason():
    good = wire.encode(SAMPLES[7], 5)
    assert _reason(good[:9]) == "short"
    assert _reason(b"RN" + good[2:]) == "magic"          # a netplay datagram sent to the server
    assert _reason(good[:2] + bytes([wire.VERSION + 1]) + good[3:]) == "version"
    assert _reason(good[:3] + bytes([200]) + good[4:]) == "type"
    assert _reason(good[:-1] + bytes([good[-1] ^ 1])) == "check"
    assert _reason(_reseal(good[:-5])) == "size"                          # runs says 2, one sent
    assert _reason(_reseal(good + b"\0" * 5)) == "size"
    assert _reason(good + bytes(wire.MAX_DATAGRAM)) == "size"
    assert _reason(_reseal(good[:-5] + struct.pack("<HHB", 2048, 0, 1))) == "field"   # not an 11-bit input
    assert _reason(_reseal(good[:-5] + struct.pack("<HHB", 2, 0, 0))) == "field"      # a run of no frames
    relay = wire.encode(SAMPLES[5], 5)
    assert _reason(_reseal(relay[:16] + struct.pack("<H", 999) + relay[18:])) == "size"
    assert _reason(_reseal(relay[:16] + struct.pack("<H", 0))) == "field"            # an empty payload


@pytest.mark.parametrize("bad", [dict(room=""), dict(room="x" * 17), dict(room="a b"), dict(room="é"),
                                 dict(name="\x07"), dict(role=3), dict(rounds=2), dict(timer=0),
                                 dict(digest=b"short"), dict(frames=netwire.FRAME_LIMIT)])
def test_a_join_with_a_field_out_of_range_is_refused(bad):
    with pytest.raises(netwire.ProtocolError):
        wire.encode(SAMPLES[0]._replace(**bad), 0)


def test_a_join_whose_names_are_not_ascii_is_refused_when_parsed():
    data = bytearray(wire.encode(SAMPLES[0], 0))
    data[16 + 5] = 0xE9                                   # the room name's first byte
    assert _reason(_reseal(bytes(data))) == "field"


@pytest.mark.parametrize("bad", [wire.Joined(7, 0, wire.NO_SIDE, 1, 1, 3, 60, 1),
                                 wire.Joined(7, 1, 0, 1, 1, 3, 60, 1),
                                 wire.RoomEnd(6, 0, 0, 1, DIGEST), wire.RoomEnd(0, 4, 0, 1, DIGEST),
                                 wire.RoomEnd(0, 0, 2, 1, DIGEST), wire.Refused(1, len(wire.REFUSALS), DIGEST),
                                 wire.Confirmed(10, 11, 0, ((0, 0), (0, 0))), wire.Leave(9)])
def test_messages_with_fields_out_of_range_are_refused(bad):
    with pytest.raises(netwire.ProtocolError):
        wire.encode(bad, 1)


def test_a_token_outside_64_bits_is_refused():
    with pytest.raises(netwire.ProtocolError):
        wire.encode(SAMPLES[9], 1 << 64)


@given(st.binary(max_size=700))
def test_random_bytes_parse_or_raise_protocol_error_only(data):
    try:
        wire.parse(data)
    except netwire.ProtocolError:
        pass


@given(st.sampled_from(SAMPLES), st.integers(0, 63), st.integers(1, 255))
def test_a_datagram_with_any_byte_changed_is_refused(msg, at, flip):
    data = bytearray(wire.encode(msg, 3))
    data[at % len(data)] ^= flip
    with pytest.raises(netwire.ProtocolError):
        wire.parse(bytes(data))


def _reference_relay(body: bytes) -> wire.Relay:
    """A Relay from a checked header's body as the generic decoding reads one: the fixed part,
    the payload it announces, then every field's range (``_check``)."""
    if len(body) < 2:
        raise netwire.ProtocolError("size", "short")
    (n,) = struct.unpack_from("<H", body)
    if len(body) != 2 + n:
        raise netwire.ProtocolError("size", "payload")
    msg = wire.Relay(bytes(body[2:]))
    wire._check(msg)
    return msg


def _outcome(fn, *args):
    """``fn(*args)``, or the reason of the ProtocolError it raised."""
    try:
        return fn(*args)
    except netwire.ProtocolError as e:
        return e.reason


@settings(max_examples=300)
@given(st.binary(max_size=wire.MAX_DATAGRAM), st.one_of(st.none(), st.integers(0, 0xFFFF)),
       st.one_of(st.none(), st.integers(0, wire.MAX_DATAGRAM)), st.integers(0, 2**64 - 1))
def test_a_relay_parses_as_the_generic_decoding_reads_it(payload, announced, cut, token):
    body = (struct.pack("<H", len(payload) if announced is None else announced) + payload)[:cut]
    data = _reseal(wire.HEADER.pack(wire.MAGIC, wire.VERSION, 4, token, 0) + body)
    if len(data) > wire.MAX_DATAGRAM:
        assert _reason(data) == "size"
        return
    want = _outcome(_reference_relay, body)
    for given_as in (bytes, bytearray, memoryview):
        got = _outcome(wire.parse, given_as(data))
        assert got == (want if isinstance(want, str) else (token, want))
        assert isinstance(got, str) or type(got[1].payload) is bytes


@given(st.binary(max_size=netwire.MAX_DATAGRAM + 2), st.integers(-1, 2**64))
def test_encode_relay_gives_the_bytes_and_refusals_of_encoding_a_relay(payload, token):
    assert _outcome(wire.encode_relay, payload, token) == _outcome(wire.encode, wire.Relay(payload), token)
