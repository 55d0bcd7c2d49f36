"""Netplay benchmark: ``python3 -m game.bench netplay [--quick]``.

Figures:

* **one rolled-back frame**: the cost per frame of ``restore`` + re-simulating 8 frames of a
  CPU fight (the inputs played as a netplay match plays them: ``CpuPlayer`` bits on a match
  with no CPU side), against one plain ``Match.step`` of the same frames (the reference: a
  frame that is not rolled back); round-robin (``interleaved_medians``).
* **the worst frame with an 8-frame rollback on every frame**, at 1280x720 on llvmpipe
  (headless EGL): each frame loads the state of 8 frames back and steps the 9 frames to the
  present (``MatchRunner`` carrying out the requests a ``P2PSession`` makes after a wrong guess),
  reconciles the effects (``RollbackPresenter``), follows the camera and draws, then
  ``glFinish``; the same frames with no rollback are the reference.  Against the 16.7 ms
  budget of a 60 Hz frame; the rasteriser gauge (``render``'s) is printed beside it.
* **bytes a second each side sends**: two ``P2PSession`` with CPU players over the simulated
  network (``game.net.simnet``) for 3,600 frames, on a LAN and at a 200 ms round trip with
  40 ms of jitter and 10 % loss (every datagram's payload, without UDP/IP headers); the aim is
  under 4 kB/s.
"""

from __future__ import annotations

import statistics
import time

from game.net.cpu_player import CpuPlayer, cpu_fight_inputs
from game.net.requests import AdvanceFrame, LoadState, Request, SaveState
from game.net.runner import MatchRunner
from game.net.session import P2PSession
from game.net.simnet import Conditions, SimNet
from game.sim import FrameInput, Match

from .common import interleaved_medians, median_ms, report

FRAME_BUDGET = 0.0167       # seconds: one frame at 60 Hz
DEPTH = 8                   # frames rolled back on every frame (the default --max-rollback)
SEED = 5


def rollback_requests(frame: int, inputs: list[tuple[int, int]], depth: int, slots: int) -> list[Request]:
    """The requests of frame ``frame`` when the guess of ``depth`` frames back was wrong: load
    that frame, then save and step every frame to ``frame`` (a P2PSession's after a rollback)."""
    back = max(0, frame - depth)
    reqs: list[Request] = [LoadState(back, back % slots)] if back < frame else []
    for g in range(back, frame + 1):
        reqs += [SaveState(g, g % slots, False), AdvanceFrame(g, inputs[g])]
    return reqs


def _rolled_back_frame(quick: bool) -> None:
    inputs = cpu_fight_inputs(SEED, 420)
    m = Match.new(SEED)
    for p1, p2 in inputs[:400]:
        m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
    snap = m.snapshot()
    frames = [(FrameInput.from_bits(a), FrameInput.from_bits(b)) for a, b in inputs[400:400 + DEPTH]]

    def rolled():
        m.restore(snap)
        for p1, p2 in frames:
            m.step(p1, p2)

    def plain():                    # the reference: the same 8 frames stepped once, no restore
        m.restore(snap)
        for p1, p2 in frames:
            m.step(p1, p2)
        m.restore(snap)

    n = 5 if quick else 20
    t_rolled, t_plain, t_restore = interleaved_medians([rolled, plain, lambda: m.restore(snap)],
                                                       numbers=[n, n, 50 * n], repeat=3 if quick else 9)
    per_step = (t_plain - 2 * t_restore) / DEPTH
    report("one rolled-back frame (restore + step, per frame)", (t_rolled / DEPTH) * 1e6, "us",
           ref=per_step * 1e6)
    report("  restore + 8 frames", t_rolled * 1e3, "ms", target="<= 2 ms")


