"""Hit sparks as a small numpy particle system (no GL here; see ``passes.SparkRenderer``).

A8's "show the effect at the collision point": a :class:`~game.sim.Hit` event
makes a burst at its A7 collision point: a glow
flash that holds for the hitstop (the sim freezes the fighters; the flash and
the slowed sparks make that freeze read as impact), then streaks that fly,
fall and fade over about ten frames.  Heavy hits are bigger and hotter;
blocked hits are a blue-white shield ring with cool sparks.  Advanced once per
simulation frame (``step``), drawn interpolated by alpha (``instances``).
Random spread comes from a window of :data:`~game.render.noise.EFFECTS` keyed by
the hit's frame, so a given match always looks the same.
"""

from __future__ import annotations

import math

import numpy as np

from .noise import EFFECTS

MAX_PARTICLES = 1024
GRAVITY = -0.0045           # m / frame^2
DRAG = 0.90
HITSTOP_SPEED = 0.18        # particles crawl during hitstop, then burst
FLASH_FRAMES = 6            # the struck body's flash fades over this many frames

HIT_COLORS = np.array([[1.0, 0.78, 0.30], [1.0, 0.52, 0.12], [1.0, 0.92, 0.60]])
HEAVY_COLORS = np.array([[1.0, 0.55, 0.12], [1.0, 0.30, 0.08], [1.0, 0.85, 0.40]])
BLOCK_COLORS = np.array([[0.55, 0.80, 1.0], [0.85, 0.95, 1.0], [0.35, 0.60, 1.0]])
CRATE_COLORS = np.array([[0.80, 0.55, 0.28], [0.55, 0.36, 0.18], [1.0, 0.80, 0.50]])
IMPACT_COLORS = np.array([[1.0, 0.95, 0.70], [0.70, 0.90, 1.0], [1.0, 0.70, 0.35]])
DUST_COLORS = np.array([[0.55, 0.53, 0.50], [0.42, 0.40, 0.38], [0.65, 0.62, 0.58]])
#: per burst style: particles (small, big), colours and their gain, particle size range, how much
#: of the spray goes up (the rest along the floor), the flash's size and colour, and a key salt
_BURSTS = {
    "crate": ((16, 40), CRATE_COLORS, 0.9, 0.018, 0.9, (0.1, 0.22), (0.6, 0.45, 0.3), 7),
    "impact": ((18, 18), IMPACT_COLORS, 1.5, 0.004, 0.9, (0.18, 0.18), (1.0, 0.85, 0.55), 3),
    "dust": ((14, 14), DUST_COLORS, 0.6, 0.02, 0.3, (0.16, 0.16), (0.35, 0.33, 0.30), 11),
}

# columns of the particle table
_P, _V, _SIZE, _COL = slice(0, 3), slice(3, 6), 6, slice(7, 10)
_LIFE, _AGE, _DELAY, _KIND, _DELAY0 = 10, 11, 12, 13, 14
_WIDTH = 15
KIND_SPARK, KIND_FLASH, KIND_RING = 0.0, 1.0, 2.0
#: noise-table keys: hits, and bursts without a fighter (crates, projectile impacts)
_KEY_HIT, _KEY_BURST = 1 << 48, 2 << 48


