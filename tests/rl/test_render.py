"""``render_mode="rgb_array"``: the game's headless EGL renderer draws the environment's match at
the size the caller chooses, and drawing changes nothing the match computes."""

from __future__ import annotations

import numpy as np
import pytest

from rlhelp import buttons, need_gymnasium

need_gymnasium()

from game.render.boot import RenderUnavailable  # noqa: E402
from game.rl import RangeboxEnv  # noqa: E402
from game.sim.inputs import FORWARD  # noqa: E402

pytestmark = [pytest.mark.gl, pytest.mark.slow]


def test_rgb_array_frames_at_the_chosen_size_follow_the_match_and_change_no_state():
    drawn = RangeboxEnv(render_mode="rgb_array", render_size=(160, 96))
    plain = RangeboxEnv()
    try:
        drawn.reset(seed=4)
    except RenderUnavailable as exc:
        pytest.skip(f"no headless GL here: {exc}")
    try:
        plain.reset(seed=4)
        first = drawn.render()
        for _ in range(60):
            drawn.step(buttons(FORWARD))
            plain.step(buttons(FORWARD))
        later = drawn.render()
        assert first.shape == later.shape == (96, 160, 3) and first.dtype == np.uint8
        assert first.std() > 5, "a blank frame"
        assert np.abs(first.astype(int) - later).mean() > 0.5, "the picture did not follow the fighters"
        assert drawn.state_hash() == plain.state_hash()
        assert plain.render() is None
    finally:
        drawn.close()
