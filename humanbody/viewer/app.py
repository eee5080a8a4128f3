"""The viewer window: actors for a :class:`~humanbody.viewer.scene.Scene`, time, keys, widgets.

:class:`ViewerApp` owns one :class:`pyvista.Plotter`.  Off screen (no
interactor) it is what :mod:`humanbody.viewer.render` uses for screenshots and
movies; on screen it adds a frame slider, play and loop check boxes, a check
box per layer, key bindings, a play timer and segment picking by clicking.
Everything a key or widget does is a public method (``set_frame``, ``step``,
``toggle``, ``set_camera``, ``select``, ...) so it can be driven and tested
without a person at the keyboard.  The camera presets and the camera riding
on a segment are :mod:`humanbody.viewer.camera`'s.
"""

from __future__ import annotations

import time as _time
from typing import Any

import numpy as np
import pyvista as pv

from .camera import CAMERAS, CameraControls
from .scene import LAYERS, VECTOR_LAYERS, Scene

__all__ = ["ViewerApp", "KEYS", "CAMERAS"]

#: Key -> (method name, argument, description).  Keys VTK and pyvista already
#: use (q e f u r w s p 3 b v C and the arrows Up/Down) are avoided, except q = quit.
KEYS: dict[str, tuple[str, object, str]] = {
    "space": ("toggle_play", None, "play / pause"),
    "Right": ("step", 1, "next frame"),
    "Left": ("step", -1, "previous frame"),
    "bracketright": ("change_speed", 2.0, "faster (x2)"),
    "bracketleft": ("change_speed", 0.5, "slower (/2)"),
    "Home": ("set_frame", 0, "first frame"),
    "l": ("toggle_loop", None, "loop on / off"),
    "x": ("set_camera", "front", "camera: front"),
    "y": ("set_camera", "side", "camera: side (right)"),
    "z": ("set_camera", "top", "camera: top"),
    "c": ("set_camera", "follow", "camera: follow the pelvis"),
    "k": ("toggle", "segments", "segments (inertia ellipsoids)"),
    "j": ("toggle", "joints", "joints"),
    "n": ("toggle", "coms", "segment mass centres"),
    "a": ("toggle", "body_com", "body mass centre + trail"),
    "m": ("toggle", "markers", "recorded markers"),
    "d": ("toggle", "floor", "floor grid"),
    "o": ("toggle", "omega", "angular velocity"),
    "i": ("toggle", "force", "inertia force F*"),
    "t": ("toggle", "torque", "inertia torque T*"),
    "g": ("toggle", "grf", "ground reaction force"),
    "r": ("toggle", "moment", "joint moment of the selected segment's joint"),
    "h": ("toggle_help", None, "this help"),
}

_DEFAULT_ON = ("segments", "joints", "coms", "body_com", "markers", "floor")
_JOINT_RADIUS = 0.022
_COM_RADIUS = 0.014
_BODY_COM_RADIUS = 0.035
_MARKER_RADIUS = 0.011
_SELECTED_COLOUR = "yellow"
#: Segments are a little transparent so mass centres and vectors inside them show.
SEGMENT_OPACITY = 0.6


