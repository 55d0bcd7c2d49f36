"""A client's join of a server's room (game/net/room_client.py): Join repeated until the room's
answer, a player agreed only when the match starts, a spectator at once, refusals and silence
become a Failed, and nothing but the server's answer to this Join counts."""

from __future__ import annotations

import pytest

from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.net.handshake import Agreed, Failed, MatchSettings
from game.net.room_client import JOIN_EVERY, RoomJoin, unwrap, wrap

SERVER = ("127.0.0.1", 7100)
DIGEST = bytes(range(32))
SETTINGS = MatchSettings(99, None, None, 3, 60, 0)


def _join(**kw) -> RoomJoin:
    return RoomJoin(SERVER, "dojo", "Kaito", DIGEST, SETTINGS, 1234, 0.0, **kw)


def _joined(ready: int, token: int = 77, nonce: int = 1234, role: int = 0, side: int = 1) -> bytes:
    return wire.encode(wire.Joined(nonce, role, side, 5555, 42, 5, 45, ready), token)


def test_the_join_is_repeated_every_quarter_second_and_carries_the_room_and_settings():
    j = _join()
    first = j.poll(0.0)
    assert len(first) == 1
    token, msg = wire.parse(first[0])
    assert token == 0 and msg == wire.Join(1234, 0, "dojo", "Kaito", DIGEST, 99, 3, 60)
    assert j.poll(JOIN_EVERY / 2) == []
    assert j.poll(JOIN_EVERY) == first


def test_a_player_waits_on_ready_0_and_is_agreed_with_the_rooms_settings_on_ready_1():
    j = _join()
    j.poll(0.0)
    assert j.handle_datagram(_joined(0), SERVER, 0.1)
    assert j.result is None and j.waiting and j.token == 77
    for k in range(1, 121):                          # waiting for an opponent never gives up ...
        assert j.poll(k * JOIN_EVERY) != []
        j.handle_datagram(_joined(0), SERVER, k * JOIN_EVERY)   # ... while the server answers
    assert j.result is None
    assert j.handle_datagram(_joined(1), SERVER, 30.1)
    assert j.result == Agreed(SERVER, 5555, 1, MatchSettings(42, None, None, 5, 45, 0))
    assert j.poll(31.0) == []
    assert j.handle_datagram(_joined(1), SERVER, 31.0)         # a repeat is the join's, taken once


def test_the_first_players_stop_frame_goes_in_the_join_and_the_rooms_comes_back():
    j = _join(frames=300)
    assert wire.parse(j.poll(0.0)[0])[1].frames == 300
    assert j.stop_at is None
    j.handle_datagram(wire.encode(wire.Joined(1234, 0, 1, 5, 42, 5, 45, 1, 600), 77), SERVER, 0.1)
    assert j.stop_at == 600


def test_a_spectator_is_agreed_on_its_first_joined():
    j = _join(role=1)
    assert j.handle_datagram(_joined(0, role=1, side=wire.NO_SIDE), SERVER, 0.1)
    assert isinstance(j.result, Agreed) and j.result.side == wire.NO_SIDE


@pytest.mark.parametrize("reason", wire.REFUSALS)
def test_a_refusal_fails_with_its_reason(reason):
    j = _join()
    other = bytes(8) + DIGEST[8:]
    j.handle_datagram(wire.encode(wire.Refused(1234, wire.REFUSALS.index(reason), other), 0), SERVER, 0.1)
    assert isinstance(j.result, Failed) and j.result.reason == reason
    assert j.result.parts == ((0,) if reason == "digest" else ())


def test_no_answer_gives_up():
    j = _join(give_up=2.0)
    j.poll(0.0)
    j.poll(2.5)
    assert isinstance(j.result, Failed) and j.result.reason == "no answer"


def test_a_waiting_player_whose_server_falls_silent_gives_up_with_a_line():
    j = _join(give_up=2.0)
    j.poll(0.0)
    j.handle_datagram(_joined(0), SERVER, 0.1)
    j.poll(2.0)
    j.handle_datagram(_joined(0, token=88), SERVER, 2.0)    # a restarted server's room: another token
    assert j.result is None
    j.poll(2.2)
    assert isinstance(j.result, Failed) and j.result.reason == "no answer" and "stopped answering" in j.result.detail


def test_answers_from_another_address_or_for_another_nonce_or_token_are_ignored():
    j = _join()
    assert not j.handle_datagram(_joined(1), ("127.0.0.1", 9), 0.1)
    assert not j.handle_datagram(_joined(1, nonce=1), SERVER, 0.1)
    assert not j.handle_datagram(b"garbage", SERVER, 0.1)
    assert j.result is None
    j.handle_datagram(_joined(0, token=77), SERVER, 0.2)
    assert not j.handle_datagram(_joined(1, token=78), SERVER, 0.3)    # another token: a stranger's
    assert j.result is None


def test_a_relay_wraps_and_unwraps_with_the_token_only():
    payload = netwire.encode(netwire.Goodbye(0), 3, key=5)
    data = wrap(payload, 77)
    assert unwrap(data, 77) == wire.Relay(payload)
    assert unwrap(data, 78) is None
    assert unwrap(b"\0" * 20, 77) is None


def test_leave_needs_the_token():
    j = _join()
    assert j.leave() == b""
    j.handle_datagram(_joined(0), SERVER, 0.1)
    assert wire.parse(j.leave()) == (77, wire.Leave(0))
