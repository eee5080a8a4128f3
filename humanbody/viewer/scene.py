"""What the viewer draws, as plain geometry: no window, no renderer.

A :class:`Scene` turns a body model and the results of
:func:`humanbody.compute` into per-frame geometry in ground axes (X forward,
Y left, Z up, metres):

* every segment as its *equivalent uniform ellipsoid*: the solid ellipsoid of
  the segment's mass with the same inertia dyadic about G_k
  (:mod:`humanbody.viewer.ellipsoids`), centred at G_k and turned by
  ``R_k E_k``, where R_k is the absolute transformation S_0k and E_k holds
  the principal directions in the body frame (columns).
* joint points O_k, segment mass centres G_k, the whole-body mass centre and
  its trail;
* vectors drawn from G_k: angular velocity omega_k, inertia force F*_k,
  inertia torque T*_k, each with one scale (metres per unit) for the trial;
* the recorded markers (coloured by tracking residual when known) and ground
  reaction forces from force plates when given, on the results' time base
  (:mod:`humanbody.viewer.timebase`);
* a floor grid.

The window (:mod:`humanbody.viewer.app`) only moves actors to what this module
computes, so everything here is testable without rendering.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyvista as pv

from ..io.loads import LoadTable
from ..mechanics.clinical import CLINICAL_ANGLES
from ..mechanics.results import Results
from ..model.body import BodyModel
from ..signal import FORCE_THRESHOLD
from .ellipsoids import ellipsoid_inertia, ellipsoid_semi_axes
from .timebase import grf_on_time_base, markers_on_time_base, residuals_on_time_base

__all__ = [
    "Scene",
    "ellipsoid_semi_axes",
    "ellipsoid_inertia",
    "ARROW_LENGTHS",
    "VECTOR_LAYERS",
    "LAYERS",
]

#: Vector layers: name -> (Results attribute or "grf", label, unit, colour).
VECTOR_LAYERS: dict[str, tuple[str, str, str, str]] = {
    "omega": ("omega", "angular velocity", "rad/s", "magenta"),
    "force": ("force", "inertia force F*", "N", "orange"),
    "torque": ("torque", "inertia torque T*", "N m", "deepskyblue"),
    "grf": ("grf", "ground reaction force", "N", "limegreen"),
    "moment": ("joint_moment", "joint moment of the selected segment's joint", "N m", "red"),
}

#: Every layer the viewer can show, in the order the help lists them.
LAYERS: tuple[str, ...] = (
    "segments", "joints", "coms", "body_com", "markers", "floor", "omega", "force", "torque", "grf", "moment",
)

#: Length (m) of the longest arrow of the inertia vector layers over the trial.
ARROW_LENGTH = 0.35
#: Per layer: the ground reaction (about body weight) is drawn longer, like a force plate display.
ARROW_LENGTHS = {"omega": ARROW_LENGTH, "force": ARROW_LENGTH, "torque": ARROW_LENGTH, "grf": 0.8,
                 "moment": ARROW_LENGTH}

_REGION_COLOURS = {
    "left": "#5b8fd9",   # left limbs blue
    "right": "#d9675b",  # right limbs red
    "head": "#e8c9a0",
    "neck": "#e8c9a0",
    "torso": "#b8b8b8",
}


def _segment_colour(name: str) -> str:
    for key in ("left", "right", "head", "neck"):
        if key in name:
            return _REGION_COLOURS[key]
    return _REGION_COLOURS["torso"]


@dataclass(eq=False)
class Scene:
    """Per-frame geometry of one analysed trial, ground axes, metres.

    Parameters
    ----------
    model : BodyModel
        The model the results were computed with (masses, inertia about G_k).
    results : Results
        Output of :func:`humanbody.compute` (F frames, n segments).
    markers : DataFrame, optional
        Marker trajectories in ground axes (``<name>_x/_y/_z``, m, a ``time``
        column), resampled to the results' time base when it differs.
    residuals : DataFrame, optional
        Tracking residuals (m) per frame: columns named after markers, or
        after segments (markers then take the residual of the segment they
        belong to, see ``marker_segments``).
    marker_segments : dict, optional
        Marker name -> segment name.  Missing markers are assigned to the
        segment whose ellipsoid is nearest in the first frame.
    grf : LoadTable, optional
        Ground reaction forces in ground axes (:class:`humanbody.io.loads.LoadTable`:
        ``time``, per plate ``force`` (N) at ``point`` (centre of pressure, m);
        :func:`humanbody.io.loads.read_loads` reads every load file into one).
    title : str
        Shown in the window title and overlay.
    clinical : DataFrame, optional
        Clinical joint angles (degrees, one row per frame of ``results``;
        :mod:`humanbody.mechanics.clinical`): the selected segment's joint angles are
        listed with its values.
    joint_moment : ndarray (F, n, 3), optional
        Joint moments from inverse dynamics (N m, about each joint point,
        :mod:`humanbody.mechanics.kinetics`): the ``moment`` layer draws the selected
        segment's at its joint.
    plates : list of PlateGeometry, optional
        Force plates (:mod:`humanbody.io.forceplates`): drawn with the floor,
        where they are (raised, tilted).

    Attributes
    ----------
    semi : ndarray (n, 3)        ellipsoid semi-axes (m)
    principal : ndarray (n, 3, 3)  principal directions in the body frame (columns)
    vector_scale : dict          layer -> metres per unit of the quantity
    floor_z : float              height of the floor grid (m)
    """

    model: BodyModel
    results: Results
    markers: pd.DataFrame | None = None
    residuals: pd.DataFrame | None = None
    marker_segments: dict | None = None
    grf: LoadTable | None = None
    title: str = ""
    clinical: pd.DataFrame | None = None
    joint_moment: np.ndarray | None = None
    plates: list | None = None
    selected: int | None = None
    semi: np.ndarray = field(init=False)
    principal: np.ndarray = field(init=False)

    def __post_init__(self):
        res = self.results
        if tuple(res.names) != tuple(self.model.names):
            raise ValueError("results and model have different segments")
        self.semi, self.principal = ellipsoid_semi_axes(self.model.mass, self.model.inertia)
        self.time = np.asarray(res.time, dtype=float)
        self.names = tuple(res.names)
        self.colours = [_segment_colour(n) for n in self.names]
        self._marker_xyz, self.marker_names = markers_on_time_base(self.markers, self.time)
        self._marker_residual = None
        if self.residuals is not None and self._marker_xyz is not None:
            self._marker_residual = residuals_on_time_base(self.residuals, self.marker_names,
                                                           self._marker_segment_map(), self.time)
        self._grf_force, self._grf_point = grf_on_time_base(self.grf, self.time)
        self.vector_scale = {name: self._scale(name) for name in VECTOR_LAYERS}
        self.floor_z = self._floor_height()

    # ------------------------------------------------------------------ basics
    @property
    def n_frames(self) -> int:
        return int(self.time.shape[0])

    @property
    def n_segments(self) -> int:
        return len(self.names)

    @property
    def has_markers(self) -> bool:
        return self._marker_xyz is not None

    @property
    def has_residuals(self) -> bool:
        return self._marker_residual is not None

    @property
    def has_grf(self) -> bool:
        return self._grf_force is not None

    def frame_index(self, frame) -> int:
        """``frame`` clipped to 0 .. F-1 (negative counts from the end).

        Parameters
        ----------
        frame : int
            Frame index, 0-based; negative counts from the end.

        Returns
        -------
        int
            The frame index in 0 .. n_frames - 1.
        """
        f = int(frame)
        if f < 0:
            f += self.n_frames
        return int(np.clip(f, 0, self.n_frames - 1))

    # ------------------------------------------------------------- segments
    def ellipsoid_matrices(self, frame: int) -> np.ndarray:
        """Homogeneous transforms (n, 4, 4) mapping the unit sphere onto each ellipsoid.

        ``x_ground = G_k + R_k E_k diag(a, b, c) u`` for ``u`` on the unit sphere.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (n, 4, 4)
            One homogeneous transform per segment (0-based rows in body order); translation in m, ground frame.
        """
        f = self.frame_index(frame)
        R = self.results.R[f]  # (n, 3, 3) ground <- body
        lin = R @ self.principal * self.semi[:, None, :]
        out = np.zeros((self.n_segments, 4, 4))
        out[:, :3, :3] = lin
        out[:, :3, 3] = self.results.com[f]
        out[:, 3, 3] = 1.0
        return out

    def segment_mesh(self, k: int, frame: int, resolution: int = 24) -> pv.PolyData:
        """The ellipsoid of segment index ``k`` (0-based) at ``frame`` as a surface mesh.

        Parameters
        ----------
        k : int
            Segment index, 0-based (body number minus 1).
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).
        resolution : int
            The sphere's divisions.

        Returns
        -------
        pyvista.PolyData
            The ellipsoid's surface in the ground frame (m).
        """
        sphere = pv.Sphere(radius=1.0, theta_resolution=resolution, phi_resolution=resolution)
        return sphere.transform(self.ellipsoid_matrices(frame)[k], inplace=False)

    def lowest_point(self, frame: int) -> float:
        """Lowest height (m) of any segment ellipsoid at ``frame``.

        The extent of an ellipsoid ``G + M u`` (|u| = 1) along Z is
        ``|row_z(M)|``.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        float, m
            Lowest ground-frame Z of the ellipsoids' surfaces; NaN when the frame has no pose.
        """
        M = self.ellipsoid_matrices(frame)
        return float(np.min(M[:, 2, 3] - np.linalg.norm(M[:, 2, :3], axis=1)))

    def lowest_point_over_trial(self) -> float:
        """Lowest height (m) of any ellipsoid over the trial (60 evenly spread frames at most).

        Frames without a pose (no markers seen) are skipped; NaN when no frame has one.

        Returns
        -------
        float, m
            Lowest ground-frame Z over the sampled frames.
        """
        frames = np.unique(np.linspace(0, self.n_frames - 1, min(self.n_frames, 60)).astype(int))
        return float(np.fmin.reduce([self.lowest_point(f) for f in frames]))

    def _floor_height(self) -> float:
        low = self.lowest_point_over_trial()
        if self.has_markers and np.isfinite(self._marker_xyz[..., 2]).any():
            low = float(np.fmin(low, np.nanmin(self._marker_xyz[..., 2])))
        if not np.isfinite(low):
            return 0.0
        # ground at z = 0 when the body stands near it, else the lowest foot height
        return 0.0 if -0.05 <= low <= 0.15 else low

    def bounds(self, frame: int | None = None) -> np.ndarray:
        """Axis-aligned box (2, 3) around the ellipsoids: one frame, or the whole trial.

        Parameters
        ----------
        frame : int, optional
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1). None: the box around all
            frames.

        Returns
        -------
        ndarray, shape (2, 3), m
            Lower and upper corners.
        """
        frames = range(self.n_frames) if frame is None else [self.frame_index(frame)]
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        for f in frames:
            M = self.ellipsoid_matrices(f)
            ext = np.linalg.norm(M[:, :3, :3], axis=2)  # half extent along X, Y, Z
            # fmin/fmax skip NaN: a frame without a pose (no markers seen) adds nothing
            lo = np.fmin(lo, np.fmin.reduce(M[:, :3, 3] - ext, axis=0))
            hi = np.fmax(hi, np.fmax.reduce(M[:, :3, 3] + ext, axis=0))
        if frame is not None and not np.isfinite([lo, hi]).all():
            return self.bounds()  # that frame has no pose: the whole trial's box
        return np.array([lo, hi])

    def pick_segment(self, point, frame: int) -> int | None:
        """Index of the segment whose ellipsoid contains ``point`` (or is nearest to it).

        Parameters
        ----------
        point : array_like, shape (3,), m
            A point in the ground frame (m).
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        int or None
            Segment index, 0-based: the ellipsoid with the smallest normalized radius of point (1 on its surface);
            the code always gives one (None does not occur).
        """
        M = self.ellipsoid_matrices(frame)
        p = np.asarray(point, dtype=float)
        u = np.linalg.solve(M[:, :3, :3], (p - M[:, :3, 3])[..., None])[..., 0]
        r = np.linalg.norm(u, axis=1)  # 1 on the surface
        return int(np.argmin(r))

    # --------------------------------------------------------------- points
    def joints(self, frame: int) -> np.ndarray:
        """Joint points O_k (n, 3), m.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (n, 3), m
            Joint (segment origin) positions in the ground frame, one row per segment (0-based).
        """
        return self.results.joint[self.frame_index(frame)]

    def coms(self, frame: int) -> np.ndarray:
        """Segment mass centres G_k (n, 3), m.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (n, 3), m
            Mass-centre positions in the ground frame, one row per segment (0-based).
        """
        return self.results.com[self.frame_index(frame)]

    def body_com(self, frame: int) -> np.ndarray:
        """Whole-body mass centre (3,), m.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (3,), m
            Whole-body mass centre in the ground frame.
        """
        return self.results.body_com[self.frame_index(frame)]

    def body_com_trail(self, frame: int) -> np.ndarray:
        """Whole-body mass centre from the first frame up to ``frame`` (f+1, 3), m.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (frame + 1, 3), m
            Whole-body mass centre in the ground frame, one row per frame from frame 0 to frame (inclusive).
        """
        return self.results.body_com[: self.frame_index(frame) + 1]

    def pelvis(self, frame: int) -> np.ndarray:
        """Origin of body 1 (the pelvis / lower torso) at ``frame``, m.

        A frame without a pose (no markers seen) takes the nearest frame that has one,
        so that a camera following the pelvis stays put there.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (3,), m
            Pelvis origin in the ground frame (zeros when no frame has a pose).
        """
        f = self.frame_index(frame)
        p = self.results.joint[f, 0]
        if np.isfinite(p).all():
            return p
        ok = np.flatnonzero(np.isfinite(self.results.joint[:, 0]).all(axis=1))
        return self.results.joint[ok[np.argmin(np.abs(ok - f))], 0] if ok.size else np.zeros(3)

    # -------------------------------------------------------------- markers
    def _marker_segment_map(self) -> dict:
        """Marker -> segment: as given, else the segment with the nearest ellipsoid (first frame)."""
        given = dict(self.marker_segments or {})
        M = self.ellipsoid_matrices(0)
        inv = np.linalg.inv(M[:, :3, :3])
        first = self._marker_xyz[0]
        for j, m in enumerate(self.marker_names):
            if m in given or not np.all(np.isfinite(first[j])):
                continue
            u = np.einsum("kij,kj->ki", inv, first[j] - M[:, :3, 3])
            given[m] = self.names[int(np.argmin(np.linalg.norm(u, axis=1)))]
        return given

    def marker_points(self, frame: int) -> np.ndarray:
        """Recorded marker positions (m_markers, 3) at ``frame`` (NaN rows for gaps).

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (m_markers, 3), m
            Marker positions in the ground frame, in the scene's marker order; (0, 3) when the scene has no markers.
        """
        if self._marker_xyz is None:
            return np.empty((0, 3))
        return self._marker_xyz[self.frame_index(frame)]

    def marker_residuals(self, frame: int) -> np.ndarray | None:
        """Tracking residual (m) of each marker at ``frame``, or None when unknown.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        ndarray, shape (m_markers,), m, or None
            Distance between each recorded marker and its model point; None when the scene has no residuals.
        """
        if self._marker_residual is None:
            return None
        return self._marker_residual[self.frame_index(frame)]

    @property
    def residual_range(self) -> tuple[float, float]:
        """Colour range of the residuals (m): 0 to their 95th percentile."""
        if self._marker_residual is None:
            return (0.0, 0.0)
        finite = self._marker_residual[np.isfinite(self._marker_residual)]
        top = float(np.percentile(finite, 95)) if finite.size else 0.01
        return (0.0, max(top, 1e-4))

    # -------------------------------------------------------------- vectors
    def vectors(self, layer: str, frame: int) -> tuple[np.ndarray, np.ndarray]:
        """Origins (m, 3) and values (m, 3) of a vector layer at ``frame``, in the layer's units.

        ``omega``, ``force``, ``torque`` start at the mass centres G_k;
        ``grf`` starts at each plate's centre of pressure (plates carrying
        no more than :data:`~humanbody.signal.FORCE_THRESHOLD` are left out: their centre of pressure is undefined).

        Parameters
        ----------
        layer : str
            A key of VECTOR_LAYERS: omega, force, torque, grf or moment.
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        origins : ndarray, shape (m, 3), m
            Start points in the ground frame: mass centres, centres of pressure (grf) or the selected joint (moment).
        values : ndarray, shape (m, 3)
            The vectors in the ground frame, in the layer's units (rad/s, N or N m); empty (0, 3) when the layer has
            nothing to show.
        """
        f = self.frame_index(frame)
        if layer == "moment":
            if self.joint_moment is None or self.selected is None:
                return np.empty((0, 3)), np.empty((0, 3))
            k = self.selected
            return self.results.joint[f, k][None], self.joint_moment[f, k][None]
        if layer == "grf":
            if self._grf_force is None:
                return np.empty((0, 3)), np.empty((0, 3))
            F, P = self._grf_force[f], self._grf_point[f]
            ok = np.all(np.isfinite(F), axis=1) & np.all(np.isfinite(P), axis=1)
            ok &= np.linalg.norm(np.nan_to_num(F), axis=1) > FORCE_THRESHOLD
            return P[ok], F[ok]
        attr = VECTOR_LAYERS[layer][0]
        return self.results.com[f], getattr(self.results, attr)[f]

    def _scale(self, layer: str) -> float:
        """Metres per unit so that the largest vector of the trial is ``ARROW_LENGTHS[layer]`` long."""
        if layer == "grf":
            if self._grf_force is None:
                return 0.0
            mags = np.linalg.norm(self._grf_force, axis=-1)
        elif layer == "moment":
            if self.joint_moment is None:
                return 0.0
            mags = np.linalg.norm(self.joint_moment[:, 1:], axis=-1)  # the joints (body 1's is a residual)
        else:
            mags = np.linalg.norm(getattr(self.results, VECTOR_LAYERS[layer][0]), axis=-1)
        top = float(np.nanmax(mags)) if np.isfinite(mags).any() else 0.0
        return ARROW_LENGTHS[layer] / top if top > 0 else 0.0

    def arrows(self, layer: str, frame: int) -> pv.PolyData:
        """Arrow glyphs of a vector layer at ``frame`` (empty mesh when nothing to draw).

        Parameters
        ----------
        layer : str
            A key of VECTOR_LAYERS: omega, force, torque, grf or moment.
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        pyvista.PolyData
            One arrow per vector, scaled by the layer's vector_scale (m per unit), in the ground frame.
        """
        origin, value = self.vectors(layer, frame)
        vec = value * self.vector_scale[layer]
        length = np.linalg.norm(vec, axis=1)
        keep = np.isfinite(length) & (length > 1e-4)
        if not keep.any():
            return pv.PolyData()
        pts = pv.PolyData(origin[keep])
        pts["vec"] = vec[keep]
        pts["length"] = length[keep]
        arrow = pv.Arrow(tip_length=0.25, tip_radius=0.08, shaft_radius=0.03)
        return pts.glyph(orient="vec", scale="length", factor=1.0, geom=arrow)

    # ---------------------------------------------------------------- floor
    def floor_mesh(self, spacing: float = 0.5) -> pv.PolyData:
        """A grid of lines in the plane ``z = floor_z`` covering the trial plus a margin, and the plates' outlines.

        Parameters
        ----------
        spacing : float, m
            Distance between grid lines (m).

        Returns
        -------
        pyvista.PolyData
            Line segments (m, ground frame): the grid 1 m beyond the trial's box, then each plate's outline.
        """
        box = self.bounds()
        lo = np.floor((box[0, :2] - 1.0) / spacing) * spacing
        hi = np.ceil((box[1, :2] + 1.0) / spacing) * spacing
        nx = int(round((hi[0] - lo[0]) / spacing))
        ny = int(round((hi[1] - lo[1]) / spacing))
        xs = lo[0] + spacing * np.arange(nx + 1)
        ys = lo[1] + spacing * np.arange(ny + 1)
        z = self.floor_z
        pts, lines = [], []
        for x in xs:
            pts += [(x, ys[0], z), (x, ys[-1], z)]
        for y in ys:
            pts += [(xs[0], y, z), (xs[-1], y, z)]
        for plate in self.plates or ():  # each plate's outline where it is (stairs, ramps)
            c = np.asarray(plate.corners, dtype=float)
            for a, b in zip(c, np.roll(c, -1, axis=0), strict=True):
                pts += [tuple(a), tuple(b)]
        for i in range(0, len(pts), 2):
            lines += [2, i, i + 1]
        return pv.PolyData(np.array(pts, dtype=float), lines=np.array(lines))

    # --------------------------------------------------------------- values
    def segment_values(self, k: int, frame: int) -> list[str]:
        """Lines of text describing segment index ``k`` at ``frame`` (SI units).

        Parameters
        ----------
        k : int
            Segment index, 0-based (body number minus 1).
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        list of str
            Name, body number and mass, then G, v_G, omega, alpha, F*, T* (ground frame) and the joint's clinical
            angles.
        """
        f = self.frame_index(frame)
        r = self.results

        def vec(a):
            return "(" + ", ".join(f"{v:+8.2f}" for v in a) + ")"

        return [
            f"{self.names[k]}  (body {k + 1}, {self.model.mass[k]:.2f} kg)",
            f"G      {vec(r.com[f, k])} m",
            f"v_G    {vec(r.com_vel[f, k])} m/s",
            f"omega  {vec(r.omega[f, k])} rad/s",
            f"alpha  {vec(r.alpha[f, k])} rad/s^2",
            f"F*     {vec(r.force[f, k])} N",
            f"T*     {vec(r.torque[f, k])} N m",
        ] + self.joint_angle_lines(k, f)

    def joint_angle_lines(self, k: int, frame: int) -> list[str]:
        """The clinical angles of the joint segment index ``k`` moves at (its proximal joint), at ``frame``.

        Parameters
        ----------
        k : int
            Segment index, 0-based (body number minus 1).
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to 0 .. n_frames - 1).

        Returns
        -------
        list of str
            One line per clinical angle (deg) of the segment's proximal joint (and the foot progression for a foot);
            empty without clinical angles.
        """
        if self.clinical is None or not len(self.clinical):
            return []

        name = self.names[k]
        cols = [a.column for a in CLINICAL_ANGLES if a.segments[-1] == name and a.column in self.clinical]
        if name.endswith("_foot") and f"{name[:-5]}_foot_progression_deg" in self.clinical:
            cols.append(f"{name[:-5]}_foot_progression_deg")
        f = self.frame_index(frame)
        lines = []
        for c in cols:
            v = float(self.clinical[c].iloc[f]) if f < len(self.clinical) else float("nan")
            lines.append(f"{c[:-4].replace('_', ' '):<28} {v:+7.1f} deg")
        return lines

    def scale_legend(self, layers) -> list[str]:
        """One line per shown vector layer: colour name, what it is, and its scale.

        Parameters
        ----------
        layers : iterable of str
            The shown layers.

        Returns
        -------
        list of str
            "label (colour): 0.1 m = value unit" per layer with a non-zero scale.
        """
        out = []
        for layer in layers:
            s = self.vector_scale.get(layer, 0.0)
            if not s:
                continue
            _, label, unit, colour = VECTOR_LAYERS[layer]
            out.append(f"{label} ({colour}): 0.1 m = {0.1 / s:.3g} {unit}")
        return out
