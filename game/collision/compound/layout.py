"""Method B layout: layers and wall slabs, face kinds, input checks and the state format.

A compound's bounding box ``bounds`` (B1; a sphere's circumscribed cube, B8) is described by
its six faces (B2).  Each face is extruded *inward* by the wall ``thickness`` into a slab (B6).
The slab of one original face is a **layer**; layer ids are ``2 * axis + side`` (``side`` 0 =
the min face with outward normal ``-axis``, 1 = the max face with normal ``+axis``)::

    layer 0/1  (-x/+x)  x: wall,  y: full,      z: full
    layer 2/3  (-y/+y)  x: inset, y: wall,      z: full
    layer 4/5  (-z/+z)  x: inset, y: inset,     z: wall

("inset" = ``[lo + thickness, hi - thickness]``).  So the edges and corners of the shell are
owned by the x slabs first, then the y slabs, and no two layers ever overlap.  Every small box
belongs to exactly one layer and spans that layer's whole wall thickness along the layer's
axis; strikes only ever cut a box across its two *tangent* axes, so thickness never shrinks.
A small box is the extrusion of its **face**: its side on the layer's outer plane.

Every other module of the package builds on these names, so they sit in one module that
depends on nothing else in the package.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

__all__ = [
    "FaceKind",
    "OUTER",
    "FILL",
    "INNER",
    "KIND_NAMES",
    "DEFAULT_MARGIN",
    "TANGENTS",
    "CYCLIC",
    "LAYER_IDS",
    "CompoundError",
    "InvalidCompound",
    "CompoundSnapshot",
    "wall_slabs",
    "as_box",
    "as_scalar",
    "readonly",
    "state_bytes",
]


class FaceKind(IntEnum):
    """What a face of a compound is (``FaceSet.kinds``, ``Face.kind``)."""

    OUTER = 0   # on the crate's outer surface: split faces and other faces (B4, B2)
    FILL = 1    # a wall of a hole (B5)
    INNER = 2   # the shell's inside, seen through a hole


OUTER, FILL, INNER = FaceKind.OUTER, FaceKind.FILL, FaceKind.INNER
KIND_NAMES = ("outer", "fill", "inner")

#: Default growth of the interaction region around the striker's footprint
#: (world units, B3).  A game tunable, not a tolerance.
DEFAULT_MARGIN = 0.02

#: axis -> the other two axes, increasing (a layer's tangent axes ``(u, v)``).
TANGENTS = ((1, 2), (0, 2), (0, 1))
#: axis -> ``(v, w)`` with ``e_v x e_w = e_axis`` (the winding of a quad on that axis).
CYCLIC = ((1, 2), (2, 0), (0, 1))
#: (6,) int8, the six layer ids in order.
LAYER_IDS = np.arange(6, dtype=np.int8)

#: The state format of :func:`state_bytes`: magic and format version.
STATE_MAGIC = b"RBCP"
STATE_VERSION = 1


class CompoundError(ValueError):
    """Bad input to a compound function (message names the argument and the fix)."""


class InvalidCompound(RuntimeError):
    """Raised by :meth:`Compound.validate` when a B9 invariant is broken."""


@dataclass(frozen=True)
class CompoundSnapshot:
    """Immutable copy of a compound's state (for rollback); see :meth:`Compound.restore`."""

    bounds: np.ndarray      # (2, 3) float, the original bounding box
    thickness: float        # the wall thickness
    boxes: np.ndarray       # (K, 2, 3) float, read-only, the small boxes grouped by layer
    layers: np.ndarray      # (K,) int8, read-only, the layer of each small box
    volume0: float          # the initial shell volume (the six intact walls)


def readonly(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only in place (returned for chaining)."""
    a.flags.writeable = False
    return a


def wall_slabs(b: np.ndarray, t: float) -> np.ndarray:
    """B6: the six wall slabs ``(6, 2, 3)`` float of box ``b`` ``(2, 3)`` extruded inward by
    thickness ``t`` (layer order, ownership as in the module docstring)."""
    lo, hi = b[0], b[1]
    slabs = np.empty((6, 2, 3))
    slabs[:] = b
    for axis in range(3):
        slabs[2 * axis, 1, axis] = lo[axis] + t
        slabs[2 * axis + 1, 0, axis] = hi[axis] - t
        for other in range(axis):  # inset in the axes owned by earlier layers
            slabs[2 * axis : 2 * axis + 2, 0, other] = lo[other] + t
            slabs[2 * axis : 2 * axis + 2, 1, other] = hi[other] - t
    return slabs


def as_box(x: Any, name: str) -> np.ndarray:
    """``x`` as a finite ``(2, 3)`` ``[min, max]`` float box, or :class:`CompoundError` naming ``name``."""
    try:
        arr = np.array(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise CompoundError(f"{name}: expected a (2, 3) [min, max] box of numbers ({exc})") from None
    if arr.shape != (2, 3):
        raise CompoundError(f"{name}: expected a (2, 3) [min, max] box, got shape {arr.shape}")
    lo, hi = arr.tolist()       # six floats: checked in Python (a strike's frame runs numpy cold)
    if not all(map(math.isfinite, lo + hi)):
        raise CompoundError(f"{name}: coordinates must be finite, got {arr.tolist()}")
    if any(b < a for a, b in zip(lo, hi)):
        raise CompoundError(f"{name}: min row must be <= max row on every axis, got {arr.tolist()}")
    return arr


def as_scalar(x: Any, name: str) -> float:
    """``x`` as a finite float, or :class:`CompoundError` naming ``name``."""
    try:
        val = float(x)
    except (TypeError, ValueError):
        raise CompoundError(f"{name}: expected a number, got {x!r}") from None
    if not np.isfinite(val):
        raise CompoundError(f"{name}: must be finite, got {val}")
    return val


def state_bytes(bounds: np.ndarray, thickness: float, boxes: np.ndarray, layers: np.ndarray) -> bytes:
    """Stable little-endian serialisation of a compound's state, for hashing.

    ``b"RBCP"``, version u16, box count u32, bounds 6 x f64, thickness f64, then the boxes
    ``(K, 2, 3)`` (K x 6 f64) and layers ``(K,)`` (K x u8).
    """
    head = struct.pack("<4sHI7d", STATE_MAGIC, STATE_VERSION, int(boxes.shape[0]), *bounds.ravel().tolist(),
                       thickness)
    return head + boxes.astype("<f8").tobytes() + layers.astype("u1").tobytes()
