"""Two netplay peers over a simulated network (``game.net.simnet``), each a P2PSession, a match
and a CPU playing its own side; played in simulated time, deterministic from the seeds."""

from __future__ import annotations

from dataclasses import dataclass, field

from game.net.cpu_player import CpuPlayer
from game.net.requests import LoadState, SaveState
from game.net.runner import MatchRunner
from game.net.session import P2PSession
from game.net.simnet import Conditions, SimNet
from game.sim import Match

ADDRS = ("peer-a", "peer-b")


@dataclass
class Peer:
    """One side: its session, its match (run by a MatchRunner) and its CPU."""

    side: int
    session: P2PSession
    runner: MatchRunner
    cpu: CpuPlayer
    scratch: Match
    #: the state hash of every final frame (hashed from its saved snapshot once final)
    hashes: dict[int, str] = field(default_factory=dict)
    confirmed: list[tuple[int, int, int]] = field(default_factory=list)
    events: list = field(default_factory=list)
    hashed_to: int = -1
    worst_rollback: int = 0
    worst_ahead: float = 0.0
    #: the most frames between the two sides' frames at one moment (after the first 300)
    worst_gap: int = 0

    def hash_final(self) -> None:
        """Hash every frame that has become final since the last call, from its saved snapshot."""
        top = self.session.final_frame
        for f in range(self.hashed_to + 1, top + 1):
            snap = self.runner.saved(SaveState(f, f % self.session.slots, False))
            self.scratch.restore(snap)
            self.hashes[f] = self.scratch.state_hash()
        self.hashed_to = max(self.hashed_to, top)

    def tick(self, net: SimNet, now: float) -> None:
        s = self.session
        for data, src in net.deliver(ADDRS[self.side], now):
            s.handle_datagram(data, src, now)
        self.hash_final()
        reqs = s.advance(self.cpu.bits(self.runner.match), now)
        loads = [r for r in reqs if isinstance(r, LoadState)]
        if loads:
            self.worst_rollback = max(self.worst_rollback, s.frame - 1 - loads[0].frame)
        self.runner.carry_out(reqs, s.saved)
        for data in s.poll(now):
            net.send(ADDRS[self.side], ADDRS[1 - self.side], data, now)
        self.confirmed.extend(s.drain_confirmed())
        self.events.extend(s.events())
        if s.frame > 300:
            self.worst_ahead = max(self.worst_ahead, abs(s.sync.ahead))


def make_peer(side: int, seed: int, level: str, now: float, **session_args) -> Peer:
    session = P2PSession(side, ADDRS[1 - side], now, key=seed, **session_args)
    match = Match.new(seed)
    return Peer(side, session, MatchRunner(match, session.slots), CpuPlayer(level, side, seed + 17),
                Match.new(seed))


def play(conditions: Conditions, frames: int, *, seed: int = 0, net_seed: int = 1, levels=("hard", "normal"),
         rates=(60.0, 60.0), start=(0.0, 0.013), **session_args) -> tuple[Peer, Peer, SimNet]:
    """Play until both sides have confirmed ``frames`` frames (or a session stops): side ``i``
    ticks ``rates[i]`` times a second from ``start[i]``."""
    net = SimNet(net_seed, conditions)
    peers = [make_peer(i, seed, levels[i], start[i], **session_args) for i in (0, 1)]
    ticks = [0, 0]
    while min(p.session.confirmed_frame for p in peers) < frames - 1:
        i = 0 if start[0] + ticks[0] / rates[0] <= start[1] + ticks[1] / rates[1] else 1
        now = start[i] + ticks[i] / rates[i]
        peers[i].tick(net, now)
        ticks[i] += 1
        if min(p.session.frame for p in peers) > 300:
            gap = abs(peers[0].session.frame - peers[1].session.frame)
            peers[i].worst_gap = max(peers[i].worst_gap, gap)
        if any(p.session.state != "running" for p in peers) or ticks[i] > 4 * frames:
            break
    for p in peers:
        p.hash_final()
    return peers[0], peers[1], net


def offline_hashes(seed: int, confirmed: list[tuple[int, int, int]]) -> dict[int, str]:
    """The state hash at the start of each frame of an offline match played on ``confirmed``
    inputs, frames 0 .. len(confirmed)."""
    from game.sim import FrameInput

    m = Match.new(seed)
    out = {0: m.state_hash()}
    for f, p1, p2 in confirmed:
        assert m.frame == f
        m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
        out[f + 1] = m.state_hash()
    return out


class FakeGame:
    """A stand-in for the match that carries out requests: its state is the tuple of every
    frame's inputs so far, so a wrong rollback shows as a wrong tuple (and hash)."""

    def __init__(self, slots: int) -> None:
        self.state: tuple[tuple[int, int], ...] = ()
        self.slots: list[tuple[tuple[int, int], ...] | None] = [None] * slots
        self.advanced = 0

    def carry_out(self, reqs, session=None) -> None:
        from game.net.requests import AdvanceFrame

        for r in reqs:
            if isinstance(r, AdvanceFrame):
                assert len(self.state) == r.frame
                self.state += (r.inputs,)
                self.advanced += 1
            elif isinstance(r, SaveState):
                assert len(self.state) == r.frame
                self.slots[r.slot] = self.state
                if r.hash_wanted and session is not None:
                    session.saved(r.frame, self.hash_of(self.state))
            else:
                kept = self.slots[r.slot]
                assert kept is not None and len(kept) == r.frame
                self.state = kept

    @staticmethod
    def hash_of(state) -> bytes:
        import hashlib

        return hashlib.sha256(repr(state).encode()).digest()


def link(a: P2PSession, b: P2PSession, now: float, addrs=ADDRS) -> None:
    """Deliver at once everything ``a`` and ``b`` have to send each other."""
    for src, dst in ((a, b), (b, a)):
        for data in src.poll(now):
            dst.handle_datagram(data, addrs[src.side], now)
