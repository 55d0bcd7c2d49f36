#!/usr/bin/env python3
"""Rangebox entry point: the only place where clock, window, simulation and renderer meet.

    python3 main.py                                   play (P1 keyboard vs CPU) in a window
    python3 main.py --p2 human                        two players on one keyboard
    python3 main.py --p1 cpu --p2 cpu                 attract mode
    python3 main.py --headless --frames N --seed S    no window, no GL: prints one JSON line
    python3 main.py --screenshot out.png --frames N [--debug]   render frame N with no screen (EGL)
    python3 main.py --training                        training mode (frame meter, frame step, dummy)
    python3 main.py --mute                            start with the sound effects muted (M toggles them)
    python3 main.py --record FILE [--force]           record the match to a replay file
    python3 main.py --replay FILE [--headless]        play a replay back, checking every frame

Bad flags or values, flags that cannot take effect together, and files that cannot be
read or written exit with status 2 and one line that names them, before the match is played.
A recording whose save fails at the end is saved in the temp folder instead (exit 2 says where).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import tempfile
import time

from game.allocator import keep_freed_memory         # standard library only
from game.tools import EXIT_USAGE, FIX_PACKAGE   # standard library only: works with numpy missing


#: How the README runs this file (Debian 12 has no ``python`` command); argparse's prog.
PROG = "python3 main.py"


class UsageError(Exception):
    """A user-facing problem (bad flag, file, display): one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + message)
        raise UsageError(f"{message} (see: {PROG} --help)")


#: The replay header stores the seed as a u64 (the sim's PCG64 takes any int >= 0).
SEED_LIMIT = 2**64


def _positive_int(name: str, below: int | None = None, below_text: str = ""):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{name} must be 0 or more, got {value}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"{name} must be from 0 to {below_text}, got {value}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Rangebox: a 3D fighting-game demo.")
    # The match settings default to None so that a conflict with --replay (which takes them
    # from the file) can be told from a default; apply_defaults fills them in.
    p.add_argument("--p1", choices=("human", "cpu"), default=None, help="who controls player 1 (default human)")
    p.add_argument("--p2", choices=("human", "cpu"), default=None, help="who controls player 2 (default cpu)")
    p.add_argument("--level", choices=("easy", "normal", "hard"), default=None, help="CPU difficulty (default normal)")
    p.add_argument("--seed", type=_positive_int("--seed", SEED_LIMIT, "2**64 - 1 (a replay stores it in 8 bytes)"),
                   default=None, help="match seed, 0 to 2**64 - 1 (default 0)")
    p.add_argument("--frames", type=_positive_int("--frames"), default=None,
                   help="headless: frames to run (default: until the match is over); in the window: "
                        "play N frames, straight into the fight (no title screen), then close; "
                        "with --replay: play (or with --headless check) only the replay's first N frames, "
                        "at most its length; with --screenshot: the frame to capture (default 1, with "
                        "--replay the replay's last frame; at most the longest match, 19200 frames; a match "
                        "that ends sooner is captured on its last frame)")
    p.add_argument("--headless", action="store_true",
                   help="run the simulation with no window and no GL (not with --screenshot, --training, "
                        "--debug, --fullscreen or --fps, which need the renderer)")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="record both players' inputs to a replay file (see docs/replay-format.md); "
                        "the recording ends with the match")
    p.add_argument("--replay", metavar="FILE", default=None,
                   help="play a replay file back, checking it frame by frame (with --headless: one JSON line, "
                        "plus replay_frames with --frames); a regular file of at most 156292 bytes")
    p.add_argument("--force", action="store_true", help="let --record overwrite an existing file")
    p.add_argument("--screenshot", metavar="PNG", default=None,
                   help="render frame --frames (default 1) with no screen (headless EGL) and save it as a PNG "
                        "(replaced atomically if it exists)")
    p.add_argument("--debug", action="store_true", help="start with the debug overlay on (F1 toggles it)")
    p.add_argument("--training", action="store_true", help="start in training mode (P2 is the training dummy)")
    p.add_argument("--fullscreen", action="store_true", help="start fullscreen (F11 toggles it)")
    p.add_argument("--fps", action="store_true", help="show the fps counter (F5 toggles it)")
    p.add_argument("--mute", action="store_true", help="start with the sound effects muted (M toggles them)")
    return p


