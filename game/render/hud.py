"""HUD, menus and training read-outs: rectangles (one instanced draw) + pyglet labels (one batch).

Laid out on a virtual canvas 720 units high (width follows the window's
aspect), scaled to the window, so a resized or fullscreen window keeps the
same composition.  A window narrower than 16:9 gets a canvas 1280 units wide
and taller instead: the widest rows (the title's control lines, the training
frame meter) are laid out for 1280 units and would run off a narrower one.  Reads match
state only; the damage trail is the HUD's own animation state, advanced once per
simulation frame.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .overlay import LEGEND as OVERLAY_LEGEND
from .passes import Rects
from .projection import project
from .training import HISTORY_LEN, KEYS_TEXT, METER_LEN, PHASE_COLORS, InputHistory

CANVAS_H = 720.0
#: the training meter's legend: every phase it draws but neutral (the dark background cells), the jump included
LEGEND = tuple(name for name in PHASE_COLORS if name != "neutral")
#: segment lengths written on each row of the training meter (the first ones, left to right)
SEGMENT_LABELS = 16
#: their colour on each phase's cells: dark on the light colours, white on red and blue
_SEGMENT_TEXT = {ph: (255, 255, 255, 255) if ph in ("active", "recovery") else (15, 15, 20, 255)
                 for ph in PHASE_COLORS}
CANVAS_MIN_W = 1280.0     # narrower windows get a taller canvas (see the module docstring)
FONT = ("DejaVu Sans", "Arial", "Helvetica")
GOLD = (1.0, 0.80, 0.25)
FPS_SIZE = 16            # the fps counter's font size (points)
FPS_COLOR = (140, 255, 120, 255)   # its colour: a bright green on its dark panel
#: the fps counter's panel: (x, distance below the canvas top, width, height), top left
FPS_PANEL = (6, 6, 104, 30)
TRAIL_HOLD = 36          # frames the damage trail waits before draining
TRAIL_RATE = 0.9         # health points per frame it then drains
#: every character a HUD label can show: printable ASCII and the arrows and dots of the
#: input history, hints and controls screen (see Hud.warm_glyphs)
GLYPHS = "".join(chr(c) for c in range(32, 127)) + "·←→↑↓↖↗↘↙–"


#: frame meter cells: a darker bottom under each phase colour
_METER_BOTTOM = {ph: tuple(v * 0.75 for v in c) for ph, c in PHASE_COLORS.items()}


def _bar_span(x0: float, width: float, fraction: float, right: bool) -> tuple[float, float]:
    """``(x, w)`` of the filled part of a bar at ``x0`` ``width`` wide, ``fraction`` full
    (clipped to 0..1): a left bar keeps its left end, a ``right`` one its right end."""
    w = width * max(0.0, min(1.0, fraction))
    return (x0 + width - w if right else x0), w


def clear_of(placed, x: float, y: float, w: float, h: float) -> float:
    """The bottom ``y`` for a ``w`` x ``h`` label at ``(x, y)`` that overlaps none of the
    rectangles ``placed`` (``(x0, y0, x1, y1)``): ``y`` itself if it is free, else moved
    down, below each rectangle it meets in turn."""
    for _ in range(len(placed) + 1):
        hit = [r for r in placed if x < r[2] and r[0] < x + w and y < r[3] and r[1] < y + h]
        if not hit:
            break
        y = min(r[1] for r in hit) - h - 1
    return y


def _rgba255(c, a=1.0):
    return tuple(int(max(0, min(1, v)) * 255) for v in c[:3]) + (int(a * 255),)


def shadow_offset(size: float) -> int:
    """How far (canvas units, right and down) a label of ``size`` points casts its drop shadow:
    about a stroke's width (1 for body text, 5 for the 76-point banner), so the
    shadow touches the letters it darkens.  An offset wider than the strokes leaves a gap of
    background between letter and shadow, and the shadow reads as a second copy of the text."""
    return max(1, round(size / 16))


class _Text:
    """A label that only relayouts when its text/colour/position really change."""

    def __init__(self, pyglet, batch, group, size, *, bold=False, anchor_x="left", anchor_y="baseline",
                 color=(255, 255, 255, 255), shadow=False, font=FONT):
        kw = dict(font_name=list(font), font_size=size, weight="bold" if bold else "normal", anchor_x=anchor_x,
                  anchor_y=anchor_y, batch=batch)
        self.shadow = pyglet.text.Label("", color=(0, 0, 0, 170), group=group[0], **kw) if shadow else None
        self.label = pyglet.text.Label("", color=color, group=group[1], **kw)
        self.offset = shadow_offset(size)      # the shadow's offset (canvas units)
        self._state = None

    def set(self, text: str, x: float, y: float, color=None) -> None:
        state = (text, round(x), round(y), color)
        if state == self._state:
            return
        self._state = state
        lab = self.label
        if lab.text != text:
            lab.text = text
            if self.shadow:
                self.shadow.text = text
        lab.position = (round(x), round(y), 0)
        if self.shadow:
            self.shadow.position = (round(x) + self.offset, round(y) - self.offset, 0)
        if color is not None and tuple(lab.color) != tuple(color):
            lab.color = color
            if self.shadow:
                self.shadow.color = (0, 0, 0, min(170, color[3]))

    def hide(self) -> None:
        if self._state is not None and self._state[0] != "":
            self.set("", -1000, -1000)


class Hud:
    def __init__(self, pyglet, fighter_data: list[dict]):
        self.pyglet = pyglet
        self.batch = pyglet.graphics.Batch()
        self.menu_batch = pyglet.graphics.Batch()        # drawn above the menu's dimming
        g = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
        T = functools.partial(_Text, pyglet, self.batch, g)             # a label in the HUD's batch
        TM = functools.partial(_Text, pyglet, self.menu_batch, g)       # one drawn over the menu's dimming
        mono = ("DejaVu Sans Mono", "Courier New", "monospace")
        self.names = [fd.get("name", f"P{i + 1}") for i, fd in enumerate(fighter_data)]
        self.colors = [tuple(fd["colors"].get("primary", (1, 1, 1))) for fd in fighter_data]
        self.name_lbl = [T(15, bold=True, shadow=True), T(15, bold=True, anchor_x="right", shadow=True)]
        self.timer_lbl = T(34, bold=True, anchor_x="center", anchor_y="center", shadow=True)
        self.banner = T(76, bold=True, anchor_x="center", anchor_y="center", shadow=True)
        self.sub_banner = T(22, bold=True, anchor_x="center", anchor_y="center", shadow=True)
        self.fps_lbl = T(FPS_SIZE, bold=True, anchor_y="center", color=FPS_COLOR)     # on its own dark panel
        self.hint_lbl = T(12, anchor_x="center", shadow=True)
        self.notice_lbl = T(12, anchor_x="right", shadow=True)     # "sound off" after M, bottom right
        # training
        self.adv_lbl = T(20, bold=True, anchor_x="left", anchor_y="center", shadow=True)
        self.hit_lbl = T(12, anchor_x="left", shadow=True)
        self.status_lbl = T(12, anchor_x="center", shadow=True)
        self.meter_lbl = [T(11, bold=True, anchor_x="right", anchor_y="center", shadow=True) for _ in range(2)]
        self.hist_lbl = [[T(12, anchor_x="left" if p == 0 else "right", shadow=True, font=mono)
                          for _ in range(HISTORY_LEN)] for p in range(2)]
        self._hist_slot: list[dict] = [{}, {}]      # per player: id(history row) -> its label
        self.legend_lbl = [T(10, shadow=True) for _ in LEGEND]
        self.adv2_lbl = T(20, bold=True, anchor_x="left", anchor_y="center", shadow=True)   # P2's row
        self.adv_head_lbl = T(10, shadow=True)
        self.dmg_lbl = T(12, anchor_x="right", shadow=True)
        self.keys_lbl = T(10, anchor_x="center", shadow=True)
        #: each meter row's segment lengths, written on the segments (SEGMENT_LABELS per row)
        self.seg_lbl = [[T(11, bold=True, anchor_x="center", anchor_y="center") for _ in range(SEGMENT_LABELS)]
                        for _ in range(2)]
        # menus
        self.title_lbl = T(64, bold=True, anchor_x="center", anchor_y="center", shadow=True)
        self.title_sub = T(18, anchor_x="center", anchor_y="center", shadow=True)
        self.lines = [T(12, anchor_x="center", shadow=True) for _ in range(6)]
        self.menu_lbl = [TM(22, bold=True, anchor_x="center", anchor_y="center", shadow=True) for _ in range(6)]
        self.texts = [T(10, anchor_y="bottom", shadow=True) for _ in range(24)]      # overlay text() labels
        #: the canvas rectangles ``(x0, y0, x1, y1)`` of the overlay labels shown this frame
        self.text_rects: list[tuple[float, float, float, float]] = []
        self.ov_head_lbl = T(10)               # the overlay's key (F1), on its own dark panel: no shadows
        self.ov_legend_lbl = [T(10) for _ in OVERLAY_LEGEND]
        # pyglet keeps only the last 4 fonts it loaded alive (the rest are weak references)
        # and labels do not hold theirs: a collected font comes back empty, and the next text
        # change renders and uploads its glyphs again (the timer's, every second): the HUD
        # holds every font it uses.
        self._fonts = self.fonts()
        self.reset()

    def fonts(self) -> list:
        """The distinct pyglet fonts of the HUD's labels (12)."""
        out: dict[int, object] = {}
        for t in self._all_texts():
            lab = t.label
            font = lab.document.get_font(0, dpi=lab.dpi)
            out.setdefault(id(font), font)
        return list(out.values())

    def _all_texts(self):
        for v in self.__dict__.values():
            stack = [v]
            while stack:
                x = stack.pop()
                if isinstance(x, _Text):
                    yield x
                elif isinstance(x, list):
                    stack.extend(x)

    def warm_glyphs(self, chars: str | None = None) -> int:
        """Render every character the HUD can show, in each of its fonts, into pyglet's glyph
        atlas; returns the number of fonts.  The game loop calls it before its first frame
        (``Game.prepare_for_play``).

        A glyph seen for the first time is uploaded into the atlas texture, and mid-frame
        that upload makes llvmpipe rasterise everything queued so far before it goes on: a
        new timer digit or a banner's letters would stall the frame they first appear in.
        Before any drawing, the same uploads stall nothing."""
        chars = GLYPHS if chars is None else chars
        for font in self._fonts:
            font.get_glyphs(chars)
        return len(self._fonts)

    def reset(self) -> None:
        """A new match: no damage trail."""
        self.trail: list[float | None] = [None, None]      # per fighter, the health the trail shows
        self.hold = [0, 0]                                   # frames each trail has waited to drain

    # ---- per simulation frame ---------------------------------------------
    def step(self, match) -> None:
        for i, f in enumerate(match.fighters):
            hp = float(f.health)
            trail = self.trail[i]
            if trail is None or hp > trail:
                self.trail[i] = hp
                self.hold[i] = 0
            elif hp < trail:
                if self.hold[i] < TRAIL_HOLD:
                    self.hold[i] += 1
                else:
                    self.trail[i] = max(hp, trail - TRAIL_RATE)
            else:
                self.hold[i] = 0

    # ---- per render frame ---------------------------------------------------
    def canvas(self, size) -> tuple[float, float, float]:
        """(virtual width, virtual height, scale) for a window of ``size`` pixels: 720 units
        high, or 1280 wide (and taller) when the window is narrower than 16:9."""
        s = min(size[1] / CANVAS_H, size[0] / CANVAS_MIN_W)
        return size[0] / s, size[1] / s, s

    def build(self, size, match, *, screen: str, fps: float | None, training=None, menu=None,
              overlay_texts=(), view_proj=None, title_info=None, blink: int = 0,
              attract: bool = False, overlay_legend=None, overlay_frame: int | None = None,
              notice: str | None = None):
        """Lay everything out; return ``(rects, menu_rects)``: rectangles under the HUD labels,
        and the pause menu's, drawn over the HUD and under the menu's labels.

        ``overlay_legend``: the debug overlay's key while it is on (``DebugOverlay.legend()``),
        else None; ``overlay_frame``: the match frame to name in it (while the match is held or
        stepped frame by frame), or None; ``notice``: a short line for the bottom-right corner
        (M's "sound off"), or None."""
        W, H, _s = self.canvas(size)
        r = Rects()
        top = Rects()
        used_texts = 0
        if screen == "title":
            self._title(r, W, H, title_info or {}, blink)
            for lbl in (self.timer_lbl, self.banner, self.sub_banner, *self.name_lbl, *self._training_texts(),
                        self.ov_head_lbl, *self.ov_legend_lbl):
                lbl.hide()
            for col in self.hist_lbl:
                for lbl in col:
                    lbl.hide()
        else:
            self.title_lbl.hide()
            self.title_sub.hide()
            self.hint_lbl.hide()
            for lbl in self.lines:
                lbl.hide()
            self._bars(r, W, H, match)
            self._banners(W, H, match, attract, training is not None)
            if training is not None:
                self._training(r, W, H, training)
            else:
                for lbl in self._training_texts():
                    lbl.hide()
                for col in self.hist_lbl:
                    for lbl in col:
                        lbl.hide()
            if overlay_texts and view_proj is not None:
                used_texts = self._overlay_texts(W, H, overlay_texts, view_proj)
            if overlay_legend:
                self._overlay_legend(r, W, H, overlay_legend, overlay_frame)
            else:
                for lbl in (self.ov_head_lbl, *self.ov_legend_lbl):
                    lbl.hide()
        for lbl in self.texts[used_texts:]:
            lbl.hide()
        if fps is not None:
            x, y, w, h = FPS_PANEL
            r.add(x, H - y - h, w, h, (0.0, 0.0, 0.0, 0.72))
            self.fps_lbl.set(f"{fps:3.0f} fps", x + 8, H - y - h / 2)
        else:
            self.fps_lbl.hide()
        if notice:
            self.notice_lbl.set(notice, W - 12, 12)
        else:
            self.notice_lbl.hide()
        if menu is not None:
            self._menu(top, W, H, *menu)
        else:
            for lbl in self.menu_lbl:
                lbl.hide()
        return r, top

    def _bars(self, r: Rects, W, H, match) -> None:
        cx = W / 2
        bw, bh, gap, top = min(0.36 * W, 520), 24, 62, H - 34
        y = top - bh
        for i, f in enumerate(match.fighters):
            frac = max(f.health, 0) / f.max_health
            trail = (self.trail[i] if self.trail[i] is not None else f.health) / f.max_health
            x0 = cx - gap - bw if i == 0 else cx + gap
            r.add(x0 - 4, y - 4, bw + 8, bh + 8, (0, 0, 0, 0.55))
            r.add(x0, y, bw, bh, (0.16, 0.03, 0.04, 0.95), (0.28, 0.05, 0.06, 0.95))
            # P1 drains toward its outer (left) edge, P2 toward its outer (right) edge
            tx, tw = _bar_span(x0, bw, trail, right=i == 1)
            r.add(tx, y, tw, bh, (0.85, 0.12, 0.08), (1.0, 0.45, 0.30))
            fx, fw = _bar_span(x0, bw, frac, right=i == 1)
            low = frac < 0.3
            bottom, topc = ((0.95, 0.30, 0.08), (1.0, 0.55, 0.2)) if low else ((0.95, 0.62, 0.08), (1.0, 0.92, 0.40))
            r.add(fx, y, fw, bh, bottom, topc)
            r.add(fx, y + bh * 0.55, fw, bh * 0.3, (1, 1, 1, 0.0), (1, 1, 1, 0.28))
            c = self.colors[i]
            r.add(x0, y - 7, bw, 4, c + (0.9,))
            # round-win markers next to the timer
            for k in range(2):
                mx = (cx - gap - 18 - k * 20) if i == 0 else (cx + gap + 6 + k * 20)
                my = y - 28
                r.add(mx - 2, my - 2, 16, 16, (0, 0, 0, 0.6))
                r.add(mx, my, 12, 12, GOLD if f.wins > k else (0.25, 0.25, 0.28),
                      tuple(min(1, v * 1.3) for v in GOLD) if f.wins > k else (0.35, 0.35, 0.38))
            if i == 0:
                self.name_lbl[0].set(self.names[0].upper(), x0, y - 30)
            else:
                self.name_lbl[1].set(self.names[1].upper(), x0 + bw, y - 30)
        # timer
        r.add(cx - 44, top - 52, 88, 60, (0.05, 0.05, 0.08, 0.75), (0.15, 0.15, 0.2, 0.75))
        secs = int(math.ceil(max(match.timer, 0) / 60))
        self.timer_lbl.set(f"{secs:02d}", cx, top - 22, (255, 90, 70, 255) if secs <= 10 else (255, 255, 255, 255))

    def _banners(self, W, H, match, attract: bool = False, training: bool = False) -> None:
        """Round banners.  Training has no round start to announce: it skips the intro, and R
        puts the match back to the first FIGHT frame, which would cover the fighters with
        FIGHT! for 40 frames after every reset."""
        text, sub, color = "", "", (255, 255, 255, 255)
        ph, pf = match.phase, match.phase_frame
        gold = _rgba255(GOLD)
        if ph == "intro":
            if pf < 55:
                text = f"ROUND {match.round}" if match.round < 5 else "FINAL ROUND"
                color = (255, 255, 255, 255)
            else:
                text, color = "READY", (220, 230, 255, 255)
        elif ph == "fight" and pf < 40 and not training:
            text, color = "FIGHT!", gold
        elif ph in ("ko", "over"):
            dead = [f for f in match.fighters if f.health <= 0]
            if ph == "ko" and pf < 70:
                if len(dead) == 2:
                    text = "DOUBLE K.O."
                elif dead:
                    text = "K.O."
                else:
                    text = "TIME"
                color = (255, 70, 50, 255)
            else:
                a, b = match.fighters
                if ph == "over":
                    w = match.winner
                    sub = "" if attract else "Enter: rematch   ·   Esc: menu"
                else:
                    w = None if (a.health <= 0) == (b.health <= 0) and a.health == b.health else \
                        (0 if a.health > b.health else 1)
                text = "DRAW" if w is None else f"{self.winner_name(w)} WINS"
                color = gold
        if text:
            self.banner.set(text, W / 2, H * 0.58, color)
        else:
            self.banner.hide()
        if sub:
            self.sub_banner.set(sub, W / 2, H * 0.58 - 70, (255, 255, 255, 255))
        else:
            self.sub_banner.hide()

    def winner_name(self, side: int) -> str:
        """How the banner names the winner of a round or match: its fighter's name
        (``fighters.json``), with its side added when both fighters share a name."""
        name = self.names[side].upper()
        return f"{name} (P{side + 1})" if self.names.count(self.names[side]) > 1 else name

    def _training_texts(self) -> tuple:
        """Every label the training read-outs use (hidden off training and on the title)."""
        return (self.adv_lbl, self.adv2_lbl, self.adv_head_lbl, self.hit_lbl, self.dmg_lbl, self.status_lbl,
                self.keys_lbl, *self.meter_lbl, *self.legend_lbl, *self.seg_lbl[0], *self.seg_lbl[1])

    def _training(self, r: Rects, W, H, tr) -> None:
        """The frame meter (a row per fighter, each segment's length written on it, each
        row's frame advantage at its end), what the exchange was, the damage read-out, the
        dummy's settings and the training keys, the legend and both input histories."""
        cell, gap_, ch = 10, 2, 16
        pitch = cell + gap_
        total = METER_LEN * pitch
        x0 = W / 2 - total / 2
        meter = tr.meter
        adv = meter.advantage
        for i in range(2):
            y = 78 - i * (ch + 10)                    # rows 26 apart: room for each row's advantage
            r.add(x0 - 6, y - 4, total + 12, ch + 8, (0, 0, 0, 0.55))
            row = meter.rows[i]
            for k, ph in enumerate(row):
                c = PHASE_COLORS.get(ph, PHASE_COLORS["neutral"])
                r.add(x0 + k * pitch, y, cell, ch, _METER_BOTTOM.get(ph, _METER_BOTTOM["neutral"]), c)
            self.meter_lbl[i].set(f"P{i + 1}", x0 - 10, y + ch / 2)
            # segment lengths: the whole segment's, also when its start has scrolled off
            first = meter.frames - len(row)            # the cell index of the row's first cell
            labels = self.seg_lbl[i]
            used = 0
            for ph, n, at in meter.runs[i]:
                if ph == "neutral" or used == len(labels):
                    continue
                lo, hi = max(at, first), at + n
                text = str(n)
                if hi - lo < len(text):                # no room on what is left of it
                    continue
                mid = x0 + ((lo + hi) / 2 - first) * pitch - gap_ / 2
                labels[used].set(text, mid, y + ch / 2, _SEGMENT_TEXT.get(ph))
                used += 1
            for lbl in labels[used:]:
                lbl.hide()
            # the row's own advantage (P2's is P1's negated), once the exchange is over
            lbl = (self.adv_lbl, self.adv2_lbl)[i]
            if adv is not None:
                a = adv if i == 0 else -adv
                col = (120, 255, 140, 255) if a > 0 else ((255, 110, 90, 255) if a < 0 else (230, 230, 230, 255))
                lbl.set(f"{a:+d}", x0 + total + 14, y + ch / 2, col)
            else:
                lbl.hide()
        top = 78 + ch + 8
        if adv is not None:
            self.adv_head_lbl.set("advantage", x0 + total + 14, top + 6, (220, 220, 220, 255))
        else:
            self.adv_head_lbl.hide()
        self.hit_lbl.set(meter.last_hit, x0, top + 2)
        self.dmg_lbl.set(tr.damage.describe(), x0 + total, top + 20, (255, 225, 150, 255))
        self.status_lbl.set("TRAINING   " + tr.status(), W / 2, H - 108 - 22)
        self.keys_lbl.set(KEYS_TEXT, W / 2, 5, (225, 225, 225, 255))
        # legend
        lx = x0
        for name, lbl in zip(LEGEND, self.legend_lbl):
            r.add(lx, 20, 10, 10, PHASE_COLORS[name])
            lbl.set(name, lx + 15, 20)
            lx += max(96, 15 + lbl.label.content_width + 24)     # a long name ("knockdown") pushes the rest on
        # input history, newest on top.  Each row keeps its label while it scrolls down (only
        # its position and fade change, which pyglet applies without a new text layout): a
        # new input lays out one label, not all 14 (a text layout is slow, in the frame of the input)
        for p in range(2):
            rows = list(tr.history[p].rows)
            x = 16 if p == 0 else W - 16
            slot_of = self._hist_slot[p]
            live = {id(row) for row in rows}
            for key in [key for key in slot_of if key not in live]:
                del slot_of[key]
            free = sorted(set(range(HISTORY_LEN)) - set(slot_of.values()))
            for k, row in enumerate(rows):
                slot = slot_of.get(id(row))
                if slot is None:
                    slot = slot_of[id(row)] = free.pop(0)
                bits, held = row
                t = InputHistory.describe(bits)
                self.hist_lbl[p][slot].set(f"{min(held, 99):>2}  {t}" if p == 0 else f"{t}  {min(held, 99):>2}",
                                           x, H * 0.62 - k * 18, (255, 255, 255, 255 - k * 12))
            for slot in free:
                self.hist_lbl[p][slot].hide()
            hx = 8 if p == 0 else W - 168
            r.add(hx, H * 0.62 - HISTORY_LEN * 18 + 6, 160, HISTORY_LEN * 18 + 12, (0, 0, 0, 0.35))

    def _overlay_texts(self, W, H, texts, view_proj) -> int:
        """The overlay's ``text()`` labels at their anchors' projections; an anchor behind the
        eye (whose projection would land mirrored on screen) or off screen gets none.  A label
        that would cover one already placed (rays cast from nearly one point of the screen:
        a fireball's path and the camera's casts, both fighters' ground probes) goes below it instead
        (:func:`clear_of`); ``text_rects`` keeps where each went."""
        pts = np.array([t[0] for t in texts[: len(self.texts)]])
        px = project(pts, view_proj, W, H)
        w = pts @ view_proj[3, :3] + view_proj[3, 3]          # clip w: > 0 in front of the eye
        k = 0
        self.text_rects = []
        for (_p, s, c), (x, y), wk in zip(texts, px, w):
            if not (wk > 0.05 and 0.0 <= x < W and 0.0 <= y < H):
                continue
            lbl = self.texts[k]
            x0, y0 = round(x + 4), round(H - y + 4)
            lbl.set(s, x0, y0, _rgba255(c))
            tw, th = lbl.label.content_width, lbl.label.content_height
            y1 = clear_of(self.text_rects, x0, y0, tw, th)
            if y1 != y0:
                lbl.set(s, x0, y1, _rgba255(c))
            self.text_rects.append((x0, y1, x0 + tw, y1 + th))
            k += 1
        return k

    def _overlay_legend(self, r: Rects, W, H, rows, frame) -> None:
        """The debug overlay's key (F1): a swatch of each colour and what it marks, in two
        columns (method A; methods B and C) under P1's name, clear of the training read-outs.
        A row whose sub-toggle (F2-F4) hides its kind is dimmed and marked off.  ``frame``:
        the match frame, named while the match is held or frame-stepped (training's P and .),
        else None (a number changing every frame would cost a text layout each)."""
        half = (len(rows) + 1) // 2
        x0, top, col_w, row_h = 14, H - 136, 192, 14
        r.add(x0 - 8, top - half * row_h - 5, 2 * col_w + 4, half * row_h + 19, (0, 0, 0, 0.5))
        head = "F1 debug overlay" + (f"   frame {frame}" if frame is not None else "")
        self.ov_head_lbl.set(head, x0, top, (255, 255, 255, 255))
        for k, ((label, color, shown), lbl) in enumerate(zip(rows, self.ov_legend_lbl)):
            x = x0 + (k // half) * col_w
            y = top - (k % half + 1) * row_h
            r.add(x, y, 10, 10, color[:3] if shown else tuple(0.1 + 0.25 * v for v in color[:3]))
            if shown:
                lbl.set(label, x + 15, y, (235, 235, 235, 255))
            else:
                lbl.set(label + " (off)", x + 15, y, (140, 140, 140, 255))

    def _menu(self, r: Rects, W, H, items, selected, heading) -> None:
        r.add(0, 0, W, H, (0, 0, 0, 0.55))
        pw, ph = 360, 70 + 52 * len(items)
        px, py = W / 2 - pw / 2, H / 2 - ph / 2
        r.add(px, py, pw, ph, (0.06, 0.07, 0.10, 0.92), (0.12, 0.13, 0.18, 0.92))
        r.add(px, py + ph - 4, pw, 4, GOLD)
        labels = [heading] + list(items)
        for k, lbl in enumerate(self.menu_lbl):
            if k < len(labels):
                y = py + ph - 38 - k * 52
                if k == 0:
                    lbl.set(labels[k], W / 2, y, _rgba255(GOLD))
                else:
                    if k - 1 == selected:
                        r.add(px + 24, y - 20, pw - 48, 40, (0.9, 0.55, 0.1, 0.85), (1.0, 0.75, 0.25, 0.85))
                    lbl.set(labels[k], W / 2, y, (255, 255, 255, 255))
            else:
                lbl.hide()

    def _title(self, r: Rects, W, H, info, blink) -> None:
        r.add(0, 0, W, H, (0, 0, 0, 0.25), (0, 0, 0, 0.0))
        r.add(0, H * 0.60, W, 150, (0.05, 0.05, 0.08, 0.0), (0.05, 0.05, 0.08, 0.55))
        self.title_lbl.set("RANGEBOX", W / 2, H * 0.78, _rgba255(GOLD))
        self.title_sub.set(info.get("versus", ""), W / 2, H * 0.68)
        r.add(40, 24, W - 80, 24 * len(info.get("controls", ())) + 26, (0.03, 0.03, 0.05, 0.75))
        lines = list(info.get("controls", ()))
        for k, lbl in enumerate(self.lines):
            if k < len(lines):
                lbl.set(lines[k], W / 2, 24 + 16 + (len(lines) - 1 - k) * 24)
            else:
                lbl.hide()
        if (blink // 30) % 2 == 0:
            self.hint_lbl.set(info.get("hint", "PRESS ENTER TO FIGHT  ·  T: training"), W / 2, H * 0.42)
        else:
            self.hint_lbl.hide()

    def draw(self) -> None:
        self.batch.draw()

    def draw_menu(self) -> None:
        self.menu_batch.draw()
