"""Camera of the viewer window: presets that frame the trial, and a camera riding on a segment.

:class:`CameraControls` is the camera half of
:class:`~humanbody.viewer.app.ViewerApp`: it places the
:class:`pyvista.Plotter`'s camera so a box around the trial (or around the
pelvis, following it) fills a 30 degree view, or keeps it at a fixed pose in
one segment's axes (``x_ground = O_k + R_k x_body``) so it moves and turns with
that segment.  It uses the window's ``plotter``, ``scene`` and ``frame`` and
its ``_update_text`` and ``render``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyvista as pv

    from .scene import Scene

__all__ = ["CAMERAS", "CameraControls"]

#: Camera presets: direction from the focal point to the camera, view-up.
CAMERAS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "side": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),   # from the subject's right, progression to the right
    "top": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),     # from above, progression to the right
    "follow": ((0.55, -1.0, 0.35), (0.0, 0.0, 1.0)),
}


class CameraControls:
    """Camera presets and the segment-attached camera of a viewer window (a mixin)."""

    # what the window (ViewerApp) provides
    plotter: pv.Plotter
    scene: Scene
    frame: int
    camera: str
    _attached: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None  # segment, camera pose in its axes
    _follow_offset: tuple[np.ndarray, ...] | None  # () while attached to a segment

    if TYPE_CHECKING:
        def _update_text(self) -> None: ...

        def render(self) -> None: ...

    def set_camera(self, preset: str, render: bool = True) -> None:
        """Camera preset: ``front``, ``side``, ``top`` (whole trial), ``follow`` (the pelvis) or
        ``follow:SEGMENT`` (attached to that segment's frame: it moves and turns with the segment).

        Parameters
        ----------
        preset : str
            "front", "side", "top", "follow" or "follow:SEGMENT".
        render : bool
            Redraw now.
        """
        if preset.startswith("follow:"):
            self.attach(preset.split(":", 1)[1], render=render)
            return
        if preset not in CAMERAS:
            raise KeyError(f"no camera preset {preset!r}; presets: {', '.join(CAMERAS)}, follow:SEGMENT")
        self.camera = preset
        self._attached = None
        s = self.scene
        if preset == "follow":
            box = s.bounds(self.frame)
            centre = s.pelvis(self.frame).copy()
            centre[2] = 0.5 * (box[0, 2] + box[1, 2])
            size = (box[1] - box[0]) + np.array([0.2, 0.2, 0.1])
            pos, focal, up = self._fit(centre, size, preset)
            self._follow_offset = (pos - s.pelvis(self.frame), focal - s.pelvis(self.frame), up)
        else:
            self._follow_offset = None
            box = s.bounds()
            pos, focal, up = self._fit(box.mean(axis=0), box[1] - box[0], preset)
        self._place(pos, focal, up)
        self._update_text()
        if render:
            self.render()

    def _fit(self, centre, size, preset):
        """Camera position so a box of ``size`` (m) around ``centre`` fills the view (30 deg)."""
        d, up = (np.asarray(v, dtype=float) for v in CAMERAS[preset])
        d /= np.linalg.norm(d)
        up = up - d * (up @ d)
        up /= np.linalg.norm(up)
        right = np.cross(-d, up)
        half = 0.5 * np.asarray(size, dtype=float)
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
        w = np.abs(corners @ right).max()
        h = np.abs(corners @ up).max()
        depth = np.abs(corners @ d).max()
        width, height = self.plotter.window_size
        tan = np.tan(np.radians(15.0))
        dist = 1.08 * max(h / tan, w / (tan * width / height)) + depth
        return np.asarray(centre) + d * dist, np.asarray(centre, dtype=float), up

    def _place(self, pos, focal, up) -> None:
        cam = self.plotter.camera
        cam.view_angle = 30.0
        cam.position = tuple(pos)
        cam.focal_point = tuple(focal)
        cam.up = tuple(up)
        self.plotter.renderer.ResetCameraClippingRange()

    def _place_follow_camera(self) -> None:
        if self._attached is not None:  # rigidly attached to a segment frame: offsets in its body axes
            k, pos, focal, up = self._attached
            f = self.scene.frame_index(self.frame)
            R, O = self.scene.results.R[f, k], self.scene.results.joint[f, k]
            self._place(O + R @ pos, O + R @ focal, R @ up)
            return
        p = self.scene.pelvis(self.frame)
        assert self._follow_offset is not None  # the follow preset set it
        off_pos, off_focal, up = self._follow_offset
        self._place(p + off_pos, p + off_focal, up)

    def attach(self, segment, render: bool = True) -> None:
        """Attach the camera to a segment's frame (name or 0-based index): the view the segment would have
        of the body, turning with it (the trunk's view of the head, say).  The camera starts as the
        ``follow`` preset sees the segment and keeps that pose in the segment's axes.

        Parameters
        ----------
        segment : str or int
            The segment's name or 0-based index.
        render : bool
            Redraw now.
        """
        s = self.scene
        k = s.names.index(segment) if isinstance(segment, str) and segment in s.names else segment
        if not isinstance(k, (int, np.integer)) or not 0 <= int(k) < s.n_segments:
            raise KeyError(f"no segment {segment!r}; segments: {', '.join(s.names)}")
        k = int(k)
        f = s.frame_index(self.frame)
        R, O = s.results.R[f, k], s.results.joint[f, k]
        pos, focal, up = self._fit(O, np.array([1.2, 1.2, 1.2]), "follow")
        self._attached = (k, R.T @ (pos - O), R.T @ (focal - O), R.T @ up)
        self.camera = "follow"
        self._follow_offset = ()
        self._place_follow_camera()
        self._update_text()
        if render:
            self.render()
