"""The simulation's debug-draw interface (pymunk style).

The simulation describes what it knows (range boxes, judgement points,
collision points, crate slabs, quadtree cells and rays) through
calls on a :class:`DebugDraw`; only the pyglet side implements drawing.
A recording implementation lives here for tests and tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

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


def draw_contact(draw, a: np.ndarray, b: np.ndarray, j1: np.ndarray, j2: np.ndarray, p: np.ndarray) -> None:
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


def draw_rays(draw, rays, group: str | None = None) -> None:
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


class RecordingDraw:
    """A DebugDraw that records every call as ``(method, kind, data)``; for tests and tools."""

    def __init__(self):
        self.calls: list[tuple[str, str, tuple]] = []

    def box(self, box, kind):
        self.calls.append(("box", kind, (np.array(box, dtype=float),)))

    def point(self, p, kind):
        self.calls.append(("point", kind, (np.array(p, dtype=float),)))

    def segment(self, a, b, kind):
        self.calls.append(("segment", kind, (np.array(a, dtype=float), np.array(b, dtype=float))))

    def quad(self, corners, kind):
        self.calls.append(("quad", kind, (np.array(corners, dtype=float),)))

    def rect_xz(self, rect, y, kind):
        self.calls.append(("rect_xz", kind, (np.array(rect, dtype=float), float(y))))

    def text(self, p, s, kind):
        self.calls.append(("text", kind, (np.array(p, dtype=float), s)))

    def of(self, method: str, kind: str | None = None) -> list[tuple]:
        return [d for m, k, d in self.calls if m == method and (kind is None or k == kind)]