MATCH_DEFAULTS = {"p1": "human", "p2": "cpu", "level": "normal", "seed": 0}


def apply_defaults(args) -> None:
    """Fill in the match settings the user did not give."""
    for name, value in MATCH_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)


#: Flags only the renderer can honour: (why --headless makes them impossible, the fix).
_RENDER_ONLY = {
    "screenshot": ("a screenshot needs the renderer", "drop --headless"),
    "training": ("training mode runs in the window", "drop --training, or --headless to open the window"),
    "debug": ("the debug overlay is drawn by the renderer", "drop --debug, or --headless to open the window"),
    "fullscreen": ("there is no window", "drop --fullscreen, or --headless to open the window"),
    "fps": ("the fps counter is drawn in the window", "drop --fps, or --headless to open the window"),
    "mute": ("only the window plays sound", "drop --mute, or --headless to open the window"),
}


def check_mode_flags(args) -> None:
    """Flag combinations that could not take effect, checked before anything runs (exit 2)."""
    for name, (why, fix) in _RENDER_ONLY.items():
        value = getattr(args, name)
        if args.headless and value is not None and value is not False:
            raise UsageError(f"--{name} cannot be used with --headless: {why}; {fix}")
    if args.screenshot is not None and args.fullscreen:
        raise UsageError("--fullscreen cannot be used with --screenshot: the screenshot is drawn off screen "
                         "at 1280x720; drop --fullscreen")
    if args.training and args.replay is not None:
        raise UsageError("--replay cannot be combined with --training; drop one")
    if args.training and args.record is not None:
        raise UsageError("--record cannot be combined with --training (the dummy's reset rewinds the "
                         "match); drop one")
    if args.level is not None and args.replay is None and "cpu" not in (args.p1, args.p2 or MATCH_DEFAULTS["p2"]):
        raise UsageError(f"--level {args.level} sets the CPU's difficulty, but neither side is a CPU; "
                         f"drop --level, or add --p2 cpu")
    if args.screenshot is not None and args.frames is not None:
        from game.replay import MAX_MATCH_FRAMES

        if args.frames > MAX_MATCH_FRAMES:
            raise UsageError(f"--frames {args.frames}: with --screenshot give at most {MAX_MATCH_FRAMES} (the "
                             f"longest match, five full rounds; a match that ends sooner is captured on its "
                             f"last frame)")


def check_replay_flags(args) -> None:
    """Flag combinations and paths for --record/--replay, checked before anything runs (exit 2)."""
    if args.replay is not None:
        given = [f"--{name}" for name in MATCH_DEFAULTS if getattr(args, name) is not None]
        if given:
            raise UsageError(f"--replay takes the seed and both sides from the file; drop {' and '.join(given)}")
        if args.replay == "":
            raise UsageError("--replay: empty path; give a replay file (.rpl)")

    if args.record is not None and args.replay is not None:
        raise UsageError("--record and --replay cannot be used together; pick one")
    if args.record is not None:
        check_output_path("--record", args.record, force=args.force)
    elif args.force:
        raise UsageError("--force only applies to --record FILE; add --record or drop --force")


