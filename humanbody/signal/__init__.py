"""Signals: smoothing differentiation, low-pass filters, NaN-aware reductions."""

#: The low-pass cut-off (Hz) of walking kinematics (Winter 2009): the default of the marker filter, of the
#: smoothing differentiation and of the force plates' filter (through the markers').
CUTOFF_HZ = 6.0

