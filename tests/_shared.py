"""The real shared data beside the repository: one definition for every test.

Tests read ``../shared/data`` relative to the repository root (it is never
copied into the repository) and skip, with the one reason ``REASON``, when it
is absent.  A test takes the ``shared_data`` fixture (tests/conftest.py); the
paths a module needs at import time (``skipif`` marks, parametrisations,
helpers shared by several tests) come from here: ``SHARED_DATA``, ``WALK``
and the mark ``needs_shared``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("HUMANBODY_SHARED_DATA", ROOT.parent / "shared" / "data"))  # a worktree elsewhere names it
WALK = SHARED_DATA / "gait2392_walk"  # the OpenSim walk: subject01_walk1.trc, static, GRF, reference/
REASON = "needs the shared data folder ../shared/data beside the repository"

needs_shared = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason=REASON)


def require_shared() -> Path:
    """``SHARED_DATA``; the calling test is skipped (``REASON``) when the folder is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(REASON)
    return SHARED_DATA
