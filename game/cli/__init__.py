"""Rangebox's command line: ``python3 main.py`` from a checkout, ``rangebox`` once installed.

    python3 main.py                                   play (P1 keyboard vs CPU) in a window
    python3 main.py --p2 human                        two players on one keyboard
    python3 main.py --p1 cpu --p2 cpu                 attract mode
    python3 main.py --headless --frames N --seed S    no window, no GL: prints one JSON line
    python3 main.py --screenshot out.png --frames N [--debug]   render frame N with no screen (EGL)
    python3 main.py --training                        training mode (frame meter, frame step, dummy)
    python3 main.py --mute                            start with the sound effects muted (M toggles them)
    python3 main.py --record FILE [--force]           record every match played to replay files (FILE, FILE-2.rpl, ...)
    python3 main.py --replay FILE [--headless]        play a replay back, checking every frame
    python3 main.py --sync-test 2 --headless --p1 cpu --p2 cpu   roll back 2 frames every frame, check each
    python3 main.py --headless --host 7000 --p1 cpu             netplay: wait for an opponent on UDP port 7000
    python3 main.py --headless --join 127.0.0.1:7000 --p2 cpu   netplay: play the game waiting there
    python3 main.py --host 7000                       netplay in the window: wait on UDP port 7000 (Esc cancels)
    python3 main.py --join 127.0.0.1:7000             netplay in the window: join it, on P1's keys
    python3 main.py --spectate 127.0.0.1 --room dojo   watch a server's room in the window (Esc leaves)
    python3 main.py --spectate 127.0.0.1:7100 --room dojo --headless   watch it to its end: one JSON line

Bad flags or values, flags that cannot take effect together, and files that cannot be
read or written exit with status 2 and one line that names them, before the match is played.
A recording whose save fails is saved in the temp folder instead (exit 2 says where).  However
the run ends (a signal, the display lost, a crash), what was played is saved first, and the
exit status says why (the README's table).

One concept per module: ``program`` (the names the command goes by, UsageError), ``parser``
(the flags), ``saved`` (the saved settings under the flags), ``checks`` (flag combinations
and output paths), ``replay_io`` (--record / --replay hooked into the window's game),
``recording`` (--record: every match of the run, one file each), ``ending`` (how a run ends:
signals, the display lost, exit statuses, the one save of what is pending), ``headless``,
``synctest`` (--sync-test: a rollback on every frame, checked), ``netplay`` (--host /
--join headless: a NetMatch ticked until it ends), ``timestep`` (the fixed-step
accumulator), ``window`` (the game loop), ``window_net`` (--host / --join in the window),
``spectate`` (--spectate headless: a Spectator ticked until the match ends), ``window_spectate``
(--spectate in the window),
``screenshot`` and ``app`` (dispatch and error reporting).
Every module imports the library (numpy, pyglet) inside the functions that need it, so
``--help`` and the usage errors work, and a missing package is one line naming the set-up.
"""

from __future__ import annotations

from game.cli.app import console, main

__all__ = ["console", "main"]
