"""The fight camera: pure numpy, advanced once per simulation frame.

It looks across the fighters' line from the side (perpendicular to the line
joining them, on the same side as the frame before, so a sidestep swings it
around the arena), backs off with their separation (and farther, as far as
framing both needs: ``_need``, every limb on a 16:9 screen below the HUD
band), and is smoothed exponentially.  An obstacle behind the eye pulls it in
(at once; back out gradually), and a pillar at the fighters' middle is looked
past.  A view that does not frame the fighters (an obstacle or a wall closer
than framing needs: a view is scored unclamped, so a wall counts) or in which
an obstacle hides one of them swings the camera round to the best direction
instead (a pan of at most ``MAX_TURN`` a frame).  An eye held closer than
framing needs (a wall behind it, fighters across the arena) rises and looks
down on them; on a window narrower than 16:9 it first widens the field of view
(eased, at most to a 16:9 window's width: ``_zoom_for``).  Heavy hits add a
short decaying shake.  The renderer interpolates between the last two camera
states (and fields of view) by the loop's alpha, exactly like the fighters.
Matrices are column-vector convention (OpenGL): :mod:`game.render.projection`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .projection import look_at, perspective
from .showcase import show_turn
from .sightlines import OBSTACLE_MARGIN, Sightlines

FOV_Y = 38.0            # degrees
EYE_HEIGHT = 1.55       # m above the floor
TARGET_HEIGHT = 0.95
MIN_DIST, MAX_DIST = 4.3, 10.0
DIST_PER_SEP = 1.05     # extra metres back per metre of separation
SMOOTH_POS = 0.12       # fraction of the remaining error closed per frame
SMOOTH_DIR = 0.08
WALL = 14.6             # keep the eye inside the arena walls
TALL = 2.0              # obstacles higher than this pull the eye in; lower ones lift it
LIFT_REACH = 1.4        # a low obstacle this close (x-z) to the eye lifts it ...
LIFT_CLEAR = 1.15       # ... to this height above the obstacle's top
OVER_MIN = 0.2          # a low obstacle between, from this fraction of the way target -> eye, ...
OVER_CLEAR = 0.15       # ... is looked over with this much room above its top ...
OVER_MAX = 3.0          # ... by an eye at most this high
MAX_TURN = math.radians(2.5)   # most the view direction turns in a frame (150 degrees a second)
MAX_PAN = 0.6           # m a frame the eye's turn about the look point may carry it, at most
SWING = (20, -20, 40, -40, 60, -60, 80, -80, 100, -100, 120, -120, 140, -140, 160, -160)   # degrees tried
SWING_GAIN = 1.2        # a turn must score this much better than the goal view (or the turn faced) to win
FLIP_HOLD = 90          # frames after a swing round to the other side before another may
SEARCH_STEP = 2         # swing turns scored per frame while a search runs (three rays each)
HUD_BAND = 0.14         # top fraction of the screen under the health bars and names: a jumper's head stays below it
FEET_BAND = 0.05        # bottom fraction kept below the fighters' feet while framing a jump
ASPECT = 16 / 9          # the screen shape the framing is planned for (the game's 1280 x 720)
SIDE_BAND = 0.04        # left and right fraction of the screen kept clear of the fighters
BODY_REACH = 0.95       # m: how far (x-z) a fighter's limb boxes reach from its ground point
BODY_TOP = 1.9          # m: top of a standing fighter's highest limb box
HEAD_REACH = 0.3        # m: how far (x-z) the head reaches from the ground point
JUMP_ROOM = 0.08        # metres kept above a jumping fighter's highest range box
REACH_STEP = 0.05       # m a frame the eye may move back out after a pull-in before that is eased
REACH_MAX = 0.6         # m a frame the eye moves back out after a pull-in at most (a long way out is a glide)
SMOOTH_JUMP = 0.6       # fraction of the jump framing's remaining error closed per frame (a jump lasts 36 frames)
RISE_STEP = 0.7         # m a frame the rise over a held eye changes at most
SMOOTH_ZOOM = 0.08      # fraction of the field of view's remaining widening (or narrowing) done per frame
#: what a swing's score past 90 degrees is worth (round to the other side: the fighters swap screen sides)
FLIP_COST = 0.75
FLIP_MAX_SEP = 12.0     # m: fighters farther apart than this are never swung round to the other side
PAN_PAST = math.cos(math.radians(3))   # a view turned more than 3 degrees from a clear goal view pans past obstacles


def _turn(n: np.ndarray, deg: float) -> np.ndarray:
    """The x-z direction ``n`` (2,) turned by ``deg`` degrees: ``(x, z) -> (c x - s z, s x + c z)``."""
    if not deg:
        return n
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * n[0] - s * n[1], s * n[0] + c * n[1]])


class _SwingView(NamedTuple):
    """What scoring a swing turn reads, fixed for one update."""

    target: np.ndarray          # (3,) float: the look point
    n: np.ndarray               # (2,) float: the goal view direction (x-z unit) the turns start from
    dist: float                 # m: the eye distance the goal view wants
    fighters: Sequence          # the fighters' ground points, (3,) each
    bodies: list[np.ndarray]    # (3,) float each: the fighters' points at the look point's height
    widest: float               # the widest zoom a view is framed at (``FightCamera._widest``)
    far: bool                   # the fighters are too far apart to swing round to the other side


class FightCamera:
    """Smoothed side-on camera.  ``update(p1, p2)`` once per sim frame; ``matrices(aspect, alpha)``.

    ``obstacles`` ``(N, 2, 3)``: world boxes the eye must not be behind or inside (the
    tall ones are used only without ``ray``, and with it to look out of a pillar the
    fighters stand either side of).  ``ray``: optional
    ``(origin (3,), unit direction (3,), max_distance) -> distance | None``, the
    scene's nearest hit (C7) for camera collision.
    """

    def __init__(self, p1=(-1.5, 0, 0), p2=(1.5, 0, 0), obstacles=None, ray=None) -> None:
        #: the window's width / height, which the framing plans for (``Game.step`` sets it: the
        #: window is resizable; a wider one than 16:9 is framed as 16:9, the HUD's shape)
        self.aspect = ASPECT
        #: how much the field of view is widened: ``tan(fov / 2) / tan(FOV_Y / 2)``, 1 unless a window
        #: narrower than 16:9 holds the eye closer than framing needs (``_zoom_for``)
        self.zoom = self._zoom_prev = 1.0
        boxes = np.zeros((0, 2, 3)) if obstacles is None else np.asarray(obstacles, dtype=float).reshape(-1, 2, 3)
        tall = boxes[:, 1, 1] > TALL
        #: what the eye can see past: the tall obstacles, by the scene's rays where there are some
        self.sight = Sightlines(boxes[tall], ray)
        self.low = boxes[~tall]
        # x0 z0 x1 z1 top of the low boxes that can raise the eye (grass can do neither)
        self._low_list = [(lo[0], lo[2], hi[0], hi[2], hi[1]) for lo, hi in self.low.tolist()
                          if hi[1] + LIFT_CLEAR > EYE_HEIGHT or hi[1] + OVER_CLEAR > TARGET_HEIGHT]
        self.eye_y = EYE_HEIGHT
        self.lift = 0.0          # metres eye and look point are raised to frame a jump
        self.back = 0.0          # metres the eye is moved back for the same
        self.shake = 0.0
        self.shake_t = 0
        #: swing turns scored per update while a search runs (None: all in one update)
        self.search_step = SEARCH_STEP
        self._order: list[int] = []               # the swing turns in the order a search scores them
        #: a struck crate face near the fighters, ``(centre (3,), x-z outward unit normal (2,))``, or None
        #: (``Game.step`` sets it each step, ``showcase.StruckFaces``): the goal view turns to show it
        self.show: tuple[np.ndarray, np.ndarray] | None = None
        self._goal_dir: np.ndarray | None = None  # the goal view direction of the last update (x-z unit)
        self._goal_clear = False                  # whether that goal view frames both fighters, unhidden
        self._next = 0                            # the index in _order of the next turn to score
        self.reset(p1, p2)

    def reset(self, p1, p2) -> None:
        """Frame the fighters at ground points ``p1``, ``p2`` at once (no easing, no swing search
        under way): a new match, or training's reset."""
        self.side: np.ndarray | None = None      # the x-z side of the fighters' line the eye is on
        self._offset: float = 0                  # the swing turn faced (degrees)
        self._scores: dict[float, float] | None = None    # each turn's last score while a search runs
        self._flipped = 0                         # frames left before the swing may change side again
        target, direction, dist = self._goal(np.asarray(p1, float), np.asarray(p2, float))
        self.target, self.dir, self.dist = target, direction, dist
        self.eye_y = EYE_HEIGHT
        self.eye_y = self._wanted_eye_y()
        self.lift = self.back = 0.0
        self._bodies = (np.asarray(p1, float), np.asarray(p2, float))
        self.dir = self._goal_dir = self._swing(target, direction, dist, self._bodies)
        self.dist = max(dist, self._back_off(target, self.dir))
        self.reach, self.rise, self._held = math.inf, 0.0, False
        self.prev = self.current = self._eye_target(1.0)
        self._zoom_prev = self.zoom

    @property
    def _sep(self) -> float:
        """The fighters' separation (m, x-z) in the last update."""
        a, b = self._bodies
        return math.hypot(float(b[0] - a[0]), float(b[2] - a[2]))

    def _goal(self, p1, p2):
        mid = (p1 + p2) / 2
        d = np.array([p2[0] - p1[0], p2[2] - p1[2]])
        sep = float(np.hypot(*d))
        d = d / sep if sep > 1e-6 else np.array([1.0, 0.0])
        n = np.array([-d[1], d[0]])                      # perpendicular on x-z
        if self.side is not None and n @ self.side < 0:
            n = -n
        self.side = n
        target = np.array([mid[0], TARGET_HEIGHT, mid[2]])
        dist = min(max(2.4 + DIST_PER_SEP * sep, MIN_DIST), MAX_DIST)
        return target, n if self.show is None else show_turn(n, target, dist, *self.show), dist

    def _wanted_eye_y(self) -> float:
        """Eye height that looks over every low obstacle near the eye, and over one standing
        between the fighters and the eye (a crate in the middle of the view hid the action):
        the line from the target to the eye clears its top by ``OVER_CLEAR`` where it enters
        the box (at most ``OVER_MAX``; a box within ``OVER_MIN`` of the way is at the fighters).
        On Python floats: a handful of boxes, every frame."""
        n0, n1 = float(self.dir[0]), float(self.dir[1])
        k = max(math.hypot(n0, n1), 1e-9)
        tx, ty, tz = (float(v) for v in self.target)
        dx, dz = n0 / k * self.dist, n1 / k * self.dist           # target -> eye on x-z
        ex, ez = tx + dx, tz + dz
        want = EYE_HEIGHT
        for x0, z0, x1, z1, top in self._low_list:
            gx, gz = max(x0 - ex, ex - x1, 0.0), max(z0 - ez, ez - z1, 0.0)
            if math.hypot(gx, gz) < LIFT_REACH:
                want = max(want, top + LIFT_CLEAR)
            if top + OVER_CLEAR <= ty:
                continue
            t0, t1 = -math.inf, math.inf                            # where the segment is in the box
            for o, d, lo, hi in ((tx, dx, x0, x1), (tz, dz, z0, z1)):
                if d == 0.0:
                    if not lo <= o <= hi:
                        t0, t1 = math.inf, -math.inf
                else:
                    a, b = (lo - o) / d, (hi - o) / d
                    t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
            if OVER_MIN <= t0 < 1.0 and t0 <= t1:
                want = max(want, min(ty + (top + OVER_CLEAR - ty) / t0, OVER_MAX))
        return want

    @property
    def ray(self):
        """The scene's nearest-hit cast the camera sees by (``Sightlines.ray``), or None."""
        return self.sight.ray

    @ray.setter
    def ray(self, ray) -> None:
        self.sight.ray = ray

    def _clear(self, target: np.ndarray, eye: np.ndarray) -> tuple[float, float, float]:
        """:meth:`Sightlines.clear` from ``target`` toward ``eye``, for the fighters of the last update."""
        return self.sight.clear(target, eye, self._sep)

    def _sees(self, p: np.ndarray, eye: np.ndarray) -> bool:
        """True if no tall obstacle stands between ``p`` and ``eye`` (:meth:`Sightlines.sees`)."""
        return self.sight.sees(p, eye)

    def _place(self, target: np.ndarray, n: np.ndarray, dist: float, clamp: bool = True) -> np.ndarray:
        """The eye ``dist`` from ``target`` along the x-z unit ``n``, at ``eye_y``, inside the walls
        (``clamp`` False: where it wants to be, for scoring a view: a wall it would be beyond
        then blocks that view, rather than the clamp silently moving the eye onto the fighters)."""
        eye = np.array([target[0] + n[0] * dist, self.eye_y, target[2] + n[1] * dist])
        if clamp:
            eye[0] = min(max(eye[0], -WALL), WALL)
            eye[2] = min(max(eye[2], -WALL), WALL)
        return eye

    @property
    def _widest(self) -> float:
        """The most ``zoom`` may be: a window narrower than 16:9 may see as wide as a 16:9 one
        (the HUD's shape) does; a 16:9 or wider one is never widened."""
        return max(ASPECT / max(self.aspect, 1e-6), 1.0)

    def _need(self, target: np.ndarray, n: np.ndarray, fighters, zoom: float = 1.0) -> float:
        """The horizontal eye distance from ``target`` along the x-z unit ``n`` that frames both
        ``fighters`` (ground points ``(3,)``) on a screen of ``aspect`` (16:9 at most) with the
        field of view widened by ``zoom`` (``tan(fov / 2) / tan(FOV_Y / 2)``): each body (``BODY_REACH``
        round its ground point) inside the side bands, its head (``BODY_TOP``) below the HUD
        band.  A fighter ``l`` across the view and ``k`` toward the eye needs, across,
        ``D >= k + R + (l + R) / tan(h)`` (``h`` the half-width angle less the bands), and up,
        ``atan((top - E) / x) + atan((E - T) / D) <= u`` at ``x = D - k - HEAD_REACH`` (eye ``E``,
        look point ``T``, ``u`` the usable half-height angle), solved with both at the smaller
        of ``x`` and ``D``: a quadratic in it.  On Python floats: a few calls a frame."""
        half = math.tan(math.radians(FOV_Y / 2)) * zoom
        th = half * min(self.aspect, ASPECT) * (1 - 2 * SIDE_BAND)
        tu = half * (1 - 2 * HUD_BAND)
        e = float(self.eye_y)
        t = TARGET_HEIGHT + 0.35 * (e - EYE_HEIGHT)
        a, b = BODY_TOP - t, (BODY_TOP - e) * (e - t)        # tu x^2 - a x - tu b >= 0
        head = max((a + math.sqrt(max(a * a + 4 * tu * tu * b, 0.0))) / (2 * tu), 0.0)
        n0, n1 = float(n[0]), float(n[1])
        tx, tz = float(target[0]), float(target[2])
        need = 0.0
        for p in fighters:
            dx, dz = float(p[0]) - tx, float(p[2]) - tz
            k, lat = dx * n0 + dz * n1, abs(dz * n0 - dx * n1)
            need = max(need, k + BODY_REACH + (lat + BODY_REACH) / th, head + max(k + HEAD_REACH, 0.0))
        return need

    def _back_off(self, target: np.ndarray, n: np.ndarray) -> float:
        """How far (m, x-z) from ``target`` along the x-z unit ``n`` to place the eye for framing:
        ``_need`` at the window's own field of view if that is inside the walls; else no farther
        than the wall, or than ``_need`` at the widest field of view (``_zoom_for`` widens the
        view for the rest).  The same as ``_need`` on a 16:9 window; on a narrower one an eye
        sent to the full 4:3 need would slide along the wall it is clamped to, into a pillar's
        shadow, and the pull-in would throw it far in a frame.  Continuous: at the wall the
        two agree."""
        need = self._need(target, n, self._bodies)
        widest = self._widest
        if widest <= 1.0:
            return need
        tx, tz, n0, n1 = float(target[0]), float(target[2]), float(n[0]), float(n[1])
        room = min((WALL - c * math.copysign(1.0, d)) / abs(d) if abs(d) > 1e-9 else math.inf
                   for c, d in ((tx, n0), (tz, n1)))
        if need <= room:
            return need
        return max(self._need(target, n, self._bodies, widest), max(room, 0.0))

    def _swing(self, target: np.ndarray, n: np.ndarray, dist: float, fighters=(),
               step: int | None = None) -> np.ndarray:
        """The goal view direction (x-z unit): ``n``, unless the view from there does not frame
        the fighters (ground points ``(3,)``): its clear stretch is shorter than the distance
        ``_need`` asks (a pillar beside them, the arena wall behind them or behind the eye,
        which a wall clamp would hide by moving the eye onto the fighters), or a tall
        obstacle hides one of them from the eye.  Then ``n`` turned by the ``SWING`` angle
        with the best score (:meth:`_score_turn`; the smaller turn, toward the current
        direction, on a tie); a turn past 90 degrees also moves the camera's ``side``, so it
        stays there.

        Every turn's score is kept from the last time it was scored: while the view needs a
        swing, an update scores the goal view, the turn it faces and the next ``step`` turns
        in order (``None``: all of them, the reference; :meth:`_score_turns`), and picks from
        those scores (:meth:`_best_turn`).  A turn costs a ray, and one per fighter unless its
        view is already too short to win (then its score is that bound): scoring all sixteen
        in every update would cost a frame many rays."""
        # fighters far apart are never swung round: half-way the view looks along their line,
        # where no eye inside the walls frames both (the pan would lose one from the screen for
        # a long stretch); a pillar hiding one from this side is faded (occluders.py) instead
        far = len(fighters) == 2 and math.hypot(float(fighters[1][0] - fighters[0][0]),
                                                float(fighters[1][2] - fighters[0][2])) > FLIP_MAX_SEP
        view = _SwingView(target, n, dist, fighters, [np.array([p[0], target[1], p[2]]) for p in fighters],
                          self._widest, far)
        v, hidden = self._score_turn(view, 0)
        self._goal_clear = v >= 1.0 - 1e-6 and not hidden
        if self._goal_clear:
            self._offset, self._scores = 0, None
            return n
        self._score_turns(view, v, step)
        best_deg = self._best_turn(v, far)
        self._offset = best_deg
        if abs(best_deg) > 90:                 # past the fighters' line: the other side, kept from there
            assert self.side is not None, "_goal sets the side before any swing"
            self.side = -self.side
            self._flipped = FLIP_HOLD
            self._offset, self._scores = best_deg - math.copysign(180, best_deg), None
        return _turn(n, best_deg)

    def _score_turn(self, view: _SwingView, deg: float, floor: float = -1.0) -> tuple[float, int]:
        """``(score, hidden)`` of the view ``deg`` degrees round from ``view.n``: the fraction
        of the needed distance its view keeps clear (at most 1) times the cosine of the turn
        (how much it still looks across the fighters' line), halved per fighter a tall
        obstacle hides; or, once that cannot beat ``floor`` any more, the bound so far (no
        more rays).  ``hidden``: the fighters found hidden.  The view is scored with its eye
        where it wants to be, ``view.dist`` or its own need if farther, not clamped to the
        walls, and framed as the widest field of view frames it."""
        target = view.target
        u = _turn(view.n, deg)
        need = self._need(target, u, view.fighters, view.widest)
        reach = max(view.dist, need)
        eye = self._place(target, u, reach, clamp=False)
        clear, length, _ = self._clear(target, eye)
        framed = min(min(clear, length) / length * reach / need, 1.0) if need > 0.0 else 1.0
        out, hidden = framed * abs(math.cos(math.radians(deg))), 0
        if clear < length:                 # the fighters are seen from where the eye stops ...
            eye = target + (eye - target) * (max(clear - OBSTACLE_MARGIN, 0.5 * clear) / length)
        eye[1] += self._rise_for(math.hypot(eye[0] - target[0], eye[2] - target[2]), need)   # ... and rises to
        for b in view.bodies:
            if out <= floor + 1e-6:
                break
            if not self._sees(b, eye):
                out, hidden = out * 0.5, hidden + 1
        return out, hidden

    def _turn_weight(self, deg: float, far: bool) -> float:
        """What a turn's score is worth in the choice: the turn faced keeps the goal view's
        head start (``SWING_GAIN``); one round to the other side, which swaps the fighters'
        screen sides (and the controls' left and right with them), costs ``FLIP_COST`` (a
        clear turn on this side should win over a slightly better one round the fighters in a
        corner); just after coming round (``_flipped``), and for fighters ``far`` apart, no
        turn past 90 degrees counts (not straight back, nor on round)."""
        if abs(deg) > 90:
            return 0.0 if self._flipped or far else FLIP_COST
        return SWING_GAIN if deg == self._offset else 1.0

    def _score_turns(self, view: _SwingView, v: float, step: int | None) -> None:
        """One update of the swing search, the goal view scoring ``v``: a search starts (turns
        toward the current direction first) if none runs, then the turn faced and the next
        ``step`` turns in order are scored into ``_scores`` (None: all of them), each against
        the best weighted score so far (a turn that cannot count is not cast)."""
        if self._scores is None:               # a swing starts: turns toward the current direction first
            first = 1 if view.n[0] * self.dir[1] - view.n[1] * self.dir[0] >= 0.0 else -1
            self._order, self._scores, self._next = [deg * first for deg in SWING], {}, 0
        order, scores = self._order, self._scores
        floor = v * SWING_GAIN                 # the best weighted score so far: the goal view's first
        if self._offset:
            w = self._turn_weight(self._offset, view.far)
            scores[self._offset] = self._score_turn(view, self._offset, floor / w)[0]
            floor = max(floor, scores[self._offset] * w)
        for _ in range(len(order) if step is None else step):
            deg = order[self._next]
            self._next = (self._next + 1) % len(order)
            w = self._turn_weight(deg, view.far)
            if deg != self._offset and w > 0.0:    # (a turn that cannot count is not cast)
                scores[deg] = self._score_turn(view, deg, floor / w)[0]
                floor = max(floor, scores[deg] * w)

    def _best_turn(self, v: float, far: bool) -> float:
        """The turn (degrees) with the best weighted score in ``_scores``, the goal view (0,
        scoring ``v``) first, then the turns in search order: a later one must beat it."""
        scores = self._scores
        assert scores is not None, "_score_turns runs first"
        best_deg: float = 0
        best_score = v * SWING_GAIN
        for deg in self._order:
            w = self._turn_weight(deg, far)
            if w > 0.0 and deg in scores and scores[deg] * w > best_score + 1e-6:
                best_deg, best_score = deg, scores[deg] * w
        return best_deg

    def _rise_for(self, reach: float, need: float) -> float:
        """How far to raise an eye held ``reach`` (m, x-z) from the look point when framing
        asks ``need``: until its distance to the look point is what ``need`` gives at ``eye_y``."""
        if reach >= need:
            return 0.0
        drop = max(self.eye_y - (TARGET_HEIGHT + 0.35 * (self.eye_y - EYE_HEIGHT)), 0.0)
        return math.sqrt(need * need + drop * drop - reach * reach) - drop

    def _zoom_for(self, reach: float, n: np.ndarray) -> float:
        """The ``zoom`` an eye held ``reach`` (m, x-z) from the look point along ``n`` asks (C7: the
        reach is where the camera rays let the eye stay): 1 if ``_need`` fits in it at the window's
        own field of view, else the least widening that fits it, at most ``_widest`` (the rise
        frames what is left).  Fighting games widen the view this way when the walls stop the
        camera: with fighters in opposite corners a 4:3 window's own view needs the eye farther
        out than any view inside the walls, and rising alone would take the eye far up, send
        the swing looking round the fighters' line and lose a fighter off the screen.
        ``_need`` shrinks as the zoom grows: bisection."""
        widest = self._widest
        if widest <= 1.0 or self._need(self.target, n, self._bodies) <= reach:
            return 1.0
        if self._need(self.target, n, self._bodies, widest) >= reach:
            return widest
        lo, hi = 1.0, widest                   # need(lo) > reach >= need(hi)
        for _ in range(16):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if self._need(self.target, n, self._bodies, mid) > reach else (lo, mid)
        return hi

    def _eye_target(self, smooth: float):
        """``(eye, look point)`` for the state: the eye placed, pulled in front of obstacles
        (:meth:`Sightlines.collide`) and raised by ``rise``.  A pull-in is taken at once (never look through
        a pillar), except while the view pans past one toward a clear goal view (:meth:`_panning_past`),
        and the way back out is eased (``SMOOTH_POS`` of it a frame, at least
        ``REACH_STEP`` m, at most ``REACH_MAX``: a view ray grazing a pillar's edge would
        otherwise throw the eye in and out on alternate frames, and an eye held far in front of
        where it wants to be would jump out in one frame); ``reach`` keeps the horizontal eye
        distance for that, and ``_held`` whether the eye is short of where it is placed (only
        such an eye is eased: the jump framing's step back is not).  An eye held closer than
        ``_need`` asks widens the view (``_zoom_for``, by ``SMOOTH_ZOOM`` of the remaining error a
        frame) and rises (by ``smooth`` of the remaining error a frame, at most ``RISE_STEP`` m)
        until its 3D distance to the look point frames both fighters at that field of view: it
        looks down on them instead (a wall behind it, fighters farther apart than ``MAX_DIST``
        can frame)."""
        n = self.dir / max(np.linalg.norm(self.dir), 1e-9)
        placed = self._place(self.target, n, self.dist + self.back)
        eye = self.sight.collide(self.target, placed, self._sep)
        if eye is not placed and self._panning_past(n, placed):
            eye = placed
        d = eye - self.target
        reach = math.hypot(d[0], d[2])
        if self._held and reach > self.reach + REACH_STEP:   # out again after a pull-in: eased
            eased = self.reach + min(max((reach - self.reach) * SMOOTH_POS, REACH_STEP), REACH_MAX)
            eye = self.target + d * (eased / reach)
            reach = eased
        self.reach = reach
        self._held = reach < math.hypot(placed[0] - self.target[0], placed[2] - self.target[2]) - 1e-6
        zoom = self._zoom_for(reach, n)                # eased; exactly 1 (FOV_Y) again once back
        near = smooth >= 1.0 or abs(zoom - self.zoom) < 1e-4
        self.zoom = zoom if near else self.zoom + (zoom - self.zoom) * SMOOTH_ZOOM
        rise = self._rise_for(reach, self._need(self.target, n, self._bodies, self.zoom))
        self.rise += rise - self.rise if smooth >= 1.0 else max(min((rise - self.rise) * smooth, RISE_STEP), -RISE_STEP)
        eye[1] += self.rise
        tgt = self.target.copy()
        tgt[1] += 0.35 * (self.eye_y - EYE_HEIGHT)     # a lifted eye also looks a little higher
        if self.lift:                                  # a jump: the whole view rises with it
            eye[1] += self.lift
            tgt[1] += self.lift
        return eye, tgt

    def _panning_past(self, n: np.ndarray, eye: np.ndarray) -> bool:
        """True while the view direction ``n`` is still turning (more than 3 degrees off) toward a
        goal view that frames both fighters unhidden, and the placed ``eye`` is outside every tall
        obstacle: a pillar between the eye and the look point is then one the pan passes
        behind, and the view looks through it for those frames (it fades, ``occluders.py``)
        rather than cutting in to the pillar and out again."""
        g = self._goal_dir
        if not self._goal_clear or g is None or float(n[0] * g[0] + n[1] * g[1]) > PAN_PAST:
            return False
        grown = self.sight.grown
        return not bool(((grown[:, 0] <= eye) & (eye <= grown[:, 1])).all(axis=1).any())

    def _jump_framing(self, top: float | None, floor: float, dist: float) -> tuple[float, float]:
        """``(lift, back)``: how far to raise the view and move the eye back so that a jumper's
        highest point ``top`` (m) shows below the HUD band while ``floor`` (the lower fighter's
        feet) stays above the bottom band; ``(0, 0)`` when the view at ``dist`` already does.

        At horizontal distance ``D`` the eye (height ``E``) looks down at the look point (height
        ``T``) by ``a = atan((E - T) / D)``; the usable upper edge is ``u`` above the view axis
        and the lower edge ``w`` below it (``tan u = (1 - 2 HUD_BAND) tan(fov / 2)``, the same
        for ``w`` with ``FEET_BAND``).  Raised by ``s``, the view shows heights up to
        ``E + s + D tan(u - a)`` and down to ``E + s - D tan(w + a)`` at the fighters: the least
        ``s`` that shows ``top`` must not lose the feet.  The nearest ``D`` (at most ``MAX_DIST``)
        for which one exists wins: found by bisection, so the framing moves smoothly."""
        if top is None:
            return 0.0, 0.0
        half = math.tan(math.radians(FOV_Y / 2)) * self.zoom
        up, down = math.atan((1 - 2 * HUD_BAND) * half), math.atan((1 - 2 * FEET_BAND) * half)
        e = self.eye_y
        drop = e - (TARGET_HEIGHT + 0.35 * (e - EYE_HEIGHT))
        need = top + JUMP_ROOM

        def lifts(d):                    # (least lift that shows the top, most that keeps the feet)
            a = math.atan2(drop, d)
            return need - e - d * math.tan(up - a), floor + d * math.tan(down + a) - e

        s_min, s_max = lifts(dist)
        if s_min <= 0.0:
            return 0.0, 0.0
        if s_min <= s_max or dist >= MAX_DIST:
            return s_min, 0.0
        lo, hi = dist, MAX_DIST
        if lifts(hi)[0] > lifts(hi)[1]:  # even the farthest eye cannot show both: show the jumper
            return lifts(hi)[0], hi - dist
        for _ in range(24):              # lifts(lo) fails, lifts(hi) holds
            mid = 0.5 * (lo + hi)
            a, b = lifts(mid)
            lo, hi = (lo, mid) if a <= b else (mid, hi)
        return max(lifts(hi)[0], 0.0), hi - dist

    def kick(self, strength: float, frames: int = 12) -> None:
        """Start a camera shake (heavy hits)."""
        self.shake = max(self.shake, strength)
        self.shake_t = frames

    def update(self, p1, p2, frame: int = 0, top: float | None = None) -> None:
        """One sim frame: ``p1``, ``p2`` the fighters' ground points ``(3,)``; ``top`` the
        highest point (m) of a fighter in the air (None: both on the ground)."""
        target, direction, dist = self._goal(np.asarray(p1, float), np.asarray(p2, float))
        self._flipped = max(self._flipped - 1, 0)
        self._bodies = (np.asarray(p1, float), np.asarray(p2, float))
        direction = self._goal_dir = self._swing(target, direction, dist, self._bodies, step=self.search_step)
        self.target = self.target + (target - self.target) * SMOOTH_POS
        turned = self.dir + (direction - self.dir) * SMOOTH_DIR
        turned /= max(np.linalg.norm(turned), 1e-9)
        cross, dot = self.dir[0] * turned[1] - self.dir[1] * turned[0], float(self.dir @ turned)
        # a swing round an obstacle pans, it does not whip: at most MAX_TURN a frame, and at most
        # MAX_PAN metres of the eye's way round (the farther out the eye, the farther a turn carries it)
        max_turn = min(MAX_TURN, MAX_PAN / max(min(self.reach, self.dist), 1e-6))
        if math.atan2(abs(cross), dot) > max_turn:
            a = math.copysign(max_turn, cross)
            c, s = math.cos(a), math.sin(a)
            turned = np.array([c * self.dir[0] - s * self.dir[1], s * self.dir[0] + c * self.dir[1]])
        self.dir = turned
        dist = max(dist, self._back_off(target, direction))
        self.dist += (dist - self.dist) * SMOOTH_POS
        self.eye_y += (self._wanted_eye_y() - self.eye_y) * SMOOTH_POS
        lift, back = self._jump_framing(top, min(float(p1[1]), float(p2[1])), self.dist)
        self.lift += (lift - self.lift) * SMOOTH_JUMP
        self.back += (back - self.back) * SMOOTH_JUMP
        self._zoom_prev = self.zoom
        eye, tgt = self._eye_target(SMOOTH_POS)
        if self.shake_t > 0:
            k = self.shake * (self.shake_t / 12.0)
            off = np.array([math.sin(frame * 2.7), math.sin(frame * 3.9 + 1.0), math.cos(frame * 3.3)]) * k
            eye, tgt = eye + off, tgt + off * 0.6
            self.shake_t -= 1
        self.prev, self.current = self.current, (eye, tgt)

    def eye_target(self, alpha: float = 1.0):
        (e0, t0), (e1, t1) = self.prev, self.current
        return e0 + (e1 - e0) * alpha, t0 + (t1 - t0) * alpha

    def fov(self, alpha: float = 1.0) -> float:
        """The vertical field of view (degrees) for this render frame: ``FOV_Y`` widened by the
        zoom, interpolated like the eye (not while the view is held still)."""
        z = self.zoom if self.prev is self.current else self._zoom_prev + (self.zoom - self._zoom_prev) * alpha
        return FOV_Y if z == 1.0 else 2.0 * math.degrees(math.atan(math.tan(math.radians(FOV_Y / 2)) * z))

    def matrices(self, aspect: float, alpha: float = 1.0):
        """``(view, proj, eye)`` for this render frame."""
        eye, tgt = self.eye_target(alpha)
        return look_at(eye, tgt), perspective(self.fov(alpha), aspect), eye

    def screen_axes(self, alpha: float = 1.0):
        """Unit x–z vectors: the camera's screen-right and its into-the-screen direction."""
        eye, tgt = self.eye_target(alpha)
        fwd = np.array([tgt[0] - eye[0], tgt[2] - eye[2]])
        fwd /= max(np.linalg.norm(fwd), 1e-9)
        right = np.array([-fwd[1], fwd[0]])
        return right, fwd
