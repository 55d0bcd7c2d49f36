"""Method C scene files: the binary layout of the model data file (C3) and the quadtree file (C4).

Both files are little-endian ``struct`` layouts with a magic, a version, the total file size
and a CRC-32 (``zlib.crc32``) of the rest of the file in the header; the quadtree file's
header also records the model data file's CRC, so two files from different bakes are told
apart.  The full layout is in ``docs/scene-format.md``; the writer (:mod:`.scene_save`) and
the reader (:mod:`.scene_file`) share these definitions.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

import numpy as np

__all__ = [
    "MODELS_MAGIC",
    "QUADTREE_MAGIC",
    "FORMAT_VERSION",
    "PREFIX",
    "MODELS_HEADER",
    "QUAD_HEADER",
    "MODELS_CRC_AT",
    "QUAD_CRC_AT",
    "QUAD_PAIR_AT",
    "U32",
    "MODEL_DT",
    "NODE_DT",
    "REL",
    "MAX_DEPTH",
    "Sealed",
    "crc",
    "sealed",
]

MODELS_MAGIC = b"RBXMODL\x00"
QUADTREE_MAGIC = b"RBXQUAD\x00"
FORMAT_VERSION = 2
PREFIX = struct.Struct("<8sHH")                 # magic, version, reserved: the same in every version
MODELS_HEADER = struct.Struct("<8sHHIIQI")      # magic, version, reserved, mesh_count, model_count, file_size,
#                                                 crc32
QUAD_HEADER = struct.Struct("<8sHHIIIIQII")     # magic, version, reserved, model_count, node_count,
#                                                 leaf_capacity, max_depth, file_size, crc32, models_crc32
MODELS_CRC_AT = 28                              # byte offset of each header's crc32 field
QUAD_CRC_AT = 36
QUAD_PAIR_AT = 40                               # the quadtree header's models_crc32
U32 = struct.Struct("<I")                       # a count
MODEL_DT = np.dtype([("aabb", "<f8", (6,)), ("level", "u1"), ("mesh", "<u4"), ("tris", "<u4"),
                     ("transform", "<f8", (16,))])   # one model record
NODE_DT = np.dtype([("rect", "<f8", (4,)), ("depth", "<u4"), ("id", "<u4")])   # one node record
REL = struct.Struct("<IBB")                     # node index, has_children, child_count
MAX_DEPTH = 16                                  # the deepest quadtree a file may hold


def crc(data: bytes | memoryview, crc_at: int) -> int:
    """CRC-32 of every byte of ``data`` except the 4-byte crc32 field at ``crc_at``."""
    return zlib.crc32(data[crc_at + 4:], zlib.crc32(data[:crc_at]))


class Sealed(NamedTuple):
    """A file's bytes with the checksum filled in."""

    data: bytes
    crc32: int


def sealed(data: bytes, crc_at: int) -> Sealed:
    """``data`` with its crc32 field filled in, and that CRC-32."""
    crc32 = crc(data, crc_at)
    return Sealed(data[:crc_at] + struct.pack("<I", crc32) + data[crc_at + 4:], crc32)
