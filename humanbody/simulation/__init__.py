"""Simulation: the spec file, passive elements, forward simulation, linearisation, vibration."""
