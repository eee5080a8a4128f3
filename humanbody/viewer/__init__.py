"""The 3-D viewer: segments as inertia ellipsoids, joints, mass centres, vectors, markers.

* :mod:`~humanbody.viewer.scene` builds the geometry of each frame (no window);
* :mod:`~humanbody.viewer.load` opens a raw trial or a results table as a scene;
* :mod:`~humanbody.viewer.app` is the interactive window (slider, keys, picking);
* :mod:`~humanbody.viewer.render` writes screenshots and movies off screen.

Example::

    from humanbody.viewer import load_scene, screenshot, ViewerApp
    scene, messages = load_scene("data/sample_walk.csv", mass=75, height=1.75)
    screenshot(scene, "walk.png", frame=30)
    ViewerApp(scene).show()          # a window, needs a display

Needs the ``viewer`` extra (pyvista, imageio, imageio-ffmpeg).
"""

from .app import CAMERAS, KEYS, ViewerApp
from .scene import LAYERS, VECTOR_LAYERS, Scene, ellipsoid_inertia, ellipsoid_semi_axes
from .load import load_scene, scene_from_analysis
from .render import movie, prepare_offscreen, screenshot


__all__ = [
    "CAMERAS", "KEYS", "LAYERS", "VECTOR_LAYERS", "Scene", "ViewerApp", "ellipsoid_inertia",
    "ellipsoid_semi_axes", "load_scene", "movie", "prepare_offscreen", "scene_from_analysis", "screenshot",
]
