"""Import pyglet's GL parts safely and open the game window.

Headless switches must be set before anything imports ``pyglet.window`` /
``pyglet.gl`` (see ``docs/headless-gl.md``); every known failure
(no GL, no EGL, no fonts, no display, broken X) becomes one
:class:`RenderUnavailable` whose message names the fix.
"""

from __future__ import annotations

import gc
import importlib
import os

import numpy as np

from game.tools import FIX_PACKAGE

WIDTH, HEIGHT = 1280, 720

FIX_DISPLAY = "no display: use --screenshot PNG, or set PYGLET_HEADLESS=1 and add --frames N (a window no one sees)"
FIX_GL = ("OpenGL/EGL libraries not found ({lib}): install them with "
          "'apt-get install libgl1 libegl1 libgl1-mesa-dri libfontconfig1' (or run bash scripts/setup.sh)")
FIX_CONTEXT = "could not create an OpenGL 3.3 context ({text}); install Mesa (bash scripts/setup.sh)"
#: how main.py runs with no renderer at all; appended to the fixes where it applies
HEADLESS_ALTERNATIVE = "or use --headless"


class RenderUnavailable(Exception):
    """No usable display or GL; the message is one line that names the fix.

    ``fix`` is the fix for this failure alone.  ``str()`` adds main.py's alternative,
    ``--headless`` (no renderer); callers where that does not apply (``--screenshot``,
    which ``--headless`` excludes, and tools with no such flag) print ``fix``."""

    def __init__(self, fix: str):
        super().__init__(fix)
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.fix}, {HEADLESS_ALTERNATIVE}"


def _explain(exc: BaseException) -> str | None:
    text = str(exc)
    name = type(exc).__name__
    if isinstance(exc, ImportError) and "not found" in text:
        lib = text.split('"')[1] if '"' in text else text
        return FIX_GL.format(lib=lib)
    if name == "NoSuchDisplayException" or "display" in text.lower() and "no" in text.lower():
        return FIX_DISPLAY
    if isinstance(exc, AttributeError) and "XRender" in text:
        return ("X libraries are missing (libXrender): apt-get install libxrender1, "
                "or set PYGLET_HEADLESS=1 and add --frames N")
    if name in ("GLException", "WindowException", "NoSuchConfigException", "ContextException"):
        return FIX_CONTEXT.format(text=text)
    return None


def load_pyglet(headless: bool | None = None):
    """Import pyglet with the right switches; return the module.

    ``headless`` True forces EGL (no screen); None keeps ``PYGLET_HEADLESS``
    from the environment.  Raises :class:`RenderUnavailable`.
    """
    if headless:
        os.environ["PYGLET_HEADLESS"] = "1"
    try:
        import pyglet
    except ImportError as exc:
        raise RenderUnavailable(FIX_PACKAGE.format(name=exc.name or "pyglet")) from exc

    if headless:
        pyglet.options["headless"] = True
    pyglet.options["shadow_window"] = False
    pyglet.options["debug_gl"] = False
    if not pyglet.options["headless"] and os.environ.get("PYGLET_HEADLESS", "") not in ("", "0"):
        pyglet.options["headless"] = True
    if not pyglet.options["headless"] and not os.environ.get("DISPLAY") and os.name == "posix" \
            and not os.environ.get("WAYLAND_DISPLAY") and not _is_mac():
        raise RenderUnavailable(FIX_DISPLAY)
    try:
        # the submodules the renderer uses, loaded here so that a missing library or display
        # fails at start-up, in this order (GL first: its failure is the one to explain)
        for name in ("pyglet.gl", "pyglet.window", "pyglet.graphics", "pyglet.text"):
            importlib.import_module(name)
    except Exception as exc:  # every known failure gets one clear line (_explain), others propagate
        msg = _explain(exc)
        if msg is None:
            raise
        raise RenderUnavailable(msg) from exc
    _fast_glyph_expansion()
    return pyglet


def expand_to_rgba(data, src_format: str, dst_format: str) -> bytes:
    """pyglet's FreeType glyph expansion (``FreeTypeGlyphRenderer._expand_to_rgba``) in numpy.

    Each source pixel's first byte goes to the destination's ``A`` channel unless ``A`` is
    a source channel; every other destination channel is 255.  pyglet does this in a
    per-pixel Python loop, slow for a large glyph, and every new glyph of a HUD label
    would pay it mid-frame.  ``tests/render/test_hud.py`` holds the two equal.
    """
    src_len, dst_len = len(src_format), len(dst_format)
    if src_len >= dst_len:
        return data
    src = np.frombuffer(data, dtype=np.uint8)
    n = len(src) // src_len
    out = np.full((n, dst_len), 255, dtype=np.uint8)
    if src_len and "A" in dst_format and "A" not in src_format:
        out[:, dst_format.index("A")] = src[: n * src_len: src_len]
    return out.tobytes()


