"""The handshake's digest of everything that decides the simulation, part by part.

Two games play one match only if each step computes the same state: the same game version
(the code), the same move table and fighter bodies, and the same arena.  The parts are, in
order (:data:`PART_NAMES`): the game version string, the bytes of ``assets/moves.json``, of
``assets/fighters.json``, and of the arena's files (the description ``arena.scene.json`` and
the two baked scene files, each with its length before it), read from where the match reads
them (``game.sim.data`` and ``game.sim.arena``).  ``game.net.handshake.settings_digest`` makes
the 32-byte digest of them; a refused joiner names the parts that differ with :func:`describe`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import game
from game.collision.scene_format import MAX_MODELS_BYTES, MAX_QUADTREE_BYTES
from game.files import read_bounded
from game.net.handshake import settings_digest
from game.sim.arena import DESCRIPTION_NAME, MODELS_NAME, QUADTREE_NAME, default_assets_dir
from game.sim.fields import ASSETS, MAX_JSON_BYTES

#: What each part of the digest covers, for messages.
PART_NAMES = ("the game version", "assets/moves.json", "assets/fighters.json",
              f"the arena's files (assets/{DESCRIPTION_NAME}, {MODELS_NAME}, {QUADTREE_NAME})")


def digest_parts() -> list[bytes]:
    """The four parts' bytes (:data:`PART_NAMES`), read from the files the match loads."""
    arena = default_assets_dir()
    files = ((arena / DESCRIPTION_NAME, "an asset JSON file", MAX_JSON_BYTES),
             (arena / MODELS_NAME, "a baked models file", MAX_MODELS_BYTES),
             (arena / QUADTREE_NAME, "a baked quadtree file", MAX_QUADTREE_BYTES))
    arena_bytes = b"".join(_sized(read_bounded(p, what, cap)) for p, what, cap in files)
    return [game.__version__.encode("ascii"), _json(ASSETS / "moves.json"), _json(ASSETS / "fighters.json"),
            arena_bytes]


def game_digest() -> bytes:
    """The 32-byte digest this game sends in its Hello (and a host compares with its own)."""
    return settings_digest(digest_parts())


def describe(parts: Sequence[int]) -> str:
    """The parts ``parts`` (indices) that differ, in words: "assets/moves.json differs",
    "the game version and assets/moves.json differ"."""
    names = [PART_NAMES[i] for i in parts] or ["nothing"]
    said = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{said} {'differs' if len(names) == 1 else 'differ'}"


def _json(path: Path) -> bytes:
    return read_bounded(path, "an asset JSON file", MAX_JSON_BYTES)


def _sized(data: bytes) -> bytes:
    return struct.pack("<Q", len(data)) + data