def check_screenshot_path(args) -> None:
    """``--screenshot PNG``: a .png name that can be written (exit 2 before the match otherwise)."""
    path = args.screenshot
    if path is None:
        return
    if path == "":
        raise UsageError("--screenshot: empty path; give a .png file name")
    if not path.lower().endswith(".png"):
        raise UsageError(f"--screenshot {path}: give a .png file name")
    if args.record is not None and os.path.realpath(args.record) == os.path.realpath(path):
        raise UsageError(f"--screenshot {path} and --record {args.record} name the same file (one would "
                         f"overwrite the other); give them different names")
    check_output_path("--screenshot", path, force=True)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_output_path(flag: str, path: str, *, force: bool) -> None:
    """Up-front check that ``flag PATH`` can be saved: not empty, not a directory, FIFO,
    device or socket, an existing file only with ``force``, a folder that exists, and the
    temp file the save writes through can be created there (it is removed at once)."""
    from game.files import DIRECTORY, REGULAR, existing_kind
    from game.replay import check_writable

    if path == "":
        raise UsageError(f"{flag}: empty path; give a file name")
    try:
        kind = existing_kind(path)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot use this path ({_why(exc)}); give another file name") from None
    if kind is not None:
        if kind == DIRECTORY:
            raise UsageError(f"{flag} {path}: is a directory; give a file name")
        if kind != REGULAR:
            raise UsageError(f"{flag} {path}: is {kind}, not a regular file; give a file name")
        if not force:
            raise UsageError(f"{flag} {path}: file already exists; add --force to let {flag} overwrite it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        raise UsageError(f"{flag} {path}: folder {parent} does not exist; create it first")
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: {parent} is not a folder; give a path inside a folder")
    try:
        check_writable(path)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            fix = "the file name is too long (the save adds 13 characters for its temp file); use a shorter name"
        else:
            fix = "choose a folder you can write to"
        raise UsageError(f"{flag} {path}: cannot create a file in {parent} ({_why(exc)}); {fix}") from None


def make_match(seed: int, p1_cpu, p2_cpu, *, arena: bool = True):
    """The match every mode plays (and a replay is played back into, with its arena setting)."""
    from game.sim import Match

    return Match.new(seed=seed, p1_cpu=p1_cpu, p2_cpu=p2_cpu, arena=arena)


def check_replay_frames(args, replay) -> None:
    """``--frames N`` with ``--replay``: at most the replay's length (exit 2)."""
    if args.frames is not None and args.frames > replay.frames:
        fix = f"give --frames {replay.frames} or less, or drop --frames" if replay.frames else "drop --frames"
        raise UsageError(f"--frames {args.frames}: the replay {args.replay} holds {replay.frames} frames; {fix}")


def _load_checked_replay(args):
    """``--replay FILE`` read, its version checked and ``--frames`` checked against its length."""
    from game.replay import check_version, load_replay

    replay = load_replay(args.replay)
    check_version(replay)
    check_replay_frames(args, replay)
    return replay


def run_replay_headless(args) -> dict:
    """Check ``--replay FILE`` with no window (only its first ``--frames`` frames if given);
    a divergence raises ReplayMismatch."""
    from game.replay import play_replay

    replay = _load_checked_replay(args)
    out = play_replay(replay, lambda seed, p1, p2: make_match(seed, p1, p2, arena=replay.arena), frames=args.frames)
    if args.frames is not None:
        out["replay_frames"] = replay.frames
    return out


def prepare_window_replay(args) -> None:
    """``--replay FILE`` in a window: load and check the file, take seed and sides from it."""
    replay = _load_checked_replay(args)
    levels = {c for c in replay.cpu if c is not None}
    if len(levels) > 1:
        raise UsageError(f"--replay {args.replay}: the two CPUs play different levels; "
                         f"play it with --headless")
    if not replay.arena:                # the window draws, and its Game builds, arena matches only
        raise UsageError(f"--replay {args.replay}: recorded on a bare floor (Match.new(arena=False)), which "
                         f"the window does not show; check it with --headless")
    args.seed = replay.seed
    args.p1, args.p2 = ("cpu" if c else "human" for c in replay.cpu)
    args.level = levels.pop() if levels else args.level
    args.replay_data = replay


def attach_replay_io(args, game):
    """Hook ``--record`` / ``--replay`` into the window game's input source and step
    listeners; return ``finish()``, which saves the recording (atomically) at the end."""
    if getattr(args, "replay_data", None) is not None:
        from game.replay import ReplayPlayer

        player = ReplayPlayer(args.replay_data)
        game.screen = "fight"                         # no title screen: the replay starts at once
        match = game.match
        game.input_source = lambda: player.next_inputs(game.match)
        game.quit = player.done                       # a 0-frame replay: nothing to play

        def check(m, events):
            if m is not match:                        # a new match (Enter after the end): stop
                game.quit = True
                return
            player.check(m)                           # ReplayMismatch -> one line, exit 2
            if player.done:
                game.quit = True
        game.step_listeners.append(check)
        return lambda: None
    if args.record is not None:
        from game.replay import ReplayRecorder

        recorder = ReplayRecorder.for_match(game.match)
        match = game.match

        ended = [False]

        def record(m, events):
            # only the first match is recorded, up to the frame it ends on (as --headless does),
            # so no replay is longer than the longest match
            if m is match and not ended[0]:
                recorder.record(m)
                ended[0] = m.over
        game.step_listeners.append(record)
        return lambda: save_recording(recorder, args.record, args.force)
    return lambda: None


def save_recording(recorder, path: str, force: bool) -> None:
    """Save ``--record``'s replay.  If that fails, the match is not lost: the replay goes to
    a new file in the temp folder and UsageError (exit 2) names the error and that file."""
    try:
        recorder.save(path, force=force)
        return
    except OSError as exc:
        first = _why(exc)
    fallback = None
    try:
        fd, fallback = tempfile.mkstemp(prefix="rangebox-", suffix=".rpl")
        os.close(fd)
        recorder.save(fallback, force=True)
    except OSError as exc:
        if fallback is not None:
            try:
                os.unlink(fallback)
            except OSError:
                pass
        raise UsageError(f"--record {path}: could not save the replay ({first}), nor a copy in "
                         f"{tempfile.gettempdir()} ({_why(exc)}); the recording is lost") from None
    raise UsageError(f"--record {path}: could not save the replay ({first}); saved it to {fallback} "
                     f"instead: move it where you want it")


def run_headless(args) -> dict:
    """Step a match with no window; the human sides send neutral input."""
    from game.sim import FrameInput, Hit

    level = args.level
    match = make_match(args.seed, level if args.p1 == "cpu" else None, level if args.p2 == "cpu" else None)
    recorder = None
    if args.record is not None:
        from game.replay import ReplayRecorder
        recorder = ReplayRecorder.for_match(match)
    limit = args.frames if args.frames is not None else 10**7
    neutral = FrameInput()
    hits = 0
    t0 = time.perf_counter()
    try:
        while match.frame < limit and not match.over:
            for ev in match.step(neutral, neutral):
                if isinstance(ev, Hit):
                    hits += 1
            if recorder is not None:
                recorder.record(match)
    except KeyboardInterrupt:        # Ctrl-C: the frames recorded so far are saved all the same
        if recorder is not None:
            save_recording(recorder, args.record, args.force)
        raise
    elapsed = time.perf_counter() - t0
    if recorder is not None:
        save_recording(recorder, args.record, args.force)
    return {
        "frames": match.frame,
        "hits": hits,
        "winner": None if match.winner is None else match.winner + 1,
        "rounds": [f.wins for f in match.fighters],
        "state_hash": match.state_hash(),
        "sim_us_per_frame": round(elapsed / max(match.frame, 1) * 1e6, 1),
    }


SIM_STEP = 1 / 60      # the simulation's fixed step, seconds
MAX_CATCH_UP = 5       # at most this many steps per displayed frame; a longer stall is dropped


class FixedStep:
    """Fix Your Timestep (Fiedler): real time fills an accumulator that is drained in
    fixed 1/60 s simulation steps; ``advance`` returns the render alpha in [0, 1).

    A slow frame only means several steps before the next draw (never a longer
    step), and after a stall of more than ``MAX_CATCH_UP`` steps the backlog is
    dropped, so the game slows down instead of spiralling.
    """

    def __init__(self, step, dt: float = SIM_STEP, max_steps: int = MAX_CATCH_UP):
        self.step, self.dt, self.max_steps = step, dt, max_steps
        self.acc = 0.0

    def advance(self, elapsed: float) -> float:
        self.acc += min(max(elapsed, 0.0), 0.25)
        steps = 0
        while self.acc >= self.dt and steps < self.max_steps:
            self.step()
            self.acc -= self.dt
            steps += 1
        if self.acc >= self.dt:          # catch-up cap reached: forget the rest
            self.acc %= self.dt
        return self.acc / self.dt


def _open_game(args, *, headless):
    """pyglet, window and :class:`game.render.game.Game`; RenderUnavailable on no display/GL."""
    from game.render.boot import check_fonts, load_pyglet, make_window

    pyglet = load_pyglet(headless)
    window = make_window(pyglet, visible=not pyglet.options["headless"],
                         fullscreen=bool(args.fullscreen) and not pyglet.options["headless"])
    check_fonts(pyglet)
    from game.render.game import Game

    game = Game(pyglet, window, p1=args.p1, p2=args.p2, level=args.level, seed=args.seed,
                training=args.training, debug=args.debug, show_fps=args.fps,
                title=args.screenshot is None and args.frames is None,
                adaptive=args.screenshot is None)      # a window may drop the 3D to half resolution
    return pyglet, window, game


def attach_audio(args, pyglet, game):
    """The window's sound effects (``game/audio/player.py``): an AudioPlayer that hears every
    step, muted with ``--mute`` (M toggles it), silent until ``start()``.  The loop calls
    both once the first frame is on the screen (even this module's import is not worth a
    ms before it); ``start()`` runs the driver probe and the synthesis on a thread (see
    the module docstring).  A sound is panned to where its world point is on the screen
    (``screen_pan`` of the last drawn frame's ``game.view_proj``).  None in a headless-GL
    window (tests and tools: nobody hears it, and pyglet.media is never imported)."""
    if pyglet.options["headless"]:
        return None
    from game.audio.player import AudioPlayer, screen_pan

    audio = AudioPlayer(muted=args.mute, report=lambda line: print(f"main.py: {line}", file=sys.stderr),
                        pan_of=lambda point: screen_pan(point, getattr(game, "view_proj", None)))
    game.audio = audio
    game.step_listeners.append(audio.on_step)
    return audio


def run_window(args) -> int:
    """The game loop: fixed-step simulation, interpolated rendering, one window."""
    pyglet, window, game = _open_game(args, headless=None)
    if pyglet.options["headless"] and args.frames is None and getattr(args, "replay_data", None) is None:
        # no screen and no keys: nothing would ever end this window (only a replay ends by itself)
        window.close()
        raise UsageError("PYGLET_HEADLESS=1 gives a window no one can see or play in, and this game would "
                         "never end; add --frames N to run N frames, use --screenshot PNG or --headless, "
                         "or unset PYGLET_HEADLESS to play")
    finish = attach_replay_io(args, game)
    audio = [None]              # attached after the first frame (see on_draw)
    game.prepare_for_play()     # no glyph upload or full garbage collection stalls a frame later

    def step() -> None:
        # one draw may run several catch-up steps: never step past --frames (a recording
        # of --frames N holds exactly N frames, however slow the machine), nor past the
        # end of a replay or a quit
        if not game.quit and (args.frames is None or game.match.frame < args.frames):
            game.step()

    loop = FixedStep(step)
    last = [time.perf_counter()]
    drawn = [0]

    @window.event
    def on_draw():
        now = time.perf_counter()
        alpha = loop.advance(now - last[0])
        last[0] = now
        game.draw(alpha)
        drawn[0] += 1
        if drawn[0] == 2:           # the first frame is on the screen: sound starts, off the frame path
            audio[0] = attach_audio(args, pyglet, game)
            if audio[0] is not None:
                audio[0].start()
        if game.quit or (args.frames is not None and game.match.frame >= args.frames):
            pyglet.app.exit()

    try:
        pyglet.app.run(1 / 120)
    finally:                         # also on Ctrl-C: a recording keeps the frames played
        window.close()
        if audio[0] is not None:
            audio[0].close()
        finish()
    return 0


def run_screenshot(args) -> int:
    """Step ``--frames`` simulation frames (default 1; with ``--replay`` its length) with no
    screen, stopping early at the end of the match, draw the last, save the PNG atomically."""
    replay = getattr(args, "replay_data", None)
    target = args.frames if args.frames is not None else (replay.frames if replay is not None else 1)
    pyglet, window, game = _open_game(args, headless=True)
    finish = attach_replay_io(args, game)
    for _ in range(target):
        if game.quit or game.match.over:
            break
        game.step()
    game.draw(1.0)
    errors = []
    try:
        save_png(pyglet, args.screenshot)
    except UsageError as exc:
        errors.append(str(exc))
    window.close()
    try:
        finish()                                      # a recording is saved even if the PNG was not
    except UsageError as exc:
        errors.append(str(exc))
    if errors:
        raise UsageError("; and ".join(errors))
    return 0


def save_png(pyglet, path: str) -> None:
    """Encode the colour buffer as PNG and write it through a temp file and a rename: a
    failed write (disk full, I/O error) leaves an existing file as it was (UsageError)."""
    import io

    from game.replay import write_atomic

    buf = io.BytesIO()
    pyglet.image.get_buffer_manager().get_color_buffer().save(path, file=buf)
    existed = os.path.isfile(path)
    try:
        write_atomic(path, buf.getvalue(), force=True)
    except OSError as exc:
        kept = f"{path} is unchanged; " if existed else ""
        raise UsageError(f"--screenshot {path}: could not save the PNG ({_why(exc)}); {kept}"
                         f"free some space or choose another folder") from None


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        check_mode_flags(args)
        check_replay_flags(args)
        check_screenshot_path(args)
        apply_defaults(args)
        keep_freed_memory()          # numpy's large temporaries reuse freed pages (game/allocator.py)
        if args.headless and args.replay is not None:
            from game.replay import ReplayMismatch
            try:
                print(json.dumps(run_replay_headless(args)))
            except ReplayMismatch as exc:
                print(json.dumps({"frames": exc.frame, "ok": False, "diverged_at": exc.frame}))
                raise
            return 0
        if args.headless:
            print(json.dumps(run_headless(args)))
            return 0
        if args.replay is not None:
            prepare_window_replay(args)
        from game.render.boot import RenderUnavailable
        try:
            if args.screenshot is not None:
                return run_screenshot(args)
            return run_window(args)
        except RenderUnavailable as exc:     # --headless excludes --screenshot: only the fix there
            raise UsageError(exc.fix if args.screenshot is not None else str(exc)) from None
    except UsageError as exc:
        print(f"main.py: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:        # Ctrl-C in the terminal: one line, not the frame loop's traceback
        print("main.py: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ModuleNotFoundError as exc:
        # numpy, pyrr or pyglet: the set-up step was skipped (pyglet alone reaches here only
        # outside the renderer's own boot, which names --headless too)
        if exc.name not in _REQUIRED_PACKAGES:
            raise
        print(f"main.py: {FIX_PACKAGE.format(name=exc.name)}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OSError) as exc:
        # Asset, scene and replay files: one line naming the file and the fix.
        if not _is_user_file_error(exc):
            raise
        print(f"main.py: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _is_user_file_error(exc: BaseException) -> bool:
    """True for the library's file errors (AssetError, SceneFileError, the arena's
    ArenaAssetError / ArenaDescriptionError, ReplayError, a failed replay write),
    which already name the file and the fix."""
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & _USER_FILE_ERRORS) or isinstance(exc, (FileExistsError, PermissionError))


_REQUIRED_PACKAGES = {"numpy", "pyrr", "pyglet"}
EXIT_INTERRUPTED = 130     # the shell's status for a command ended by SIGINT
_USER_FILE_ERRORS = {"AssetError", "SceneFileError", "ReplayError", "ArenaAssetError", "ArenaDescriptionError"}


if __name__ == "__main__":
    sys.exit(main())
