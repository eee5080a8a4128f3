"""Muscles of an OpenSim model: paths and wrapping, lengths, lengthening velocities and moment arms;
muscle capacity, static optimization with reserves, joint reactions."""

from .reserves import Reserves, read_reserves, write_reserves
from .static_optimization import Optimum, solve

__all__ = ["Optimum", "Reserves", "read_reserves", "solve", "write_reserves"]
