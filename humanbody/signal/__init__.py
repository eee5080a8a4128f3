"""Signals: smoothing differentiation, low-pass filters, NaN-aware reductions."""
