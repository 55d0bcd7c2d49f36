"""The window's menus: the pause menu, and the two panels it and the title open (the move
list, ``movelist.py``, and the options screen, ``options.py``).

:class:`game.render.game.Game` keeps the state (``menu_sel``: the pause menu's selection or
None; ``panel``: the move list or options screen shown, or None) and hands its keys and pad
buttons here.  A panel takes every key while it is shown; closing it goes back to where it
was opened (the pause menu, or the title).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from game import settings as saved

from .movelist import MoveList
from .options import OptionsScreen

if TYPE_CHECKING:
    from .game import Game

MENU_ITEMS = ("Resume", "Restart", "Training", "Move list", "Options", "Quit")


def menu_key(game: Game, symbol: int) -> None:
    """A key in the pause menu: move, close, or take the selected item."""
    k, sel = game.key, game.menu_sel
    assert sel is not None, "menu keys are read only while the menu is open"
    if symbol in (k.UP, k.W):
        game.menu_sel = (sel - 1) % len(MENU_ITEMS)
    elif symbol in (k.DOWN, k.S):
        game.menu_sel = (sel + 1) % len(MENU_ITEMS)
    elif symbol == k.ESCAPE:
        game.menu_sel = None
    elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE, k.U):
        choice = MENU_ITEMS[sel]
        if choice == "Move list":
            game.panel = MoveList(game.match.data, k)
            return
        if choice == "Options":
            open_options(game)
            return
        game.menu_sel = None
        if choice == "Restart":
            game.new_match()
        elif choice == "Training":
            game.set_training(game.training is None)
        elif choice == "Quit":
            game.quit = True


def menu_items(game: Game) -> list[str]:
    """The pause menu's lines as shown (Training says whether it is on)."""
    items = list(MENU_ITEMS)
    items[2] = "Training: " + ("on" if game.training else "off")
    return items


def open_options(game: Game) -> None:
    """Show the options screen over the title or the pause menu."""
    game.panel = OptionsScreen(game.settings.copy(), game.key, lambda s: apply_settings(game, s),
                               lambda s: save_settings(game, s))


def apply_settings(game: Game, settings: saved.Settings) -> None:
    """An option changed: the keys, volume and fullscreen at once; the CPU level, rounds and
    timer for the next match (the title's match too, which has not started)."""
    game.settings = settings.copy()
    game.keyboard.bind(settings.bindings)
    if game.audio is not None:
        game.audio.master = settings.volume / 100
    if bool(game.window.fullscreen) != settings.fullscreen:
        try:
            game.window.set_fullscreen(settings.fullscreen)
        except Exception:  # headless windows cannot go fullscreen
            pass
    game.level, game.rounds, game.timer = settings.level, settings.rounds, settings.timer
    if game.screen == "title" and game.replay is None:
        game.new_match()


def save_settings(game: Game, settings: saved.Settings) -> str | None:
    """Leaving the options screen after a change: write the settings file; a failure is one
    line on stderr and on the screen (returned), and the options stay in use for this run."""
    try:
        path = saved.save(settings, game.settings_path)
    except OSError as exc:
        line = f"could not save the settings: {exc}"
        print(f"rangebox: {line}", file=sys.stderr)
        return line
    game.settings_path = path
    return None


def panel_key(game: Game, symbol: int) -> None:
    """A key while a panel is shown; the panel closes when it says so."""
    assert game.panel is not None, "panel keys are read only while a panel is shown"
    if not game.panel.on_key(symbol):
        failed = game.panel.message if isinstance(game.panel, OptionsScreen) and \
            game.panel.message.startswith("could not save") else None
        game.panel = None
        if failed:
            game.show_notice(failed)


def pad_menu(game: Game) -> None:
    """Pads drive the screens as the keys do, on a button's press (any pad): Start starts
    from the title, pauses a fight and confirms in the menu or after a match; A confirms
    where there is something to confirm; B closes the menu or panel; the d-pad moves in them."""
    held = game.pads.menu_buttons() if game.pads.pads else set()
    pressed, game._pad_held = held - game._pad_held, held
    if not pressed:
        return
    k = game.key
    panel = game.panel is not None
    menu, title, over = game.menu_sel is not None, game.screen == "title", game.match.over
    if "start" in pressed:
        game.on_key_press(k.ESCAPE if not (menu or title or over) or panel else k.ENTER, 0)
    elif "a" in pressed and (menu or title or over or panel):
        game.on_key_press(k.ENTER, 0)
    elif "b" in pressed and (menu or panel):
        game.on_key_press(k.ESCAPE, 0)
    elif (menu or panel) and pressed & {"up", "down"}:
        game.on_key_press(k.UP if "up" in pressed else k.DOWN, 0)
    elif panel and pressed & {"left", "right"}:
        game.on_key_press(k.LEFT if "left" in pressed else k.RIGHT, 0)
