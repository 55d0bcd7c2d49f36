"""Drawing the full-screen menu panels: the move list (``movelist.py``) and the options
screen (``options.py``).  One dark panel over a dimmed frame, a gold heading, rows of text
in columns, the selected row lit, a scroll bar when the rows do not all fit, and a line of
keys at the bottom.  Its own label batch, drawn over the HUD (``Game._draw_hud``); the
labels use the HUD's fonts and sizes (already in the glyph atlas) and sit on the panel's
dark ground with no shadows.
"""

from __future__ import annotations

import functools

from .hud import GOLD, _rgba255, _Text
from .movelist import COLUMNS, MoveList
from .options import OptionsScreen
from .passes import Rects

ROW_H = 26.0                 # canvas units per row
#: left edge of each move list column, as a fraction of the panel's width
MOVE_COLUMNS = (0.03, 0.17, 0.47, 0.57, 0.77, 0.86)
MAX_ROWS = 26                # rows of labels kept (a taller canvas shows no more)
MOVE_KEYS = "↑ ↓ scroll  ·  PgUp PgDn a page  ·  Esc / Enter back  ·  pad: d-pad, B back"
OPTION_KEYS = "↑ ↓ choose  ·  ← → change  ·  Enter remap a key  ·  Esc back (saves)  ·  pad: d-pad, A, B"
ADVANTAGE_NOTE = "on hit / block: frames the attacker acts first after a hit on the first active frame"
WHITE, GREY = (255, 255, 255, 255), (175, 175, 185, 255)


class MenuPanel:
    """The labels and layout of the move list and the options screen."""

    def __init__(self, pyglet) -> None:
        self.batch = pyglet.graphics.Batch()
        groups = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
        text = functools.partial(_Text, pyglet, self.batch, groups)
        self.heading = text(22, bold=True, anchor_x="center", anchor_y="center")
        self.cells = [[text(12) for _ in MOVE_COLUMNS] for _ in range(MAX_ROWS)]
        self.keys = text(10, anchor_x="center")
        self.message = text(15, bold=True, anchor_x="center")

    def draw(self, rects_gl, canvas: tuple[float, float], panel: MoveList | OptionsScreen) -> None:
        """Lay out and draw ``panel`` over whatever is on the screen."""
        from pyglet import gl

        W, H = canvas
        r = Rects()
        r.add(0, 0, W, H, (0, 0, 0, 0.6))
        pw = min(W - 60.0, 1160.0)
        px, y0, y1 = (W - pw) / 2, 30.0, H - 30.0
        # opaque: the title's text never shows through
        r.add(px, y0, pw, y1 - y0, (0.06, 0.07, 0.10, 1.0), (0.12, 0.13, 0.18, 1.0))
        r.add(px, y1 - 4, pw, 4, GOLD)
        rows_top = y1 - 90.0                        # the baseline of the first row
        visible = min(int((rows_top - (y0 + 64.0)) // ROW_H), MAX_ROWS - 1)
        panel.fit(visible)
        if isinstance(panel, MoveList):
            self._moves(r, panel, px, pw, rows_top)
        else:
            self._options(r, panel, px, pw, rows_top)
        if panel.scrollable if isinstance(panel, MoveList) else len(panel.rows) > panel.visible:
            total = len(panel.rows)
            track_h = panel.visible * ROW_H
            bx, by = px + pw - 16, rows_top + ROW_H - track_h - 6
            r.add(bx, by, 6, track_h, (0.22, 0.22, 0.26))
            th = track_h * panel.visible / total
            r.add(bx, by + track_h - th - track_h * panel.top / total, 6, th, GOLD)
        self.keys.set(MOVE_KEYS if isinstance(panel, MoveList) else OPTION_KEYS, W / 2, y0 + 12, GREY)
        rects_gl.draw(canvas, r.array())
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.heading.set("MOVE LIST" if isinstance(panel, MoveList) else "OPTIONS", W / 2, y1 - 36, _rgba255(GOLD))
        self.batch.draw()

    def _moves(self, r: Rects, panel: MoveList, px: float, pw: float, top: float) -> None:
        self.message.set(ADVANTAGE_NOTE, px + pw / 2, 30.0 + 34, GREY)
        head = self.cells[0]
        for lbl, col, name in zip(head, MOVE_COLUMNS, COLUMNS):
            lbl.set(name, px + pw * col, top + 4, _rgba255(GOLD))
        r.add(px + 20, top - 4, pw - 40, 1.5, (0.5, 0.45, 0.3))
        shown = panel.rows[panel.top:panel.top + panel.visible]
        for k, cells in enumerate(self.cells[1:]):
            if k < len(shown):
                row = shown[k]
                y = top - (k + 1) * ROW_H - 4
                if k % 2 == 0:
                    r.add(px + 20, y - 8, pw - 40, ROW_H, (1, 1, 1, 0.04))
                texts = (row.input, row.label, row.height, row.frames, row.damage, row.advantage)
                for lbl, col, t in zip(cells, MOVE_COLUMNS, texts):
                    lbl.set(t, px + pw * col, y, WHITE)
            else:
                for lbl in cells:
                    lbl.hide()

    def _options(self, r: Rects, panel: OptionsScreen, px: float, pw: float, top: float) -> None:
        for lbl in self.cells[0]:
            lbl.hide()
        shown = panel.rows[panel.top:panel.top + panel.visible]
        for k, cells in enumerate(self.cells[1:]):
            name_lbl, value_lbl, *rest = cells
            for lbl in rest:
                lbl.hide()
            if k >= len(shown):
                name_lbl.hide()
                value_lbl.hide()
                continue
            row = shown[k]
            y = top - k * ROW_H
            if panel.top + k == panel.sel:
                lit = (0.9, 0.55, 0.1, 0.85) if not panel.capturing else (0.75, 0.2, 0.15, 0.9)
                r.add(px + 40, y - 8, pw - 100, ROW_H - 2, lit)
            if row.kind == "head":
                name_lbl.set(row.name, px + 60, y, _rgba255(GOLD))
                value_lbl.hide()
                continue
            indent = 90 if row.kind == "key" else 60
            name_lbl.set(panel.label(row), px + indent, y, WHITE)
            value_lbl.set(panel.value_text(row), px + pw * 0.5, y, WHITE)
        if panel.message:
            self.message.set(panel.message, px + pw / 2, 30.0 + 34, (255, 215, 120, 255))
        else:
            self.message.hide()

    def hide(self) -> None:
        for lbl in (self.heading, self.keys, self.message, *(c for row in self.cells for c in row)):
            lbl.hide()
