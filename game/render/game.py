"""The playable game on the window side: screens, input, and one frame's drawing.

:class:`Game` is driven by the window's fixed-step loop (``game/cli/window.py``):
``step()`` once per 1/60 s of simulation (input -> ``match.step`` -> events ->
sparks, camera, HUD, training), ``draw(alpha)`` once per displayed frame,
interpolating the fighters and camera between the last two simulation states.
Drawing only reads the match; nothing here changes what the simulation computes.
The pieces it drives live beside it: the players' input (``controls.py``), what
each event shows (``effects.py``), the camera (``camera.py``), the 3D scene
(``world.py``), the HUD (``hud.py``) and the debug overlay (``overlay.py``).
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from pyglet import gl

from game.sim import CrateStruck, FrameInput, Match, RoundStart
from game.sim.debug import draw_rays

from .camera import FightCamera
from .controls import Gamepads, Keyboard, PlayerInputs, controls_text
from .crates import Debris
from .effects import show_events, throw_landing
from .geometry import arena_parts, camera_obstacles, camera_ray, load_scene_arena
from .glutil import RenderTarget
from .hud import Hud
from .menu_panel import MenuPanel
from .menus import menu_items, menu_key, open_options, pad_menu, panel_key
from .occluders import FADE_KINDS, MAX_FADE, Occluders
from .overlay import DebugOverlay
from .passes import LineRenderer, RectRenderer, SparkRenderer
from .projection import look_at, perspective
from .showcase import StruckFaces
from .sparks import Sparks, projectile_rows
from .training import TrainingMode
from .world import WorldRenderer, fade_materials, limb_matrices

if TYPE_CHECKING:
    from collections.abc import Callable

    from game.audio.player import AudioPlayer
    from game.settings import Settings

    from .movelist import MoveList
    from .options import OptionsScreen
    from .replay_view import ReplayView

ATTRACT_RESTART = 300      # frames after the match ends before attract mode starts another
NOTICE_TICKS = 90          # ticks (1.5 s) a notice such as "sound off" stays in the HUD's corner


class BodyPose(NamedTuple):
    """Both fighters' limbs at one simulation step, what a frame interpolates between."""

    rotations: np.ndarray   # (2 L, 3, 3) float: each limb's rotation, P1's limbs then P2's
    origins: np.ndarray     # (2 L, 3) float: each limb's origin (m)
    feet: np.ndarray        # (2, 3) float: each fighter's ground point (m)


