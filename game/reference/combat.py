"""Reference oracles for the match's judge (``game.sim.combat``), by brute force."""

from __future__ import annotations

import numpy as np

from game.collision import judgement_points, overlaps
from game.sim import Match


def projectile_verdict(m: Match) -> tuple[list, list]:
    """``combat.judge_projectiles`` by one ``overlaps`` call over every (projectile, limb)
    pair (A2-A4), touching faces included.  Returns ``(hits, clashes)``: hits as
    ``(projectile index, projectile, struck limb, its box as nested lists)``, clashes as
    ``(0, 1, box, box)``; a knocked-down victim is struck by nothing, and two projectiles
    that touch clash and strike no one."""
    assert m.stage is not None and m.projectile_spec is not None
    ps = m.stage.projectiles
    half = m.projectile_spec.half
    boxes = m.limbs.boxes
    pbox = np.array([[[p.x - half, p.y - half, p.z - half], [p.x + half, p.y + half, p.z + half]] for p in ps])
    victims = [1 - p.owner for p in ps]
    ok = np.asarray(overlaps(pbox[:, None], boxes[victims]))     # (P, L) bool, whatever overlaps is typed as
    ok[[m.fighters[v].state == "knockdown" for v in victims]] = False
    clash = []
    if len(ps) == 2 and ps[0].owner != ps[1].owner and overlaps(pbox[0], pbox[1]):
        clash.append((0, 1, pbox[0].tolist(), pbox[1].tolist()))
        ok[:] = False
    proj = []
    for i in np.flatnonzero(ok.any(axis=1)).tolist():
        limbs = np.flatnonzero(ok[i])
        j1, j2 = judgement_points(pbox[i], boxes[victims[i], limbs])
        best = int(limbs[np.argmax(np.prod(np.maximum(j2 - j1, 0.0), axis=-1))])
        proj.append((i, ps[i], best, pbox[i].tolist()))
    return proj, clash