def _spheres(points: np.ndarray, radius: float, **arrays) -> pv.PolyData:
    """Sphere glyphs at the finite rows of ``points``; point arrays carried along."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    ok = np.all(np.isfinite(points), axis=1)
    if not ok.any():
        return pv.PolyData()
    cloud = pv.PolyData(points[ok])
    for name, values in arrays.items():
        cloud[name] = np.asarray(values, dtype=float)[ok]
    return cloud.glyph(geom=pv.Sphere(radius=radius, theta_resolution=12, phi_resolution=12),
                       scale=False, orient=False)


def _polyline(points: np.ndarray) -> pv.PolyData:
    points = np.asarray(points, dtype=float)
    points = points[np.isfinite(points).all(axis=1)]  # frames without a pose leave no point
    if len(points) < 2:
        return pv.PolyData()
    return pv.lines_from_points(points)


class ViewerApp(CameraControls):
    """An interactive (or off-screen) 3-D view of one analysed trial.

    Parameters
    ----------
    scene : Scene
    off_screen : bool
        Render without a window (screenshots, movies, tests).
    window_size : (int, int)
        Pixels (width, height).
    layers : iterable of str, optional
        Layers shown at start (default: segments, joints, mass centres,
        body mass centre, markers, floor; vectors off).
    camera : str
        Start camera: a key of :data:`CAMERAS` or ``"auto"`` (side view when
        the whole trial fits in 3.5 m, else follow the pelvis).
    widgets : bool, optional
        Add slider, check boxes, keys and picking (default: when on screen).
    """

    def __init__(self, scene: Scene, *, off_screen: bool = False, window_size=(1280, 800),
                 layers=None, camera: str = "auto", widgets: bool | None = None):
        self.scene = scene
        theme = pv.themes.DocumentTheme()
        theme.allow_empty_mesh = True
        theme.font.color = "black"
        title = f"humanbody view: {scene.title}" if scene.title else "humanbody view"
        self.plotter = pv.Plotter(off_screen=off_screen, window_size=list(window_size), theme=theme, title=title)
        self.plotter.set_background("white", top="#dfe8f2")  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
        self.frame = 0
        self.playing = False
        self.speed = 1.0
        self.loop = True
        self.selected: int | None = None
        self.help_shown = False
        self.camera = "side"
        self._play_clock: float | None = None
        self._play_position = 0.0
        self._follow_offset = None
        self._attached = None
        self._slider = None
        self._checkboxes: dict[str, Any] = {}  # VTK button widgets (VTK has no stubs)
        self._updating_widgets = False
        wanted = set(_DEFAULT_ON if layers is None else layers)
        self.visible = {layer: (layer in wanted and self.available(layer)) for layer in LAYERS}
        self._meshes: dict[str, pv.PolyData] = {}
        self._actors: dict[str, pv.Actor] = {}
        self._segment_actors: list = []
        self._build_actors()
        if widgets is None:
            widgets = not off_screen
        if widgets and self.plotter.iren is not None:
            self._build_widgets()
        self.set_frame(0, render=False)
        if camera == "auto":
            box = scene.bounds()
            camera = "side" if np.all(box[1, :2] - box[0, :2] < 3.5) else "follow"
        self.set_camera(camera, render=False)

    # ------------------------------------------------------------- building
    def available(self, layer: str) -> bool:
        """Whether the trial has data for ``layer``.

        Parameters
        ----------
        layer : str
            A layer name of humanbody.viewer.scene.LAYERS.

        Returns
        -------
        bool
            True when the layer has something to draw.
        """
        if layer == "markers":
            return self.scene.has_markers
        if layer == "grf":
            return self.scene.has_grf
        if layer in VECTOR_LAYERS:
            return self.scene.vector_scale.get(layer, 0.0) > 0
        return True

    def _add(self, layer: str, mesh: pv.PolyData, **kwargs):
        self._meshes[layer] = mesh
        actor = self.plotter.add_mesh(mesh, name=layer, pickable=False, reset_camera=False, **kwargs)
        self._actors[layer] = actor
        return actor

    def _build_actors(self) -> None:
        s = self.scene
        p = self.plotter
        unit = pv.Sphere(radius=1.0, theta_resolution=32, phi_resolution=24)
        for k, name in enumerate(s.names):
            actor = p.add_mesh(unit, color=s.colours[k], smooth_shading=True, name=f"segment:{name}",
                               pickable=True, reset_camera=False, specular=0.3, opacity=SEGMENT_OPACITY)
            self._segment_actors.append(actor)
        self._actor_segment = {id(a): k for k, a in enumerate(self._segment_actors)}
        self._add("floor", s.floor_mesh(), color="#9aa4ad", line_width=1)
        self._add("joints", pv.PolyData(), color="#303030", smooth_shading=True)
        self._add("coms", pv.PolyData(), color="black", smooth_shading=True)
        self._add("body_com", pv.PolyData(), color="#e0a000", smooth_shading=True)
        self._add("trail", pv.PolyData(), color="#e0a000", line_width=3)
        if s.has_residuals:
            lo, hi = s.residual_range
            placeholder = _spheres(np.zeros((1, 3)), _MARKER_RADIUS, residual_mm=[0.0])
            self._add("markers", placeholder, scalars="residual_mm", clim=[lo * 1e3, hi * 1e3],
                      cmap="plasma", nan_color="#808080",
                      scalar_bar_args={"title": "residual (mm)", "vertical": True,
                                       "position_x": 0.86, "position_y": 0.3, "height": 0.4, "width": 0.05,
                                       "fmt": "%.0f" if hi * 1e3 >= 5 else "%.2f"})
        else:
            self._add("markers", pv.PolyData(), color="white", smooth_shading=True)
        for layer in VECTOR_LAYERS:
            self._add(layer, pv.PolyData(), color=VECTOR_LAYERS[layer][3], smooth_shading=True)
        self._status = p.add_text("", position="upper_left", font_size=11, name="status")
        # the selected segment's values sit under the status lines, top-justified, in viewport units
        self._values = p.add_text("", position=(0.005, 0.86), viewport=True, font_size=9, name="values",
                                  font="courier")
        self._values.GetTextProperty().SetVerticalJustificationToTop()
        self._values.SetTextScaleModeToNone()  # same point size as the corner texts
        self._help = p.add_text("", position="upper_right", font_size=9, name="help", font="courier")
        self._legend = p.add_text("", position="lower_right", font_size=9, name="legend")
        for layer in LAYERS:
            self._apply_visibility(layer)

    def _build_widgets(self) -> None:
        p = self.plotter
        n = self.scene.n_frames
        if n > 1:
            self._slider = p.add_slider_widget(
                self._on_slider, rng=[0, n - 1], value=0, title=None, fmt="%.0f",  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
                pointa=(0.22, 0.05), pointb=(0.6, 0.05), style="modern", interaction_event="always",
            )
        y = 10
        self._checkboxes["play"] = p.add_checkbox_button_widget(
            lambda on: self.play() if on else self.pause(), value=False, position=(10, y), size=24,  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
            color_on="#40a040", color_off="#c0c0c0")
        p.add_text("play", position=(40, y + 2), font_size=9, name="label:play")
        self._checkboxes["loop"] = p.add_checkbox_button_widget(
            self._set_loop, value=self.loop, position=(100, y), size=24,  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
            color_on="#40a040", color_off="#c0c0c0")
        p.add_text("loop", position=(130, y + 2), font_size=9, name="label:loop")
        y = 45  # layer check boxes: a column above play / loop
        for layer in reversed(LAYERS):
            if not self.available(layer):
                continue
            self._checkboxes[layer] = p.add_checkbox_button_widget(
                lambda on, _l=layer: self.show_layer(_l, on), value=self.visible[layer],  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
                position=(10, y), size=18, color_on="#4060c0", color_off="#c0c0c0")
            p.add_text(layer.replace("_", " "), position=(34, y + 1), font_size=8, name=f"label:{layer}")
            y += 22
        for key, (method, arg, _) in KEYS.items():
            fn = getattr(self, method)
            p.add_key_event(key, (lambda f=fn, a=arg: f() if a is None else f(a)))  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
        p.enable_mesh_picking(self._on_pick, use_actor=True, show=False, show_message=False,  # type: ignore[arg-type]  # pyvista types functools.wraps(unbound method): self first
                              left_clicking=True)
        iren = p.iren
        assert iren is not None  # a plotter has its interactor until it is closed
        iren.add_observer("TimerEvent", self._on_timer)
        iren.create_timer(30, repeating=True)

    # ----------------------------------------------------------------- time
    def set_frame(self, frame: int, render: bool = True) -> None:
        """Show frame ``frame`` (clipped to the trial) and update every layer and text.

        Parameters
        ----------
        frame : int
            Frame index, 0-based (negative counts from the end; clipped to the trial).
        render : bool
            Redraw now.
        """
        s = self.scene
        self.frame = f = s.frame_index(frame)
        M = s.ellipsoid_matrices(f)
        hidden = np.zeros((4, 4))  # no pose in this frame (no markers seen): the ellipsoid shrinks to nothing
        hidden[3, 3] = 1.0
        for k, actor in enumerate(self._segment_actors):
            actor.user_matrix = M[k] if np.isfinite(M[k]).all() else hidden
        self._set_mesh("joints", _spheres(s.joints(f), _JOINT_RADIUS))
        self._set_mesh("coms", _spheres(s.coms(f), _COM_RADIUS))
        self._set_mesh("body_com", _spheres(s.body_com(f)[None], _BODY_COM_RADIUS))
        self._set_mesh("trail", _polyline(s.body_com_trail(f)))
        if s.has_markers:
            res = s.marker_residuals(f)
            extra = {} if res is None else {"residual_mm": res * 1e3}
            self._set_mesh("markers", _spheres(s.marker_points(f), _MARKER_RADIUS, **extra))
        for layer in VECTOR_LAYERS:
            if self.visible[layer]:
                self._set_mesh(layer, s.arrows(layer, f))
        if self.camera == "follow" and self._follow_offset is not None:
            self._place_follow_camera()
        elif self.camera == "follow":
            self.set_camera("follow", render=False)
        self._update_text()
        if self._slider is not None and not self._updating_widgets:
            self._slider.GetRepresentation().SetValue(f)
        if render:
            self.render()

    def _set_mesh(self, layer: str, mesh: pv.PolyData) -> None:
        self._meshes[layer].copy_from(mesh)

    def step(self, n: int = 1) -> None:
        """Move ``n`` frames (wraps around when looping).

        Parameters
        ----------
        n : int
            Frames to move (negative: backwards).
        """
        f = self.frame + int(n)
        if self.loop:
            f %= self.scene.n_frames
        self.set_frame(f)

    def play(self) -> None:
        """Start playing in real time times :attr:`speed` (timer-driven when on screen)."""
        self.playing = True
        self._play_clock = _time.perf_counter()
        self._play_position = float(self.frame)
        self._sync_checkbox("play", True)
        self._update_text()
        self.render()

    def pause(self) -> None:
        self.playing = False
        self._sync_checkbox("play", False)
        self._update_text()
        self.render()

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def change_speed(self, factor: float) -> None:
        """Multiply the play speed by ``factor`` (kept within 1/16 .. 16).

        Parameters
        ----------
        factor : float
            The factor (e.g. 2 or 0.5).
        """
        self.speed = float(np.clip(self.speed * factor, 1 / 16, 16))
        self._update_text()
        self.render()

    def toggle_loop(self) -> None:
        self._set_loop(not self.loop)

    def _set_loop(self, on: bool) -> None:
        self.loop = bool(on)
        self._sync_checkbox("loop", self.loop)
        self._update_text()
        self.render()

    def advance(self, seconds: float) -> None:
        """Advance the playing motion by ``seconds`` of wall-clock time (one timer tick).

        Parameters
        ----------
        seconds : float, s
            Wall-clock time since the last tick (multiplied by the play speed).
        """
        s = self.scene
        if s.n_frames < 2:
            return
        dt = float(np.median(np.diff(s.time)))
        self._play_position += seconds * self.speed / dt
        f = int(round(self._play_position))
        if f >= s.n_frames:
            if self.loop:
                self._play_position %= s.n_frames
                f = int(round(self._play_position)) % s.n_frames
            else:
                f = s.n_frames - 1
                self.playing = False
                self._sync_checkbox("play", False)
        if f != self.frame or not self.playing:
            self.set_frame(f)

    def _on_timer(self, *_):
        if not self.playing:
            return
        now = _time.perf_counter()
        elapsed = now - (self._play_clock or now)
        self._play_clock = now
        self.advance(elapsed)

    def _on_slider(self, value) -> None:
        self._updating_widgets = True
        try:
            self.set_frame(int(round(value)))
        finally:
            self._updating_widgets = False

    # --------------------------------------------------------------- layers
    def show_layer(self, layer: str, on: bool = True) -> None:
        """Show or hide ``layer`` (a name in :data:`humanbody.viewer.scene.LAYERS`).

        Parameters
        ----------
        layer : str
            A layer name of humanbody.viewer.scene.LAYERS.
        on : bool
            Show (True) or hide (False).
        """
        if layer not in LAYERS:
            raise KeyError(f"no layer {layer!r}; layers: {', '.join(LAYERS)}")
        self.visible[layer] = bool(on) and self.available(layer)
        if layer in VECTOR_LAYERS and self.visible[layer]:
            self._set_mesh(layer, self.scene.arrows(layer, self.frame))
        self._apply_visibility(layer)
        self._sync_checkbox(layer, self.visible[layer])
        self._update_text()
        self.render()

    def toggle(self, layer: str) -> None:
        """Show ``layer`` when hidden, hide it when shown.

        Parameters
        ----------
        layer : str
            A layer name of humanbody.viewer.scene.LAYERS.
        """
        self.show_layer(layer, not self.visible[layer])

    def _apply_visibility(self, layer: str) -> None:
        on = self.visible[layer]
        if layer == "segments":
            for actor in self._segment_actors:
                actor.visibility = on
            return
        self._actors[layer].visibility = on
        if layer == "body_com":
            self._actors["trail"].visibility = on
        if layer == "markers" and self.scene.has_residuals:
            for bar in self.plotter.scalar_bars.values():
                bar.SetVisibility(on)

    # ---------------------------------------------------------------- picking
    def select(self, k: int | None) -> None:
        """Select segment index ``k`` (0-based; None clears): highlight it, show its values.

        Parameters
        ----------
        k : int or None
            Segment index, 0-based (body number minus 1), or None.
        """
        if self.selected is not None:
            self._segment_actors[self.selected].prop.color = self.scene.colours[self.selected]
        self.selected = None if k is None else int(k)
        self.scene.selected = self.selected  # the joint-moment layer follows the selection
        if self.selected is not None:
            self._segment_actors[self.selected].prop.color = _SELECTED_COLOUR
        if self.visible.get("moment"):
            self._set_mesh("moment", self.scene.arrows("moment", self.frame))
        self._update_text()
        self.render()

    def _on_pick(self, actor, *_):
        k = self._actor_segment.get(id(actor))
        if k is None:
            picker = getattr(self.plotter, "picked_point", None)
            if picker is not None and np.all(np.isfinite(picker)):
                k = self.scene.pick_segment(picker, self.frame)
        if k is not None:
            self.select(k)

    # ------------------------------------------------------------------ text
    def toggle_help(self) -> None:
        self.help_shown = not self.help_shown
        self._update_text()
        self.render()

    def help_text(self) -> str:
        """The key bindings, one per line.

        Returns
        -------
        str
            "key: action" lines.
        """
        names = {"space": "space", "bracketright": "]", "bracketleft": "[", "Right": "->", "Left": "<-"}
        lines = [f"{names.get(k, k):>5}  {desc}" for k, (_, _, desc) in KEYS.items()]
        lines += ["click  select a segment", "    q  quit"]
        return "\n".join(lines)

    def status_text(self) -> str:
        """The status overlay: title, frame and time, playing or paused, speed and the selected segment's values.

        Returns
        -------
        str
            The overlay's lines.
        """
        s = self.scene
        f = self.frame
        state = "playing" if self.playing else "paused"
        loop = ", loop" if self.loop else ""
        head = f"{s.title}\n" if s.title else ""
        return (f"{head}t = {s.time[f]:.3f} s   frame {f}/{s.n_frames - 1}\n"
                f"{state} x{self.speed:g}{loop}   camera: {self.camera}")

    def _update_text(self) -> None:
        shown = [layer for layer in VECTOR_LAYERS if self.visible[layer]]
        values = "" if self.selected is None else "\n".join(self.scene.segment_values(self.selected, self.frame))
        self.texts = {
            "upper_left": self.status_text(),
            "values": values,
            "upper_right": self.help_text() if self.help_shown else "h: keys",
            "lower_right": "\n".join(self.scene.scale_legend(shown)),
        }
        for actor, corner in ((self._status, "upper_left"), (self._help, "upper_right"),
                              (self._legend, "lower_right")):
            actor.set_text(corner, self.texts[corner])
        self._values.SetInput(values)

    def _sync_checkbox(self, name: str, on: bool) -> None:
        box = self._checkboxes.get(name)
        if box is not None:
            box.GetRepresentation().SetState(int(bool(on)))

    # ------------------------------------------------------------ rendering
    def render(self) -> None:
        if self.plotter.render_window is not None:
            self.plotter.render()

    def image(self) -> np.ndarray:
        """The current picture as an RGB array (height, width, 3), uint8.

        Returns
        -------
        ndarray of uint8, shape (height, width, 3)
            The rendered window's pixels, top row first.
        """
        self.plotter.render()
        return np.asarray(self.plotter.screenshot(return_img=True))

    def show(self, **kwargs):
        """Open the window (blocks until it is closed unless ``interactive_update=True``).

        Parameters
        ----------
        **kwargs
            Passed to :meth:`pyvista.Plotter.show`.

        Returns
        -------
        object
            What :meth:`pyvista.Plotter.show` returns.
        """
        return self.plotter.show(**kwargs)

    def close(self) -> None:
        self.plotter.close()
