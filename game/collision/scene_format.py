"""Method C scene files: the binary layout of the model data file (C3) and the quadtree file (C4).

Both files are little-endian ``struct`` layouts with a magic, a version, the total file size
and a CRC-32 (``zlib.crc32``) of the rest of the file in the header; the quadtree file's
header also records the model data file's CRC, so two files from different bakes are told
apart, and the model data file's header holds the digest of the description the pair was
baked from (:data:`NO_DIGEST` for a scene saved from code).  The caps below bound every
count in a header, so a crafted file is refused before anything is allocated for it.  The
full layout is in ``docs/scene-format.md``; the writer (:mod:`.scene_save`) and the reader
(:mod:`.scene_file`) share these definitions.
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
    "MAX_MODELS",
    "MAX_TRIANGLES",
    "MAX_NODES",
    "MAX_NODE_ENTRIES",
    "MAX_LEAF_CAPACITY",
    "MAX_MODELS_BYTES",
    "MAX_QUADTREE_BYTES",
    "DIGEST_SIZE",
    "NO_DIGEST",
    "SOURCE_DIGEST_AT",
    "OLD_VERSIONS",
    "Sealed",
    "crc",
    "sealed",
]

MODELS_MAGIC = b"RBXMODL\x00"
QUADTREE_MAGIC = b"RBXQUAD\x00"
FORMAT_VERSION = 3
#: What each older version lacks, for the message that tells its files to be re-baked.
OLD_VERSIONS = {1: "no checksum", 2: "no digest of the description it was baked from"}
PREFIX = struct.Struct("<8sHH")                 # magic, version, reserved: the same in every version
DIGEST_SIZE = 32                                # SHA-256
MODELS_HEADER = struct.Struct("<8sHHIIQI32s")   # magic, version, reserved, mesh_count, model_count, file_size,
#                                                 crc32, source_digest
QUAD_HEADER = struct.Struct("<8sHHIIIIQII")     # magic, version, reserved, model_count, node_count,
#                                                 leaf_capacity, max_depth, file_size, crc32, models_crc32
MODELS_CRC_AT = 28                              # byte offset of each header's crc32 field
QUAD_CRC_AT = 36
QUAD_PAIR_AT = 40                               # the quadtree header's models_crc32
SOURCE_DIGEST_AT = 32                           # the model data header's source_digest
#: ``source_digest`` of a scene not baked from a description (``save_scene`` without one).
NO_DIGEST = bytes(DIGEST_SIZE)
U32 = struct.Struct("<I")                       # a count
MODEL_DT = np.dtype([("aabb", "<f8", (6,)), ("level", "u1"), ("mesh", "<u4"), ("tris", "<u4"),
                     ("transform", "<f8", (16,))])   # one model record
NODE_DT = np.dtype([("rect", "<f8", (4,)), ("depth", "<u4"), ("id", "<u4")])   # one node record
REL = struct.Struct("<IBB")                     # node index, has_children, child_count
MAX_DEPTH = 16                                  # the deepest quadtree a file may hold
#: The most models (and meshes) a model data file may hold: the shipped arena has 27.
MAX_MODELS = 4096
#: The most triangles, all meshes together: the shipped arena has about 2,300, a hundred
#: times that is still a scene whose AABB trees load in seconds.
MAX_TRIANGLES = 1 << 18
#: The most nodes a quadtree file may hold: the shipped one has a few dozen.
MAX_NODES = 1 << 16
#: The largest leaf capacity (the arena description's own bound).
MAX_LEAF_CAPACITY = 1024
#: The largest model data file the caps allow: header, a triangle count per mesh, the
#: triangles, the model records (19.7 MB); the reader refuses a larger file unread.
MAX_MODELS_BYTES = MODELS_HEADER.size + MAX_MODELS * (U32.size + MODEL_DT.itemsize) + MAX_TRIANGLES * 72
#: The most node-to-model entries a quadtree file may list, all nodes together (a model is
#: listed by every leaf it overlaps).
MAX_NODE_ENTRIES = 1 << 20
#: The largest quadtree file the caps allow: nodes, their counts and relations (with four
#: children each), and the entries (8.6 MB).
MAX_QUADTREE_BYTES = (QUAD_HEADER.size + MAX_NODES * (NODE_DT.itemsize + U32.size + REL.size + 4 * U32.size)
                      + MAX_NODE_ENTRIES * U32.size)


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
