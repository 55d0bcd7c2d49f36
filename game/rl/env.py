"""``RangeboxEnv``: a Rangebox match as a Gymnasium environment (``Rangebox-v0``).

One environment step holds the learner's buttons for ``frame_skip`` match frames
(``Match.step``, 60 a second) while the opponent (:mod:`game.rl.opponents`) plays the other
side; it returns the observation of the learner's side (:mod:`game.rl.layout`), the reward
(damage dealt minus damage taken, in fractions of full health, plus or minus ``win_bonus``
for each round won or lost), whether the episode (a match or a round) is over, and in
``info`` the step's events (``game.sim.events``: hits with their A7 points, crate strikes,
K.O.s, ...).  The match is deterministic: the same ``reset(seed=...)`` and actions give the
same observations and the same ``state_hash()``.  ``docs/rl.md`` documents every argument.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from game.replay import Replay
from game.sim import CrateStruck, FrameInput, Hit, Match, RoundEnd
from game.sim.rounds import FIGHT, MATCH_ROUNDS, ROUND_FRAMES

from .layout import ObsLayout
from .observe import Observer, layout_of
from .opponents import Opponent, action_bits, make_opponent

#: The observation variants: one float32 vector, or the same numbers as named arrays.
OBSERVATIONS = ("flat", "dict")
#: What one episode is.
EPISODES = ("match", "round")
#: A match seed drawn at reset is below this (a replay stores seeds below 2**64).
SEED_RANGE = 2 ** 63
NEUTRAL = FrameInput()


class RangeboxEnv(gymnasium.Env):
    """A Rangebox match, the learner on side ``side`` against ``opponent``.

    ``opponent``: ``"cpu"`` (the built-in CPU at ``level``), ``"replay"`` (``replay``'s recorded
    inputs of ``replay_side``, by default the opponent's own side), ``"idle"`` or a policy
    callable (self-play: its side's observation in, its action out).  ``side``: 0 (P1), 1 (P2)
    or ``"random"`` (drawn at each reset).  ``observation``: ``"flat"`` or ``"dict"``.
    ``episode``: ``"match"`` (best of ``rounds``) or ``"round"``.  ``timer``: seconds a round
    lasts.  ``max_frames``: truncate an episode after this many match frames (None: no limit;
    the round timer ends every round).  ``frame_skip``: match frames an action is held.
    ``win_bonus``: added for a round won, taken for one lost.  ``skip_pauses``: step through
    the frames that ignore inputs (round intro, the pause after a K.O.) inside reset and step.
    ``arena``: False fights on a bare floor (no crates).  ``render_mode``: None or
    ``"rgb_array"`` (headless EGL), ``render_size``: its ``(width, height)``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(self, opponent: Any = "cpu", level: str = "normal", *, side: int | str = 0,
                 observation: str = "flat", episode: str = "match", rounds: int = 3, timer: int = 60,
                 max_frames: int | None = None, frame_skip: int = 1, win_bonus: float = 1.0,
                 skip_pauses: bool = True, arena: bool = True, replay: Replay | str | os.PathLike | None = None,
                 replay_side: int | None = None, render_mode: str | None = None,
                 render_size: tuple[int, int] = (256, 256)) -> None:
        _check_args(side, observation, episode, rounds, timer, max_frames, frame_skip, arena, render_mode,
                    render_size)
        #: Who plays the other side (:mod:`game.rl.opponents`).
        self.opponent: Opponent = make_opponent(opponent, level, replay, replay_side)
        #: The ``side`` argument: 0, 1 or "random".
        self.side_choice = side
        #: "flat" or "dict".
        self.observation = observation
        #: "match" or "round".
        self.episode = episode
        #: Rounds of each match (best of); 1 for round episodes.
        self.rounds = 1 if episode == "round" else rounds
        #: Seconds a round lasts.
        self.timer = timer
        #: Match frames after which an episode is truncated, or None.
        self.max_frames = max_frames
        #: Match frames each action is held for.
        self.frame_skip = frame_skip
        #: Reward for a round won (minus it for one lost).
        self.win_bonus = float(win_bonus)
        #: Step through the frames that ignore inputs inside reset and step.
        self.skip_pauses = skip_pauses
        #: False: a bare floor.
        self.arena = arena
        #: None or "rgb_array"; ``render_size`` is its ``(width, height)``.
        self.render_mode = render_mode
        self.render_size = (int(render_size[0]), int(render_size[1]))
        self.metadata = {**self.metadata, "render_fps": 60 / frame_skip}
        #: The match being played (None before the first reset): read it, never step it.
        self.match: Match | None = None
        #: The learner's side of this episode: 0 (P1) or 1 (P2).
        self.side = 0
        #: Where each block sits in the observation (:class:`~game.rl.layout.ObsLayout`).
        self.layout: ObsLayout
        self.layout, self._max_health = _layout(arena)
        self._observers = (Observer(self.layout, 0), Observer(self.layout, 1))
        self.action_space = spaces.MultiBinary(FrameInput.BITS)
        self.observation_space = self._space()
        self._view: Any = None
        self._since = [0, 0]             # the frame each fighter's state began
        self._states: list[str] = ["", ""]
        self._start = 0                  # the match frame the episode's first step began at

    # ------------------------------------------------------------------ spaces
    def _space(self) -> spaces.Space:
        lay = self.layout
        if self.observation == "flat":
            return spaces.Box(lay.low, lay.high, dtype=np.float32)
        return spaces.Dict({name: spaces.Box(lay.low[sl].reshape(lay.shapes[name]),
                                             lay.high[sl].reshape(lay.shapes[name]), dtype=np.float32)
                            for name, sl in lay.slices.items() if sl.stop > sl.start})

    def _package(self, flat: np.ndarray) -> Any:
        """The observation handed out: a copy of ``flat`` (the observer's buffer), cut into the
        Dict variant's named arrays when ``observation="dict"``."""
        out = flat.copy()
        if self.observation == "flat":
            return out
        lay = self.layout
        return {name: out[sl].reshape(lay.shapes[name]) for name, sl in lay.slices.items() if sl.stop > sl.start}

    def observe(self, side: int | None = None) -> Any:
        """The observation of ``side`` (default: the learner's) as the match stands now."""
        m = self._live()
        s = self.side if side is None else side
        return self._package(self._observers[s].fill(m, self._state_frames(m)))

    # ------------------------------------------------------------------ episodes
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """A fresh match (also mid-match).  ``seed`` seeds ``np_random``, which draws the match's
        seed (and the side, with ``side="random"``); ``options``: ``{"side": 0 or 1}`` for this
        episode only."""
        super().reset(seed=seed)
        side = (options or {}).get("side", self.side_choice)
        if side == "random":
            side = int(self.np_random.integers(2))
        if side not in (0, 1):
            raise ValueError(f"RangeboxEnv.reset: options['side'] {side!r}: choose 0 (P1), 1 (P2) or 'random'")
        self.side = int(side)
        match_seed = int(self.np_random.integers(SEED_RANGE))
        cpu: list[str | None] = [None, None]
        cpu[1 - self.side] = self.opponent.cpu
        self.match = m = Match.new(match_seed, p1_cpu=cpu[0], p2_cpu=cpu[1], arena=self.arena,
                                   rounds=self.rounds, timer=self.timer)
        self.opponent.reset(1 - self.side)
        if self.render_mode == "rgb_array":
            self._watch(m)
        self._states = [f.state for f in m.fighters]
        self._since = [m.frame, m.frame]
        events: list = []
        if self.skip_pauses:
            self._through_pause(events)
        self._start = m.frame
        for o in self._observers:
            o.crates_stale = True
        obs = self._package(self._observers[self.side].fill(m, self._state_frames(m)))
        return obs, {"match_seed": match_seed, "side": self.side, "frame": m.frame, "events": tuple(events)}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Hold ``action`` (MultiBinary ``(11,)``, ``game.sim.inputs.BUTTONS`` order) for
        ``frame_skip`` frames; return ``(observation, reward, terminated, truncated, info)``."""
        m = self._live()
        mine = FrameInput.from_bits(action_bits(action))
        events: list = []
        done = False
        for k in range(self.frame_skip):
            events.extend(self._frame(mine, k == 0))
            done = self._finished(events)
            if done:
                break
        if not done and self.skip_pauses and m.phase != FIGHT:
            self._through_pause(events)
            done = self._finished(events)
        reward, struck = self._reward(events)
        if struck:
            for o in self._observers:
                o.crates_stale = True
        obs = self._package(self._observers[self.side].fill(m, self._state_frames(m)))
        truncated = not done and self.max_frames is not None and m.frame - self._start >= self.max_frames
        return obs, reward, done, truncated, {"events": tuple(events), "frame": m.frame, "side": self.side}

    def _frame(self, mine: FrameInput, fresh: bool) -> tuple:
        """One match frame: the opponent's input, the step, each fighter's state clock."""
        m = self.match
        assert m is not None
        theirs = self.opponent.bits(m.frame, fresh, self._opponent_view)
        other = NEUTRAL if theirs == 0 else FrameInput.from_bits(theirs)
        p1, p2 = (mine, other) if self.side == 0 else (other, mine)
        events = self._view.step(p1, p2) if self._view is not None else m.step(p1, p2)
        states, a, b = self._states, m.fighters[0].state, m.fighters[1].state
        if a != states[0]:
            states[0], self._since[0] = a, m.frame
        if b != states[1]:
            states[1], self._since[1] = b, m.frame
        return events

    def _through_pause(self, events: list) -> None:
        """Step with no input through the frames that ignore it (intro, K.O. pause) until the
        fight or the end of the match."""
        m = self._live()
        while m.phase != FIGHT and not m.over:
            events.extend(self._frame(NEUTRAL, False))

    def _finished(self, events: list) -> bool:
        """The episode is over: the match (episode="match") or its round (episode="round")."""
        m = self._live()
        return m.over or (self.episode == "round" and any(type(e) is RoundEnd for e in events))

    def _reward(self, events: list) -> tuple[float, bool]:
        """``(reward, a crate was struck)`` of a step's events: each ``Hit``'s ``damage`` over
        full health, plus for the learner's hits and minus for the opponent's; ``win_bonus``
        for each round won, minus it for one lost (a draw: nothing)."""
        me, scale, r, struck = self.side, 1.0 / self._max_health, 0.0, False
        for e in events:
            kind = type(e)
            if kind is Hit:
                r += e.damage * scale if e.attacker == me else -e.damage * scale
            elif kind is RoundEnd and e.winner is not None:
                r += self.win_bonus if e.winner == me else -self.win_bonus
            elif kind is CrateStruck:
                struck = True
        return r, struck

    def _state_frames(self, m: Match) -> tuple[int, int]:
        return m.frame - self._since[0], m.frame - self._since[1]

    def _opponent_view(self) -> Any:
        """The opponent's side's observation (a self-play policy's input)."""
        return self.observe(1 - self.side)

    def _live(self) -> Match:
        if self.match is None:
            raise gymnasium.error.ResetNeeded("RangeboxEnv: call reset() before step() or observe()")
        return self.match

    # ------------------------------------------------------------------ state
    def state_hash(self) -> str:
        """The match's ``state_hash()``: equal for the same seed and actions in any process."""
        return self._live().state_hash()

    # ------------------------------------------------------------------ rendering
    def _watch(self, m: Match) -> None:
        from .view import EnvView

        if self._view is None:
            self._view = EnvView(*self.render_size)
        self._view.watch(m)

    def render(self) -> np.ndarray | None:
        """``render_mode="rgb_array"``: the match as the game draws it, ``(height, width, 3)``
        uint8, through headless EGL (the HUD included); otherwise None."""
        if self.render_mode != "rgb_array":
            return None
        self._live()
        return self._view.frame()

    def close(self) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None
        super().close()


@functools.cache
def _layout(arena: bool) -> tuple[ObsLayout, int]:
    """The observation layout and the fighters' full health of a match on the arena (or a bare
    floor): the same for every match of the game's data, so made once per process."""
    template = Match.new(0, arena=arena)
    return layout_of(template), template.data.max_health


def _check_args(side: object, observation: str, episode: str, rounds: int, timer: int, max_frames: int | None,
                frame_skip: int, arena: object, render_mode: str | None, render_size: tuple[int, int]) -> None:
    """ValueError naming the first argument out of range, and its choices."""
    def whole(v: object) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    checks = [
        (side in (0, 1, "random"), f"side {side!r}: choose 0 (P1), 1 (P2) or 'random'"),
        (observation in OBSERVATIONS, f"observation {observation!r}: choose one of {OBSERVATIONS}"),
        (episode in EPISODES, f"episode {episode!r}: choose one of {EPISODES}"),
        (rounds in MATCH_ROUNDS, f"rounds {rounds!r}: choose one of {MATCH_ROUNDS} (best of)"),
        (whole(timer) and 1 <= timer <= ROUND_FRAMES // 60, f"timer {timer!r}: whole seconds from 1 to 60"),
        (max_frames is None or (whole(max_frames) and max_frames >= 1),
         f"max_frames {max_frames!r}: None or a whole number of frames >= 1"),
        (whole(frame_skip) and frame_skip >= 1, f"frame_skip {frame_skip!r}: a whole number >= 1"),
        (arena is True or arena is False, f"arena {arena!r}: True (the arena) or False (a bare floor)"),
        (render_mode in (None, "rgb_array"), f"render_mode {render_mode!r}: choose None or 'rgb_array'"),
        (len(render_size) == 2 and all(whole(v) and 16 <= v <= 4096 for v in render_size),
         f"render_size {render_size!r}: (width, height), each 16 to 4096 pixels"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"RangeboxEnv: {message}")
