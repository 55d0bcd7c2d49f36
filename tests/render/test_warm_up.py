"""Game.warm_draws: before play, one throwaway frame draws in every GL state a fight can first
meet later (a GL driver compiles code per program and draw state on its first draw).

A draw's state is recorded by wrapping the GL draw calls (ours and pyglet's text) and reading
back the state that selects the driver's code: the program, the vertex attribute formats, the
framebuffer, the primitive, blending, depth, stencil, culling and the colour mask."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from glhelp import fresh, game_env

#: every test here draws in a headless GL window, for more than about half a second
pytestmark = [pytest.mark.gl, pytest.mark.slow]

_DRAWS = ("glDrawArrays", "glDrawArraysInstanced", "glDrawElements", "glDrawElementsInstanced",
          "glMultiDrawArrays", "glMultiDrawElements")


@pytest.fixture(scope="module")
def env():
    yield from game_env(640, 360)


def _draw_state(gl, mode) -> tuple:
    def geti(name, index=None):
        v = gl.GLint(0)
        if index is None:
            gl.glGetIntegerv(getattr(gl, name), ctypes.byref(v))
        else:
            gl.glGetVertexAttribiv(index, getattr(gl, name), ctypes.byref(v))
        return v.value

    attribs = tuple((i, geti("GL_VERTEX_ATTRIB_ARRAY_SIZE", i), geti("GL_VERTEX_ATTRIB_ARRAY_TYPE", i),
                     geti("GL_VERTEX_ATTRIB_ARRAY_DIVISOR", i))
                    for i in range(8) if geti("GL_VERTEX_ATTRIB_ARRAY_ENABLED", i))
    def on(cap):
        return bool(gl.glIsEnabled(cap))

    mask = (gl.GLboolean * 4)()
    gl.glGetBooleanv(gl.GL_COLOR_WRITEMASK, mask)
    depth_write = gl.GLboolean(0)
    gl.glGetBooleanv(gl.GL_DEPTH_WRITEMASK, ctypes.byref(depth_write))
    blend = on(gl.GL_BLEND) and tuple(geti(n) for n in ("GL_BLEND_SRC_RGB", "GL_BLEND_DST_RGB",
                                                          "GL_BLEND_SRC_ALPHA", "GL_BLEND_DST_ALPHA"))
    stencil = on(gl.GL_STENCIL_TEST) and tuple(geti(n) for n in ("GL_STENCIL_FUNC", "GL_STENCIL_PASS_DEPTH_PASS"))
    return (geti("GL_CURRENT_PROGRAM"), attribs, geti("GL_DRAW_FRAMEBUFFER_BINDING"), int(mode), blend,
            on(gl.GL_DEPTH_TEST) and geti("GL_DEPTH_FUNC"), bool(depth_write.value), tuple(map(bool, mask)),
            stencil, on(gl.GL_CULL_FACE) and geti("GL_CULL_FACE_MODE"))


class _DrawStates:
    """Context manager: ``.seen``, the set of draw states of every draw call made inside."""

    def __enter__(self):
        import pyglet.graphics.vertexdomain as vd
        from pyglet import gl

        self.seen: set = set()
        self._saved = []
        for mod in (gl, vd):
            for name in _DRAWS:
                fn = getattr(mod, name, None)
                if fn is None:
                    continue

                def wrapped(mode, *a, _fn=fn):
                    self.seen.add(_draw_state(gl, mode))
                    return _fn(mode, *a)

                self._saved.append((mod, name, fn))
                setattr(mod, name, wrapped)
        return self

    def __exit__(self, *exc):
        for mod, name, fn in self._saved:
            setattr(mod, name, fn)


def _frames(game, n: int) -> None:
    for _ in range(n):
        game.step()
        game.draw(1.0)


def _session(game) -> None:
    """A little of everything a player meets: the title, a fight with the overlay, two crate
    strikes (chips, a hole), every obstacle fading in turn, the pause menu, training, and the
    half-resolution pass that ``adaptive`` may switch to."""
    from game.sim import FrameInput

    game.screen = "title"
    _frames(game, 2)
    game.screen = "fight"
    game.overlay.enabled = True
    _frames(game, 3)
    game.overlay.enabled = False
    neutral = FrameInput()
    script = [neutral]
    game.input_source = lambda: (script[0], neutral)
    m = game.match
    while m.phase != "fight":
        game.step()
    m.fighters[1].x, m.fighters[1].z = 0.0, 8.0
    crate = next(c for c in m.stage.crates if c.obj.name == "crate_north")
    n0 = len(crate.compound.boxes)
    for k, button in enumerate(("hp", "lk")):
        m.fighters[0].x, m.fighters[0].z = 0.2 * k, 3.72     # facing P2, the crate between them
        for j in range(31):
            script[0] = FrameInput(**{button: True}) if j == 1 else neutral
            game.step()
            game.draw(1.0)
    assert len(crate.compound.boxes) > n0, "the scripted punches must strike the crate"
    game.input_source = None
    for i in range(len(game.occluders.amount)):
        game.occluders.amount[:] = 0.0
        game.occluders.amount[i] = 1.0
        game.draw(1.0)
    game.occluders.amount[:] = 0.0
    game.menu_sel = 0
    _frames(game, 2)
    game.menu_sel = None
    game.set_training(True)
    _frames(game, 4)
    game.set_training(False)
    game.render_scale = 0.5
    _frames(game, 2)
    game.render_scale = 1.0


def test_render_warm_up_draws_every_state_a_fight_meets_later(env):
    """No draw state met in the session is new after warm_draws; and the session does meet
    states that ordinary fight frames never do (else the check would hold by construction)."""
    from game.render.world import MAT_SPLINTER

    pyglet, window, game = env
    fresh(game, p1="human", p2="human", seed=3)
    game.adaptive = True
    with _DrawStates() as ordinary:
        _frames(game, 20)
    game.screen = "title"                  # as main.py starts: the warm-up is made on the title screen
    with _DrawStates() as warm:
        game.warm_draws()
    assert game.screen == "title"
    game.screen = "fight"
    with _DrawStates() as session:
        _session(game)
    game.adaptive = False
    beyond_ordinary = session.seen - ordinary.seen
    programs = {s[0] for s in beyond_ordinary}
    splinter = game.world.lit_world[int(MAT_SPLINTER)].id
    assert splinter in programs, "the session should draw a struck crate's hole walls"
    assert len(programs) >= 6, f"the session should draw with programs ordinary frames do not: {programs}"
    assert session.seen - ordinary.seen - warm.seen == set()
    assert splinter in {s[0] for s in warm.seen}


def test_render_warm_up_leaves_the_game_as_it_was(env):
    """The live match is only read (the warm-up strikes a match of its own), the effects and
    settings are put back, and the next frame is the same picture as without the warm-up."""
    from game.render.offscreen import frame_pixels

    pyglet, window, game = env
    fresh(game, p1="cpu", p2="cpu", seed=5)
    _frames(game, 30)
    before = frame_pixels(game)
    h0 = game.match.state_hash()
    match, sparks, debris, n_sparks = game.match, game.sparks, game.debris, len(game.sparks)
    game.warm_draws()
    assert game.match is match and game.match.state_hash() == h0
    assert not game.overlay.enabled and game.render_scale == 1.0
    assert game.sparks is sparks and game.debris is debris and len(sparks) == n_sparks
    assert not game.occluders.amount.any()
    after = frame_pixels(game)
    assert np.array_equal(before, after)
    from game.sim import Match

    # the warm-up's holes are in its own match's compounds, not in anything a later match starts from
    assert all(len(c.compound.boxes) == 6 and c.compound.solid_fraction() == 1.0
               for c in Match.new(seed=5).stage.crates)
