"""The simulation's debug-draw interface (pymunk style), and the match's description through it.

The simulation describes what it knows (range boxes, judgement points,
collision points, crate slabs, quadtree cells and rays) through
calls on a :class:`DebugDraw`; only the pyglet side implements drawing.
:func:`draw_match` is ``Match.debug_draw``: one frame of a match, read-only.
A recording implementation lives here for tests and tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from game.collision import judgement_points

from .fighter import GUARD_STATES

if TYPE_CHECKING:
    from .match import Match

#: Roles a limb range box can have in the overlay.
ROLE_HURT = "hurt"        # can be struck
ROLE_HIT = "hit"          # an attacking limb on an active frame
ROLE_GUARD = "guard"      # a limb of a fighter who is blocking


class DebugDraw(Protocol):
    """What the overlay must implement.  Arrays are world space, float.

    ``kind`` strings name what is drawn so the implementation picks colours:
    boxes: 'hurt', 'hit', 'guard', 'overlap', 'crate_slab', 'crate_struck', ...;
    points: 'j1', 'j2', 'collision', 'ray_hit_nearest', 'ray_hit_any', ...;
    segments: 'centres', 'ray_nearest', 'ray_any', ...
    """

    def box(self, box: np.ndarray, kind: str) -> None:
        """An axis-aligned box ``(2, 3)`` ``[min, max]``."""

    def point(self, p: np.ndarray, kind: str) -> None:
        """A point ``(3,)``."""

    def segment(self, a: np.ndarray, b: np.ndarray, kind: str) -> None:
        """A line segment from ``a (3,)`` to ``b (3,)``."""

    def quad(self, corners: np.ndarray, kind: str) -> None:
        """A planar quad ``(4, 3)`` (crate faces, interaction regions)."""

    def rect_xz(self, rect: np.ndarray, y: float, kind: str) -> None:
        """An x–z rectangle ``(2, 2)`` ``[[xmin, zmin], [xmax, zmax]]`` at height ``y``."""

    def text(self, p: np.ndarray, s: str, kind: str) -> None:
        """A short label anchored at world point ``p (3,)``."""


def draw_contact(draw: DebugDraw, a: np.ndarray, b: np.ndarray, j1: np.ndarray, j2: np.ndarray,
                 p: np.ndarray) -> None:
    """Describe one colliding pair of range boxes as method A judged it.

    ``a``, ``b`` : (2, 3) float, the two boxes; ``j1``, ``j2``, ``p`` : (3,) float, the
    simulation's own judgement points (A2, A3) and collision point (A7) of the pair.
    Draws j1 and j2, the overlap box ``[j1, j2]`` between them (A4), the segment from
    ``a``'s centre to ``b``'s and, on it, the point ``p`` that splits it in the ratio of
    the two boxes' diagonals.  The same description for every kind of contact: limb
    against limb, limb against a crate's small box, projectile against limb or projectile.
    """
    draw.point(j1, "j1")
    draw.point(j2, "j2")
    draw.box(np.stack((j1, j2)), "overlap")
    draw.segment(0.5 * (a[0] + a[1]), 0.5 * (b[0] + b[1]), "centres")
    draw.point(p, "collision")


@dataclass(frozen=True)
class RayRecord:
    """One ray cast this frame, for the debug overlay.

    ``origin``, ``end`` : (3,) float, the ray's start and the end of its reach (C6 max
    distance); ``point`` : (3,) float or None, a nearest hit's point (C7; an any-hit cast,
    C8, tells none)."""

    origin: np.ndarray
    end: np.ndarray
    kind: str                  # 'ray_any' (simulation) or 'ray_nearest'
    hit: bool
    point: np.ndarray | None   # nearest hits only
    nodes: int                 # quadtree + tree nodes visited
    triangles: int             # triangles tested


def draw_rays(draw: DebugDraw, rays: Sequence[RayRecord], group: str | None = None) -> None:
    """Describe ray casts (C6-C8): each ray from its origin to its nearest hit (C7) and on,
    fainter, to the end of its reach; or, for an any-hit cast (C8, no point), to the end
    of the tested segment, marked there when it hit.  Each ray is labelled with the nodes
    and triangles its cast visited, or, with ``group``, the rays get one label together
    (the camera casts several from one point each frame)."""
    for r in rays:
        draw.segment(r.origin, r.end if r.point is None else r.point, r.kind)
        if r.point is not None:
            draw.segment(r.point, r.end, "ray_beyond")
            draw.point(r.point, "ray_hit_nearest")
        elif r.hit:
            draw.point(r.end, "ray_hit_any")
        if group is None:
            draw.text(r.origin, f"{r.nodes} nodes / {r.triangles} tris", "ray_stats")
    if group is not None and rays:
        draw.text(rays[0].origin, f"{group}: {len(rays)} rays, {sum(r.nodes for r in rays)} nodes / "
                                  f"{sum(r.triangles for r in rays)} tris", "ray_stats")


def draw_match(m: Match, draw: DebugDraw) -> None:
    """Describe this frame of ``m`` to ``draw`` (read-only): ``Match.debug_draw``.

    Every limb's range box by role (hurt, hit = active attacking limb,
    guard = limb of a blocking fighter); then for each pair colliding this
    frame (limb and limb, limb and crate small box, projectile and limb,
    projectile and projectile) its judgement points j1, j2 (A2, A3), the
    overlap box between them (A4), the centre-to-centre segment and the
    collision point (A7), as :func:`draw_contact` draws them.
    A contact's box that is gone by the end of the frame is drawn as judged:
    the crate's small box a strike has re-split ('crate_struck'), the
    projectile that landed or burst ('hit').
    """
    boxes = m.limbs.boxes.view()      # read-only: an overlay that moves a box in place
    boxes.flags.writeable = False      # must not move the match's range box
    for f in m.fighters:
        hitting: tuple[int, ...] = ()
        if f.move and m.data.moves[f.move].is_active(f.mframe):
            hitting = m.data.moves[f.move].hit_limbs
        guarding = f.guard and f.state in GUARD_STATES
        for li, box in enumerate(boxes[f.index]):
            kind = ROLE_HIT if li in hitting else (ROLE_GUARD if guarding else ROLE_HURT)
            draw.box(box, kind)
    for atk, ks, ls, j1, j2, pts in m.contacts:
        for k, lb, a, b, p in zip(ks, ls, j1, j2, pts):
            draw_contact(draw, boxes[atk, k], boxes[1 - atk, lb], a, b, p)
    for atk, k, _c, box, p in m.crate_contacts:
        draw.box(box, "crate_struck")
        draw_contact(draw, boxes[atk, k], box, *judgement_points(boxes[atk, k], box), p)
    for owner, pbox, lb, p in m.projectile_contacts:
        draw.box(pbox, ROLE_HIT)
        draw_contact(draw, pbox, boxes[1 - owner, lb], *judgement_points(pbox, boxes[1 - owner, lb]), p)
    for a, b, p in m.clash_contacts:
        draw.box(a, ROLE_HIT)
        draw.box(b, ROLE_HIT)
        draw_contact(draw, a, b, *judgement_points(a, b), p)
    for hand, body, p in m.throw_contacts:       # a throw landing or broken: the hand on the body
        draw.box(hand, ROLE_HIT)
        draw_contact(draw, hand, body, *judgement_points(hand, body), p)
    if m.stage is not None:
        if m.projectile_spec is not None:
            h = m.projectile_spec.half
            for p in m.stage.projectiles:
                draw.box(np.array([[p.x - h, p.y - h, p.z - h], [p.x + h, p.y + h, p.z + h]]), ROLE_HIT)
        m.stage.debug_draw(draw)


class RecordingDraw:
    """A DebugDraw that records every call as ``(method, kind, data)``; for tests and tools."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, tuple]] = []

    def box(self, box: np.ndarray, kind: str) -> None:
        self.calls.append(("box", kind, (np.array(box, dtype=float),)))

    def point(self, p: np.ndarray, kind: str) -> None:
        self.calls.append(("point", kind, (np.array(p, dtype=float),)))

    def segment(self, a: np.ndarray, b: np.ndarray, kind: str) -> None:
        self.calls.append(("segment", kind, (np.array(a, dtype=float), np.array(b, dtype=float))))

    def quad(self, corners: np.ndarray, kind: str) -> None:
        self.calls.append(("quad", kind, (np.array(corners, dtype=float),)))

    def rect_xz(self, rect: np.ndarray, y: float, kind: str) -> None:
        self.calls.append(("rect_xz", kind, (np.array(rect, dtype=float), float(y))))

    def text(self, p: np.ndarray, s: str, kind: str) -> None:
        self.calls.append(("text", kind, (np.array(p, dtype=float), s)))

    def of(self, method: str, kind: str | None = None) -> list[tuple]:
        return [d for m, k, d in self.calls if m == method and (kind is None or k == kind)]
