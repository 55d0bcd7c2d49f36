"""Netplay's HUD: the network display (F10, ``--net-stats``) and the match's messages.

The network display is a dark panel at the left under P1's health bar, in the style of the
training read-outs (``hud.py``): ping, input delay, rollback frames (the last tick's and the
worst of the last second), frames ahead or behind the opponent, the opponent's packets lost
and the bytes a second this side sends, each from the session's
:class:`~game.net.stats.NetStats`.  A value turns amber, then red, where play starts to
suffer (:data:`LIMITS`).  :func:`stat_lines` makes the rows (pure, tested without GL);
:class:`NetPanel` lays them out and draws them, and the message box in the middle of the
screen: "waiting for opponent", "connection interrupted", the end of the match.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from .hud import GOLD, _rgba255, _Text
from .passes import Rects

if TYPE_CHECKING:
    from game.net.stats import NetStats

#: name -> (amber from, red from) for the figures that tell how play feels
LIMITS = {"ping": (100.0, 200.0), "rollback": (4, 7), "ahead": (1.5, 3.0), "lost": (1, 20),
          "sent": (3000.0, 4000.0)}
GOOD, FAIR, BAD = (150, 255, 140, 255), (255, 205, 90, 255), (255, 105, 85, 255)
#: the panel: left edge, top below the health bars, width, row pitch (canvas units)
PANEL_X, PANEL_TOP, PANEL_W, ROW, VALUE_X = 10, 96, 350, 19, 142


class StatLine(NamedTuple):
    """One row of the network display."""

    label: str
    value: str
    level: int          # 0 fine, 1 fair, 2 bad


def _level(name: str, value: float) -> int:
    amber, red = LIMITS[name]
    return 2 if value >= red else 1 if value >= amber else 0


def stat_lines(stats: NetStats) -> list[StatLine]:
    """The network display's rows for ``stats``."""
    ahead = stats.frames_ahead
    side = "ahead" if ahead > 0.05 else "behind" if ahead < -0.05 else "even"
    kb = stats.bytes_per_second / 1000.0
    return [
        StatLine("ping", f"{stats.ping_ms:.0f} ms" if stats.ping_ms > 0 else "--", _level("ping", stats.ping_ms)),
        StatLine("input delay", f"{stats.input_delay} frames", 0),
        StatLine("rollback", f"{stats.rollback_last}  (worst {stats.rollback_worst} in 1 s)",
                 _level("rollback", stats.rollback_worst)),
        StatLine("frames", f"{abs(ahead):.1f} {side}" if side != "even" else "even", _level("ahead", abs(ahead))),
        StatLine("packets lost", f"{stats.packets_lost} of {stats.packets_lost + stats.packets_received}",
                 _level("lost", stats.packets_lost)),
        StatLine("sent", f"{kb:.2f} kB/s", _level("sent", stats.bytes_per_second)),
    ]


class Message(NamedTuple):
    """A box in the middle of the screen."""

    heading: str
    lines: tuple[str, ...] = ()
    color: tuple[int, int, int, int] = _rgba255(GOLD)


class NetPanel:
    """The network display and the message box: labels of their own batch over the HUD."""

    def __init__(self, pyglet) -> None:
        self.batch = pyglet.graphics.Batch()
        g = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
        T = functools.partial(_Text, pyglet, self.batch, g)
        mono = ("DejaVu Sans Mono", "Courier New", "monospace")
        self.head = T(11, bold=True, shadow=True)
        self.labels = [T(12, shadow=True, font=mono) for _ in range(6)]
        self.values = [T(12, bold=True, shadow=True, font=mono) for _ in range(6)]
        self.msg_head = T(30, bold=True, anchor_x="center", anchor_y="center", shadow=True)
        self.msg_lines = [T(14, anchor_x="center", anchor_y="center", shadow=True) for _ in range(3)]

    def texts(self) -> list[_Text]:
        return [self.head, *self.labels, *self.values, self.msg_head, *self.msg_lines]

    def build(self, W: float, H: float, stats: NetStats | None, message: Message | None) -> Rects:
        """Lay out the display (``stats`` None: hidden) and the message (None: none); the
        rectangles under them."""
        r = Rects()
        if stats is not None:
            rows = stat_lines(stats)
            top = H - PANEL_TOP
            height = 30 + ROW * len(rows)
            r.add(PANEL_X, top - height, PANEL_W, height, (0.0, 0.0, 0.0, 0.62))
            r.add(PANEL_X, top - 3, PANEL_W, 3, GOLD)
            self.head.set("NETWORK   F10", PANEL_X + 10, top - 20, _rgba255(GOLD))
            for k, (row, lbl, val) in enumerate(zip(rows, self.labels, self.values)):
                y = top - 40 - k * ROW
                lbl.set(row.label, PANEL_X + 10, y, (225, 225, 225, 255))
                val.set(row.value, PANEL_X + VALUE_X, y, (GOOD, FAIR, BAD)[row.level])
        else:
            for lbl in (self.head, *self.labels, *self.values):
                lbl.hide()
        if message is not None:
            lines = message.lines[:len(self.msg_lines)]
            w = max(560.0, 10.0 * max((len(t) for t in lines), default=0) + 60)
            h = 84 + 26 * len(lines)
            y0 = H * 0.40 - h / 2
            r.add(W / 2 - w / 2, y0, w, h, (0.05, 0.06, 0.09, 0.88), (0.10, 0.11, 0.16, 0.88))
            r.add(W / 2 - w / 2, y0 + h - 4, w, 4, tuple(c / 255 for c in message.color[:3]))
            self.msg_head.set(message.heading, W / 2, y0 + h - 40, message.color)
            for k, lbl in enumerate(self.msg_lines):
                if k < len(lines):
                    lbl.set(lines[k], W / 2, y0 + h - 82 - 26 * k, (235, 235, 235, 255))
                else:
                    lbl.hide()
        else:
            for lbl in (self.msg_head, *self.msg_lines):
                lbl.hide()
        return r

    def draw(self) -> None:
        self.batch.draw()
