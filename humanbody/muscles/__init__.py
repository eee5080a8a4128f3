"""Muscles of an OpenSim model: paths and wrapping, lengths, lengthening velocities and moment arms.

How to get them for a model over a coordinates table::

    from humanbody.osim import read_osim
    from humanbody.muscles import MuscleGeometry, read_model_coordinates

    model = read_osim("model.osim")                  # humanbody.osim.OsimModel (frozen)
    geometry = MuscleGeometry.of(model)              # build once per model
    time, q = read_model_coordinates("ik.mot", model)      # (F,), (F, nq): rad, m, model.coordinate_names order
    paths = geometry.compute(q, qd=None)             # MusclePaths
    paths.lengths        # (F, M) m, model.muscle_names order
    paths.moment_arms    # (F, M, nq) m: -dL/dq, couplers' dependents following (their own column 0)
    paths.velocities     # (F, M) m/s when qd is given, else None
    points, counts = geometry.path_points(q)         # (F, M, P, 3) m in ground, NaN past counts[f, m]
    geometry.crossed     # {muscle: coordinates it crosses}
    geometry.core        # humanbody.osim.build.CoreModel: the core Model, q_index, body_index

Muscle forces (docs/muscles.md): :func:`solve` static optimization as OpenSim states it,
:mod:`.capacity` the muscles' capacity, :mod:`.trial` the whole chain of a trial with joint
reactions, :func:`read_reserves` / :func:`write_reserves` the reserve actuators.

Muscle parameters (max_isometric_force, optimal_fiber_length, tendon_slack_length,
pennation_angle_at_optimal, max_contraction_velocity) are on ``model.muscles[m]``.
"""

from .crossing import crossed_coordinates
from .geometry import MuscleGeometry, MusclePaths, read_model_coordinates
from .reserves import Reserves, read_reserves, write_reserves
from .static_optimization import Optimum, solve

__all__ = ["MuscleGeometry", "MusclePaths", "Optimum", "Reserves", "crossed_coordinates", "read_model_coordinates",
           "read_reserves", "solve", "write_reserves"]
