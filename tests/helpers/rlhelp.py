"""Shared pieces of the environment's tests (tests/rl): gymnasium or a skip, and small players."""

from __future__ import annotations

import numpy as np
import pytest

#: Why the environment's tests are skipped where the ``rl`` extra is not installed.
SKIP_REASON = "gymnasium is not installed (the optional rl extra): pip install -e '.[rl]'"


def need_gymnasium():
    """``gymnasium``, or skip the calling test module with :data:`SKIP_REASON`."""
    return pytest.importorskip("gymnasium", reason=SKIP_REASON)


def buttons(bits: int) -> np.ndarray:
    """The MultiBinary action ``(11,)`` int8 of input bits ``bits``."""
    return np.array([(bits >> i) & 1 for i in range(11)], dtype=np.int8)
