"""A child process for the window tests: ``main.py``'s whole window path (``game.cli.app.main``:
flags, session, signals, ``run_window``'s fixed-step loop, ``Game`` with its title and menu
state machine and step listeners) on headless GL, with keys pressed by a script.

    python scripted_window.py OUT.json SCRIPT [main.py's flags ...]

The window opens on the title screen (as ``python3 main.py`` does; ``--frames`` is given only
as a cap, which headless GL requires).  A clock callback between draws presses keys as a
player would (``on_key_press`` / ``on_key_release`` to the window), from the game's state:
SCRIPTS below.  The loop's clock runs five simulation steps per draw (the catch-up cap), so
a match takes seconds, not minutes.  Every frame each match played is seen by a step
listener of its own; at the end OUT.json holds, per match in the order played, its frames'
input bits and state hashes, and the exit status ``main`` returned.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class FastClock:
    """``time`` for the window loop: each ``perf_counter()`` (one per draw) is ``per_call`` s later."""

    def __init__(self, per_call: float) -> None:
        self.now = 0.0
        self.per_call = per_call

    def perf_counter(self) -> float:
        self.now += self.per_call
        return self.now


class Player:
    """Presses keys on ``window`` for a script: one key event per call at most, so the game
    sees each press on its own tick, as with a person's fingers."""

    def __init__(self, game, window) -> None:
        self.game, self.window, self.key = game, window, game.key
        self.queue: list[tuple[str, int]] = []
        self.state: dict = {}

    def tap(self, *names: str) -> None:
        for name in names:
            code = getattr(self.key, name)
            self.queue += [("on_key_press", code), ("on_key_release", code)]

    def tick(self) -> None:
        if self.queue:
            event, code = self.queue.pop(0)
            self.window.dispatch_event(event, code, 0)


def _fight_taps(p: Player) -> None:
    """P1 in a fight: a low kick (J) now and then; the hard CPU wins the match soon enough."""
    m = p.game.match
    if not m.over and m.frame % 37 == 5 and p.state.get("tapped") != (id(m), m.frame):
        p.state["tapped"] = (id(m), m.frame)
        p.tap("J")


def title_fight_rematch_quit(p: Player) -> None:
    """Title -> Enter: fight to the end -> Enter: rematch -> 240 frames -> Esc, menu Quit."""
    g, s = p.game, p.state
    if p.queue:
        return
    if g.screen == "title":
        p.tap("ENTER")
        return
    matches = s.setdefault("matches", [])
    if not matches or matches[-1] is not g.match:
        matches.append(g.match)
    if len(matches) == 1:
        if g.match.over and "notice" not in s:
            s["notice"] = g.notice[0] if g.notice else None     # what the corner says as the match ends
        if g.match.over and g.over_frames > 20:
            p.tap("ENTER")                          # rematch
        else:
            _fight_taps(p)
    elif g.match.frame >= 240 and g.menu_sel is None and not s.get("quit"):
        s["quit"] = True
        p.tap("ESCAPE", "UP", "ENTER")      # up from Resume wraps round to Quit, the last item
    elif not s.get("quit"):
        _fight_taps(p)


def restart_training_fight_quit(p: Player) -> None:
    """Title -> Enter: 200 frames -> menu Restart: 150 frames -> menu Training on: 100 steps
    -> menu Training off: 120 frames -> menu Quit."""
    g, s = p.game, p.state
    if p.queue:
        return
    phase = s.setdefault("phase", 0)
    menu = ("ESCAPE",)
    if g.screen == "title":
        p.tap("ENTER")
    elif phase == 0 and g.match.frame >= 200:
        p.tap(*menu, "DOWN", "ENTER")                           # Restart
        s["phase"] = 1
    elif phase == 1 and g.match.frame >= 150:
        p.tap(*menu, "DOWN", "DOWN", "ENTER")                   # Training: on
        s["phase"], s["training_ticks"] = 2, g.ticks
    elif phase == 2 and g.training is not None and g.ticks - s["training_ticks"] >= 100:
        s["notice"] = g.notice[0] if g.notice else None
        p.tap(*menu, "DOWN", "DOWN", "ENTER")                   # Training: off (a new match)
        s["phase"] = 3
    elif phase == 3 and g.training is None and g.match.frame >= 120:
        p.tap(*menu, "UP", "ENTER")                             # Quit (the last item)
        s["phase"] = 4
    elif not g.match.over and g.menu_sel is None:
        _fight_taps(p)


def fight_then_close(p: Player) -> None:
    """Title -> Enter: 300 frames -> the window's close button (pyglet's on_close)."""
    g = p.game
    if g.screen == "title":
        p.tap("ENTER")
    elif g.match.frame >= 300 and not p.state.get("closed"):
        p.state["closed"] = True
        p.window.dispatch_event("on_close")
    else:
        _fight_taps(p)


def fight_then_crash(p: Player) -> None:
    """Title -> Enter: 300 frames -> the renderer raises in the next draw."""
    g = p.game
    if g.screen == "title":
        p.tap("ENTER")
    elif g.match.frame >= 300 and not p.state.get("crashed"):
        p.state["crashed"] = True

        def broken(alpha: float = 1.0) -> None:
            raise RuntimeError("a renderer bug (scripted)")
        g.draw = broken
    else:
        _fight_taps(p)


SCRIPTS = {f.__name__: f for f in (title_fight_rematch_quit, restart_training_fight_quit, fight_then_close,
                                    fight_then_crash)}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ["PYGLET_HEADLESS"] = "1"
    from game.cli import app
    from game.cli import window as window_mod
    from game.cli.timestep import MAX_CATCH_UP, SIM_STEP

    out, script, flags = sys.argv[1], SCRIPTS[sys.argv[2]], sys.argv[3:]
    played: list[dict] = []
    players: list[Player] = []
    open_game = window_mod.open_game

    def open_on_the_title(args, *, headless):
        titled = type(args)(**{**vars(args), "frames": None})      # the title screen, as without --frames
        pyglet, window, game = open_game(titled, headless=headless)
        player = Player(game, window)
        players.append(player)

        def seen(match, events) -> None:
            if not played or played[-1]["id"] != id(match):
                played.append({"id": id(match), "training": game.training is not None, "inputs": [],
                               "hashes": [], "first_frame": match.frame})
            p1, p2 = match.last_inputs
            if not played[-1]["training"] and not played[-1].get("over"):
                played[-1]["inputs"].append([p1.bits, p2.bits])
                played[-1]["hashes"].append(match.state_hash()[:16])
                played[-1]["over"] = match.over
        game.step_listeners.append(seen)

        def drive(dt: float) -> None:
            script(player)
            player.tick()
        pyglet.clock.schedule_interval(drive, 1 / 240)
        return pyglet, window, game

    window_mod.open_game = open_on_the_title
    window_mod.time = FastClock(SIM_STEP * MAX_CATCH_UP + 1e-9)
    status = app.main(flags)
    state = players[0].state if players else {}
    Path(out).write_text(json.dumps({"status": status, "matches": played,
                                     "notice": state.get("notice")}))
    return status


if __name__ == "__main__":
    sys.exit(main())
