"""Method B: :class:`Compound`, a crate's bounding box as a shell of small boxes.

The compound owns its state as plain read-only arrays (boxes grouped by layer, their
layers, the row range of each layer) and replaces them on every strike that removes
something, so a reference taken before a strike keeps the old state and a copy or a
snapshot is O(1).  The geometry is done by pure functions in the sibling modules: the
strike (:mod:`.strike`), the faces (:mod:`.boundary`) and the invariants (:mod:`.invariants`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import tolerances as tol
from ..range_box import box_from_sphere
from .boundary import compound_faces
from .faces import Face, FaceSet, Triangles, face_tuple
from .invariants import check_invariants, max_boxes
from .layout import (
    DEFAULT_MARGIN,
    OUTER,
    CompoundError,
    CompoundSnapshot,
    as_box,
    as_scalar,
    readonly,
    state_bytes,
    wall_slabs,
)
from .strike import StrikeResult, strike_boxes

__all__ = ["Compound"]


class Compound:
    """A crate's bounding box as a compound of small boxes (method B).

    Build with :meth:`from_box` or :meth:`from_sphere`.  State is plain arrays:
    ``boxes`` (K, 2, 3) float and ``layers`` (K,) int8, both read-only; a strike
    replaces them (and bumps ``version``), so a reference taken before a strike
    keeps the old state.
    """

    __slots__ = ("_bounds", "_thickness", "_slabs", "_boxes", "_layers", "_offsets", "_volume0", "_version", "_faces",
                 "_state")

    def __init__(self, bounds: Any, thickness: float, boxes: Any, layers: Any, volume0: float):
        """Low level (restore, pickle, tests): adopt the given state as is; boxes
        are re-ordered by layer if needed.  Nothing is checked here; call
        :meth:`validate`.  ``volume0`` is the initial shell volume."""
        self._bounds = readonly(np.array(bounds, dtype=float))
        self._thickness = float(thickness)
        self._slabs = readonly(wall_slabs(self._bounds, self._thickness))
        self._boxes = readonly(np.ascontiguousarray(boxes, dtype=float))
        self._layers = readonly(np.ascontiguousarray(layers, dtype=np.int8))
        if self._layers.size and (np.diff(self._layers) < 0).any():  # keep boxes grouped by layer
            order = np.argsort(self._layers, kind="stable")
            self._boxes = readonly(np.ascontiguousarray(self._boxes[order]))
            self._layers = readonly(self._layers[order])
        self._offsets: list[int] = np.searchsorted(self._layers, np.arange(7)).tolist()  # layer l: [o[l], o[l+1])
        self._volume0 = float(volume0)
        self._version = 0
        self._faces: FaceSet | None = None
        self._state: bytes | None = None        # state_bytes(), made when first asked for

    # ---- construction -----------------------------------------------------

    @classmethod
    def from_box(cls, box: Any, thickness: float) -> Compound:
        """B6: extrude the six faces of ``box`` (2, 3) inward by ``thickness``.

        Corner/edge ownership: see :mod:`.layout` (x slabs full size, y slabs inset in x,
        z slabs inset in x and y).  Raises :class:`CompoundError` if ``thickness`` is not in
        ``[MIN_BOX_EXTENT, (smallest extent - MIN_BOX_EXTENT) / 2]``.
        """
        b = as_box(box, "box")
        t = as_scalar(thickness, "thickness")
        ext = b[1] - b[0]
        if t < tol.MIN_BOX_EXTENT:
            raise CompoundError(f"thickness: must be >= {tol.MIN_BOX_EXTENT} (MIN_BOX_EXTENT), got {t}")
        if (ext - 2.0 * t < tol.MIN_BOX_EXTENT).any():
            raise CompoundError(
                f"thickness: {t} leaves no hollow inside box with extents {ext.tolist()}; "
                f"use a thickness below half the smallest extent"
            )
        slabs = wall_slabs(b, t)
        vol = float(np.prod(slabs[:, 1] - slabs[:, 0], axis=1).sum())
        return cls(b, t, slabs, np.arange(6, dtype=np.int8), vol)

    @classmethod
    def from_sphere(cls, center: Any, radius: float, thickness: float) -> Compound:
        """B8: a spherical bounding volume becomes its circumscribed cube."""
        try:
            c = np.array(center, dtype=float)
        except (TypeError, ValueError):
            raise CompoundError(f"center: expected 3 numbers, got {center!r:.80}") from None
        if c.shape != (3,):
            raise CompoundError(f"center: expected 3 coordinates, got shape {c.shape}")
        if not np.isfinite(c).all():
            raise CompoundError(f"center: coordinates must be finite, got {c.tolist()}")
        r = as_scalar(radius, "radius")
        if r <= 0:
            raise CompoundError(f"radius: must be > 0, got {r}")
        return cls.from_box(box_from_sphere(c, r), thickness)

    # ---- reading ----------------------------------------------------------

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) float, the original bounding box."""
        return self._bounds

    @property
    def thickness(self) -> float:
        return self._thickness

    @property
    def slabs(self) -> np.ndarray:
        """(6, 2, 3) float, read-only: the six wall slabs by layer (B6), the bounds' faces
        extruded inward by the thickness (edges owned by the x slabs, then the y slabs)."""
        return self._slabs

    @property
    def core(self) -> np.ndarray:
        """(2, 3) float: the crate's hollow inside, the bounds less one wall thickness."""
        return self._bounds + np.array([[self._thickness], [-self._thickness]])

    @property
    def boxes(self) -> np.ndarray:
        """(K, 2, 3) float, read-only, C-contiguous: the small boxes (method A range boxes)."""
        return self._boxes

    @property
    def layers(self) -> np.ndarray:
        """(K,) int8: layer (``2 * axis + side``) of each small box."""
        return self._layers

    @property
    def layer_offsets(self) -> tuple[int, ...]:
        """(7,) ints: the boxes of layer ``l`` are the rows ``offsets[l]`` to ``offsets[l + 1]``."""
        return tuple(self._offsets)

    @property
    def version(self) -> int:
        """Bumped by every strike that changes the compound (cache key)."""
        return self._version

    def __len__(self) -> int:
        return int(self._boxes.shape[0])

    def box_volumes(self) -> np.ndarray:
        """(K,) float: the volume of each small box."""
        return np.prod(self._boxes[:, 1] - self._boxes[:, 0], axis=1)

    def volume(self) -> float:
        """Total volume of the small boxes (they never overlap)."""
        return float(self.box_volumes().sum())

    @property
    def volume0(self) -> float:
        """The initial shell volume (the six intact walls)."""
        return self._volume0

    def solid_fraction(self) -> float:
        """Remaining volume / initial shell volume, in [0, 1]."""
        return self.volume() / self._volume0

    @property
    def faces(self) -> FaceSet:
        """The boundary of the union of the small boxes (see :class:`FaceSet`).  Cached per version."""
        if self._faces is None:
            self._faces = compound_faces(self._boxes, self._layers, self._bounds, self.core)
        return self._faces

    def triangles(self) -> Triangles:
        """``faces`` as :class:`Triangles`: (2F, 3, 3) float, normals (2F, 3), kinds (2F,) int8."""
        return self.faces.triangles()

    def box_faces(self) -> tuple[Face, ...]:
        """The face (outer-plane side) of every small box, in box order (B6 vertex data)."""
        lay = self._layers.astype(np.int64)
        axis = lay // 2
        side = lay % 2
        plane = self._slabs[lay, side, axis]
        return face_tuple(axis, np.where(side == 1, 1.0, -1.0), plane, self._boxes, OUTER)

    # ---- striking ----------------------------------------------------------

    def strike(self, striker_box: Any, margin: float = DEFAULT_MARGIN) -> StrikeResult | None:
        """B1-B7, B9: punch the striker's hole through the walls it touches (:mod:`.strike`).

        Parameters
        ----------
        striker_box : (2, 3) float, the striking limb's range box.
        margin : float >= 0, growth of the interaction region (B3).

        Returns
        -------
        None if the striker touches no small box, or if the touch removes
        nothing (a zero-area region, e.g. an edge-on touch with margin 0);
        the compound is then unchanged.  Otherwise a :class:`StrikeResult`,
        after the compound has been updated.
        """
        s = as_box(striker_box, "striker_box")
        m = as_scalar(margin, "margin")
        if m < 0:
            raise CompoundError(f"margin: must be >= 0, got {m}")
        out = strike_boxes(self._boxes, self._layers, self._offsets, self._slabs, self._bounds, s, m)
        if out is None:
            return None
        self._boxes, self._layers, self._offsets = out.boxes, out.layers, out.offsets
        self._version += 1
        self._faces = None
        self._state = None
        return out.result

    # ---- checking ----------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`InvalidCompound` if a B9 invariant is broken (see :mod:`.invariants`)."""
        check_invariants(self._boxes, self._layers, self._slabs)

    def max_boxes(self) -> int:
        """Upper bound on the box count (B9, :func:`~.invariants.max_boxes`)."""
        return max_boxes(self._boxes, self._layers)

    # ---- state -------------------------------------------------------------

    def copy(self) -> Compound:
        """An independent compound with the same state (arrays are shared read-only)."""
        c = Compound.__new__(Compound)
        c._bounds = self._bounds
        c._thickness = self._thickness
        c._slabs = self._slabs
        c._boxes = self._boxes
        c._layers = self._layers
        c._offsets = self._offsets
        c._volume0 = self._volume0
        c._version = self._version
        c._faces = self._faces
        c._state = self._state
        return c

    __copy__ = copy

    def __reduce__(self) -> tuple[type[Compound], tuple[np.ndarray, float, np.ndarray, np.ndarray, float]]:
        # pickle as the constructor's arguments, so a loaded compound has read-only arrays again
        return (Compound, (self._bounds, self._thickness, self._boxes, self._layers, self._volume0))

    def __deepcopy__(self, memo: dict[int, Any]) -> Compound:
        return self.copy()

    def snapshot(self) -> CompoundSnapshot:
        """Immutable state for rollback (O(1): the arrays are read-only and replaced, never mutated)."""
        return CompoundSnapshot(self._bounds, self._thickness, self._boxes, self._layers, self._volume0)

    @classmethod
    def restore(cls, snap: CompoundSnapshot) -> Compound:
        """A compound in the state of ``snap``."""
        if not isinstance(snap, CompoundSnapshot):
            raise CompoundError(f"snap: expected a CompoundSnapshot, got {type(snap).__name__}")
        return cls(snap.bounds, snap.thickness, snap.boxes, snap.layers, snap.volume0)

    def state_bytes(self) -> bytes:
        """Stable little-endian serialisation for hashing (:func:`~.layout.state_bytes`).

        ``b"RBCP"``, version u16, box count u32, bounds 6 x f64, thickness f64,
        then the boxes (K x 6 f64) and layers (K x u8).  Boxes are stored in a
        canonical order (by layer, then merged-row order), so equal shapes reached
        by the same strikes give equal bytes.  Kept until a strike changes the state: the
        match hashes its crates after every frame (a replay's tag) and most frames strike none.
        """
        if self._state is None:
            self._state = state_bytes(self._bounds, self._thickness, self._boxes, self._layers)
        return self._state

    def __repr__(self) -> str:
        return f"Compound(bounds={self._bounds.tolist()}, thickness={self._thickness}, boxes={len(self)})"
