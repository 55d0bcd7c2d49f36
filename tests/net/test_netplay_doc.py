"""docs/netplay.md against the code: its datagram tables are protocol.py's layouts, its
request, event and figure tables name the fields the code has."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from game.net import protocol as wire
from game.net import requests, stats

DOC = (Path(__file__).resolve().parents[2] / "docs" / "netplay.md").read_text()
SIZES = {"u8": 1, "i8": 1, "u16": 2, "u32": 4, "i32": 4, "u64": 8, "2 bytes": 2, "32 bytes": 32}


def _rows(heading: str) -> list[tuple[int, str, str]]:
    """``(offset, field, type)`` of the first table under ``heading``."""
    part = DOC.split(heading, 1)[1]
    rows = re.findall(r"^\| (\d+) \| (\w+) \| ([^|]+?) \|", part, re.M)
    out, seen = [], set()
    for off, name, typ in rows:
        if int(off) == 0 and seen:
            break
        seen.add(name)
        out.append((int(off), name, typ.strip()))
    return out


def test_the_header_table_is_the_header_struct():
    rows = _rows("starts with the header:")
    assert [r[1] for r in rows] == ["magic", "version", "type", "sequence", "check"]
    assert sum(SIZES[t] for _, _, t in rows) == wire.HEADER.size
    assert [o for o, _, _ in rows] == [0, 2, 3, 4, 6]


def test_each_message_table_is_its_layout():
    for cls, (code, st) in wire._FIXED.items():
        heading = re.search(rf"^### .*\b{cls.__name__} \(type {code}\)", DOC, re.M)
        assert heading, f"docs/netplay.md has no section for {cls.__name__} (type {code})"
        rows = _rows(f"{cls.__name__} (type {code})") if cls is not wire.QualityReply else \
            _rows("A QualityReply is the stamp alone:")
        names = [r[1] for r in rows]
        if cls is wire.Inputs:
            assert names == ["start", "frame", "ack", "advantage", "runs", "run"]
            assert sum(SIZES[t] for _, _, t in rows[:-1]) == st.size
            assert struct.calcsize("<HB") == 3
            continue
        assert names == list(cls._fields), (cls.__name__, names)
        offsets = [0]
        for _, _, t in rows:
            offsets.append(offsets[-1] + SIZES[t])
        assert [r[0] for r in rows] == offsets[:-1] and offsets[-1] == st.size, cls.__name__


def test_the_request_event_and_figure_tables_name_the_code_s_fields():
    for cls in (requests.SaveState, requests.LoadState, requests.AdvanceFrame, requests.Interrupted,
                requests.Resumed, requests.Disconnected, requests.Desync):
        row = re.search(rf"^\| `{cls.__name__}` \| ([^|]+) \|", DOC, re.M)
        assert row, cls.__name__
        assert re.findall(r"`(\w+)`", row.group(1)) == list(cls._fields), cls.__name__
    figures = DOC.split("## The figures")[1].split("\n## ")[0]          # that section only
    documented = [n for cell in re.findall(r"^\| (`\w+`(?:, `\w+`)*) \|", figures, re.M)
                  for n in re.findall(r"`(\w+)`", cell)]
    assert documented == list(stats.NetStats._fields)
