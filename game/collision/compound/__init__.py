"""Method B: re-splitting a crate's bounding box when a character strikes it.

A :class:`Compound` is a crate (or barrel) made of thin *small boxes*, each a method-A range
box.  A strike punches a rectangular hole through the wall it hits; afterwards method A
(limbs vs ``compound.boxes``) and method C (rays vs ``compound.triangles()``) see the hole.

Where each part lives:

* :mod:`.layout`: layers and wall slabs (B6), face kinds, input checks, the state format;
* :mod:`.rects`: runs and rectangles on a layer's grid, the re-merge of a struck layer (B9);
* :mod:`.resplit`: how a strike re-splits the boxes of the walls it cuts through: the region, the
  tunnel through the wall and the rims of the neighbouring walls, the nine-patch (B3, B4);
* :mod:`.strike`: one strike from touch to new boxes, and its :class:`StrikeResult` (B1-B7);
* :mod:`.faces`: :class:`Face`, :class:`FaceSet` and quads;
* :mod:`.boundary`: the faces of a compound, the boundary of the union of its boxes (B5, B7);
* :mod:`.invariants`: what stays true after any number of strikes (B9);
* :mod:`.compound`: :class:`Compound`, its state and what reads it;
* :mod:`.group`: :class:`CompoundGroup`, every compound's boxes against the limbs each frame.

The simple reference versions the tests and the benchmark compare with are in
:mod:`game.reference.compound`.
"""

from .compound import Compound
from .faces import Face, FaceSet, Triangles
from .group import CompoundGroup, GroupTouch
from .layout import (
    DEFAULT_MARGIN,
    FILL,
    INNER,
    KIND_NAMES,
    OUTER,
    CompoundError,
    CompoundSnapshot,
    FaceKind,
    InvalidCompound,
)
from .strike import StrikeResult

__all__ = [
    "OUTER",
    "FILL",
    "INNER",
    "FaceKind",
    "KIND_NAMES",
    "DEFAULT_MARGIN",
    "CompoundError",
    "InvalidCompound",
    "Face",
    "FaceSet",
    "Triangles",
    "StrikeResult",
    "CompoundSnapshot",
    "Compound",
    "CompoundGroup",
    "GroupTouch",
]
