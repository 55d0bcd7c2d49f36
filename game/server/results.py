"""A room's result and authoritative replay, written when its match ends (``docs/netplay.md``).

Per match, in the results folder (``--results DIR``, else ``$XDG_DATA_HOME/rangebox/server``):
one JSON line appended to ``results.jsonl`` (:func:`result_line`'s fields), and the referee's
replay (``game/replay.py``'s format) as ``ROOM-YYYYMMDD-HHMMSS.rpl`` (``-2``, ``-3`` ... when
taken), saved through a temp file and a rename.  The line is one ``write`` of an ``O_APPEND``
file, so lines of two matches never interleave.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from game.files import write_atomic
from game.online.address import format_address

from .room import Room

RESULTS_FILE = "results.jsonl"


def results_dir() -> Path:
    """The default results folder: ``$XDG_DATA_HOME/rangebox/server``, else
    ``~/.local/share/rangebox/server`` (an empty or relative XDG_DATA_HOME is ignored)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "rangebox" / "server"


def utc(wall: float) -> str:
    """``wall`` (seconds since the epoch) as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def result_line(room: Room, started: float, ended: float, replay: str) -> dict[str, object]:
    """The JSON line's fields of ``room``'s ended match (``started``, ``ended``: wall seconds)."""
    ending, referee = room.ending, room.referee
    assert ending is not None and referee is not None
    m = referee.match
    winner = m.winner + 1 if ending.reason == "finished" and m.winner is not None else None
    casts = referee.casts
    frames, final = referee.last_whole()
    return {
        "room": room.name,
        "players": [{"side": p.side + 1, "name": p.name or format_address(p.addr),
                     "address": format_address(p.addr)}
                    for p in room.players],
        "winner": winner, "rounds": [f.wins for f in m.fighters], "frames": frames,
        "state_hash": final.hex(), "reason": ending.reason, "detail": ending.detail,
        "culprits": [s + 1 for s in (0, 1) if ending.culprits >> s & 1],
        "casts": {"any_hit": casts.any_hit, "nearest": casts.nearest},
        "spectators": room.watchers, "private": any(room.join.secret),
        "seed": room.join.seed, "started": utc(started), "ended": utc(ended), "replay": replay,
    }


class ResultWriter:
    """Writes results into ``folder`` (made now: OSError if it cannot be)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: Results written (matches).
        self.written = 0

    def write(self, room: Room, started: float, ended: float) -> dict[str, object]:
        """Write the replay and the result line of ``room`` (ended, its match started); the line."""
        referee = room.referee
        assert referee is not None
        path = self._replay_path(room.name, ended)
        write_atomic(path, referee.replay_bytes())
        line = result_line(room, started, ended, str(path))
        data = (json.dumps(line) + "\n").encode()
        fd = os.open(self.folder / RESULTS_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.written += 1
        return line

    def _replay_path(self, room: str, ended: float) -> Path:
        # a room's name (room_protocol.ROOM_NAME: A-Z a-z 0-9 . _ -) followed by the time is one
        # plain file name: never a separator, never "." or ".." alone
        stem = f"{room}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime(ended))}"
        for n in range(1, 10_000):
            path = self.folder / (f"{stem}.rpl" if n == 1 else f"{stem}-{n}.rpl")
            if not os.path.lexists(path):
                return path
        raise FileExistsError(f"{self.folder}: every name for room {room}'s replay is taken")

