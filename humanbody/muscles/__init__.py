"""Muscle forces and joint loads: muscle capacity, static optimization, reserves, joint reactions."""

from .reserves import Reserves, read_reserves
from .static_optimization import Optimum, solve

__all__ = ["Optimum", "Reserves", "read_reserves", "solve"]