class Sparks:
    """Particles ``(n, 15)``: pos, vel, size, rgb, life, age, hitstop delay left, kind, initial delay."""

    def __init__(self):
        self.clear()

    def __len__(self) -> int:
        return len(self.p)

    def clear(self) -> None:
        """No particles and no body flash."""
        self.p = np.zeros((0, _WIDTH))
        self.prev_pos = np.zeros((0, 3))
        #: ``(n,)`` int: each particle's effect tag (:attr:`tag` when it was added; 0 none)
        self.tags = np.zeros(0, np.int64)
        #: the tag the next bursts' particles and body flash get (a rollback's effect key id,
        #: ``game/render/rollback_fx.py``); 0: none
        self.tag = 0
        self._flash_tag = [0, 0]            # per fighter, the tag of the body flash
        #: per fighter (rgb, amount) body flash, and its frames left
        self.flash = np.zeros((2, 4))
        self._flash_left = [0, 0]           # frames left, per fighter (plain ints: stepped every frame)
        self._flash_base = [0.0, 0.0]

    def hold(self) -> None:
        """No simulation step this tick: draw the particles still (no interpolation drift)."""
        self.prev_pos = self.p[:, _P].copy()

    def _add(self, rows: np.ndarray) -> None:
        self.p = np.vstack([self.p, rows])[-MAX_PARTICLES:]
        self.prev_pos = np.vstack([self.prev_pos, rows[:, _P]])[-MAX_PARTICLES:]
        self.tags = np.concatenate([self.tags, np.full(len(rows), self.tag, np.int64)])[-MAX_PARTICLES:]

    def take_back(self, tags) -> None:
        """Remove at once the particles and body flash of the effects tagged ``tags`` (ints:
        a hit that a rollback took back)."""
        gone = np.isin(self.tags, np.asarray(list(tags), np.int64))
        if gone.any():
            keep = ~gone
            self.p, self.prev_pos, self.tags = self.p[keep], self.prev_pos[keep], self.tags[keep]
        for f in (0, 1):
            if self._flash_tag[f] and self._flash_tag[f] in tags:
                self.flash[f, 3] = 0.0
                self._flash_left[f] = 0
                self._flash_tag[f] = 0

    def spawn(self, hit) -> None:
        """A burst for one Hit event (reads its point, heavy, blocked, hitstop, frame)."""
        point = np.asarray(hit.point, dtype=float)
        heavy, blocked, stop = bool(hit.heavy), bool(hit.blocked), int(hit.hitstop)
        scale = 1.5 if heavy else 1.0
        n = (34 if heavy else 20) if not blocked else 16
        colors = BLOCK_COLORS if blocked else (HEAVY_COLORS if heavy else HIT_COLORS)
        g, u = EFFECTS.window(_KEY_HIT + int(hit.frame) * 7919 + int(hit.attacker), n)
        d = g[:, :3]
        # speed, size, colour pick (u * len(colors)), brightness, life: one affine map
        u = u[:, :5]
        k = scale * (0.8 if blocked else 1.0)
        life = 1.2 if heavy else 1.0
        r = np.array([0.05 * k, 0.010 * scale, 0.0, 1.0, 8 * life + stop]) + \
            np.array([0.10 * k, 0.008 * scale, 1.0, 0.6, 6 * life]) * u
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * 0.8 + 0.15            # mostly upward and outward
        rows = np.zeros((n + 2, _WIDTH))
        rows[:n, _P] = point
        rows[:n, _V] = d * r[:, :1]
        rows[:n, _SIZE] = r[:, 1]
        rows[:n, _COL] = colors[(u[:, 2] * len(colors)).astype(np.intp)] * r[:, 3:4]
        rows[:n, _LIFE] = r[:, 4]
        rows[:n, _DELAY] = stop
        rows[:n, _KIND] = KIND_SPARK
        # the flash that holds through hitstop
        rows[n, _P] = point
        rows[n, _SIZE] = (0.20 if heavy else 0.13) * (0.9 if blocked else 1.0)
        rows[n, _COL] = (0.35, 0.55, 1.0) if blocked else ((1.0, 0.45, 0.12) if heavy else (1.0, 0.62, 0.22))
        rows[n, _LIFE] = stop + 8
        rows[n, _DELAY] = stop
        rows[n, _KIND] = KIND_FLASH
        # a ring: shield for a block, shock ring for a heavy hit, a small pop otherwise
        rows[n + 1, _P] = point
        rows[n + 1, _SIZE] = 0.13 if blocked else (0.14 if heavy else 0.07)
        rows[n + 1, _COL] = (0.6, 0.85, 1.0) if blocked else (1.0, 0.7, 0.35)
        rows[n + 1, _LIFE] = stop + 10
        rows[n + 1, _DELAY] = stop
        rows[n + 1, _KIND] = KIND_RING
        rows[:, _DELAY0] = stop
        self._add(rows)
        f = int(hit.defender)
        self.flash[f] = (0.25, 0.45, 0.9, 0.22) if blocked else (1.0, 0.80, 0.6, 0.28 if heavy else 0.18)
        self._flash_base[f] = float(self.flash[f, 3])
        self._flash_left[f] = FLASH_FRAMES
        self._flash_tag[f] = self.tag

    def burst(self, point, frame: int, style: str, big: bool = False) -> None:
        """A burst without a fighter: ``'crate'`` (wood chips; ``big`` when it broke),
        ``'impact'`` (a projectile meeting the scene, a throw's grab or break) or ``'dust'`` (a
        thrown body hitting the floor: a low grey puff)."""
        point = np.asarray(point, dtype=float)
        counts, colors, gain, grain, rise, flash, flash_color, salt = _BURSTS[style]
        n = counts[bool(big)]
        g, u = EFFECTS.window(_KEY_BURST + int(frame) * 104729 + salt, n)
        d = g[:, :3]
        # speed, size, colour pick (u * len(colors)), life: one affine map
        u = u[:, :4]
        r = np.array([0.04, 0.012, 0.0, 10.0]) + np.array([0.12 if big else 0.08, grain, 1.0, 8.0]) * u
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * rise + 0.1 * rise / 0.9
        rows = np.zeros((n + 1, _WIDTH))
        rows[:n, _P] = point
        rows[:n, _V] = d * r[:, :1]
        rows[:n, _SIZE] = r[:, 1]
        rows[:n, _COL] = colors[(u[:, 2] * len(colors)).astype(np.intp)] * gain
        rows[:n, _LIFE] = r[:, 3]
        rows[n, _P] = point
        rows[n, _SIZE] = flash[bool(big)]
        rows[n, _COL] = flash_color
        rows[n, _LIFE] = 8
        rows[n, _KIND] = KIND_FLASH
        self._add(rows)

    def step(self) -> None:
        """Advance one simulation frame."""
        for f, left in enumerate(self._flash_left):         # the body flashes fade (floats)
            if left:
                self._flash_left[f] = left - 1
                q = (left - 1) / FLASH_FRAMES
                self.flash[f, 3] = self._flash_base[f] * (q * q)
        if not len(self.p):
            return
        p = self.p
        self.prev_pos = p[:, _P].copy()
        frozen = p[:, _DELAY] > 0
        # unmasked passes: flash and ring rows have no velocity, and gravity and drag skip them
        p[:, _P] += p[:, _V] * np.where(frozen, HITSTOP_SPEED, 1.0)[:, None]
        moving = (p[:, _KIND] == KIND_SPARK) & ~frozen
        p[:, 4] += np.where(moving, GRAVITY, 0.0)
        p[:, _V] *= np.where(moving, DRAG, 1.0)[:, None]
        p[:, _DELAY] = np.maximum(p[:, _DELAY] - 1, 0)
        p[:, _AGE] += 1
        alive = p[:, _AGE] < p[:, _LIFE]
        self.p = p[alive]
        self.prev_pos = self.prev_pos[alive]
        self.tags = self.tags[alive]

    def instances(self, alpha: float = 1.0) -> np.ndarray:
        """Per-instance rows for the spark shader ``(n, 11)``: pos, tail, size, rgb, intensity.

        Every row as a spark first, in one pass per column; then the few flash and ring rows
        (one or two per burst) on floats: these run on the frames right after a hit, when
        numpy is cold, and masked numpy passes over so few rows would cost most of the call."""
        p = self.p
        n = len(p)
        out = np.empty((n, 11), dtype=np.float32)
        if not n:
            return out
        out[:, 0:3] = self.prev_pos + (p[:, _P] - self.prev_pos) * alpha
        age = p[:, _AGE] + alpha
        life = p[:, _LIFE]
        span = np.maximum(life - p[:, _DELAY0], 1.0)          # the part of the life after hitstop
        t = np.clip(1.0 - (life - age) / span, 0.0, 1.0)      # 0 until hitstop ends, then -> 1
        out[:, 3:6] = p[:, _V] * 2.6                           # the tail
        out[:, 6] = p[:, _SIZE]
        out[:, 7:10] = p[:, _COL]
        out[:, 10] = (1.0 - t) ** 1.5                          # fade
        for i in np.flatnonzero(p[:, _KIND] != KIND_SPARK).tolist():
            size, a = float(p[i, _SIZE]), float(age[i])
            if p[i, _KIND] == KIND_FLASH:   # swells through hitstop, then shrinks away
                size *= 1.0 + 0.08 * math.sin(a * 2.0) if p[i, _DELAY] > 0 else 1.0 - 0.5 * float(t[i])
            else:                           # ring: expands over its whole life; negative size = ring
                size = -(size * (1.0 + 2.2 * min(max(a / float(life[i]), 0.0), 1.0)))
            out[i, 3:7] = (0.0, 0.0, 0.0, size)
        return out


def projectile_rows(projectiles, colors, alpha: float = 1.0) -> np.ndarray:
    """Spark-shader rows ``(2 n, 11)`` for projectiles in flight: a glowing core and a
    streak behind it, in the owner's colour, interpolated by ``alpha`` between the
    last two simulation frames (a projectile moves by its velocity each frame)."""
    out = np.zeros((2 * len(projectiles), 11), dtype=np.float32)
    for i, p in enumerate(projectiles):
        v = np.array([p.vx, 0.0, p.vz])
        pos = np.array([p.x, p.y, p.z]) + v * (alpha - 1.0)
        c = np.asarray(colors[p.owner], dtype=float)
        flicker = 0.85 + 0.15 * np.sin(p.age * 1.7)
        out[2 * i, :3] = pos
        out[2 * i, 6] = 0.16 * flicker
        out[2 * i, 7:10] = c * 0.8 + 0.4
        out[2 * i, 10] = 1.0
        out[2 * i + 1, :3] = pos
        out[2 * i + 1, 3:6] = v * 5.0
        out[2 * i + 1, 6] = 0.06
        out[2 * i + 1, 7:10] = c * 1.4
        out[2 * i + 1, 10] = 0.9
    return out
