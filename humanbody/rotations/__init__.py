"""Orientation library: angle sequences, Euler parameters, axis-angle, conversions.

All functions are vectorised over leading dimensions and return float64
NumPy arrays: angles ``(..., 3)``, Euler parameters ``(..., 4)`` stored
``(eps1, eps2, eps3, eps4)`` with the scalar last, matrices ``(..., 3, 3)``.
A transformation matrix ``S`` maps body components to parent components,
``v_parent = S @ v_body`` (Huston eq. 8.73); see docs/orientation.md.
The rate relations are in :mod:`humanbody.mechanics.angular_rates`.
"""

from ._convert import convert
from .angles import (
    bryant_to_matrix,
    euler_to_matrix,
    is_singular,
    matrix_to_bryant,
    matrix_to_euler,
    singular_distance,
    singular_factor,
)
from .common import CARDAN, EULER, SEQUENCES, is_euler_sequence, sequence_axes, skew, unskew
from .quaternions import (
    axis_angle_to_matrix,
    axis_angle_to_quaternion,
    bryant_to_quaternion,
    matrix_to_axis_angle,
    matrix_to_quaternion,
    quaternion_product,
    quaternion_to_axis_angle,
    quaternion_to_matrix,
    rotate,
    rotation_dyadic,
    rotation_vector_to_quaternion,
    sequence_to_quaternion,
)

__all__ = [
    "CARDAN", "EULER", "SEQUENCES", "axis_angle_to_matrix", "axis_angle_to_quaternion", "bryant_to_matrix",
    "bryant_to_quaternion", "convert", "euler_to_matrix", "is_euler_sequence", "is_singular", "matrix_to_axis_angle",
    "matrix_to_bryant", "matrix_to_euler", "matrix_to_quaternion", "quaternion_product", "quaternion_to_axis_angle",
    "quaternion_to_matrix", "rotate", "rotation_dyadic", "rotation_vector_to_quaternion", "sequence_axes", "sequence_to_quaternion", "singular_distance",
    "singular_factor", "skew", "unskew",
]
