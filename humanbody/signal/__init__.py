"""Signals: smoothing differentiation, low-pass filters, NaN-aware reductions."""

#: The low-pass cut-off (Hz) of walking kinematics (Winter 2009): the default of the marker filter, of the
#: smoothing differentiation and of the force plates' filter (through the markers').
CUTOFF_HZ = 6.0

#: Vertical force (N) below which a force plate's load is taken as zero (no contact): the default of the
#: loads' zeroing, the force events, the plates' contact and the viewer's ground reaction arrows.
FORCE_THRESHOLD = 20.0

