"""``FrameInput``: immutable, neutral by default, every bit pattern round-trips, fields are bools
(numpy's too), and contradictory directions cancel."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from game.sim import BUTTONS, FrameInput, Match
from simhelp import NEUTRAL, run, to_fight


# ---------------------------------------------------------------- FrameInput
@pytest.mark.parametrize("field, value", [("forward", "no"), ("lp", 2), ("guard", None), ("hk", 1.0),
                                          ("down", -1)])
def test_frameinput_field_that_is_no_bool_is_refused_naming_the_field(field, value):
    with pytest.raises(TypeError, match=f"FrameInput: {field} must be True or False"):
        FrameInput(**{field: value})


def test_frameinput_takes_numpy_bools_and_0_1_as_bools():
    for v, want in ((np.bool_(True), True), (np.False_, False), (1, True), (0, False), (np.uint8(1), True)):
        f = FrameInput(lp=v)
        assert f.lp is want
        assert f == FrameInput.from_bits(FrameInput(lp=want).bits)


def test_from_bits_takes_numpy_integers_from_an_input_array():
    recorded = np.array([[0b1000001, 3]], dtype=np.uint16)      # as a replay's inputs are
    assert FrameInput.from_bits(recorded[0, 0]) == FrameInput(forward=True, lp=True)
    for bad in (np.bool_(True), np.int64(-1), np.uint16(1 << FrameInput.BITS)):
        with pytest.raises(ValueError, match="from_bits"):
            FrameInput.from_bits(bad)


# ---------------------------------------------------------------- FrameInput
def test_frameinput_is_immutable_and_neutral_by_default():
    fi = FrameInput()
    assert fi.bits == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        fi.lp = True


def test_frameinput_every_int_in_range_round_trips():
    k = FrameInput.BITS
    assert k == len(BUTTONS)
    for n in range(2 ** k):
        assert FrameInput.from_bits(n).bits == n
    for bad in (-1, 2 ** k, 1.5, "3", True):
        with pytest.raises(ValueError):
            FrameInput.from_bits(bad)


def test_contradictory_directions_cancel():
    m = Match.new(seed=0)
    to_fight(m)
    x0 = m.fighters[0].x
    both = FrameInput(forward=True, back=True, up=True, down=True, side_l=True, side_r=True)
    run(m, both, NEUTRAL, 30)
    f = m.fighters[0]
    assert f.x == x0 and f.z == 0.0 and f.state == "idle" and not f.move