class Game:
    """Screens: ``'title'`` -> ``'fight'`` (with an optional pause menu and training mode)."""

    def __init__(self, pyglet, window, *, p1: str = "human", p2: str = "cpu", level: str = "normal",
                 seed: int = 0, training: bool = False, debug: bool = False, title: bool = True,
                 show_fps: bool = False, render_scale: float = 1.0, adaptive: bool = False, rounds: int = 3,
                 timer: int = 60, settings: Settings | None = None, settings_path=None):
        from pyglet.window import key

        from game.settings import Settings

        self.pyglet, self.window, self.key = pyglet, window, key
        self.p1, self.p2, self.level, self.seed = p1, p2, level, seed
        self.rounds, self.timer = rounds, timer      # each new match: best of ``rounds``, ``timer`` s rounds
        #: the options in use (the saved ones under the flags); the options screen changes them
        self.settings = (settings or Settings()).copy()
        self.settings.level, self.settings.rounds, self.settings.timer = level, rounds, timer
        #: where the options screen saves them (None: ``game.settings.default_path()``)
        self.settings_path = settings_path
        #: the move list or options screen shown over the title or pause menu (``menus.py``), or None
        self.panel: MoveList | OptionsScreen | None = None
        self.keys = key.KeyStateHandler()
        window.push_handlers(self.keys)
        window.push_handlers(on_key_press=self.on_key_press)
        self.keyboard = Keyboard(key, self.keys, self.settings.bindings)
        self.pads = Gamepads(pyglet, enabled=not pyglet.options["headless"])
        self.inputs = PlayerInputs(self.keyboard, self.pads)
        self.training = TrainingMode() if training else None
        #: the replay viewer while the window shows a replay (``replay_view.py``), else None
        self.replay: ReplayView | None = None
        self.screen = "title" if title and not self.attract and not training else "fight"
        self.menu_sel: int | None = None
        self.show_fps = show_fps
        self.overlay = DebugOverlay()
        self.overlay.enabled = debug
        self.sparks = Sparks()
        self.debris = Debris()
        self.struck_faces = StruckFaces()      # the struck crate face the camera turns to show
        self._defer_crates = False     # a crate was struck this step: build its mesh next frame
        self.camera = FightCamera()     # obstacles set once the arena is known (below)
        #: this tick's presentation ray casts (C7: the camera's, the impact sparks'), for the overlay
        self.view_rays: list = []
        self.ticks = 0
        self.over_frames = 0
        self.quit = False
        #: optional ``() -> (FrameInput, FrameInput)`` replacing keys and pads (tests, tools, replays)
        self.input_source: Callable[[], tuple[FrameInput, FrameInput]] | None = None
        #: called as ``listener(match, events)`` after every simulation step (e.g. a replay recorder)
        self.step_listeners: list = []
        #: the sound effects (``game.audio.player.AudioPlayer``, attached by the window loop,
        #: game/cli/window.py, which also adds its ``on_step`` to ``step_listeners``); None: no
        #: sound (M does nothing)
        self.audio: AudioPlayer | None = None
        #: a short line in the HUD's corner and the tick it goes at (M: "sound off" / "sound on")
        self.notice: tuple[str, int] | None = None
        self.last_events: tuple = ()
        self._held = False
        self._pad_held: set = set()     # menu buttons held on the pads last tick (see _pad_menu)
        self._frame_times: deque = deque(maxlen=60)
        #: fraction of the window's resolution the 3D scene is rendered at (HUD always full)
        self.render_scale = float(render_scale)
        self.adaptive = adaptive
        self._full_res_period = 0.0     # median frame period that made _adapt_scale try half resolution
        self.match: Match
        self.new_match()
        data = self.match.data
        self.arena = self.match.arena if self.match.arena is not None else load_scene_arena()
        self.camera = FightCamera(obstacles=camera_obstacles(self.arena), ray=self.camera.ray)
        self.camera.reset(self.match.fighters[0].position, self.match.fighters[1].position)
        fading = [(name, kind, tris) for name, kind, tris in arena_parts(self.arena) if kind in FADE_KINDS]
        self._fade_names = [name for name, _k, _t in fading]
        self.occluders = Occluders([np.stack([t.reshape(-1, 3).min(axis=0), t.reshape(-1, 3).max(axis=0)])
                                    for _n, _k, t in fading],
                                   [fade_materials(kind) for _n, kind, _t in fading])
        self.world = WorldRenderer(data.skeleton, list(data.fighters), self.arena)
        self.lines = LineRenderer()
        self.spark_gl = SparkRenderer()
        self.rects = RectRenderer()
        self.target = RenderTarget()
        self.hud = Hud(pyglet, list(data.fighters))
        self.menu_panel = MenuPanel(pyglet)
        self._view_scale: float | None = None      # the HUD canvas scale the window's view was set for

    def prepare_for_play(self) -> None:
        """Before the first frame of an interactive session (the window loop, and the
        render benchmark): every HUD glyph into the font atlas (``Hud.warm_glyphs``: no
        glyph upload stalls a frame later), then the start-up heap frozen
        (``boot.settle_heap``: no full garbage collection walks it in a fight)."""
        from .boot import settle_heap

        self.hud.warm_glyphs()
        self.warm_draws()
        settle_heap()

    def warm_draws(self) -> None:
        """Draw, once and before play, in every GL state a later frame can first need.

        A GL driver compiles a program's code for each draw state it first meets (llvmpipe:
        its fragment and vertex variants), so a state first met in a fight costs that
        frame: the frame after the first crate strike (the hole's splintered walls), the
        first chips and sparks, the first obstacle to fade, the overlay's lines, the
        half-resolution pass.  This draws throwaway frames that
        have all of them: a new match of the same seed (the live one is only read, as
        always) whose crates and barrel each have a hole, with its own chips, chunks and a
        burst of every spark style (the live effects are set aside and put back), the
        overlay with every layer, first with nothing faded, then with each kind of obstacle
        faded; again at half resolution where the game may use it (``adaptive`` or a lower
        ``render_scale``).  Everything is put back, and the next frame draws every pixel
        again.  ``tests/render/test_warm_up.py`` checks that a fight, a crate strike, fades,
        the menus and training meet no draw state after this that it did not draw.
        """
        saved = (self.match, self.sparks, self.debris, self.overlay.enabled, dict(self.overlay.show),
                 self.occluders.amount.copy(), self.render_scale, list(self._frame_times), self._defer_crates,
                 self.screen, self.menu_sel)
        warm = Match.new(seed=self.seed, arena=getattr(self.match, "stage", None) is not None)
        stage = getattr(warm, "stage", None)
        try:
            self.match, self.sparks, self.debris = warm, Sparks(), Debris()
            self.screen, self.menu_sel = "fight", None      # the title draws no fades and no overlay
            if stage is not None:
                for i, crate in enumerate(stage.crates):
                    lo, hi = np.asarray(crate.compound.bounds, dtype=float)
                    mid = 0.5 * (lo + hi)
                    rod = np.array([mid - [1e3, 0.08, 0.08], mid + [1e3, 0.08, 0.08]])   # through both x walls
                    crate.compound.strike(rod)
                    point = np.array([lo[0], mid[1], mid[2]])
                    event = CrateStruck(frame=0, fighter=0, crate=i, name=crate.obj.name, limb="", point=point,
                                        removed=0.0, broke=True, normal=np.array([-1.0, 0.0, 0.0]))
                    self.debris.strike(event, crate)
            f = warm.fighters[0].position
            for style in ("crate", "impact", "dust"):
                self.sparks.burst((f[0], 1.0, f[2]), 0, style, big=True)
            self.overlay.enabled = True
            for layer in self.overlay.show:
                self.overlay.show[layer] = True
            groups: dict = {}
            for i, mats in enumerate(self.occluders.materials):
                groups.setdefault(mats, i)
            firsts = list(groups.values())
            # nothing faded, then every kind of obstacle faded (at most MAX_FADE fade at once)
            fades = [[]] + [firsts[k:k + MAX_FADE] for k in range(0, len(firsts), MAX_FADE)]
            scales = [1.0] + ([0.5] if self.adaptive or self.render_scale < 0.999 else [])
            for scale in scales:
                self.render_scale = scale
                for fading in fades:
                    self.occluders.amount[:] = 0.0
                    self.occluders.amount[fading] = 1.0
                    self.draw(1.0)
            gl.glFinish()
        finally:
            (self.match, self.sparks, self.debris, self.overlay.enabled, show, self.occluders.amount,
             self.render_scale, frame_times, self._defer_crates, self.screen, self.menu_sel) = saved
            self.overlay.show.update(show)
            self.overlay.clear()
            self._frame_times.clear()
            self._frame_times.extend(frame_times)

    @property
    def speed(self) -> float:
        """Simulated seconds per real second: the window loop's accumulator factor (a replay's
        fast forward or slow motion; 1 otherwise)."""
        return self.replay.speed if self.replay is not None else 1.0

    @property
    def attract(self) -> bool:
        """CPU vs CPU: no title screen, and a new match some time after each one ends."""
        return self.p1 == "cpu" and self.p2 == "cpu"

    # ------------------------------------------------------------------ match
    def new_match(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

        def cpu(who: str) -> str | None:
            return self.level if who == "cpu" else None

        p2_cpu = None if self.training else cpu(self.p2)
        self.match = Match.new(seed=self.seed, p1_cpu=cpu(self.p1), p2_cpu=p2_cpu, rounds=self.rounds,
                               timer=self.timer)
        if self.training:
            self.training.attach(self.match)
        self.sparks.clear()
        self.debris.clear()
        if hasattr(self, "occluders"):
            self.occluders.clear()
        self.over_frames = 0
        stage = getattr(self.match, "stage", None)
        self.view_rays.clear()
        self.camera.ray = camera_ray(stage.scene, record=self.view_rays) if stage is not None else None
        if hasattr(self, "hud"):
            self.hud.reset()
        self.reset_view()

    def _capture(self) -> BodyPose:
        rots, origins = zip(*(f.limb_frames() for f in self.match.fighters))
        feet = np.array([f.position for f in self.match.fighters])
        return BodyPose(np.concatenate(rots), np.concatenate(origins), feet)

    @property
    def pose(self) -> BodyPose:
        """Both fighters' limbs after the last simulation step (what ``draw(1.0)`` shows)."""
        return self._cur

    def set_training(self, on: bool) -> None:
        self.training = TrainingMode() if on else None
        self.screen = "fight"
        self.new_match()

    def reset_training(self) -> None:
        """Training's R: the match back to the start positions, and the view with it (the
        camera framing them as at the start, not swinging back from wherever it was; no
        sparks or crate debris of the abandoned exchange)."""
        assert self.training is not None, "R resets training only in training mode"
        self.training.reset(self.match)
        self.reset_view(effects=True)

    def reset_view(self, *, effects: bool = False) -> None:
        """Frame the match as it stands, at once: the camera placed afresh (no easing from
        where it was, no swing round; P1 on the left as at the first frame) and the bodies with
        nothing to interpolate from.  A new match, training's reset, a replay's seek and each
        round's start (``RoundStart``: the fighters are back at their starts, and a camera kept
        on the side it had swung to would turn the screen's "right" into "back").  ``effects``:
        the match was put back or jumped, so also no sparks, chips, fades or damage trail of
        the frames before."""
        if effects:
            self.sparks.clear()
            self.debris.clear()
            self.occluders.clear()
            self.hud.reset()
        f1, f2 = self.match.fighters
        self.camera.reset(f1.position, f2.position)
        self._cur = self._prev = self._capture()

    # ------------------------------------------------------------------ input
    def player_inputs(self) -> tuple[FrameInput, FrameInput]:
        """This frame's inputs of both sides from keys and pads (:class:`PlayerInputs`).  A CPU
        side gets a neutral input without reading them: the match decides that side itself."""
        return self.inputs.frame_inputs(self.match, self.camera, self.p1 == "human", self.training)

    # ------------------------------------------------------------------ simulation tick
    def step(self) -> None:
        """One 1/60 s tick of the game: at most one ``match.step``."""
        self.ticks += 1
        pad_menu(self)
        if self.replay is not None:
            self.replay.on_tick()
        if self.screen == "title" or self.menu_sel is not None or self.panel is not None or \
                (self.training is not None and not self.training.wants_step()) or \
                (self.replay is not None and not self.replay.wants_step()):
            self._hold()
            return
        self._held = False
        self.view_rays.clear()
        p1, p2 = self.input_source() if self.input_source is not None else self.player_inputs()
        events = self.match.step(p1, p2)
        self.last_events = events
        self._defer_crates = show_events(events, self.match, self.sparks, self.debris, self.camera, self.view_rays)
        throw_landing(self.match, self.sparks, self.camera)
        self._follow(events)
        if self.training is not None:
            self.training.after_step(self.match, events)
        for listener in self.step_listeners:
            listener(self.match, events)
        if self.match.over:
            self.over_frames += 1
            if self.attract and self.over_frames >= ATTRACT_RESTART:
                self.new_match(self.seed + 1)

    def _follow(self, events) -> None:
        """After a step: effects aged a frame, the HUD, the camera and bodies to the match as it
        now stands (framed afresh on a round's start), the fading obstacles."""
        self.sparks.step()
        self.debris.step()
        self.hud.step(self.match)
        f1, f2 = self.match.fighters
        top = max((float(f.limb_boxes()[:, 1, 1].max()) for f in (f1, f2) if f.airborne), default=None)
        fw, fh = self.window.get_framebuffer_size()
        self.camera.aspect = fw / max(fh, 1)
        self.camera.show = self.struck_faces.face(getattr(self.match, "stage", None), (f1.position, f2.position))
        if any(isinstance(e, RoundStart) for e in events):
            self.reset_view()
        else:
            self.camera.update(f1.position, f2.position, self.match.frame, top)
            self._prev, self._cur = self._cur, self._capture()
        self._update_occluders()

    def _update_occluders(self) -> None:
        """Fade the pillars and crates standing between the camera's eye and a fighter's
        limbs (see occluders.py); a broken crate is gone and never fades."""
        if not hasattr(self, "occluders"):
            return
        stage = getattr(self.match, "stage", None)
        broken = {c.obj.name for c in stage.crates if c.broken} if stage is not None else set()
        boxes = np.concatenate([f.limb_boxes() for f in self.match.fighters])       # (2 L, 2, 3)
        self.occluders.update(self.camera.current[0], boxes.mean(axis=1),
                              [name not in broken for name in self._fade_names])

    def _hold(self) -> None:
        """No simulation step this tick: render the current state still (no interpolation drift)."""
        self._prev = self._cur
        self.camera.prev = self.camera.current
        self.sparks.hold()
        self.debris.hold()
        self._held = True

    def _projectiles(self, alpha: float) -> np.ndarray:
        stage = getattr(self.match, "stage", None)
        if stage is None or not stage.projectiles:
            return np.zeros((0, 11), np.float32)
        colors = [np.asarray(fd["colors"].get("accent", (1, 1, 1)), float) for fd in self.match.data.fighters]
        return projectile_rows(stage.projectiles, colors, alpha)

    # ------------------------------------------------------------------ drawing
    def matrices(self, alpha: float, aspect: float):
        if self.screen == "title":      # a slow sway in front of the fighters, inside the ring of crates
            a = 0.5 * math.sin(self.ticks * 0.008)
            eye = np.array([math.sin(a) * 4.1, 1.45, math.cos(a) * 4.1])
            return look_at(eye, (0, 1.05, 0)), perspective(42.0, aspect), eye
        return self.camera.matrices(aspect, alpha)

    def draw(self, alpha: float = 1.0) -> None:
        now = time.perf_counter()
        self._frame_times.append(now)
        if self._held:              # paused / frozen: no state to interpolate toward
            alpha = 1.0
        elif self.overlay.enabled and self.screen != "title":
            # The overlay draws the simulation's last state exactly (range boxes, contacts, rays):
            # the bodies, camera and effects under it show that state too, not one in between.
            alpha = 1.0
        fw, fh = self.window.get_framebuffer_size()
        scale = self.render_scale
        if scale < 0.999:          # 3D at a lower internal resolution, scaled up under a full-res HUD
            self.target.ensure(max(int(fw * scale), 1), max(int(fh * scale), 1))
            self.target.bind()
            viewport, framebuffer = (0, 0, *self.target.size), self.target.fbo
        else:
            gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
            viewport, framebuffer = (0, 0, fw, fh), 0
        gl.glViewport(*viewport)
        (r0, o0, f0), (r1, o1, f1) = self._prev, self._cur
        rot = r0 + (r1 - r0) * alpha
        origin = o0 + (o1 - o0) * alpha
        feet = f0 + (f1 - f0) * alpha
        stage = getattr(self.match, "stage", None)
        self.world.sync_arena(self.arena)
        self.world.sync_crates(stage, defer=self._defer_crates)
        self._defer_crates = False
        view, proj, eye = self.matrices(alpha, fw / max(fh, 1))
        vp = proj @ view
        self.view_proj = vp
        self.world.draw(view, proj, eye, limb_matrices(rot, origin), feet, viewport, self.sparks.flash,
                        debris=self.debris.instances(alpha),
                        fade=self.occluders.uniforms() if self.screen != "title" else None)
        # the scene wrote alpha 1 everywhere; keep it so (saved PNGs match the screen) while blending on top
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_FALSE)
        rows = self.sparks.instances(alpha)
        proj_rows = self._projectiles(alpha)
        if len(proj_rows):
            rows = np.concatenate([rows, proj_rows])
        self.spark_gl.draw(vp, proj, viewport, rows)
        # the overlay over the sparks: the collision point must stay readable through the flash
        self.overlay.clear()
        if self.overlay.enabled and self.screen != "title":
            self.match.debug_draw(self.overlay)
            draw_rays(self.overlay, self.view_rays, group="presentation")   # the camera's and sparks' casts
            self.lines.draw(vp, viewport, self.overlay.segments(), self.overlay.colors(),
                            width=max(1.0, 2.0 * scale), depth_tested=self.overlay.in_scene())
        if framebuffer:
            self.target.present(fw, fh)
            gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_FALSE)
        self._draw_hud(vp)
        self._adapt_scale()

    def _frame_stepping(self) -> bool:
        """Training frozen: the match moves only by single steps (``.``), each worth naming."""
        return self.training is not None and self.training.frozen

    def _adapt_scale(self) -> None:
        """Dynamic resolution, kept only where it helps.  When displayed frames keep coming
        slower than ~45 fps (median period over 45 frames; vsync holds a healthy window at
        60 fps), render the 3D scene at half resolution; keep that only if the next 45
        frames come at least 10 % faster, else go back to full resolution.  Either way the
        question is settled for the session (going back and forth would only stutter).

        It is a real test, not a formality: on llvmpipe the upscale alone can cost as much
        as the smaller 3D saves, so half resolution need not be faster."""
        if not self.adaptive or len(self._frame_times) < 46:
            return
        t = list(self._frame_times)[-46:]
        period = sorted(b - a for a, b in zip(t, t[1:]))[22]
        if self.render_scale >= 1.0:
            if period > 0.022:
                self._full_res_period = period
                self.render_scale = 0.5
                self._frame_times.clear()        # judge the half-resolution frames alone
        elif self._full_res_period > 0.0:        # our trial (not a scale someone chose)
            if period > 0.9 * self._full_res_period:
                self.render_scale = 1.0
            self.adaptive = False

    def fps(self) -> float:
        t = self._frame_times
        return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else 0.0

    def _draw_hud(self, vp) -> None:
        size = self.window.get_size()
        W, H, s = self.hud.canvas(size)
        if self._view_scale != s:
            from pyglet.math import Mat4, Vec3
            self.window.view = Mat4.from_scale(Vec3(s, s, 1.0))
            self._view_scale = s
        menu = None
        if self.panel is not None:
            pass                        # the panel covers the pause menu
        elif self.menu_sel is not None and self.replay is not None:
            menu = self.replay.menu(self.menu_sel)
        elif self.menu_sel is not None:
            menu = self.menu_spec()
        rects, menu_rects = self.hud.build(
            size, self.match, screen=self.screen, fps=self.fps() if self.show_fps else None,
            training=self.training, menu=menu, overlay_texts=self.overlay.texts,
            view_proj=vp, title_info=self.title_info(), blink=self.ticks,
            attract=self.attract or self.replay is not None,       # no "Enter: rematch" under a replay
            overlay_legend=self.overlay.legend() if self.overlay.enabled else None,
            overlay_frame=self.match.frame if self._held or self._frame_stepping() else None,
            notice=self.notice[0] if self.notice and self.ticks < self.notice[1] else None)
        gl.glDisable(gl.GL_DEPTH_TEST)
        gl.glViewport(0, 0, *self.window.get_framebuffer_size())
        self.rects.draw((W, H), rects.array())
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.hud.draw()
        if self.replay is not None:
            self.replay.draw(self.rects, (W, H))
        if len(menu_rects.rows):
            self.rects.draw((W, H), menu_rects.array())
            gl.glEnable(gl.GL_BLEND)
            gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
            self.hud.draw_menu()
        if self.panel is not None:
            self.menu_panel.draw(self.rects, (W, H), self.panel)
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE)

    def menu_spec(self) -> tuple[list[str], int, str]:
        """The open menu: its lines, the selected one, its heading."""
        assert self.menu_sel is not None
        return menu_items(self), self.menu_sel, "PAUSED"

    def title_info(self) -> dict:
        """The title screen's lines (``Hud._title``): who plays whom, the controls."""
        names = [fd.get("name", "?") for fd in self.match.data.fighters]

        def who(side: str) -> str:
            return "CPU" if side == "cpu" else "Player"

        return {"versus": f"{names[0]} ({who(self.p1)})   vs   {names[1]} ({who(self.p2)})",
                "controls": controls_text(self.settings.bindings)}

    # ------------------------------------------------------------------ keys
    def on_key_press(self, symbol, modifiers):
        k = self.key
        paused = self.screen == "title" or self.menu_sel is not None
        over = self.match.over
        if self.panel is not None:
            panel_key(self, symbol)     # every key is the panel's (F11, M, F1 ... too: a key to remap)
        else:
            self._on_key_press(symbol)
        if (paused and self.screen != "title" and self.menu_sel is None) or (over and not self.match.over):
            self.inputs.resume()
        return self.pyglet.event.EVENT_HANDLED if symbol == k.ESCAPE else None

    def _on_key_press(self, symbol) -> None:
        k = self.key
        if symbol == k.F11:
            try:
                self.window.set_fullscreen(not self.window.fullscreen)
            except Exception:  # headless windows cannot go fullscreen
                pass
        elif symbol == k.F1:
            self.overlay.enabled = not self.overlay.enabled
        elif symbol == k.F2:
            self.overlay.show["crates"] = not self.overlay.show["crates"]
        elif symbol == k.F3:
            self.overlay.show["quadtree"] = not self.overlay.show["quadtree"]
        elif symbol == k.F4:
            self.overlay.show["rays"] = not self.overlay.show["rays"]
        elif symbol == k.F5:
            self.show_fps = not self.show_fps
        elif symbol == k.M:
            if self.audio is not None:
                self.notice = ("sound off" if self.audio.toggle_mute() else "sound on", self.ticks + NOTICE_TICKS)
        elif self.replay is not None and self.replay.on_key(symbol):
            return                      # the replay viewer's key (replay_view.py), its menu's included
        elif self.screen == "title":
            if symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE, k.U):
                self.screen = "fight"
                self.new_match()
            elif symbol == k.T:
                self.set_training(True)
            elif symbol == k.O:
                open_options(self)
            elif symbol == k.ESCAPE:
                self.quit = True
        elif self.menu_sel is not None:
            menu_key(self, symbol)
        elif symbol == k.ESCAPE:
            self.menu_sel = 0
        elif self.match.over and symbol in (k.ENTER, k.RETURN, k.NUM_ENTER):
            self.new_match()
        elif self.training is not None:
            tr = self.training
            if symbol == k.P:
                tr.toggle_freeze()
            elif symbol == k.PERIOD:
                tr.request_step()
            elif symbol == k.R:
                self.reset_training()
            elif symbol == k.F6:
                tr.cycle_dummy()
            elif symbol == k.F7:
                tr.toggle_record()
            elif symbol == k.F8:
                tr.toggle_playback()
            elif symbol == k.F9:
                tr.cycle_reversal()

    def show_notice(self, line: str) -> None:
        """A short line in the HUD's corner for a moment (M's \"sound off\", a failed settings save)."""
        self.notice = (line, self.ticks + NOTICE_TICKS)
