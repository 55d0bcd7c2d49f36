"""Comparing random draws with a reference's: the effects' batched random columns against their
first, per-generator form."""

from __future__ import annotations

import numpy as np


def same_distribution(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Per column: the same range, mean and deciles within a few percent of the column's spread."""
    assert got.shape[1] == want.shape[1]
    for j in range(got.shape[1]):
        g, w = got[:, j], want[:, j]
        spread = max(w.max() - w.min(), 1e-12)
        tol = 0.03 * spread + 1e-12
        assert g.min() >= w.min() - tol and g.max() <= w.max() + tol, f"{what}: column {j} leaves its range"
        assert abs(g.mean() - w.mean()) < tol, f"{what}: column {j} mean {g.mean()} vs {w.mean()}"
        for q in (10, 40, 60, 90):     # away from the steps of the discrete picks (25, 33, 50, 67, 75 %)
            assert abs(np.percentile(g, q) - np.percentile(w, q)) < 2 * tol, f"{what}: column {j} {q}th percentile"
