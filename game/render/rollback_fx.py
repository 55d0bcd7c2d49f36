"""Presentation that survives rollback: each effect started once, a taken-back one removed.

In netplay the window draws the live match, the predicted present (``game/online/netmatch.py``).
A tick may load an earlier frame and step every frame to the present again
(``NetMatch.tick`` returns ``(frame, events)`` of every frame stepped, re-simulated ones
included).  A re-simulated frame repeats most of its events (the same hit again) and may lose
some (a hit the real input avoided) or gain others.  Shown naively, sparks, chips and sounds
would double on every rollback and a hit that never happened would stay on the screen.

:class:`EffectLedger` keys every event by *(frame, cause)* (:func:`effect_key`: its type and
every field that names who and what, not the float coordinates, which a re-simulation may
round alike anyway) and remembers the keys of each frame of the last :data:`HORIZON` frames.
After a tick, :meth:`EffectLedger.reconcile` compares each stepped frame's keys with what that
frame had before: a key not seen before is *started* (its effect begins now), a key the frame
had and no longer has is *taken back* (its effect goes at once), a key seen again is left
alone.  :class:`RollbackPresenter` carries that out on the window's effects: sparks and chips
(tagged with the key's id, ``Sparks.take_back`` / ``Debris.take_back``), camera kicks, the
sounds (voices of a taken-back effect stopped), once per tick; the camera follows the live
match once per tick, so a rollback moves it no faster than a step.

Pure logic and numpy (no GL): the tests drive it with a rollback on every frame.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .effects import show_events, throw_landing

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from game.audio.player import AudioPlayer
    from game.sim import Match

    from .camera import FightCamera
    from .crates import Debris
    from .sparks import Sparks

#: Frames whose keys are remembered (past the deepest rollback, 16, with room to spare).
HORIZON = 64

EffectKey = tuple


def effect_key(event: object) -> EffectKey:
    """The event's *(frame, cause)*: its type's name and its int, str, bool and None fields
    (frame first) in field order; floats and arrays (points, normals) are left out."""
    values: list[object] = [type(event).__name__]
    if is_dataclass(event):
        for f in fields(event):
            v = getattr(event, f.name)
            if v is None or isinstance(v, (bool, int, str, np.integer)):
                values.append(int(v) if isinstance(v, np.integer) else v)
    return tuple(values)


class Reconciled(NamedTuple):
    """What a tick changed in the effects."""

    started: list[tuple[int, object]]     # (key id, event) of each new effect, in step order
    taken_back: list[int]                 # key ids of effects whose event a rollback removed


class EffectLedger:
    """The effect keys of each recent frame (see the module docstring)."""

    def __init__(self) -> None:
        self._frames: dict[int, dict[EffectKey, int]] = {}      # frame -> key -> id
        self._next_id = 1
        #: The newest frame stepped so far (-1 before any).
        self.top = -1
        #: Key ids of every effect started and not taken back, for frames still remembered
        #: (an older effect can no longer be taken back).
        self.live: set[int] = set()
        #: Effects started and taken back so far (counts).
        self.started_count = self.taken_back_count = 0

    def reconcile(self, stepped: Sequence[tuple[int, Sequence[object]]]) -> Reconciled:
        """Take one tick's ``(frame, events)``, in the order they were stepped."""
        started: list[tuple[int, object]] = []
        taken: list[int] = []
        for frame, events in stepped:
            old = self._frames.get(frame, {})
            new: dict[EffectKey, int] = {}
            for e in events:
                k = effect_key(e)
                if k in new:
                    continue                    # the same cause twice in a frame: one effect
                if k in old:
                    new[k] = old[k]
                else:
                    new[k] = self._next_id
                    self._next_id += 1
                    started.append((new[k], e))
            taken.extend(i for k, i in old.items() if k not in new)
            self._frames[frame] = new
            self.top = max(self.top, frame)
        old_frames = [f for f in self._frames if f < self.top - HORIZON]
        for f in old_frames:
            del self._frames[f]
        gone = set(taken)
        started = [(i, e) for i, e in started if i not in gone]     # started and taken back in one tick
        taken = [i for i in taken if i in self.live]
        self.live.difference_update(taken)
        self.live.update(i for i, _e in started)
        if old_frames:
            self.live.intersection_update(self.keys().values())
        self.started_count += len(started)
        self.taken_back_count += len(taken)
        return Reconciled(started, taken)

    def keys(self, upto: int | None = None) -> dict[EffectKey, int]:
        """Every remembered key (to frame ``upto``, inclusive) and its id."""
        return {k: i for f, ks in self._frames.items() if upto is None or f <= upto for k, i in ks.items()}


class RollbackPresenter:
    """The window's effects of a live netplay match, reconciled after each tick."""

    def __init__(self, sparks: Sparks, debris: Debris, camera: FightCamera,
                 audio: AudioPlayer | None = None) -> None:
        self.sparks, self.debris, self.camera, self.audio = sparks, debris, camera, audio
        self.ledger = EffectLedger()
        self._voices: dict[int, list[tuple[int, float]]] = defaultdict(list)   # key id -> (voice, start)
        #: The events of the effects started by the last tick (new to the screen), in step order.
        self.last_started: list[object] = []
        #: The key ids the last tick took back.
        self.last_taken_back: list[int] = []
        #: True when the last tick re-simulated a frame it had shown.
        self.rolled_back = False

    def present(self, match: Match, stepped: Sequence[tuple[int, Sequence[object]]],
                view_rays: list) -> bool:
        """Reconcile one tick's ``stepped`` frames of the live ``match`` (now after the tick);
        returns ``show_events``' ``defer_crates``."""
        top = self.ledger.top
        self.rolled_back = any(f <= top for f, _e in stepped)
        r = self.ledger.reconcile(stepped)
        if r.taken_back:
            self.sparks.take_back(r.taken_back)
            self.debris.take_back(r.taken_back)
            self._stop_sounds(r.taken_back)
        defer = False
        for key_id, e in r.started:
            self.sparks.tag = self.debris.tag = key_id
            defer = show_events((e,), match, self.sparks, self.debris, self.camera, view_rays) or defer
        self.sparks.tag = self.debris.tag = 0
        if stepped:
            throw_landing(match, self.sparks, self.camera)
        self.last_started = [e for _i, e in r.started]
        self.last_taken_back = r.taken_back
        if stepped:                             # the live frame moved on (AudioPlayer's timeline)
            self._sounds(match, r.started)
        return defer

    def _sounds(self, match: Match, started: Iterable[tuple[int, object]]) -> None:
        audio = self.audio
        if audio is None:
            return
        started = list(started)
        audio.on_step(match, tuple(e for _i, e in started))
        for key_id, _e in started:
            self._voices[key_id] = list(audio.last_started)
        for k in [k for k in self._voices if k not in self.ledger.live]:
            del self._voices[k]

    def _stop_sounds(self, taken: Iterable[int]) -> None:
        if self.audio is None:
            return
        for key_id in taken:
            for voice, start in self._voices.pop(key_id, ()):
                self.audio.stop_voice(voice, start)
