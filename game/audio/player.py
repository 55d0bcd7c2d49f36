"""Sound effects for the window game: the match's events -> voices (the pyglet side).

:class:`AudioPlayer` is a step listener (``game.step_listeners``): after every
simulation step ``on_step(match, events)`` turns that step's events into sounds
(:func:`sounds_for`, a pure mapping with per-event volumes) and starts each on one of
a small fixed pool of voices.  It only reads the match and the events.

Voices.  The pool has :data:`VOICES` voices (at most that many sounds at once).  A new
sound takes a free voice, else steals the one started longest ago (a whiff, the
quietest and most frequent sound, never steals: it is dropped instead).  One step
plays each sound at most once, at the loudest volume asked for (two fighters whiffing
on the same frame are one whoosh).  The backend that really plays (``play(voice,
sample, volume, pan)``, ``stop(voice)``, ``durations``) is injectable: tests give a fake
one and a clock; the game gets :class:`PygletVoices`, built once: every sample
synthesised (:mod:`game.audio.synth`) into ``pyglet.media.StaticSource`` objects (16-bit
stereo WAVs in memory, loaded with ``streaming=False``) and :data:`VOICES` players kept
for the whole session.  A voice's player keeps its driver stream between sounds (its end
of stream only pauses it, and the next sound replaces the source on the same stream), so
a sound costs no new driver object and no new sample buffer, only pyglet's small
per-queue ``StaticMemorySource`` view of the decoded bytes.

Takes and pan.  A frequent sound (a hit, a block, a whiff, a crate's knock) has three
takes (``synth.VARIED``), which the player plays in turn, a counter per sound (no random
state: nothing here can touch the simulation), so three jabs are three different
knocks.  Each sound has a place (:func:`sounds_for`: the hit's point, the crate's, a
fighter's), which ``pan_of`` turns into a pan, -1 (left) to 1 (right); the window loop
gives :func:`screen_pan` of the game's last view-projection matrix (the point's screen
x, at most 0.8 to a side).  The driver's 3D positioning is not used (PulseAudio ignores
it): :class:`PygletVoices` holds each positioned sample at five fixed pan positions
(constant-power law) and plays the nearest: 104 stereo sources of 16-bit samples, made
on the start-up thread (mostly the synthesis; panning, encoding and decoding are a small
part of it).

Rewinds.  Training's reset (R) and a new match put the match back in time, or replace
it; the player notices (``match.frame`` not after the last step's, or another match)
and forgets the abandoned timeline: its delayed sounds (a body still falling) are
dropped and the voices still ringing are stopped.  Sounds come only from the events of
the step just taken, never from a comparison of states, so the restored state
cannot replay anything.

Start-up.  ``import pyglet.media`` probes the audio libraries (OpenAL, PulseAudio, ...)
and opens the device, a large part of the start-to-first-frame budget, and synthesising
the sounds takes as long again of CPU.  So nothing of it runs before the first frame: the
window loop (``game/cli/window.py``) creates the player silent (no backend), attaches it and
calls :meth:`AudioPlayer.start` from its second ``on_draw``, once the first frame is on
the screen; ``start`` runs the probe and the synthesis on a daemon thread and hands the
finished backend over with one attribute assignment.  A thread, not "a slice per frame
on the title screen": the probe is one blocking import that cannot be sliced, and most
of it is ``dlopen``, ``ldconfig`` and numpy, all of which release the GIL, so the frames
go on meanwhile (its Python part is small and spread over the probe).  The thread does
share the two cores with the frame loop: the frames while it runs are somewhat slower,
with no freeze, and in the window this falls on the title screen.  Until the
backend is there, sounds are skipped (the title screen has none; attract mode may miss
its first "round" bell).  ``--headless``, ``--screenshot`` and a headless-GL window
never create a player at all, so they never import ``pyglet.media``.  With no sound
device (pyglet falls back to its silent driver) or a failing driver, the game stays
silent and ``report`` gets one line.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from game.sim import (
    KO,
    CrateStruck,
    Fight,
    Hit,
    ProjectileClash,
    ProjectileImpact,
    ProjectileLaunched,
    RoundStart,
    ThrowBreak,
    ThrowGrab,
    TimeOver,
    Whiff,
)

from .synth import nearest_pan, take_names

#: sounds played at once, at most
VOICES = 8
#: the master volume a player starts with (per-event volumes are scaled by it).  1.0: the
#: constant-power pan puts a centred sound at 0.71 a channel, ~1 dB under the 0.8 of the mono
#: sounds it replaced; one panned hard (0.8) reaches 0.99 on its side
MASTER = 1.0
#: frames from a knockdown hit's hitstop end to the body landing (the knockdown animation
#: reaches the floor pose at frame 9-12 of its 50, ``assets/moves.json``)
KNOCKDOWN_LAND = 10
#: frames from the K.O. (after the last hit's hitstop) to the loser's body landing
KO_LAND = 14
#: sounds that never steal a voice (dropped when every voice is busy)
NO_STEAL = frozenset({"whiff"})
#: seconds a voice is counted busy after its sound's end (pyglet's end-of-stream comes
#: through the event loop a little later)
END_MARGIN = 0.05
#: sounds always played centred (never given a place): one stereo source each, no pan copies
CENTRED = frozenset({"knockout", "round_start", "fight", "time_over"})
#: :func:`screen_pan` of a point at the screen's edge (nothing is hard-panned)
PAN_WIDTH = 0.8


def _clamp(v: float) -> float:
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


def screen_pan(point, view_proj, width: float = PAN_WIDTH) -> float:
    """Where ``point`` (a world point ``(3,)``) is on the screen as a pan in [-``width``,
    ``width``]: its normalised device x under ``view_proj`` (a ``(4, 4)`` view-projection
    matrix, ``Game.view_proj``), clamped to the screen's edges [-1, 1], times ``width``.
    0.0 (centred) with no matrix, or for a point level with or behind the eye."""
    if view_proj is None or point is None:
        return 0.0
    clip = np.asarray(view_proj, dtype=float) @ np.append(np.asarray(point, dtype=float)[:3], 1.0)
    w = float(clip[3])
    if not w > 1e-6:
        return 0.0
    return width * min(max(float(clip[0]) / w, -1.0), 1.0)


def hit_sounds(e) -> list[tuple[str, float, object]]:
    """A :class:`~game.sim.Hit`'s sounds ``[(sound, volume 0-1, where)]``, all at its
    ``point``: blocked -> ``blocked_hit`` (louder for a heavy); else ``heavy_hit`` or
    ``light_hit``, louder with the damage dealt (a combo's scaled hits are quieter; a heavy
    is always louder than a light: 0.6-1.0 against 0.4-0.7); a projectile's hit adds its
    ``fireball_impact``."""
    p = e.point
    if e.blocked:
        out = [("blocked_hit", 0.75 if e.heavy else 0.55, p)]
    elif e.heavy:
        out = [("heavy_hit", _clamp(0.6 + 0.025 * e.damage), p)]
    else:
        out = [("light_hit", _clamp(0.4 + 0.03 * e.damage), p)]
    if e.attack_limb == e.move:                 # a projectile's hit (no limb of the thrower)
        out.append(("fireball_impact", 0.5 if e.blocked else 0.75, p))
    return out


def sounds_for(match, events) -> tuple[list[tuple[str, float, object]], list[tuple[int, str, float, object]]]:
    """One step's sounds: ``(now, later)``; ``now`` is ``[(sound, volume, where)]`` to start
    at once, ``later`` ``[(frames from now, sound, volume, where)]`` (a body landing).
    ``where`` places the sound on the screen (:meth:`AudioPlayer.pan_for`): a world point
    ``(3,)`` (the hit's, the crate's, the impact's; a whiff or a launch at its fighter),
    a fighter's index (its position when the sound starts: a body lands where it fell to)
    or None, centred (the round cues, the K.O. blow, the horn).  Reads the match (after
    the step) and the events, changes neither.

    Hit -> :func:`hit_sounds` (a knockdown adds a ``body_fall`` once the body lands);
    Whiff -> ``whiff`` (a heavy's louder); ProjectileLaunched -> ``fireball_launch``;
    ProjectileImpact -> ``fireball_impact``; ProjectileClash -> ``fireball_clash``;
    ThrowGrab -> a soft ``light_hit`` (hands on the collar); ThrowBreak -> ``blocked_hit``
    (the hands knocked apart); a throw's ``Hit`` adds a ``body_fall`` when the thrown body
    lands; CrateStruck -> ``crate_hit``, or ``crate_break`` when it broke; RoundStart ->
    ``round_start``; Fight -> ``fight``; KO -> ``knockout`` instead of the finishing
    blow's hit sounds, and a ``body_fall`` per loser; TimeOver -> ``time_over``.
    MoveStarted, RoundEnd and MatchOver are silent.

    The volumes are set on each sound's A-weighted level (:func:`~game.audio.synth.loudness`):
    the K.O. loudest; a heavy hit 3-10 dB over a light one; a whiff under any landed hit;
    the fireball's launch and the round cues, the time-over horn among them, no louder than
    a heavy hit; ``tests/audio/test_player.py`` holds the mix to that."""
    now: list = []
    later: list = []
    ko = None
    for e in events:
        if isinstance(e, KO):
            ko = e
    for e in events:
        if isinstance(e, Hit):
            if ko is None:
                now.extend(hit_sounds(e))
            d = match.fighters[e.defender]
            if not e.blocked and d.state == "knockdown":
                later.append((e.hitstop + KNOCKDOWN_LAND, "body_fall", 0.8, e.defender))
            elif not e.blocked and d.state == "thrown":      # on the frame its body hits the floor
                t = match.data.throw
                later.append((t.lands - t.tech, "body_fall", 0.9, e.defender))
        elif isinstance(e, ThrowGrab):
            now.append(("light_hit", 0.35, e.point))
        elif isinstance(e, ThrowBreak):
            now.append(("blocked_hit", 0.6, e.point))
        elif isinstance(e, Whiff):
            mv = match.data.moves.get(e.move)
            volume = 0.35 if getattr(mv, "heavy", False) else 0.25
            now.append(("whiff", volume, match.fighters[e.fighter].position))
        elif isinstance(e, CrateStruck):
            now.append(("crate_break", 1.0, e.point) if e.broke else ("crate_hit", 0.7, e.point))
        elif isinstance(e, ProjectileLaunched):
            now.append(("fireball_launch", 0.55, e.position))
        elif isinstance(e, ProjectileImpact):
            now.append(("fireball_impact", 0.6, e.end))
        elif isinstance(e, ProjectileClash):
            now.append(("fireball_clash", 0.9, e.point))
        elif isinstance(e, RoundStart):
            now.append(("round_start", 0.6, None))
        elif isinstance(e, Fight):
            now.append(("fight", 0.8, None))
        elif isinstance(e, KO):
            now.append(("knockout", 1.0, None))
            stop = max((h.hitstop for h in events if isinstance(h, Hit)), default=0)
            losers = (0, 1) if e.loser is None else (e.loser,)
            later.extend((stop + KO_LAND, "body_fall", 0.9, i) for i in losers)
        elif isinstance(e, TimeOver):
            now.append(("time_over", 0.55, None))
    return now, later


class AudioPlayer:
    """The match's events -> sounds on a fixed pool of voices (see the module docstring).

    ``backend``: an object with ``play(voice: int, sample: str, volume: float, pan: float)``,
    ``stop(voice: int)`` and ``durations`` (sample name -> seconds, every name of
    :data:`game.audio.synth.NAMES`), or None until :meth:`start` has built
    :class:`PygletVoices`.  A sound with takes (``synth.VARIED``) plays them in turn
    (``light_hit``, ``light_hit#1``, ``light_hit#2``, ``light_hit``, ...): a counter per
    sound, no random state.  ``pan_of(point) -> float``: where a world point ``(3,)`` is
    heard, -1 (left) to 1 (right) (the window loop gives :func:`screen_pan` on the game's last
    view-projection); None: every sound centred.  ``clock``: seconds, monotonic (when a
    voice is free again).  ``report(line)``: called once, from the start-up thread, when
    there is no sound device or the driver failed.
    """

    def __init__(self, backend=None, *, muted: bool = False, master: float = MASTER, voices: int = VOICES,
                 clock=time.perf_counter, report=None, pan_of=None):
        self.backend = backend
        self.pan_of = pan_of
        self._turn: dict = {}                   # sound -> its next take
        self.muted = bool(muted)
        self.master = _clamp(float(master))
        self.voices = int(voices)
        self.clock = clock
        self.report = report
        self.status = "ready" if backend is not None else "off"
        self._starts = [0.0] * self.voices      # clock time each voice's sound started
        self._ends = [0.0] * self.voices        # ... and ends (free from then)
        self._match = None
        self._frame = -1
        self._pending: list = []                # [(due frame, sound, volume, where)]
        self._thread: threading.Thread | None = None
        self._closed = False
        #: ``(voice, start time)`` of each sound the last :meth:`on_step` started (netplay's
        #: rollback stops those of an effect taken back: :meth:`stop_voice`)
        self.last_started: list[tuple[int, float]] = []

    # ------------------------------------------------------------------ start-up
    def start(self) -> None:
        """Probe the audio driver and build the sounds on a daemon thread (see the module
        docstring); returns at once.  Call it after the first frame is on the screen."""
        if self._thread is not None or self.backend is not None:
            return
        self.status = "starting"
        self._thread = threading.Thread(target=self._start_backend, name="audio-start", daemon=True)
        self._thread.start()

    def _start_backend(self) -> None:
        # Not niced: a low-priority thread is starved by the frame loop (main thread and llvmpipe's
        # fill both cores) and finishes long after the title screen, and one descheduled while
        # holding the GIL would stall the main thread (priority inversion).
        try:
            backend = PygletVoices.create(self.voices)
        except Exception as exc:  # any driver failure: the game goes on silent
            backend, why = None, f"the audio driver failed ({type(exc).__name__}: {exc})"
        else:
            why = "no audio device (pyglet's silent driver)" if backend is None else ""
        if backend is None:
            self.status = "silent"
            if self.report is not None:
                self.report(f"{why}; playing without sound")
            return
        if self._closed:                        # the window closed meanwhile
            backend.close()
            return
        self.backend = backend                  # the hand-over: one assignment
        self.status = "ready"

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until :meth:`start`'s thread is done (tools and tests); True if sound is on."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.backend is not None

    def close(self) -> None:
        """Stop every voice and let the backend go (the window closes)."""
        self._closed = True
        if self._thread is not None:
            self._thread.join(2.0)
        backend, self.backend = self.backend, None
        if backend is not None and hasattr(backend, "close"):
            backend.close()

    # ------------------------------------------------------------------ controls
    def toggle_mute(self) -> bool:
        """M: mute or unmute; muting stops what is ringing.  Returns ``muted``."""
        self.muted = not self.muted
        if self.muted:
            self.stop_all()
        return self.muted

    def stop_all(self) -> None:
        backend = self.backend
        for v in range(self.voices):
            if self._ends[v] > 0.0 and backend is not None:
                backend.stop(v)
            self._starts[v] = self._ends[v] = 0.0

    # ------------------------------------------------------------------ per step
    def on_step(self, match, events) -> None:
        """A step listener: the sounds of the step just taken (see :func:`sounds_for`)."""
        frame = match.frame
        if match is not self._match or frame <= self._frame:
            if self._match is not None:         # a rewind or another match: forget the old timeline
                self._pending.clear()
                if match is self._match:
                    self.stop_all()
            self._match = match
        self._frame = frame
        self.last_started = []
        if not events and not self._pending:
            return
        now, later = sounds_for(match, events) if events else ((), ())
        for delay, sound, volume, where in later:
            self._pending.append((frame + delay, sound, volume, where))
        if self._pending:
            due = [p for p in self._pending if p[0] <= frame]
            if due:
                self._pending = [p for p in self._pending if p[0] > frame]
                now = list(now) + [(s, v, w) for _f, s, v, w in due]
        if not now or self.muted or self.backend is None:
            return
        loudest: dict = {}
        for sound, volume, where in now:
            if volume > loudest.get(sound, (-1.0, None))[0]:
                loudest[sound] = (volume, where)
        for sound, (volume, where) in loudest.items():
            voice = self.play(sound, volume, self.pan_for(match, where))
            if voice is not None:
                self.last_started.append((voice, self._starts[voice]))

    def stop_voice(self, voice: int, start: float) -> None:
        """Stop ``voice`` if it still plays the sound started at ``start`` (clock time; a
        later sound on the voice is left alone): an effect that a rollback took back."""
        if self._starts[voice] == start and self._ends[voice] > self.clock():
            if self.backend is not None:
                self.backend.stop(voice)
            self._starts[voice] = self._ends[voice] = 0.0

    def pan_for(self, match, where) -> float:
        """The pan (-1 left to 1 right) of a sound placed at ``where`` (see :func:`sounds_for`):
        ``pan_of`` of the point, or of the fighter's position for a fighter's index; 0.0
        (centred) for None, with no ``pan_of``, or for anything but a finite number back."""
        if where is None or self.pan_of is None:
            return 0.0
        point = match.fighters[where].position if isinstance(where, int) else where
        p = float(self.pan_of(point))
        return max(-1.0, min(1.0, p)) if p == p else 0.0

    def play(self, sound: str, volume: float, pan: float = 0.0) -> int | None:
        """Start ``sound`` (its next take) at ``volume`` (0-1, times the master volume) and
        ``pan`` (-1 left to 1 right) on a free voice, or on the oldest one; returns the
        voice, or None (muted, no backend, or a whiff with every voice busy)."""
        backend = self.backend
        if backend is None or self.muted:
            return None
        t = self.clock()
        ends, starts = self._ends, self._starts
        voice = None
        for v in range(self.voices):
            if ends[v] <= t:
                voice = v
                break
        if voice is None:
            if sound in NO_STEAL:
                return None
            voice = min(range(self.voices), key=starts.__getitem__)
        takes = take_names(sound)
        turn = self._turn.get(sound, 0) % len(takes)
        self._turn[sound] = turn + 1
        sample = takes[turn]
        starts[voice] = t
        ends[voice] = t + backend.durations[sample] + END_MARGIN
        try:
            backend.play(voice, sample, _clamp(volume * self.master), pan)
        except Exception as exc:  # a driver gone bad: silent for the rest of the session, one line
            self.backend, self.status = None, "silent"
            if self.report is not None:
                self.report(f"the audio driver failed ({type(exc).__name__}: {exc}); playing without sound")
            return None
        return voice


class PygletVoices:
    """The pyglet backend: every sample of :mod:`game.audio.synth` as stereo
    ``StaticSource`` objects, and ``count`` players (voices), made once.

    Pan without the driver's 3D positioning (PulseAudio ignores it): each positioned
    sample is built at every pan position of ``synth.PANS`` (-0.8 to 0.8, five), a
    :data:`CENTRED` one at 0 only, and ``play`` queues the copy nearest the pan asked for.
    Every source is stereo, the centred ones too: a player whose next source has another
    format deletes its driver stream and opens a new one.  ``sources``: sample name ->
    the tuple of its sources, one per position of ``pans[sample]``; ``nbytes``: the
    bytes of 16-bit sample data they hold (~7.7 MB); ``build_seconds``: the synthesis
    and decoding time.

    ``create(count)`` imports ``pyglet.media`` (the driver probe) and returns None when
    pyglet found no device (its silent driver).  ``play(voice, sample, volume, pan)``
    replaces the voice's source on its existing driver stream; ``stop(voice)`` pauses it."""

    def __init__(self, media, count: int):
        import io

        from .synth import PANS, SAMPLE_RATE, base_name, build_all, pan, to_wav

        t0 = time.perf_counter()
        sounds = build_all()
        self.pans = {name: (0.0,) if base_name(name) in CENTRED else PANS for name in sounds}
        # pyglet 2.1's public way to a StaticSource: load a WAV (here one in memory) with
        # streaming=False; it decodes it once (StaticMemorySource, the class StaticSource
        # queues, cannot be queued itself: it lacks the ``_data`` its base reads)
        self.sources = {name: tuple(media.load(f"{name}@{p:+.1f}.wav", file=io.BytesIO(to_wav(pan(x, p))),
                                               streaming=False) for p in self.pans[name])
                        for name, x in sounds.items()}
        self.nbytes = sum(4 * len(x) * len(self.pans[name]) for name, x in sounds.items())
        self.durations = {name: len(x) / SAMPLE_RATE for name, x in sounds.items()}
        self.build_seconds = time.perf_counter() - t0
        voice_class = _voice_class(media)
        self.players = [voice_class() for _ in range(count)]

    def source_for(self, sample: str, pan: float = 0.0):
        """The source of ``sample`` built nearest ``pan`` (-1 left to 1 right)."""
        return self.sources[sample][nearest_pan(pan, self.pans[sample])]

    @classmethod
    def create(cls, count: int = VOICES) -> "PygletVoices | None":
        import pyglet.media as media

        driver = media.get_audio_driver()
        if driver is None or type(driver).__module__.startswith("pyglet.media.drivers.silent"):
            return None
        return cls(media, count)

    def play(self, voice: int, sample: str, volume: float, pan: float = 0.0) -> None:
        p = self.players[voice]
        fresh = p.source is None                # the voice's first sound
        p.volume = volume
        p.queue(self.source_for(sample, pan))
        if not fresh:
            p.next_source()                     # replace the old sound on the same stream
        p.play()

    def stop(self, voice: int) -> None:
        self.players[voice].pause()

    def close(self) -> None:
        for p in self.players:
            p.pause()
            p.delete()
        self.players = []


def _voice_class(media):
    """A ``pyglet.media.Player`` whose end of stream only pauses it: the default moves to
    the next source and, with none, deletes the driver's stream, which the next sound
    would then have to open again."""

    class Voice(media.Player):
        def on_eos(self):
            src = self.source
            # an end of stream posted for the sound this voice played before (the event
            # loop delivers it late) must not stop the one that replaced it
            if src is not None and self.time < src.duration - END_MARGIN:
                return
            self.pause()

    return Voice
