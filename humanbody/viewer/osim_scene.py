"""An OpenSim model over a table of its coordinates, drawn: its bodies and its muscle paths.

:func:`load_osim_scene` computes, for every frame of an OpenSim coordinates file
(``.mot``/``.sto``, such as ``humanbody analyze --model MODEL.osim``'s ``<trial>_ik.mot``),
every body's origin in ground (the core's kinematics of the model) and every muscle's current
path (its active points and the tangent points of its wraps, :meth:`MuscleGeometry.path_points`),
and, from an activations table (``time`` and one column per muscle, 0..1, such as
``<trial>_activations.csv``), each muscle's activation at the frame's time (linear
interpolation; held at the table's ends).  :func:`draw_osim` draws one frame with pyvista: the
bodies as spheres at their origins joined to their parents' origins, the muscle paths as lines,
red by default or coloured by activation (``coolwarm``, 0 blue .. 1 red; grey where the table
has no column for the muscle).  :func:`osim_screenshot` renders off screen into a PNG.
The model and files are in OpenSim's axes (Y up); the camera looks along -Z with Y up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyvista as pv

from ..atomic import atomic_path
from ..core import forward_kinematics
from ..errors import InputError
from ..muscles import MuscleGeometry, read_model_coordinates
from ..osim import read_osim
from ..osim.build import build_core_model

__all__ = ["OsimScene", "load_osim_scene", "draw_osim", "osim_screenshot"]


@dataclass(frozen=True)
class OsimScene:
    """What :func:`draw_osim` draws, for F frames.

    Attributes
    ----------
    time : (F,)  s
    origins : (F, B, 3)  bodies' origins in ground (m; ground first)
    parents : (B,)  each body's parent body (index into the bodies; -1 for ground)
    paths : (F, M, P, 3)  muscle path points in ground (m; NaN past each path's last point)
    counts : (F, M)  points in each path
    activations : (F, M) or None  0..1; NaN where the table has no column for the muscle
    body_names, muscle_names : names of the bodies and muscles
    notes : what the model holds that is not supported (one line each; the paths pass through
        unsupported wrap surfaces)
    """

    time: np.ndarray
    origins: np.ndarray
    parents: np.ndarray
    paths: np.ndarray
    counts: np.ndarray
    activations: np.ndarray | None
    body_names: tuple[str, ...]
    muscle_names: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def n_frames(self) -> int:
        return len(self.time)


def _activations(path, time: np.ndarray, muscles: tuple[str, ...]) -> np.ndarray:
    """(F, M) activations at ``time`` from the table at ``path`` (NaN for a muscle it lacks)."""
    try:
        table = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as e:
        raise InputError(f"{path}: cannot read the activations table ({e})") from None
    if "time" not in table.columns:
        raise InputError(f"{path}: the activations table has no 'time' column")
    common = [m for m in muscles if m in table.columns]
    if not common:
        raise InputError(f"{path}: no column of the activations table names a muscle of the model")
    t = table["time"].to_numpy(dtype=float)
    out = np.full((len(time), len(muscles)), np.nan)
    for i, m in enumerate(muscles):
        if m in table.columns:
            out[:, i] = np.interp(time, t, table[m].to_numpy(dtype=float))
    return out


def load_osim_scene(coordinates: str | os.PathLike, model: str | os.PathLike,
                    activations: str | os.PathLike | None = None) -> OsimScene:
    """The model's bodies and muscle paths over the coordinates file (see the module notes).

    Parameters
    ----------
    coordinates : str or os.PathLike
        An OpenSim coordinates table (.mot/.sto; degrees or radians).
    model : str or os.PathLike
        The OpenSim model (.osim).
    activations : str or os.PathLike, optional
        A CSV with ``time`` (s) and one column per muscle (0..1).

    Returns
    -------
    OsimScene
        The bodies' origins and the muscle paths per frame (m, OpenSim ground: Y up), with the activations.
    """
    osim = read_osim(model)
    time, q = read_model_coordinates(coordinates, osim)
    geometry = MuscleGeometry.of(osim)
    paths, counts = geometry.path_points(q)
    core = build_core_model(osim)
    data = forward_kinematics(core.model, core.to_core(q))
    bi = core.body_index
    origins = np.zeros((len(q), len(bi), 3))
    origins[:, 1:] = data.origin[:, bi[1:]]
    index = {n: i for i, n in enumerate(osim.body_names)}
    parents = np.full(len(bi), -1, np.int64)
    for j in osim.joints:
        parents[index[j.child_frame.body]] = index[j.parent_frame.body]
    act = None if activations is None else _activations(activations, time, osim.muscle_names)
    return OsimScene(time, origins, parents, paths, counts, act, osim.body_names, osim.muscle_names,
                     geometry.notes)


def _muscle_lines(scene: OsimScene, frame: int) -> pv.PolyData:
    """The muscle paths of ``frame`` as one PolyData of polylines, ``activation`` on its cells."""
    points, lines, values = [], [], []
    start = 0
    for m in range(scene.paths.shape[1]):
        n = int(scene.counts[frame, m])
        if n < 2:
            continue
        points.append(scene.paths[frame, m, :n])
        lines.append(np.concatenate([[n], np.arange(start, start + n)]))
        start += n
        values.append(np.nan if scene.activations is None else scene.activations[frame, m])
    poly = pv.PolyData(np.vstack(points), lines=np.concatenate(lines)) if points else pv.PolyData()
    if points:
        poly.cell_data["activation"] = np.array(values)
    return poly


def draw_osim(plotter: pv.Plotter, scene: OsimScene, frame: int = 0) -> None:
    """Add ``frame`` of ``scene`` to ``plotter``: bodies, their links, the muscle paths, and a Y-up camera.

    Parameters
    ----------
    plotter : pyvista.Plotter
        The plotter to draw into.
    scene : OsimScene
        The model's bodies and muscle paths over the trial.
    frame : int
        Frame index, 0-based.
    """
    o = scene.origins[frame]
    bodies = np.flatnonzero(scene.parents >= 0)
    plotter.add_mesh(pv.PolyData(o[bodies]).glyph(geom=pv.Sphere(radius=0.015), scale=False, orient=False),
                     color="lightgray", name="bodies")
    linked = np.flatnonzero(scene.parents > 0)         # a body on ground has no link drawn
    if len(linked):
        segs = np.hstack([np.full((len(linked), 1), 2), np.column_stack([scene.parents[linked], linked])])
        plotter.add_mesh(pv.PolyData(o, lines=segs.ravel()), color="dimgray", line_width=4, name="links")
    muscles = _muscle_lines(scene, frame)
    if muscles.n_points:
        if scene.activations is None:
            plotter.add_mesh(muscles, color="firebrick", line_width=3, name="muscles")
        else:
            plotter.add_mesh(muscles, scalars="activation", cmap="coolwarm", clim=(0.0, 1.0), nan_color="gray",
                             line_width=3, name="muscles", scalar_bar_args={"title": "activation"})
    plotter.view_xy()  # type: ignore[call-arg]  # pyvista types functools.wraps(unbound method): self first
    plotter.camera.up = (0.0, 1.0, 0.0)
    plotter.reset_camera()  # type: ignore[call-arg]  # as above


def osim_screenshot(scene: OsimScene, path, *, frame: int = 0, size=(1280, 800)) -> str:
    """Render ``frame`` of ``scene`` off screen into a PNG (written atomically); the path written.

    Parameters
    ----------
    scene : OsimScene
        The model's bodies and muscle paths over the trial.
    path : str or os.PathLike
        The PNG file to write.
    frame : int
        Frame index, 0-based.
    size : (int, int)
        Pixels (width, height).

    Returns
    -------
    str
        The path written.
    """
    from .render import prepare_offscreen  # lazy: sets VTK's window class before the first window

    if not -scene.n_frames <= frame < scene.n_frames:
        raise InputError(f"`frame` {frame} is outside the trial (0 .. {scene.n_frames - 1})")
    prepare_offscreen()
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    try:
        draw_osim(plotter, scene, frame)
        with atomic_path(path, suffix=".png") as tmp:
            plotter.screenshot(str(tmp))
    finally:
        plotter.close()
    return str(path)
