"""Body mass from the force plates: the mean total vertical ground reaction over whole strides / g."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..io.loads import FORCE_THRESHOLD, LoadTable

__all__ = ["mass_from_plates", "QUIET_SECONDS", "QUIET_VARIATION", "CONTINUOUS_SECONDS", "LONGEST_FLIGHT"]

#: Shortest quiet standing (s) and its largest relative variation of the total vertical force.
QUIET_SECONDS, QUIET_VARIATION = 1.0, 0.02
#: Shortest stretch (s) of continuous loading averaged when the subject never leaves the plates.
CONTINUOUS_SECONDS = 2.0
#: Longest flight (s) between two contacts of a run or a hop on the plates.
LONGEST_FLIGHT = 0.5


def mass_from_plates(table: LoadTable, threshold: float = FORCE_THRESHOLD, gravity: float = 9.81):
    """Body mass (kg) from the total vertical ground reaction, and one line saying how; (None, why) when the
    plates cannot tell.

    Over whole strides the mean vertical acceleration of the mass centre is
    zero, so the mean total vertical force is ``m g`` (Winter 2009, ch. 5).
    In order of preference:

    1. quiet standing: the longest stretch of at least :data:`QUIET_SECONDS`
       whose total vertical force stays within :data:`QUIET_VARIATION` of its
       mean;
    2. whole steps between contacts: from the first to the last onset of
       contact after a flight (running, hopping: every contact on the plates,
       flights no longer than :data:`LONGEST_FLIGHT`), at least two steps;
    3. continuous loading (a treadmill, both belts measured): the mean over
       the longest stretch of at least :data:`CONTINUOUS_SECONDS` with the
       plates always loaded.

    The vertical is the axis carrying the most force (a file's own axes).
    """
    f = np.nansum(table.force, axis=1)  # (T, 3) total over the plates
    axis = int(np.argmax(np.nanmean(np.abs(f), axis=0)))
    fz = np.abs(f[:, axis])
    t = table.time
    dt = float(np.median(np.diff(t)))
    on = fz >= threshold
    edges = np.flatnonzero(np.diff(on.astype(int)))
    bounds = np.concatenate([[0], edges + 1, [len(on)]])
    runs = [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if on[a]]
    name = Path(table.source).name if table.source else "the plates"
    # 1. quiet standing: a stretch whose force stays within a few per cent of its mean
    win = max(int(round(QUIET_SECONDS / dt)), 2)
    if len(fz) >= win:
        w = sliding_window_view(fz, win)
        mean = w.mean(axis=1)
        ok = (mean >= threshold) & ((w.max(axis=1) - w.min(axis=1)) <= 2 * QUIET_VARIATION * mean)
        if ok.any():
            i = int(np.argmax(ok))
            j = i
            while j + 1 < len(ok) and ok[j + 1]:
                j += 1
            m = float(fz[i:j + win].mean()) / gravity
            return m, (f"mass {m:.1f} kg from {name}: mean vertical force of {(j + win - i) * dt:.1f} s of quiet "
                       "standing / g (no --mass given)")
    # 2. whole steps of a run or a hop: from the first to the last contact onset after a flight
    onsets = [a for a, _ in runs if a > 0]
    gaps = [(nxt[0] - cur[1]) * dt for cur, nxt in zip(runs[:-1], runs[1:], strict=True)]
    if len(onsets) >= 3 and gaps and max(gaps) <= LONGEST_FLIGHT:
        a, b = onsets[0], onsets[-1]
        m = float(fz[a:b].mean()) / gravity
        return m, (f"mass {m:.1f} kg from {name}: mean vertical force over {len(onsets) - 1} whole steps "
                   f"({(b - a) * dt:.1f} s, flights included) / g (no --mass given)")
    # 3. never off the plates: the longest continuous stretch
    if runs:
        a, b = max(runs, key=lambda r: r[1] - r[0])
        if (b - a) * dt >= CONTINUOUS_SECONDS and (b - a) >= 0.9 * len(fz):
            m = float(fz[a:b].mean()) / gravity
            return m, (f"mass {m:.1f} kg from {name}: mean vertical force over {(b - a) * dt:.1f} s of continuous "
                       "loading / g (no --mass given)")
    return None, "the plates show no quiet standing, whole running steps or continuous loading"