def _fast_glyph_expansion() -> None:
    """Install :func:`expand_to_rgba` in pyglet's FreeType renderer (Linux; elsewhere pyglet
    renders glyphs through the system and has no such loop)."""
    try:
        from pyglet.font import freetype
    except Exception:  # not the FreeType backend here (another platform's font module)
        return
    global PYGLET_EXPAND
    cls = getattr(freetype, "FreeTypeGlyphRenderer", None)
    if cls is None or not hasattr(cls, "_expand_to_rgba") or PYGLET_EXPAND is not None:
        return
    PYGLET_EXPAND = cls._expand_to_rgba
    cls._expand_to_rgba = lambda self, data, src_format, dst_format: expand_to_rgba(data, src_format, dst_format)


#: pyglet's own expansion, kept as the reference the tests compare :func:`expand_to_rgba` with
PYGLET_EXPAND = None


def settle_heap() -> int:
    """Collect once, then move every object alive into the permanent generation
    (``gc.freeze``); returns how many objects it froze.

    Called once the game is built.  Python's full (generation 2) collection walks every
    tracked object, tens of thousands after start-up (pyglet, numpy, the arena, fonts):
    long enough to stall a frame, at an arbitrary moment of the fight.  Frozen objects are
    never walked, so a full collection then walks only what play made; cycles made later
    are still collected (and start-up's own cycles are collected just before).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _is_mac() -> bool:
    import sys
    return sys.platform == "darwin"


def make_window(pyglet, *, width: int = WIDTH, height: int = HEIGHT, visible: bool = True,
                fullscreen: bool = False, caption: str = "Rangebox"):
    """A resizable 8-bit RGBA + 24-bit depth + 8-bit stencil, GL 3.3 core window (RenderUnavailable on failure)."""
    from pyglet import gl

    # gl.Config is the platform's concrete class at run time; pyglet types it as the abstract base
    cfg = gl.Config(red_size=8, green_size=8, blue_size=8, alpha_size=8,  # type: ignore[abstract]
                    depth_size=24, stencil_size=8, double_buffer=True, major_version=3, minor_version=3,
                    forward_compatible=True)
    try:
        try:
            win = pyglet.window.Window(width, height, caption=caption, resizable=True, config=cfg,
                                       visible=visible, fullscreen=fullscreen, vsync=visible)
        except pyglet.window.NoSuchConfigException:    # that config refused: pyglet's default one
            win = pyglet.window.Window(width, height, caption=caption, resizable=True,
                                       visible=visible, fullscreen=fullscreen)
    except Exception as exc:  # every known failure gets one clear line (_explain), others propagate
        msg = _explain(exc)
        if msg is None:
            raise
        raise RenderUnavailable(msg) from exc
    return win


#: the loading frame's background and its title's colour (the title screen's gold)
LOADING_BACKGROUND = (0.06, 0.06, 0.09)
LOADING_GOLD = (255, 204, 64, 255)


def draw_loading(pyglet, window, line: str = "loading…") -> None:
    """Draw the loading frame into the window's back buffer: the game's title where the
    title screen will show it, over a dark background, and ``line`` under it.  Needs nothing
    of the game but pyglet and a font."""
    from pyglet import gl

    w, h = window.get_size()
    gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
    fw, fh = window.get_framebuffer_size()
    gl.glViewport(0, 0, fw, fh)
    gl.glClearColor(*LOADING_BACKGROUND, 1.0)
    gl.glClear(gl.GL_COLOR_BUFFER_BIT | gl.GL_DEPTH_BUFFER_BIT)
    gl.glEnable(gl.GL_BLEND)
    gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
    batch = pyglet.graphics.Batch()
    scale = min(h / HEIGHT, w / WIDTH)
    font = ["DejaVu Sans", "Arial", "Helvetica"]
    labels = [pyglet.text.Label("RANGEBOX", font_name=font, font_size=64 * scale, weight="bold",
                                color=LOADING_GOLD, x=w / 2, y=h * 0.78, anchor_x="center", anchor_y="center",
                                batch=batch),
              pyglet.text.Label(line, font_name=font, font_size=18 * scale, color=(220, 220, 230, 255),
                                x=w / 2, y=h * 0.68, anchor_x="center", anchor_y="center", batch=batch)]
    batch.draw()
    del labels


def show_loading(pyglet, window) -> None:
    """Put the loading frame on the screen at once, before the game is built.

    A new window shows nothing (black, under a virtual X screen) until its first frame, and
    the first frame waits for the game's modules, its arena and renderers, the glyph atlas
    and the warm-up draws (``Game.prepare_for_play``): seconds on a software rasteriser.
    The game window draws this frame as soon as it is open; the warm-up draws into the back
    buffer only, so the loading frame stays up until the title's first frame replaces it."""
    window.dispatch_events()          # the window's map and first expose, so the frame lands
    draw_loading(pyglet, window)
    window.flip()


def check_fonts(pyglet) -> None:
    """Create one label so a missing freetype/fontconfig fails here with one clear line."""
    try:
        pyglet.text.Label("Rangebox", font_size=10)
    except ImportError as exc:
        raise RenderUnavailable(f"text rendering needs fontconfig/freetype ({exc}): "
                                "apt-get install libfontconfig1 fonts-dejavu-core") from exc