def _worst_frame(quick: bool) -> None:
    from game.render.offscreen import open_game
    from game.render.rollback_fx import RollbackPresenter

    from .render import _raster_gauge

    n = 240 if quick else 900
    inputs = cpu_fight_inputs(SEED + 1, n + 1)
    pyglet, window, game = open_game(1280, 720)
    from pyglet import gl

    try:
        gauge = _raster_gauge(game, gl, 20)
        game.prepare_for_play()
        times = {}
        game.p1 = game.p2 = "human"                    # no CPU side: the inputs decide both, as in netplay
        for depth in (0, DEPTH):
            game.new_match(SEED + 1)
            runner = MatchRunner(game.match, DEPTH + 2)
            presenter = RollbackPresenter(game.sparks, game.debris, game.camera)
            wall = []
            for f in range(n):
                t0 = time.perf_counter()
                stepped = runner.carry_out(rollback_requests(f, inputs, depth, DEPTH + 2))
                game.view_rays.clear()
                game._defer_crates = presenter.present(game.match, stepped, game.view_rays)
                game._follow(tuple(presenter.last_started))
                game.draw(1.0)
                gl.glFinish()
                wall.append(time.perf_counter() - t0)
            times[depth] = wall[30:]                   # past the first frames' warm-up
        gauge += _raster_gauge(game, gl, 20)
    finally:
        window.close()
    ref, rb = times[0], times[DEPTH]
    report("  rasteriser gauge (clear + layer + glFinish)", median_ms(gauge), "ms")
    report("frame with an 8-frame rollback, median", median_ms(rb), "ms", ref=median_ms(ref))
    report("frame with an 8-frame rollback, 99th percentile", _pct(rb, 99) * 1e3, "ms", ref=_pct(ref, 99) * 1e3)
    report("frame with an 8-frame rollback, worst", max(rb) * 1e3, "ms", ref=max(ref) * 1e3,
           target="<= 16.7 ms")
    over = sum(t > FRAME_BUDGET for t in rb)
    print(f"  frames over the 16.7 ms budget: {over} of {len(rb)} with the rollback, "
          f"{sum(t > FRAME_BUDGET for t in ref)} of {len(ref)} without")


def _pct(xs: list[float], p: float) -> float:
    return statistics.quantiles(xs, n=100)[int(p) - 1]


def bytes_sent(conditions: Conditions, frames: int, seed: int = 3) -> tuple[float, float, int]:
    """Two sessions with CPU players over a simulated network until both confirmed ``frames``:
    ``(side 0's bytes a second, side 1's, the highest one-second figure of either)``."""
    net = SimNet(1, conditions)
    addrs = ("a", "b")
    sides = []
    for side in (0, 1):
        s = P2PSession(side, addrs[1 - side], 0.0, key=seed)
        sides.append((s, MatchRunner(Match.new(seed), s.slots), CpuPlayer("hard", side, seed + side)))
    sent = [0, 0]
    peak = 0
    ticks = [0, 0]
    start = (0.0, 0.007)
    while min(s.confirmed_frame for s, _r, _c in sides) < frames - 1 and max(ticks) < 4 * frames:
        i = 0 if start[0] + ticks[0] / 60 <= start[1] + ticks[1] / 60 else 1
        now = start[i] + ticks[i] / 60
        s, runner, cpu = sides[i]
        for data, src in net.deliver(addrs[i], now):
            s.handle_datagram(data, src, now)
        runner.carry_out(s.advance(cpu.bits(runner.match), now), s.saved)
        for data in s.poll(now):
            sent[i] += len(data)
            net.send(addrs[i], addrs[1 - i], data, now)
        s.drain_confirmed()
        s.events()
        if ticks[i] % 60 == 0:
            peak = max(peak, int(s.stats(now).bytes_per_second))
        ticks[i] += 1
    return sent[0] / (ticks[0] / 60), sent[1] / (ticks[1] / 60), peak


def run(args) -> None:
    _rolled_back_frame(args.quick)
    _worst_frame(args.quick)
    frames = 900 if args.quick else 3600
    for name, cond in (("LAN (2 ms round trip)", Conditions(0.001)),
                       ("200 ms round trip, 40 ms jitter, 10 % loss", Conditions(0.100, 0.040, loss=0.10))):
        a, b, peak = bytes_sent(cond, frames)
        report(f"bytes/s sent, {name}: P1", a, "B/s", target="< 4000 B/s")
        report("  P2", b, "B/s")
        report("  the highest one-second figure of either side", peak, "B/s")
