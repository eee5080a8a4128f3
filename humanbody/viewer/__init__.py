"""The 3-D viewer: segments as inertia ellipsoids, joints, mass centres, vectors, markers.

* :mod:`~humanbody.viewer.scene` builds the geometry of each frame (no window), with
  :mod:`~humanbody.viewer.ellipsoids` (the solid drawn for each segment) and
  :mod:`~humanbody.viewer.timebase` (markers, residuals and force plates on the results' time base);
* :mod:`~humanbody.viewer.load` opens a raw trial or a results table as a scene;
* :mod:`~humanbody.viewer.app` is the interactive window (slider, keys, picking), its camera
  presets in :mod:`~humanbody.viewer.camera`;
* :mod:`~humanbody.viewer.render` writes screenshots and movies off screen.

Example::

    from humanbody.viewer import load_scene, screenshot, ViewerApp
    scene, messages = load_scene("data/sample_walk.csv", mass=75, height=1.75)
    screenshot(scene, "walk.png", frame=30)
    ViewerApp(scene).show()          # a window, needs a display

Needs the ``viewer`` extra (pyvista, imageio, imageio-ffmpeg).
"""

import importlib

#: Public name -> the submodule defining it, imported on first use (PEP 562): importing the package
#: (or :mod:`~humanbody.viewer.timebase`) does not load pyvista.
_WHERE = {
    "CAMERAS": "camera", "KEYS": "app", "ViewerApp": "app",
    "LAYERS": "scene", "VECTOR_LAYERS": "scene", "Scene": "scene", "ellipsoid_inertia": "ellipsoids",
    "ellipsoid_semi_axes": "ellipsoids",
    "load_scene": "load", "scene_from_analysis": "load",
    "movie": "render", "prepare_offscreen": "render", "screenshot": "render",
}

__all__ = sorted(_WHERE)


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
